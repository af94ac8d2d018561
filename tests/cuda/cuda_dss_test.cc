// Device DSS (sum and mean) against the host apply_dss, in both schedules (one
// pass on a level that fills a box, three axis passes): same pairing, same
// arithmetic, so the results agree bit for bit.

#include <cellwise/storage/cuda_dss.h>
#include <cellwise/mesh/box_builder.h>
#include <cellwise/storage/dss.h>

#include <gtest/gtest.h>

#include "cuda/cuda_test_utilities.h"
#include "test_utilities.h"

using namespace cellwise;
using namespace cellwise::testing;

template <typename Pair>
class CudaDss : public ::testing::Test
{
public:
  using Number     = typename Pair::first_type;
  using Layout     = typename Pair::second_type;
  using HostVector = CellVector<Number, MemorySpace::Host, Layout>;
  using Vector     = CellVector<Number, MemorySpace::CUDA, Layout>;
};
TYPED_TEST_SUITE(CudaDss, NumberLayoutPairs);

TYPED_TEST(CudaDss, sum_and_mean_match_host)
{
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  using HostVector = typename TestFixture::HostVector;
  using Vector     = typename TestFixture::Vector;

  // three levels that fill a box (one pass in the blocked layout), and a
  // level with a refinement edge (axis passes only); every schedule each level
  // allows
  LevelHierarchy local = make_box_hierarchy(BoxDescription{}, 1);
  refine_finest_level(local, CellOrdering::child_major, [&](unsigned int c) { return local.level(1).child_slot[c] != 7; });
  const LevelHierarchy meshes[] = {refined_box(CellOrdering::child_major), refined_box(CellOrdering::cell_major),
                                   coarse_box(), local};
  for (const LevelHierarchy &mesh : meshes)
    {
      const Level          &level = mesh.levels.back();
      const cuda::LevelData level_data(level);
      ASSERT_EQ(level_data.n_cells(), level.n_cells());
      EXPECT_EQ(level_data.fills_box(), &mesh != &meshes[3]);
      for (unsigned int degree = 1; degree <= 8; ++degree)
        for (const DssMode mode : {DssMode::sum, DssMode::mean})
          for (const cuda::DssSchedule schedule :
               {cuda::DssSchedule::automatic, cuda::DssSchedule::axis_passes, cuda::DssSchedule::one_pass})
            {
              if (schedule == cuda::DssSchedule::one_pass && !level.fills_box())
                continue;
              SCOPED_TRACE(::testing::Message() << level.n_cells() << " cells of degree " << degree << ", "
                                                << (mode == DssMode::sum ? "sum" : "mean") << ", schedule "
                                                << static_cast<int>(schedule));
              HostVector expected(level.n_cells(), degree);
              fill_random(expected, 40 + degree);
              Vector v = to_device(expected);
              apply_dss(level, expected, mode);
              cuda::apply_dss(level_data, v, mode, schedule);
              EXPECT_EQ(relative_difference(to_host(v), expected), 0.);
            }
    }
}

TYPED_TEST(CudaDss, rejects_vector_of_another_level)
{
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  using Vector                    = typename TestFixture::Vector;
  const LevelHierarchy  mesh      = coarse_box();
  const cuda::LevelData level_data(mesh.levels.back());
  Vector                v(mesh.levels.back().n_cells() + 1, 2);
  EXPECT_THROW(cuda::apply_dss(level_data, v), Error);

  // the one pass needs a level that fills a box
  LevelHierarchy local = make_box_hierarchy(BoxDescription{}, 1);
  refine_finest_level(local, CellOrdering::child_major, [&](unsigned int c) { return c != 3; });
  const cuda::LevelData edge(local.levels.back());
  Vector                w(local.levels.back().n_cells(), 2);
  EXPECT_THROW(cuda::apply_dss(edge, w, DssMode::sum, cuda::DssSchedule::one_pass), Error);
}
