// The device pieces of the Hermite multigrid against the host ones (their
// oracles) on the same seeded data: the transfers (prolongation and the
// fused residual restriction; FP64 and FP32, both layouts) on a refined box
// of unequal widths and an octant refinement, the masked Chebyshev–Jacobi
// smoother over the DSS of both layers, the whole FP64 solve (uniform and
// with local smoothing), whose iteration counts and L2 errors are the
// host's and whose solution is C¹, and the mixed-precision solve against it.

#include <cellwise/mesh/adaptive_builder.h>
#include <cellwise/mesh/box_builder.h>
#include <cellwise/multigrid/cuda_hermite_cell_transfer.h>
#include <cellwise/multigrid/cuda_hermite_dss_jacobi_step.h>
#include <cellwise/multigrid/cuda_hermite_multigrid_solver.h>
#include <cellwise/multigrid/cuda_point_smoothers.h>
#include <cellwise/multigrid/dss_jacobi_preconditioner.h>
#include <cellwise/multigrid/hermite_cell_transfer.h>
#include <cellwise/multigrid/hermite_multigrid_solver.h>
#include <cellwise/multigrid/host_vector_solvers.h>
#include <cellwise/multigrid/point_smoothers.h>
#include <cellwise/operators/cuda_hermite_biharmonic_operator.h>
#include <cellwise/operators/hermite_biharmonic_operator.h>
#include <cellwise/operators/hermite_function_tools.h>
#include <cellwise/storage/cuda_level_data.h>
#include <cellwise/storage/dss.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "cuda/cuda_test_utilities.h"
#include "repeated_solve_check.h"
#include "test_utilities.h"
#include "unit/hermite_test_problem.h"

using namespace cellwise;
using namespace cellwise::testing;

template <typename Pair>
class CudaHermiteMultigrid : public ::testing::Test
{
public:
  using Number     = typename Pair::first_type;
  using Layout     = typename Pair::second_type;
  using HostVector = CellVector<Number, MemorySpace::Host, Layout>;
  using Vector     = CellVector<Number, MemorySpace::CUDA, Layout>;
};
TYPED_TEST_SUITE(CudaHermiteMultigrid, NumberLayoutPairs);

namespace
{
  /// A box of widths 1 × 1 × 0.25 refined once (24 → 192 cells), and an
  /// octant refinement (levels with unrefined cells).
  std::vector<std::pair<std::string, LevelHierarchy>>
  transfer_meshes()
  {
    std::vector<std::pair<std::string, LevelHierarchy>> meshes;
    meshes.emplace_back("refined box", refined_box());
    meshes.emplace_back("octant refinement", make_adaptive_box_hierarchy(BoxDescription{}, 1, 2, make_octant_marker(BoxDescription{})));
    return meshes;
  }
} // namespace

TYPED_TEST(CudaHermiteMultigrid, transfers_match_host)
{
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  using Number     = typename TestFixture::Number;
  using Layout     = typename TestFixture::Layout;
  using HostVector = typename TestFixture::HostVector;
  using Vector     = typename TestFixture::Vector;
  const double       tol  = device_tolerance<Number>();
  const unsigned int p    = hermite::storage_degree;
  unsigned int       seed = 0;
  for (const auto &[name, hierarchy] : transfer_meshes())
    {
      const HermiteCellTransfer<Number, Layout>       host(hierarchy);
      const cuda::HermiteCellTransfer<Number, Layout> device(hierarchy);
      for (unsigned int l = 1; l < hierarchy.n_levels(); ++l)
        {
          SCOPED_TRACE(::testing::Message() << name << ", level " << l << " of " << hierarchy.level(l).n_cells() << " cells");
          const unsigned int n_fine = hierarchy.level(l).n_cells(), n_coarse = hierarchy.level(l - 1).n_cells();
          HostVector         coarse(n_coarse, p), fine(n_fine, p), b(n_fine, p), au(n_fine, p);
          fill_random(coarse, ++seed);
          fill_random(fine, ++seed);
          fill_random(b, ++seed);
          fill_random(au, ++seed);

          HostVector expected = fine;
          host.prolongate_add(l, expected, coarse);
          Vector device_fine = to_device(fine);
          device.prolongate_add(l, device_fine, to_device(coarse));
          EXPECT_LE(relative_difference(to_host(device_fine), expected), tol) << "prolongate_add";

          expected = coarse;
          host.restrict_residual_add(l, expected, b, au);
          Vector device_coarse = to_device(coarse);
          device.restrict_residual_add(l, device_coarse, to_device(b), to_device(au));
          EXPECT_LE(relative_difference(to_host(device_coarse), expected), tol) << "restrict_residual_add";
        }
    }
}

// The DSS inside the DSS-Jacobi update (cuda::hermite_dss_jacobi_update)
// against the host composition apply_dss (sum) + apply_smoother_update, step
// by step as a Chebyshev smooth() takes them: from zero (u poisoned with NaN:
// it must not be read), then reading u and the previous update d, then
// without storing d. The update vector starts poisoned too: the kernel keeps d
// at the lowest copy of each DoF and must read it only there. D^{-1} has one
// value per DoF (as an assembled diagonal) and is zero on the masked DoFs of
// a clamped box; u differs between the copies of a DoF (as after a
// prolongation, whose copies agree only to rounding). r must stay unchanged.
// Meshes of 192 and 105 cells (the latter not a multiple of 32).
TYPED_TEST(CudaHermiteMultigrid, dss_jacobi_update_matches_host)
{
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  using Number     = typename TestFixture::Number;
  using Layout     = typename TestFixture::Layout;
  using HostVector = typename TestFixture::HostVector;
  using Vector     = typename TestFixture::Vector;
  const double       tol  = device_tolerance<Number>();
  const unsigned int p    = hermite::storage_degree;
  const Number       nan  = std::numeric_limits<Number>::quiet_NaN();
  unsigned int       seed = 100;
  for (const LevelHierarchy &hierarchy : {refined_box(), coarse_box()})
    {
      const Level &level = hierarchy.levels.back();
      SCOPED_TRACE(::testing::Message() << "level of " << level.n_cells() << " cells");
      const cuda::LevelData level_data(level);
      ASSERT_TRUE(cuda::hermite_dss_jacobi_update_supported(level_data));
      const unsigned int n = level.n_cells();

      HostVector inverse(n, p);
      fill_random(inverse, ++seed);
      apply_dss(level, inverse, DssMode::mean, hermite_trace_layers());
      const CellVector<double> free = make_hermite_free_mask(level, {}); // all faces clamped
      for (unsigned int cell = 0; cell < n; ++cell)
        for (unsigned int i = 0; i < free.dofs_per_cell(); ++i)
          inverse(cell, i) *= Number(free(cell, i));
      const Vector device_inverse = to_device(inverse);

      HostVector u(n, p), update(n, p);
      Vector     device_u(n, p), device_update(n, p);
      device_u.fill(nan);
      device_update.fill(nan);
      struct Case
      {
        Number alpha, beta;
        bool   zero_initial_guess, store_update;
      };
      for (const Case &c : {Case{0, Number(0.7), true, true}, Case{Number(0.3), Number(0.9), false, true},
                            Case{Number(-0.2), Number(0.5), false, false}})
        {
          SCOPED_TRACE(::testing::Message() << "alpha " << c.alpha << ", beta " << c.beta << (c.zero_initial_guess ? ", from zero" : "")
                                            << (c.store_update ? ", storing d" : ""));
          SmootherStep<Number> step;
          step.alpha              = c.alpha;
          step.beta               = c.beta;
          step.zero_initial_guess = c.zero_initial_guess;
          step.store_update       = c.store_update;
          HostVector r(n, p);
          fill_random(r, ++seed);
          if (!c.zero_initial_guess)
            {
              // copies of a DoF that differ: the kernel must read each one
              HostVector noise(n, p);
              fill_random(noise, ++seed);
              u.add(Number(1e-3), noise);
              device_u = to_device(u);
            }
          const Vector device_r = to_device(r);

          HostVector z = r;
          apply_dss(level, z, DssMode::sum, hermite_trace_layers());
          apply_smoother_update(u, z, &update, inverse, step);
          cuda::hermite_dss_jacobi_update(level_data, device_u, device_r, &device_update, device_inverse, step);
          EXPECT_LE(relative_difference(to_host(device_u), u), tol) << "u";
          EXPECT_EQ(relative_difference(to_host(device_r), r), 0.) << "r is read only";
        }
    }
}

// A level that does not fill a box (the children of all cells but one) has
// no fused update: the preconditioner says so and refuses the call.
TEST(CudaHermiteMultigridChecks, DssJacobiUpdateRefusesALevelThatDoesNotFillABox)
{
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  BoxDescription box;
  box.subdivisions         = {{2, 2, 2}};
  LevelHierarchy hierarchy = make_box_hierarchy(box, 0);
  refine_finest_level(hierarchy, CellOrdering::child_major, [](const unsigned int c) { return c != 5; });
  const Level &level = hierarchy.levels.back();
  ASSERT_FALSE(level.fills_box());
  const cuda::HermiteBiharmonicOperator<double> op(level);
  const CellVector<double, MemorySpace::CUDA>   mask = to_device(make_hermite_free_mask(level, {}));
  const cuda::DssJacobiPreconditioner<double, CellContiguous, cuda::HermiteBiharmonicOperator<double>> P(level, op, mask);
  EXPECT_FALSE(P.fuses_update());
  CellVector<double, MemorySpace::CUDA> u(level.n_cells(), hermite::storage_degree), r = u, update = u;
  SmootherStep<double>                  step;
  EXPECT_THROW(P.assemble_and_update(u, r, &update, step), Error);
  EXPECT_THROW(cuda::hermite_dss_jacobi_update(cuda::LevelData(level), u, r, &update, P.inverse_diagonal(), step), Error);
}

TEST(CudaHermiteMultigridChecks, TransferRefusesALevelOfUnequalCells)
{
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  LevelHierarchy hierarchy = refined_box();
  EXPECT_NO_THROW(cuda::HermiteCellTransfer<double>{hierarchy});
  hierarchy.levels.back().boxes[5].size[1] *= 1.5;
  EXPECT_THROW(cuda::HermiteCellTransfer<double>{hierarchy}, Error);
}

namespace
{
  /// The masked Chebyshev–Jacobi smoother on the Hermite operator in
  /// @p Layout: the preconditioner D^{-1} S (inverse diagonal, application),
  /// the eigenvalue estimate and two smooth() calls (from zero, then from
  /// the result) against the host, FP64.
  template <typename Layout>
  void
  expect_chebyshev_smoother_matches_host()
  {
    using HostVector = CellVector<double, MemorySpace::Host, Layout>;
    using Vector     = CellVector<double, MemorySpace::CUDA, Layout>;
    using HostOp     = HermiteBiharmonicOperator<double, Layout>;
    using DeviceOp   = cuda::HermiteBiharmonicOperator<double, Layout>;
    const unsigned int p = hermite::storage_degree;

    BoxDescription box;
    box.upper        = {{1.2, 1., 0.9}};
    box.subdivisions = {{3, 2, 3}};
    const LevelHierarchy hierarchy = make_box_hierarchy(box, 1); // 144 cells
    const Level         &level     = hierarchy.levels.back();
    const HostVector     host_mask = relayout<Layout>(make_hermite_free_mask(level, {}));
    const Vector         mask      = to_device(host_mask);
    const HostOp         host_op(level);
    const DeviceOp       device_op(level);

    const DssJacobiPreconditioner<double, Layout, HostOp>         host_p(level, host_op, host_mask);
    const cuda::DssJacobiPreconditioner<double, Layout, DeviceOp> device_p(level, device_op, mask);
    EXPECT_TRUE(device_p.fuses_update()) << "a box level: the smoother's steps take the DSS inside the update";
    EXPECT_LE(relative_difference(to_host(device_p.inverse_diagonal()), host_p.inverse_diagonal()), 1e-13) << "inverse diagonal";
    HostVector r(level.n_cells(), p);
    fill_random(r, 47);
    Vector dr = to_device(r);
    host_p.apply_in_place(r);
    device_p.apply_in_place(dr);
    EXPECT_LE(relative_difference(to_host(dr), r), 1e-13) << "apply_in_place";

    for (const unsigned int degree : {1u, 3u})
      {
        SCOPED_TRACE(::testing::Message() << "Chebyshev of degree " << degree);
        ChebyshevParameters parameters;
        parameters.degree          = degree;
        parameters.smoothing_range = 10.;
        const PointChebyshevSmoother<DssJacobiPreconditioner<double, Layout, HostOp>>         host_s(level, host_op, host_mask,
                                                                                                     parameters);
        const PointChebyshevSmoother<cuda::DssJacobiPreconditioner<double, Layout, DeviceOp>> device_s(level, device_op, mask,
                                                                                                       parameters);
        EXPECT_NEAR(device_s.estimated_max_eigenvalue(), host_s.estimated_max_eigenvalue(),
                    1e-10 * host_s.estimated_max_eigenvalue());
        HostVector b(level.n_cells(), p);
        fill_random(b, 50 + degree);
        b.scale(host_mask);
        const Vector db = to_device(b);
        HostVector   hu(level.n_cells(), p);
        Vector       du(level.n_cells(), p);
        du.fill(std::numeric_limits<double>::quiet_NaN()); // ignored from zero
        for (unsigned int call = 0; call < 2; ++call)
          {
            SCOPED_TRACE(::testing::Message() << "smooth() call " << call);
            host_s.smooth(hu, b, call == 0, SweepDirection::forward);
            device_s.smooth(du, db, call == 0, SweepDirection::forward);
            EXPECT_LE(relative_difference(to_host(du), hu), 1e-11);
          }
      }
  }
} // namespace

TEST(CudaHermiteMultigridSmoother, ChebyshevMatchesHost)
{
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  {
    SCOPED_TRACE("cell-contiguous");
    expect_chebyshev_smoother_matches_host<CellContiguous>();
  }
  {
    SCOPED_TRACE("blocked by 32 cells");
    expect_chebyshev_smoother_matches_host<CellBlocked<32>>();
  }
}

namespace
{
  /// The largest difference between a copy of a DoF and the mean of its
  /// copies (0 for a C¹ field), relative to max |u|.
  double
  relative_jump(const Level &level, const CellVector<double> &u)
  {
    CellVector<double> mean = u;
    apply_dss(level, mean, DssMode::mean, hermite_trace_layers());
    double jump = 0;
    for (unsigned int c = 0; c < u.n_cells(); ++c)
      for (unsigned int i = 0; i < u.dofs_per_cell(); ++i)
        jump = std::max(jump, std::abs(mean(c, i) - u(c, i)));
    return jump / u.linfty_norm();
  }
} // namespace

// The clamped biharmonic problem of the host tests (u = Π sin²(π x_d)) on
// 2³ coarse cells refined L = 2, 3 times: CG with the Chebyshev V-cycle, CG
// with the Chebyshev coarse solve instead of Cholesky, the stationary
// iteration, CG with the symmetric patch cycle and the stationary iteration
// with the forward one; the device solve (blocked by 32 cells behind the host-vector
// interface, and cell-contiguous on device vectors) gives the host's
// iteration count, its L2 error to 1e-8 relative and a C¹ solution.
TEST(CudaHermiteMultigridSolver, SolvesAsTheHostSolver)
{
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  const ScalarFunction exact = clamped_solution;
  struct Case
  {
    const char      *name;
    bool             stationary;
    CoarseSolverType coarse;
    HermiteSmoother  smoother = HermiteSmoother::chebyshev;
  };
  for (const Case &c : {Case{"CG, Cholesky coarse solve", false, CoarseSolverType::automatic},
                        Case{"CG, Chebyshev coarse solve", false, CoarseSolverType::smoother},
                        Case{"stationary", true, CoarseSolverType::automatic},
                        Case{"CG, symmetric patch cycle", false, CoarseSolverType::automatic, HermiteSmoother::vertex_patch},
                        Case{"stationary, forward patch cycle", true, CoarseSolverType::automatic, HermiteSmoother::vertex_patch}})
    for (const unsigned int L : {2u, 3u})
      {
        SCOPED_TRACE(::testing::Message() << c.name << ", L = " << L);
        BoxDescription box;
        box.subdivisions       = {{2, 2, 2}};
        const LevelHierarchy h = make_box_hierarchy(box, L);
        const Level         &fine = h.levels.back();
        HermiteMultigridParameters parameters;
        parameters.stationary    = c.stationary;
        parameters.coarse_solver = c.coarse;
        parameters.smoother      = c.smoother;
        // the patch cycles of 001: two sweeps per smoothing step, forward
        // post-smoothing in the stationary iteration (doc/hermite.md)
        parameters.patch_sweeps   = 2;
        parameters.post_direction = c.stationary && c.smoother == HermiteSmoother::vertex_patch ? SweepDirection::forward
                                                                                                 : SweepDirection::reverse;
        const HermiteMultigridSolver       host(h, parameters);
        const cuda::HermiteMultigridSolver device_solver(h, parameters);
        EXPECT_EQ(device_solver.coarse_solver_description(), host.coarse_solver_description());
        // the device solver behind the host-vector interface, as programs use it
        const std::unique_ptr<HostVectorSolver> device = make_hermite_host_vector_solver(h, parameters, Backend::cuda);
        EXPECT_EQ(device->backend(), Backend::cuda);
        CellVector<double> b, host_u, device_u;
        assemble_hermite_right_hand_side(fine, clamped_bilaplacian, b);
        MonitorControl        host_control(60, 1e-10), device_control(60, 1e-10);
        const SolveStatistics host_statistics   = host.solve(host_u, b, host_control);
        const SolveStatistics device_statistics = device->solve(device_u, b, device_control);
        EXPECT_EQ(device_statistics.iterations(), host_statistics.iterations());
        const double host_error = compute_hermite_l2_error(fine, host_u, exact);
        const double error      = compute_hermite_l2_error(fine, device_u, exact);
        EXPECT_NEAR(error, host_error, 1e-8 * host_error);
        EXPECT_LE(relative_jump(fine, device_u), 1e-12);
        EXPECT_LE(relative_difference(device_u, host_u), 1e-9);

        // the interface solves blocked by 32 cells; the cell-contiguous
        // solver on device vectors gives the same
        CellVector<double, MemorySpace::CUDA> contiguous_b, contiguous_u;
        contiguous_b.copy_from_host(b);
        MonitorControl contiguous_control(60, 1e-10);
        EXPECT_EQ(device_solver.solve(contiguous_u, contiguous_b, contiguous_control).iterations(),
                  host_statistics.iterations());
        CellVector<double> u;
        contiguous_u.copy_to_host(u);
        EXPECT_LE(relative_difference(u, host_u), 1e-9);
      }
}

// Local smoothing on the device: the octant and a ball refined k = 1, 2
// times after two global refinements (refinement edges with level jumps),
// CG and the stationary iteration, the Chebyshev and the patch smoother (one
// sweep, the symmetric cycle); the host's iteration counts, its solution
// to 1e-9 and its L2 error.
TEST(CudaHermiteMultigridSolver, LocalSmoothingSolvesAsTheHostSolver)
{
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  const ScalarFunction exact = clamped_solution;
  const BoxDescription box;
  for (const bool stationary : {false, true})
    for (const unsigned int k : {1u, 2u})
      for (const bool octant : {true, false})
        for (const HermiteSmoother smoother : {HermiteSmoother::chebyshev, HermiteSmoother::vertex_patch})
          {
            SCOPED_TRACE(::testing::Message() << (stationary ? "stationary" : "CG") << ", " << (octant ? "octant" : "ball")
                                              << " refined " << k << " times, "
                                              << (smoother == HermiteSmoother::chebyshev ? "Chebyshev" : "patch") << " smoother");
            const LevelHierarchy h = make_adaptive_box_hierarchy(
              box, 2, k, octant ? make_octant_marker(box) : make_ball_marker({{0.55, 0.4, 0.35}}, 0.3));
            HermiteMultigridParameters parameters;
            parameters.stationary = stationary;
            parameters.smoother   = smoother;
            const HermiteMultigridSolver             host(h, parameters);
            const std::unique_ptr<HostVectorSolver> device = make_hermite_host_vector_solver(h, parameters, Backend::cuda);
            ASSERT_TRUE(host.locally_refined());
            CellVector<double> b, host_u, device_u;
            assemble_hermite_right_hand_side(host.active_level(), clamped_bilaplacian, b);
            // the stationary local-smoothing cycle contracts by about 0.7 per step here
            MonitorControl        host_control(200, 1e-10), device_control(200, 1e-10);
            const SolveStatistics host_statistics   = host.solve(host_u, b, host_control);
            const SolveStatistics device_statistics = device->solve(device_u, b, device_control);
            EXPECT_EQ(device_statistics.iterations(), host_statistics.iterations());
            EXPECT_LE(relative_difference(device_u, host_u), 1e-9);
            const double host_error = host.compute_l2_error(host_u, exact);
            EXPECT_NEAR(host.compute_l2_error(device_u, exact), host_error, 1e-8 * host_error);
          }
}

// The FP32 hierarchy inside the FP64 outer iteration (Precision::mixed): on
// L = 2..4 the FP64 iteration count ± 1, the FP64 L2 error to 2 digits and a
// C¹ solution, for CG (rebalancing every third iteration, the default, and
// every iteration) and the stationary iteration (every step, the default),
// with the Chebyshev smoother and with the patch cycles (two sweeps,
// symmetric for CG, forward for the stationary iteration). The patch cycles
// also at L = 5, where a patch residual summed in FP32 cost the stationary
// iteration two steps more than FP64 (11 against 9, doc/hermite.md).
// Without rebalancing the FP32 cycle does not converge (doc/hermite.md).
TEST(CudaHermiteMultigridSolver, MixedPrecisionSolvesAsFp64)
{
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  const ScalarFunction exact = clamped_solution;
  struct Case
  {
    bool            stationary;
    int             rebalance_every;
    HermiteSmoother smoother = HermiteSmoother::chebyshev;
  };
  for (const Case &c : {Case{false, -1}, Case{false, 1}, Case{true, -1}, Case{false, -1, HermiteSmoother::vertex_patch},
                        Case{true, -1, HermiteSmoother::vertex_patch}})
    for (const unsigned int L : {2u, 3u, 4u, 5u})
      {
        const auto [stationary, rebalance_every, smoother] = c;
        if (L == 5 && smoother != HermiteSmoother::vertex_patch)
          continue;
        SCOPED_TRACE(::testing::Message() << (stationary ? "stationary" : "CG") << ", rebalance every " << rebalance_every
                                          << (smoother == HermiteSmoother::chebyshev ? ", Chebyshev" : ", patch cycle")
                                          << ", L = " << L);
        BoxDescription box;
        box.subdivisions       = {{2, 2, 2}};
        const LevelHierarchy h = make_box_hierarchy(box, L);
        const Level         &fine = h.levels.back();
        HermiteMultigridParameters fp64;
        fp64.stationary                  = stationary;
        fp64.smoother                    = smoother;
        fp64.patch_sweeps                = 2;
        fp64.post_direction = stationary && smoother == HermiteSmoother::vertex_patch ? SweepDirection::forward : SweepDirection::reverse;
        HermiteMultigridParameters mixed = fp64;
        mixed.precision                  = Precision::mixed;
        mixed.rebalance_every            = rebalance_every;
        const std::unique_ptr<HostVectorSolver> reference = make_hermite_host_vector_solver(h, fp64, Backend::cuda);
        const std::unique_ptr<HostVectorSolver> solver    = make_hermite_host_vector_solver(h, mixed, Backend::cuda);
        CellVector<double> b, u64, u;
        assemble_hermite_right_hand_side(fine, clamped_bilaplacian, b);
        MonitorControl        control64(60, 1e-10), control(60, 1e-10);
        const SolveStatistics statistics64 = reference->solve(u64, b, control64);
        const SolveStatistics statistics   = solver->solve(u, b, control);
        EXPECT_LE(statistics.iterations(), statistics64.iterations() + 1);
        EXPECT_GE(statistics.iterations() + 1, statistics64.iterations());
        const double error64 = compute_hermite_l2_error(fine, u64, exact);
        const double error   = compute_hermite_l2_error(fine, u, exact);
        EXPECT_NEAR(error, error64, 0.01 * error64);
        EXPECT_LE(relative_jump(fine, u), 1e-12);
      }
}

TEST(CudaHermiteMultigridSolver, RepeatedSolvesReuseTheirWorkVectorsUnchanged)
{
  // The solver keeps the outer iteration's work vectors (and the
  // preconditioner's step) between solves, reused without a zero fill: a
  // solve after another, of a different right-hand side, must give bit for
  // bit what a fresh solver gives (the old residual, direction and product
  // must never be read).
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  struct Case
  {
    bool      stationary;
    Precision precision;
  };
  for (const Case &c : {Case{false, Precision::fp64}, Case{true, Precision::fp64}, Case{false, Precision::mixed},
                        Case{true, Precision::mixed}})
    {
      SCOPED_TRACE(::testing::Message() << (c.stationary ? "stationary" : "CG") << ", "
                                        << (c.precision == Precision::mixed ? "mixed" : "FP64"));
      BoxDescription box;
      box.subdivisions          = {{2, 2, 1}};
      const LevelHierarchy h    = make_box_hierarchy(box, 3);
      const Level         &fine = h.levels.back();
      HermiteMultigridParameters parameters;
      parameters.stationary                       = c.stationary;
      parameters.precision                        = c.precision;
      const std::unique_ptr<HostVectorSolver> kept  = make_hermite_host_vector_solver(h, parameters, Backend::cuda);
      const std::unique_ptr<HostVectorSolver> fresh = make_hermite_host_vector_solver(h, parameters, Backend::cuda);
      CellVector<double> b1, b2;
      assemble_hermite_right_hand_side(fine, clamped_bilaplacian, b1);
      b2.reinit(b1); // another load: random copies on top of 3 b1
      fill_random(b2, 17);
      b2.add(3., b1);
      expect_second_solve_as_a_fresh_one(*kept, *fresh, b1, b2, 60, 1e-10);
    }
}

TEST(CudaHermiteMultigridSolver, RefusesWhatIsNotOnTheDeviceAndBadData)
{
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  BoxDescription box;
  box.subdivisions = {{2, 2, 2}};
  const LevelHierarchy       h = make_box_hierarchy(box, 1);
  const LevelHierarchy       adaptive = make_adaptive_box_hierarchy(BoxDescription{}, 1, 2, make_octant_marker(BoxDescription{}));
  HermiteMultigridParameters mixed;
  mixed.precision = Precision::mixed;
  EXPECT_THROW(cuda::HermiteMultigridSolver(adaptive, mixed), Error);
  EXPECT_NO_THROW(cuda::HermiteMultigridSolver(h, mixed));

  const std::unique_ptr<HostVectorSolver> solver = make_hermite_host_vector_solver(h, HermiteMultigridParameters(), Backend::cuda);
  CellVector<double>                      b(h.levels.back().n_cells(), 3), u;
  b(3, 7) = std::numeric_limits<double>::quiet_NaN();
  MonitorControl control(20, 1e-10);
  EXPECT_THROW(solver->solve(u, b, control), Error);
  CellVector<double> wrong(h.levels.back().n_cells() + 1, 3);
  EXPECT_THROW(solver->solve(u, wrong, control), Error);
  CellVector<double> good(h.levels.back().n_cells(), 3), bad_guess(h.levels.back().n_cells(), 3);
  good.fill(1.);
  bad_guess(0, 0) = std::numeric_limits<double>::infinity();
  EXPECT_THROW(solver->solve(bad_guess, good, control), Error);
}
