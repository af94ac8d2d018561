// The device vertex-block patch smoother of the Hermite element against the
// host smoother (its oracle) on the same seeded data, FP64 and FP32, both
// layouts: the patch counts, one colour step, and whole smoothing steps
// (forward and reverse, one and two sweeps, from a given u and from zero
// with u poisoned by NaN), on the full and on a two-block grid (each block
// then loops over many groups of 32 patches). Meshes: a refined box of 192
// cells, a box of 105 cells of aspect ratio != 1, the finest level of an
// octant refinement (a refinement edge: its vertices carry no patch and
// must stay untouched) and a level without patches; a level of several cell
// sizes is refused.

#include <cellwise/mesh/adaptive_builder.h>
#include <cellwise/mesh/box_builder.h>
#include <cellwise/multigrid/adaptive_v_cycle.h>
#include <cellwise/multigrid/cuda_hermite_vertex_patch_smoother.h>
#include <cellwise/multigrid/hermite_vertex_patch_smoother.h>
#include <cellwise/operators/hermite_biharmonic_operator.h>

#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "cuda/cuda_test_utilities.h"
#include "test_utilities.h"

using namespace cellwise;
using namespace cellwise::testing;

template <typename Pair>
class CudaHermitePatchSmoother : public ::testing::Test
{
public:
  using Number     = typename Pair::first_type;
  using Layout     = typename Pair::second_type;
  using HostVector = CellVector<Number, MemorySpace::Host, Layout>;
  using Vector     = CellVector<Number, MemorySpace::CUDA, Layout>;
};
TYPED_TEST_SUITE(CudaHermitePatchSmoother, NumberLayoutPairs);

TYPED_TEST(CudaHermitePatchSmoother, matches_host)
{
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  using Number     = typename TestFixture::Number;
  using Layout     = typename TestFixture::Layout;
  using HostVector = typename TestFixture::HostVector;
  using Vector     = typename TestFixture::Vector;
  const double       tol = device_tolerance<Number>();
  const Number       nan = std::numeric_limits<Number>::quiet_NaN();
  const unsigned int p   = hermite::storage_degree;

  BoxDescription flat;
  flat.subdivisions = {{2, 1, 1}};
  const std::vector<std::pair<std::string, Level>> meshes = {
    {"refined box", refined_box().levels.back()},
    {"coarse box", coarse_box().levels.back()},
    {"octant refinement, finest level",
     make_adaptive_box_hierarchy(BoxDescription{}, 1, 2, make_octant_marker(BoxDescription{})).levels.back()},
    {"two cells (no patch)", make_box_hierarchy(flat, 0).levels.back()}};
  unsigned int seed = 0;
  for (const auto &[name, level] : meshes)
    for (const unsigned int sweeps : {1u, 2u})
      {
        const HermiteBiharmonicOperator<Number, Layout>        host_op(level);
        const HermiteVertexPatchSmoother<Number, Layout>       host(level, host_op, sweeps);
        cuda::HermiteVertexPatchSmoother<Number, Layout>       device(level, sweeps);
        EXPECT_EQ(device.n_cells(), level.n_cells());
        for (unsigned int colour = 0; colour < 8; ++colour)
          EXPECT_EQ(device.n_patches(colour), host.patches().n_patches(colour)) << name << ", colour " << colour;
        for (const unsigned int grid_limit : {0u, 2u})
          {
            device.limit_grid(grid_limit);
            HostVector hu(level.n_cells(), p), hb(level.n_cells(), p);
            fill_random(hu, ++seed);
            fill_random(hb, ++seed);
            const Vector db = to_device(hb);
            {
              SCOPED_TRACE(::testing::Message() << name << ", colour step, grid limit " << grid_limit);
              HostVector expected = hu;
              host.apply_colour(expected, hb, 5);
              Vector du = to_device(hu);
              device.apply_colour(du, db, 5);
              EXPECT_LE(relative_difference(to_host(du), expected), tol);
            }
            for (const SweepDirection direction : {SweepDirection::forward, SweepDirection::reverse})
              for (const bool zero : {false, true})
                {
                  SCOPED_TRACE(::testing::Message() << name << ", " << sweeps << " sweeps, "
                                                    << (direction == SweepDirection::forward ? "forward" : "reverse")
                                                    << (zero ? ", from zero" : ", from u") << ", grid limit " << grid_limit);
                  HostVector expected = hu;
                  host.smooth(expected, hb, zero, direction);
                  Vector du = to_device(hu);
                  if (zero)
                    du.fill(nan);
                  device.smooth(du, db, zero, direction);
                  EXPECT_LE(relative_difference(to_host(du), expected), tol);
                }
          }
      }
}

TEST(CudaHermitePatchSmootherChecks, RefusesBadInput)
{
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  // the active cells of an octant refinement: cells of three sizes
  const ActiveMesh adaptive = make_active_mesh(make_adaptive_box_hierarchy(BoxDescription{}, 1, 2, make_octant_marker(BoxDescription{})));
  EXPECT_THROW(cuda::HermiteVertexPatchSmoother<double>(adaptive.level), Error);
  const Level level = refined_box().levels.back();
  EXPECT_THROW(cuda::HermiteVertexPatchSmoother<double>(level, 0), Error);
  const cuda::HermiteVertexPatchSmoother<double> smoother(level);
  CellVector<double, MemorySpace::CUDA> u(level.n_cells(), 3), b(level.n_cells(), 3), wrong(level.n_cells() + 1, 3);
  EXPECT_THROW(smoother.smooth(u, wrong, false, SweepDirection::forward), Error);
  EXPECT_THROW(smoother.smooth(wrong, b, false, SweepDirection::forward), Error);
  EXPECT_THROW(smoother.smooth(u, u, false, SweepDirection::forward), Error);
  EXPECT_THROW(smoother.apply_colour(u, b, 8), Error);
}
