// Device DSS (sum and mean) against the host apply_dss, in both schedules (one
// pass on a level that fills a box, three axis passes): same pairing, same
// arithmetic, so the results agree bit for bit; on unstructured levels with
// the skeleton phase. The device Dirichlet mask,
// built on that DSS, is the host's bit for bit: boxes and a level with a
// refinement edge, boundary ids that change along a face plane, all ids or a
// subset. The device level data's table of the sub-boxes above the cells
// (which the one-pass vertex kernels read) against the cells' lattice
// positions. The mixed-precision rounding with the Hermite rebalancing
// inside against the passes it fuses.

#include <cellwise/storage/cuda_dirichlet_mask.h>
#include <cellwise/storage/cuda_dss.h>
#include <cellwise/storage/cuda_rebalanced_rounding.h>
#include <cellwise/mesh/box_builder.h>
#include <cellwise/mesh/unstructured_builder.h>
#include <cellwise/storage/dirichlet_mask.h>
#include <cellwise/storage/dss.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <limits>
#include <map>
#include <vector>

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

// Unstructured levels (the ball: 7 coarse cells in different frames, skeleton
// faces between them): the axis passes over the structured pairs, then the
// skeleton phase, against the host apply_dss with its DssSkeleton, bit for
// bit, sum and mean, degrees 1..4, L = 0..2 (56 cells at L = 1: groups not
// a multiple of the block). The level data needs the degree there, and a
// vector of another degree or the Hermite layers are refused.
TYPED_TEST(CudaDss, unstructured_levels_match_host)
{
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  using HostVector = typename TestFixture::HostVector;
  using Vector     = typename TestFixture::Vector;
  for (const int L : {0, 1, 2})
    {
      const LevelHierarchy h     = make_unstructured_hierarchy(make_ball_coarse_mesh(), L, 2);
      const Level         &level = h.levels.back();
      ASSERT_TRUE(level.has_skeleton());
      EXPECT_THROW(cuda::LevelData{level}, Error);
      for (unsigned int degree = 1; degree <= 4; ++degree)
        {
          const cuda::LevelData level_data(level, degree);
          EXPECT_TRUE(level_data.has_skeleton());
          EXPECT_FALSE(level_data.fills_box());
          const DssSkeleton skeleton(level, degree);
          for (const DssMode mode : {DssMode::sum, DssMode::mean})
            {
              SCOPED_TRACE(::testing::Message() << "L = " << L << ", degree " << degree << ", "
                                                << (mode == DssMode::sum ? "sum" : "mean"));
              HostVector expected(level.n_cells(), degree);
              fill_random(expected, 90 + 10 * L + degree);
              Vector v = to_device(expected);
              apply_dss(level, skeleton, expected, mode);
              cuda::apply_dss(level_data, v, mode);
              EXPECT_EQ(relative_difference(to_host(v), expected), 0.);
            }
          // the device Dirichlet mask (its marker summed over the skeleton too)
          Vector mask;
          cuda::make_dirichlet_mask(level_data, degree, {0}, mask);
          EXPECT_EQ(relative_difference(to_host(mask), make_dirichlet_mask<typename TestFixture::Number, typename TestFixture::Layout>(
                                                          level, degree, {0})),
                    0.);
          Vector other(level.n_cells(), degree + 1);
          EXPECT_THROW(cuda::apply_dss(level_data, other), Error);
          if (degree == 3)
            {
              Vector hermite(level.n_cells(), 3);
              EXPECT_THROW(cuda::apply_dss(level_data, hermite, DssMode::sum, hermite_trace_layers()), Error);
            }
        }
    }
}

// Both trace layers of the cubic Hermite element (values 2 <-> 0, normal
// derivatives 3 <-> 1): the axis passes over two layers and the one-pass
// vertex gather against the host cascade, bit for bit, on boxes of 105 (not a
// multiple of 32) and 192 cells and a level with a refinement edge (axis
// passes only; the one pass is refused there); two layers other than the
// Hermite element's are refused by the one pass.
TYPED_TEST(CudaDss, hermite_layers_match_host)
{
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  using HostVector = typename TestFixture::HostVector;
  using Vector     = typename TestFixture::Vector;

  LevelHierarchy local = make_box_hierarchy(BoxDescription{}, 1);
  refine_finest_level(local, CellOrdering::child_major, [&](unsigned int c) { return local.level(1).child_slot[c] != 7; });
  const LevelHierarchy meshes[] = {coarse_box(), refined_box(CellOrdering::child_major), local};
  const TraceLayers    layers   = hermite_trace_layers();
  unsigned int         seed     = 70;
  for (const LevelHierarchy &mesh : meshes)
    {
      const Level          &level = mesh.levels.back();
      const cuda::LevelData level_data(level);
      for (const DssMode mode : {DssMode::sum, DssMode::mean})
        for (const cuda::DssSchedule schedule :
             {cuda::DssSchedule::automatic, cuda::DssSchedule::axis_passes, cuda::DssSchedule::one_pass})
          {
            if (schedule == cuda::DssSchedule::one_pass && !level.fills_box())
              continue;
            SCOPED_TRACE(::testing::Message() << level.n_cells() << " cells, " << (mode == DssMode::sum ? "sum" : "mean")
                                              << ", schedule " << static_cast<int>(schedule));
            HostVector expected(level.n_cells(), 3);
            fill_random(expected, ++seed);
            Vector v = to_device(expected);
            apply_dss(level, expected, mode, layers);
            cuda::apply_dss(level_data, v, mode, layers, schedule);
            EXPECT_EQ(relative_difference(to_host(v), expected), 0.);
            // FE_Q's single layer gives a different result on the same data
            Vector lagrange = to_device(expected);
            cuda::apply_dss(level_data, lagrange, mode, cuda::DssSchedule::axis_passes);
            EXPECT_GT(relative_difference(to_host(lagrange), expected), 0.);
          }
      Vector v(level.n_cells(), 3);
      if (level.fills_box())
        {
          const TraceLayers crossed = {4, 2, {2, 3}, {1, 0}}; // values with derivatives
          EXPECT_THROW(cuda::apply_dss(level_data, v, DssMode::sum, crossed, cuda::DssSchedule::one_pass), Error);
        }
      else
        EXPECT_THROW(cuda::apply_dss(level_data, v, DssMode::sum, layers, cuda::DssSchedule::one_pass), Error);
      Vector quadratic(level.n_cells(), 2);
      EXPECT_THROW(cuda::apply_dss(level_data, quadratic, DssMode::sum, layers), Error);
    }
}

TYPED_TEST(CudaDss, dirichlet_mask_matches_host)
{
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  using Number = typename TestFixture::Number;
  using Layout = typename TestFixture::Layout;
  using Vector = typename TestFixture::Vector;

  LevelHierarchy local = make_box_hierarchy(BoxDescription{}, 1);
  refine_finest_level(local, CellOrdering::child_major, [&](unsigned int c) { return local.level(1).child_slot[c] != 7; });
  // ids that change along a plane of the boundary (a DoF on the line between
  // two ids is reached through the neighbour's face only: the DSS's part)
  LevelHierarchy mixed = make_box_hierarchy(BoxDescription{{0., 0., 0.}, {1.5, 1., 0.5}, {3, 2, 1}}, 2);
  Level         &top   = mixed.levels.back();
  for (unsigned int c = 0; c < top.n_cells(); ++c)
    for (int &neighbor : top.neighbors[c])
      if (face_neighbor::is_boundary(neighbor))
        neighbor = face_neighbor::boundary(face_neighbor::boundary_id(neighbor) + 6 * (c % 3));
  const LevelHierarchy                  meshes[] = {refined_box(CellOrdering::child_major), local, mixed};
  const std::vector<std::vector<unsigned int>> id_sets = {{}, {0}, {1, 4}, {0, 6, 13}};
  for (const LevelHierarchy &mesh : meshes)
    {
      const Level          &level = mesh.levels.back();
      const cuda::LevelData level_data(level);
      for (const unsigned int degree : {1u, 2u, 3u, 5u})
        for (const auto &ids : id_sets)
          {
            SCOPED_TRACE(::testing::Message() << level.n_cells() << " cells of degree " << degree << ", " << ids.size()
                                              << " ids");
            const auto expected = ::cellwise::make_dirichlet_mask<Number, Layout>(level, degree, ids);
            Vector     mask;
            cuda::make_dirichlet_mask(level_data, degree, ids, mask);
            const auto got = to_host(mask);
            ASSERT_EQ(got.n_cells(), expected.n_cells());
            for (unsigned int c = 0; c < level.n_cells(); ++c)
              for (unsigned int i = 0; i < expected.dofs_per_cell(); ++i)
                ASSERT_EQ(got(c, i), expected(c, i)) << "cell " << c << ", DoF " << i;
          }
    }
  std::vector<unsigned int> too_many(cuda::max_device_dirichlet_ids + 1);
  const cuda::LevelData     level_data(local.levels.back());
  Vector                    mask;
  EXPECT_THROW(cuda::make_dirichlet_mask(level_data, 2, too_many, mask), Error);
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

namespace
{
  /// cuda::add_rebalance_and_round and round_rebalanced against the three
  /// device passes they fuse, bit for bit, and the host's DSS: FP64
  /// residuals of random copies, the FP32 output poisoned with NaN (every
  /// entry must be written, the corners of the box included).
  template <typename Layout>
  void
  check_rebalanced_rounding()
  {
    using Vector   = CellVector<double, MemorySpace::CUDA, Layout>;
    using Vector32 = CellVector<float, MemorySpace::CUDA, Layout>;
    using Host     = CellVector<double, MemorySpace::Host, Layout>;
    const TraceLayers layers = hermite_trace_layers();
    unsigned int      seed   = 90;
    for (const LevelHierarchy &mesh : {coarse_box(), refined_box(CellOrdering::child_major)})
      {
        const Level          &level = mesh.levels.back();
        const cuda::LevelData level_data(level);
        SCOPED_TRACE(::testing::Message() << level.n_cells() << " cells");
        Host r_host(level.n_cells(), 3), q_host(level.n_cells(), 3);
        fill_random(r_host, ++seed);
        fill_random(q_host, ++seed);
        const double a = -0.37;
        const Vector q = to_device(q_host);

        // the update form: r ← Π(r + a q), rounded = fl32(r)
        Vector expected = to_device(r_host);
        expected.add(a, q);
        cuda::apply_dss(level_data, expected, DssMode::mean, layers);
        Vector32 expected32(level.n_cells(), 3);
        expected32.copy_from(expected);
        Host expected_host = r_host;
        expected_host.add(a, q_host);
        apply_dss(level, expected_host, DssMode::mean, layers);
        // the device's add contracts a q + r to one FMA, the host's does not
        EXPECT_LE(relative_difference(to_host(expected), expected_host), 1e-15);

        Vector   r = to_device(r_host);
        Vector32 rounded(level.n_cells(), 3);
        rounded.fill(std::numeric_limits<float>::quiet_NaN());
        cuda::add_rebalance_and_round(level_data, r, a, q, rounded);
        EXPECT_EQ(relative_difference(to_host(r), to_host(expected)), 0.);
        EXPECT_EQ(relative_difference(to_host(rounded), to_host(expected32)), 0.);

        // the rounding form: rounded = fl32(Π r), r untouched
        Vector plain = to_device(r_host);
        cuda::apply_dss(level_data, plain, DssMode::mean, layers);
        expected32.copy_from(plain);
        const Vector r0 = to_device(r_host);
        rounded.fill(std::numeric_limits<float>::quiet_NaN());
        cuda::round_rebalanced(level_data, r0, rounded);
        EXPECT_EQ(relative_difference(to_host(rounded), to_host(expected32)), 0.);
        EXPECT_EQ(relative_difference(to_host(r0), r_host), 0.);
        // Π changed the copies: the test compares something
        EXPECT_GT(relative_difference(to_host(plain), r_host), 1e-3);

        Vector quadratic(level.n_cells(), 2);
        EXPECT_THROW(cuda::round_rebalanced(level_data, quadratic, rounded), Error);
        EXPECT_THROW(cuda::add_rebalance_and_round(level_data, r, a, r, rounded), Error);
      }
    // a level that does not fill a box has no sub-box table: refused
    LevelHierarchy local = make_box_hierarchy(BoxDescription{}, 1);
    refine_finest_level(local, CellOrdering::child_major, [&](unsigned int c) { return local.level(1).child_slot[c] != 7; });
    const cuda::LevelData local_data(local.levels.back());
    Vector                r(local.levels.back().n_cells(), 3);
    Vector32              rounded;
    EXPECT_THROW(cuda::round_rebalanced(local_data, r, rounded), Error);
  }
} // namespace

TEST(CudaRebalancedRounding, is_the_update_the_mean_dss_and_the_rounding_bit_for_bit)
{
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  check_rebalanced_rounding<CellContiguous>();
  check_rebalanced_rounding<CellBlocked<32>>();
}

// The sub-box table of a level that fills a box against the lattice positions
// of its cells (not the composition of face neighbours that builds it): slot s
// of a cell is the cell one position up along the axes of s, or -1 past the
// box; slot 0 holds the bits of the axes with a cell below. The table is made
// at the first call and kept; a level with a refinement edge has none (a
// clear error).
TEST(CudaLevelData, sub_boxes_are_the_cells_above_each_cell)
{
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  LevelHierarchy local = make_box_hierarchy(BoxDescription{}, 1);
  refine_finest_level(local, CellOrdering::child_major, [&](unsigned int c) { return local.level(1).child_slot[c] != 7; });
  const LevelHierarchy boxes[] = {refined_box(CellOrdering::child_major), refined_box(CellOrdering::cell_major), coarse_box()};
  for (const LevelHierarchy &mesh : boxes)
    {
      const Level          &level = mesh.levels.back();
      const cuda::LevelData level_data(level);
      ASSERT_TRUE(level_data.fills_box());
      ASSERT_NE(level_data.sub_boxes(), nullptr);
      EXPECT_EQ(level_data.sub_boxes(), level_data.sub_boxes()) << "made once";
      std::vector<int> table(8 * std::size_t(level.n_cells()));
      CELLWISE_CUDA_CHECK(cudaMemcpy(table.data(), level_data.sub_boxes(), table.size() * sizeof(int), cudaMemcpyDeviceToHost));
      std::map<std::array<int, 3>, int> at;
      std::array<int, 3>                lo = level.coordinates[0], hi = level.coordinates[0];
      for (unsigned int c = 0; c < level.n_cells(); ++c)
        {
          at[level.coordinates[c]] = static_cast<int>(c);
          for (unsigned int d = 0; d < 3; ++d)
            {
              lo[d] = std::min(lo[d], level.coordinates[c][d]);
              hi[d] = std::max(hi[d], level.coordinates[c][d]);
            }
        }
      for (unsigned int c = 0; c < level.n_cells(); ++c)
        {
          const std::array<int, 3> x = level.coordinates[c];
          int                      below = 0;
          for (unsigned int d = 0; d < 3; ++d)
            below |= (x[d] > lo[d]) << d;
          EXPECT_EQ(table[8 * std::size_t(c)], below) << "cell " << c;
          for (unsigned int s = 1; s < 8; ++s)
            {
              const std::array<int, 3> y = {{x[0] + int(s & 1), x[1] + int((s >> 1) & 1), x[2] + int((s >> 2) & 1)}};
              const bool inside = y[0] <= hi[0] && y[1] <= hi[1] && y[2] <= hi[2];
              EXPECT_EQ(table[8 * std::size_t(c) + s], inside ? at.at(y) : -1) << "cell " << c << ", slot " << s;
            }
        }
    }
  const cuda::LevelData edge(local.levels.back());
  EXPECT_FALSE(edge.fills_box());
  EXPECT_THROW(edge.sub_boxes(), Error);
}
