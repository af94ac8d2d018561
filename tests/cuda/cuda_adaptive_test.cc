// The CUDA backend on locally refined hierarchies (003 Algorithms 4–5,
// doc/adaptive.md): the distribution (17) and reassembly (18) kernels against
// the host's distribute_to_levels / gather_from_levels (seeded random data,
// NaN-poisoned outputs, level and active sizes that are not multiples of 32,
// a level without active cells), one application of the adaptive V-cycle
// against the host's, and the device adaptive solve against the host one
// (octant marker, Q2 and Q3, several (L, k), Jacobi and Chebyshev, CG and the
// stationary iteration): same iteration counts, L2 errors equal to 1e-10
// relative.

#include <cellwise/multigrid/cuda_active_mesh_transfer.h>
#include <cellwise/multigrid/cuda_multigrid_solver.h>
#include <cellwise/mesh/adaptive_builder.h>
#include <cellwise/multigrid/multigrid_solver.h>
#include <cellwise/operators/function_tools.h>

#include <gtest/gtest.h>

#include "cuda/cuda_test_utilities.h"
#include "unit/active_mesh_checks.h"
#include "test_utilities.h"

#include <cmath>
#include <iostream>
#include <limits>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

using namespace cellwise;
using namespace cellwise::testing;

namespace
{
  constexpr double pi = 3.14159265358979323846;

  double
  sine(const Point &x)
  {
    return std::sin(pi * x[0]) * std::sin(pi * x[1]) * std::sin(pi * x[2]);
  }
  double
  sine_rhs(const Point &x)
  {
    return 3 * pi * pi * sine(x);
  }

  /// Hierarchies for the copy kernels: the octant (L = 1, k = 2: levels of 1,
  /// 8, 8, 64 cells, 7 + 0 + 64 active, level 2 without active cells) and a
  /// ball on an unequal box of 2x1x1 coarse cells.
  std::vector<std::pair<std::string, LevelHierarchy>>
  transfer_hierarchies()
  {
    BoxDescription unequal;
    unequal.upper        = {{1.5, 1.4, 2.2}};
    unequal.subdivisions = {{2, 1, 1}};
    std::vector<std::pair<std::string, LevelHierarchy>> result;
    result.emplace_back("octant L=1 k=2", make_adaptive_box_hierarchy(BoxDescription{}, 1, 2, make_octant_marker(BoxDescription{})));
    result.emplace_back("ball L=1 k=2 on an unequal box", make_adaptive_box_hierarchy(unequal, 1, 2, make_marker("ball", unequal)));
    return result;
  }

  MultigridParameters
  parameters(const SmootherType smoother, const OuterIteration outer = OuterIteration::cg)
  {
    MultigridParameters p;
    p.smoother = smoother;
    p.outer    = outer;
    return p;
  }
} // namespace

template <typename Pair>
class CudaActiveMeshTransfer : public ::testing::Test
{
public:
  using Number     = typename Pair::first_type;
  using Layout     = typename Pair::second_type;
  using HostVector = CellVector<Number, MemorySpace::Host, Layout>;
  using Vector     = CellVector<Number, MemorySpace::CUDA, Layout>;
};
TYPED_TEST_SUITE(CudaActiveMeshTransfer, NumberLayoutPairs);

TYPED_TEST(CudaActiveMeshTransfer, distribute_matches_host)
{
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  using Number     = typename TestFixture::Number;
  using Layout     = typename TestFixture::Layout;
  using HostVector = typename TestFixture::HostVector;
  using Vector     = typename TestFixture::Vector;
  for (const auto &[name, hierarchy] : transfer_hierarchies())
    for (const unsigned int degree : {1u, 2u, 3u})
      {
        SCOPED_TRACE(name + ", degree " + std::to_string(degree));
        const ActiveMesh mesh = make_active_mesh(hierarchy);
        // sizes that are not multiples of the layout block: partial chunks are exercised
        EXPECT_NE(mesh.n_active_cells() % 32, 0u);
        HostVector active(mesh.n_active_cells(), degree);
        fill_random(active, 11 + degree);
        std::vector<HostVector> expected;
        std::vector<Vector>     levels;
        for (unsigned int l = 0; l < mesh.n_levels(); ++l)
          {
            expected.emplace_back(hierarchy.level(l).n_cells(), degree);
            levels.emplace_back(hierarchy.level(l).n_cells(), degree);
            levels.back().fill(std::numeric_limits<Number>::quiet_NaN());
          }
        distribute_to_levels(mesh, active, expected);

        const cuda::ActiveMeshTransfer<Number, Layout> transfer(mesh);
        transfer.distribute(to_device(active), levels);
        for (unsigned int l = 0; l < mesh.n_levels(); ++l)
          {
            // copies: bit for bit, the refined cells zero (not NaN)
            EXPECT_EQ(relative_difference(to_host(levels[l]), expected[l]), 0.) << "level " << l;
            unsigned int n_refined = 0;
            for (unsigned int c = 0; c < hierarchy.level(l).n_cells(); ++c)
              n_refined += mesh.active_index[l][c] < 0;
            if (l + 1 < mesh.n_levels())
              EXPECT_GT(n_refined, 0u) << "level " << l << " should have refined cells";
          }
      }
}

TYPED_TEST(CudaActiveMeshTransfer, reassemble_matches_host)
{
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  using Number     = typename TestFixture::Number;
  using Layout     = typename TestFixture::Layout;
  using HostVector = typename TestFixture::HostVector;
  using Vector     = typename TestFixture::Vector;
  for (const auto &[name, hierarchy] : transfer_hierarchies())
    for (const unsigned int degree : {1u, 2u, 3u})
      {
        SCOPED_TRACE(name + ", degree " + std::to_string(degree));
        const ActiveMesh        mesh = make_active_mesh(hierarchy);
        std::vector<HostVector> host_levels;
        std::vector<Vector>     levels;
        for (unsigned int l = 0; l < mesh.n_levels(); ++l)
          {
            host_levels.emplace_back(hierarchy.level(l).n_cells(), degree);
            fill_random(host_levels.back(), 100 * degree + l);
            levels.push_back(to_device(host_levels.back()));
          }
        HostVector expected;
        gather_from_levels(mesh, host_levels, expected);

        const cuda::ActiveMeshTransfer<Number, Layout> transfer(mesh);
        Vector                                         active(mesh.n_active_cells(), degree);
        active.fill(std::numeric_limits<Number>::quiet_NaN()); // every entry must be written
        transfer.reassemble(levels, active);
        EXPECT_EQ(relative_difference(to_host(active), expected), 0.);

        // one level alone writes its own active cells and nothing else
        const unsigned int finest = mesh.n_levels() - 1;
        active.fill(std::numeric_limits<Number>::quiet_NaN());
        transfer.reassemble_level(finest, levels[finest], active);
        const HostVector back = to_host(active);
        for (unsigned int a = 0; a < mesh.n_active_cells(); ++a)
          for (unsigned int i = 0; i < back.dofs_per_cell(); ++i)
            if (mesh.level_of[a] == finest)
              ASSERT_EQ(back(a, i), expected(a, i)) << "active cell " << a << ", DoF " << i;
            else
              ASSERT_TRUE(std::isnan(back(a, i))) << "active cell " << a << " of level " << mesh.level_of[a] << " was written";
      }
}

TEST(CudaActiveMeshTransferChecks, rejects_wrong_shapes)
{
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  const LevelHierarchy                      h    = make_adaptive_box_hierarchy(BoxDescription{}, 1, 1, make_octant_marker(BoxDescription{}));
  const ActiveMesh                          mesh = make_active_mesh(h);
  const cuda::ActiveMeshTransfer<double>    transfer(mesh);
  CellVector<double, MemorySpace::CUDA>     active(mesh.n_active_cells() + 1, 2), level(h.level(1).n_cells(), 2);
  try
    {
      transfer.distribute_level(1, active, level);
      FAIL() << "an active vector of the wrong size was accepted";
    }
  catch (const Error &e)
    {
      EXPECT_NE(std::string(e.what()).find("active vector of"), std::string::npos) << e.what();
    }
}

template <typename Layout>
class CudaAdaptiveCycle : public ::testing::Test
{};
using AdaptiveLayouts = ::testing::Types<CellContiguous, CellBlocked<32>>;
TYPED_TEST_SUITE(CudaAdaptiveCycle, AdaptiveLayouts);

TYPED_TEST(CudaAdaptiveCycle, v_cycle_matches_host)
{
  // One application of the whole adaptive cycle (distribution, local
  // smoothing with the free masks, accumulating restriction, coarse solve,
  // prolongation, reassembly) on a random dual: equal to rounding.
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  using Layout = TypeParam;
  BoxDescription unequal;
  unequal.upper        = {{1.5, 1.4, 2.2}};
  unequal.subdivisions = {{2, 1, 1}};
  const LevelHierarchy octant = make_adaptive_box_hierarchy(BoxDescription{}, 1, 2, make_octant_marker(BoxDescription{}));
  const LevelHierarchy ball   = make_adaptive_box_hierarchy(unequal, 1, 2, make_marker("ball", unequal));
  for (const LevelHierarchy *h : {&octant, &ball})
    for (const SmootherType smoother : {SmootherType::jacobi, SmootherType::chebyshev, SmootherType::patch})
      for (const OuterIteration outer : {OuterIteration::cg, OuterIteration::stationary})
        for (const unsigned int degree : {2u, 3u})
          {
            SCOPED_TRACE(::testing::Message() << (h == &octant ? "octant" : "ball") << ", smoother " << to_string(smoother)
                                              << ", outer " << to_string(outer) << ", degree " << degree);
            const MultigridParameters                   p = parameters(smoother, outer);
            const cellwise::MultigridSolver     host(*h, degree, p);
            const cuda::MultigridSolver<Layout> device(*h, degree, p);
            ASSERT_EQ(device.n_active_cells(), host.n_active_cells());
            CellVector<double> r(host.n_active_cells(), degree), z;
            fill_random(r, 7 + degree);
            r.scale(host.dirichlet_mask());
            z.reinit(r);
            host.preconditioner().vmult(z, r);

            const auto dr = to_device(relayout<Layout>(r));
            auto       dz = to_device(relayout<Layout>(r));
            dz.fill(std::numeric_limits<double>::quiet_NaN());
            device.preconditioner().vmult(dz, dr);
            // a whole cycle of up to nine levels: the rounding of host and
            // device (other summation orders) accumulates to ~2e-12, and
            // through the Chebyshev smoothers' λ_max (Lanczos on each side,
            // its rounding amplified by the loss of orthogonality) to
            // 1.1e-11 (octant, Q2, since the hashed start vector of
            // 2026-12-03); a wrong component is off by far more than 1e-10
            EXPECT_LE(relative_difference(relayout<CellContiguous>(to_host(dz)), z), 1e-10);
            // the masks agree copy by copy
            EXPECT_EQ(relative_difference(relayout<CellContiguous>(to_host(device.dirichlet_mask())), host.dirichlet_mask()), 0.);
          }
}

namespace
{
  struct SolveCase
  {
    int            L, k;
    unsigned int   degree;
    SmootherType   smoother;
    OuterIteration outer;
  };

  std::string
  describe(const SolveCase &c)
  {
    std::ostringstream out;
    out << "octant L = " << c.L << ", k = " << c.k << ", Q" << c.degree << ", " << to_string(c.outer) << " + "
        << to_string(c.smoother);
    return out.str();
  }

  /// Host and device solve of the sine problem on the octant hierarchy; the
  /// device vectors in @p Layout, the host in its own (contiguous) layout.
  template <typename Layout>
  void
  check_solve_matches_host(const SolveCase &c)
  {
    SCOPED_TRACE(describe(c));
    const BoxDescription      box;
    const LevelHierarchy      h = make_adaptive_box_hierarchy(box, c.L, c.k, make_octant_marker(box));
    const MultigridParameters p = parameters(c.smoother, c.outer);

    const cellwise::MultigridSolver host(h, c.degree, p);
    CellVector<double>                      b, u_host;
    host.assemble_right_hand_side(sine_rhs, b);
    u_host.reinit(b);
    MonitorControl         host_control(200, 1e-9);
    const SolveStatistics host_statistics = host.solve(u_host, b, host_control);
    const double          host_error      = host.compute_l2_error(u_host, sine, c.degree + 1);

    const cuda::MultigridSolver<Layout>   device(h, c.degree, p);
    CellVector<double, MemorySpace::CUDA, Layout> u(device.n_active_cells(), c.degree);
    const auto                                    db = to_device(relayout<Layout>(b));
    MonitorControl                                 control(200, 1e-9);
    const SolveStatistics                         statistics = device.solve(u, db, control);
    const CellVector<double>                      u_back     = relayout<CellContiguous>(to_host(u));
    const double device_error = compute_l2_error(device.active_mesh().level, u_back, ScalarFunction(sine), true, c.degree + 1);

    EXPECT_GT(host_statistics.iterations(), 1u);
    EXPECT_EQ(statistics.iterations(), host_statistics.iterations());
    EXPECT_NEAR(device_error, host_error, 1e-10 * host_error);
    EXPECT_LE(relative_difference(u_back, u_host), 1e-8);
    std::cout << "  " << describe(c) << ": " << statistics.iterations() << " iterations (host " << host_statistics.iterations()
              << "), L2 error " << device_error << " (host " << host_error << ", relative difference "
              << std::abs(device_error - host_error) / host_error << ")" << std::endl;
  }
} // namespace

TEST(CudaAdaptiveSolver, solve_matches_host)
{
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  for (const unsigned int degree : {2u, 3u})
    for (const auto &[L, k] : std::vector<std::pair<int, int>>{{1, 2}, {2, 1}, {2, 2}, {3, 1}})
      for (const SmootherType smoother : {SmootherType::jacobi, SmootherType::chebyshev})
        check_solve_matches_host<CellContiguous>({L, k, degree, smoother, OuterIteration::cg});
}

TEST(CudaAdaptiveSolver, stationary_and_patch_solves_match_host)
{
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  for (const unsigned int degree : {2u, 3u})
    {
      check_solve_matches_host<CellContiguous>({2, 2, degree, SmootherType::jacobi, OuterIteration::stationary});
      check_solve_matches_host<CellContiguous>({2, 2, degree, SmootherType::patch, OuterIteration::cg});
      check_solve_matches_host<CellContiguous>({2, 1, degree, SmootherType::patch, OuterIteration::stationary});
    }
}

TEST(CudaAdaptiveSolver, blocked_layout_solve_matches_host)
{
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  check_solve_matches_host<CellBlocked<32>>({2, 2, 3, SmootherType::chebyshev, OuterIteration::cg});
  check_solve_matches_host<CellBlocked<32>>({2, 1, 2, SmootherType::jacobi, OuterIteration::stationary});
}

// The locally refined hierarchies' refusals come before any device work:
// they run (and are checked) on machines without a device too.
TEST(CudaAdaptiveSolver, refusals_come_before_device_work)
{
  const LevelHierarchy h = make_adaptive_box_hierarchy(BoxDescription{}, 1, 1, make_octant_marker(BoxDescription{}));
  const auto           refusal = [&h](const MultigridParameters &p) {
    try
      {
        const cuda::MultigridSolver<> solver(h, 2, p);
      }
    catch (const Error &e)
      {
        return std::string(e.what());
      }
    return std::string("accepted");
  };
  MultigridParameters at_points;
  at_points.coefficient            = [](const Point &) { return 2.; };
  at_points.coefficient_evaluation = CoefficientEvaluation::quadrature_points;
  EXPECT_NE(refusal(at_points).find("cell averages"), std::string::npos) << refusal(at_points);
  MultigridParameters neumann;
  neumann.pure_neumann = true;
  EXPECT_NE(refusal(neumann).find("does not solve pure Neumann problems"), std::string::npos) << refusal(neumann);
}

// Mixed precision with local smoothing on the device (FP32 levels in the
// FP64 routing and rebuilding of the refinement-edge copies,
// multigrid/mixed_local_smoothing.h): one cycle against the host's mixed
// cycle on a random dual (NaN-poisoned output; conforming to FP64 rounding
// across the hanging faces), and the solve against the host's FP64 one: the
// FP64 counts ± 1 at 1e-10, the FP64 solution to 1e-12 at 1e-14.
TEST(CudaAdaptiveSolver, mixed_precision_matches_host)
{
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  BoxDescription box;
  box.upper = {{1.0, 1.25, 0.75}};
  for (const std::string marker : {"octant", "ball", "shell"})
    for (const unsigned int degree : {2u, 3u})
      for (const SmootherType smoother : {SmootherType::chebyshev, SmootherType::patch})
        {
          SCOPED_TRACE(marker + ", degree " + std::to_string(degree) + ", " + to_string(smoother));
          const LevelHierarchy h     = make_adaptive_box_hierarchy(box, 1, 2, make_marker(marker, box));
          MultigridParameters  fp64  = parameters(smoother);
          MultigridParameters  mixed = fp64;
          mixed.precision            = Precision::mixed;
          const cellwise::MultigridSolver     host64(h, degree, fp64), host(h, degree, mixed);
          const cuda::MultigridSolver<>       device(h, degree, mixed);

          CellVector<double> r(host.n_active_cells(), degree), z(r);
          fill_random(r, 11 + degree);
          r.scale(host.dirichlet_mask());
          host.preconditioner().vmult(z, r);
          const auto dr = to_device(r);
          auto       dz = to_device(r);
          dz.fill(std::numeric_limits<double>::quiet_NaN());
          device.preconditioner().vmult(dz, dr);
          const CellVector<double> z_device = to_host(dz);
          ASSERT_TRUE(z_device.all_finite());
          // FP32 cycles with other summation orders: FP32 rounding apart
          EXPECT_LE(relative_difference(z_device, z), 1e-5);
          EXPECT_LE(max_hanging_jump(h, host.active_mesh(), z_device), 1e-14 * z_device.linfty_norm());

          CellVector<double> b;
          host.assemble_right_hand_side(sine_rhs, b);
          // each solve from zero (a solve continued from a converged one
          // would ask for a reduction below FP64's reach)
          CellVector<double> u64(b.n_cells(), degree);
          MonitorControl     loose64(200, 1e-10), tight64(200, 1e-14);
          const unsigned int n64 = host64.solve(u64, b, loose64).iterations();
          u64.set_zero();
          host64.solve(u64, b, tight64);
          const auto                            db = to_device(b);
          CellVector<double, MemorySpace::CUDA> u(device.n_active_cells(), degree);
          MonitorControl                        loose(200, 1e-10), tight(200, 1e-14);
          const unsigned int                    n = device.solve(u, db, loose).iterations();
          EXPECT_LE(n, n64 + 1);
          EXPECT_GE(n + 1, n64);
          u.set_zero();
          device.solve(u, db, tight);
          EXPECT_LE(relative_difference(to_host(u), u64), 1e-12);
          std::cout << "  " << marker << ", Q" << degree << ", " << to_string(smoother) << ": mixed on the device " << n
                    << " iterations (FP64 on the host " << n64 << "), solution at 1e-14 "
                    << relative_difference(to_host(u), u64) << " from the FP64 one" << std::endl;
        }
}
