// Device DSS (sum and mean) against the host apply_dss: same passes, same
// pairing, same arithmetic, so the results agree bit for bit.

#include <cellwise/cuda/dss.h>
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

  const LevelHierarchy meshes[] = {refined_box(CellOrdering::child_major), refined_box(CellOrdering::cell_major),
                                   coarse_box()};
  for (const LevelHierarchy &mesh : meshes)
    {
      const Level          &level = mesh.levels.back();
      const cuda::LevelData level_data(level);
      ASSERT_EQ(level_data.n_cells(), level.n_cells());
      for (unsigned int degree = 1; degree <= 8; ++degree)
        for (const DssMode mode : {DssMode::sum, DssMode::mean})
          {
            SCOPED_TRACE(::testing::Message() << level.n_cells() << " cells of degree " << degree << ", "
                                              << (mode == DssMode::sum ? "sum" : "mean"));
            HostVector expected(level.n_cells(), degree);
            fill_random(expected, 40 + degree);
            Vector v = to_device(expected);
            apply_dss(level, expected, mode);
            cuda::apply_dss(level_data, v, mode);
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
}
