// The device multigrid solver against the host one: one application of the
// whole V-cycle, and the solve of the default problem of cellwise-poisson
// (unit cube, u = Π sin(π x_d), f = 3π² u, Q3) with CG + Chebyshev and with the
// stationary iteration + Jacobi: same iteration counts, L2 errors equal to
// 1e-10 relative, for L = 2..5; the mixed-precision patch solve for L = 2..6;
// deal.II's L-shape (hyper_L) with every smoother.
// CELLWISE_CUDA_TEST_MAX_LEVEL lowers the
// largest L (for runs under compute-sanitizer).

#include <cellwise/multigrid/cuda_multigrid_solver.h>
#include <cellwise/mesh/box_builder.h>
#include <cellwise/multigrid/multigrid_solver.h>
#include <cellwise/operators/function_tools.h>
#include <cellwise/operators/cuda_laplace_operator.h>

#include <cellwise/mesh/cell_mapping.h>

#include <gtest/gtest.h>

#include "cuda/cuda_test_utilities.h"
#include "test_utilities.h"

#include <cmath>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <type_traits>
#include <algorithm>
#include <utility>

using namespace cellwise;
using namespace cellwise::testing;

namespace
{
  MultigridParameters
  cg_chebyshev()
  {
    return MultigridParameters{};
  }

  MultigridParameters
  stationary_jacobi()
  {
    MultigridParameters p;
    p.smoother = SmootherType::jacobi;
    p.outer    = OuterIteration::stationary;
    return p;
  }

  MultigridParameters
  cg_chebyshev_coarse_smoother()
  {
    MultigridParameters p;
    p.coarse_solver = CoarseSolverType::smoother;
    return p;
  }

  /// The largest L of a test whose own limit is @p limit (lowered by
  /// CELLWISE_CUDA_TEST_MAX_LEVEL).
  int
  max_test_level(const int limit = 5)
  {
    const char *value = std::getenv("CELLWISE_CUDA_TEST_MAX_LEVEL");
    return value ? std::min(limit, std::atoi(value)) : limit;
  }
} // namespace

template <typename Layout>
class CudaMultigrid : public ::testing::Test
{
public:
  using HostVector = CellVector<double, MemorySpace::Host, Layout>;
  using Vector     = CellVector<double, MemorySpace::CUDA, Layout>;
};
using MultigridLayouts = ::testing::Types<CellContiguous, CellBlocked<32>>;
TYPED_TEST_SUITE(CudaMultigrid, MultigridLayouts);

TEST(CudaMultigridSolver, v_cycle_matches_host)
{
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  BoxDescription box;
  box.upper        = {{1.5, 1.4, 2.2}};
  box.subdivisions = {{3, 2, 2}};
  const LevelHierarchy mesh = make_box_hierarchy(box, 2);
  const Level         &fine = mesh.levels.back();
  for (const MultigridParameters &parameters : {cg_chebyshev(), stationary_jacobi(), cg_chebyshev_coarse_smoother()})
    for (const unsigned int degree : {2u, 3u})
      {
        SCOPED_TRACE(::testing::Message() << "smoother " << to_string(parameters.smoother) << ", outer "
                                          << to_string(parameters.outer) << ", coarse "
                                          << to_string(parameters.coarse_solver) << ", degree " << degree);
        const cellwise::MultigridSolver       host(mesh, degree, parameters);
        const cuda::MultigridSolver<>         device(mesh, degree, parameters);
        CellVector<double>                    r(fine.n_cells(), degree), z;
        fill_random(r, 5 + degree);
        r.scale(host.dirichlet_mask());
        z.reinit(r);
        host.preconditioner().vmult(z, r);
        const auto dr = to_device(r);
        auto       dz = to_device(r);
        dz.fill(std::numeric_limits<double>::quiet_NaN());
        device.preconditioner().vmult(dz, dr);
        EXPECT_LE(relative_difference(to_host(dz), z), 1e-12);
      }
}

TEST(CudaMultigridSolver, mixed_patch_solve_matches_host)
{
  // The FP32 hierarchy with the vertex-patch smoother (the register Q3 kernel
  // on the finest levels) inside the FP64 stationary iteration with
  // rebalancing: the host's cycle counts and L2 errors to 1e-6 (000 Table 2),
  // L = 2..6.
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  constexpr double     pi       = 3.14159265358979323846;
  const ScalarFunction solution = [](const Point &x) {
    return std::sin(pi * x[0]) * std::sin(pi * x[1]) * std::sin(pi * x[2]);
  };
  const ScalarFunction rhs = [&](const Point &x) { return 3 * pi * pi * solution(x); };
  MultigridParameters  parameters;
  parameters.smoother  = SmootherType::patch;
  parameters.outer     = OuterIteration::stationary;
  parameters.precision = Precision::mixed;
  for (int L = 2; L <= max_test_level(6); ++L)
    {
      const LevelHierarchy mesh = make_box_hierarchy(BoxDescription{}, L);
      const Level         &fine = mesh.levels.back();
      CellVector<double>   b, u_host(fine.n_cells(), 3);
      assemble_right_hand_side(fine, 3, rhs, b);
      const MultigridSolver host(mesh, 3, parameters);
      MonitorControl         host_control(50, 1e-9);
      const unsigned int    host_cycles = host.solve(u_host, b, host_control).iterations();

      const double u_norm = std::sqrt(u_host.dot(u_host) / u_host.storage_size());
      const double e_host = compute_l2_error(fine, u_host, solution);
      // the FP64 outer vectors in both layouts (the FP32 levels are always
      // cell-contiguous: the blocked outer converts and relayouts in one pass)
      auto check_device = [&](auto layout, const char *layout_name) {
        using Layout = decltype(layout);
        const cuda::MultigridSolver<Layout>     device(mesh, 3, parameters);
        CellVector<double, MemorySpace::CUDA, Layout> du(fine.n_cells(), 3);
        const auto         db             = to_device(relayout<Layout>(b));
        MonitorControl      device_control(50, 1e-9);
        const unsigned int device_cycles = device.solve(du, db, device_control).iterations();
        const auto         u_back        = relayout<CellContiguous>(to_host(du));
        const double       e_device      = compute_l2_error(fine, u_back, solution);
        std::cout << "  L = " << L << " mixed patch stationary, " << layout_name << ": " << device_cycles
                  << " cycles (host " << host_cycles << "), L2 error " << e_device << " (host " << e_host << ")" << std::endl;
        EXPECT_EQ(device_cycles, host_cycles) << "L = " << L << ", " << layout_name;
        // 1e-6 relative, but not below the rounding floor of the FP64 iterate:
        // host and device sum in other orders, so u differs by ~1e-14 ‖u‖
        // after the solve, which at L = 6 (e ≈ 1e-9) is ~1e-5 of e
        EXPECT_NEAR(e_device, e_host, std::max(1e-6 * e_host, 1e-13 * u_norm)) << "L = " << L << ", " << layout_name;
      };
      check_device(CellContiguous{}, "cell-contiguous");
      check_device(CellBlocked<32>{}, "blocked");
    }
}

// deal.II's hyper_L (a lattice domain, the octant removed: re-entrant
// Dirichlet faces, patches only where all eight cells exist): the device solve
// with CG + Chebyshev, the patch smoother (stationary, FP64 and mixed) and CG
// + Jacobi gives the host's iteration counts and solution, Q2 and Q3, L = 1, 2.
TEST(CudaMultigridSolver, lshape_solves_as_the_host_solver)
{
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  constexpr double     pi       = 3.14159265358979323846;
  const ScalarFunction solution = [](const Point &x) {
    return std::sin(pi * x[0]) * std::sin(pi * x[1]) * std::sin(pi * x[2]);
  };
  const ScalarFunction rhs = [&](const Point &x) { return 3 * pi * pi * solution(x); };
  MultigridParameters  patch;
  patch.smoother = SmootherType::patch;
  patch.outer    = OuterIteration::stationary;
  MultigridParameters mixed_patch = patch;
  mixed_patch.precision           = Precision::mixed;
  MultigridParameters jacobi;
  jacobi.smoother = SmootherType::jacobi;
  const std::pair<const char *, MultigridParameters> cases[] = {
    {"CG, Chebyshev", cg_chebyshev()}, {"stationary, patch", patch}, {"stationary, patch, mixed", mixed_patch}, {"CG, Jacobi", jacobi}};
  for (const auto &[name, parameters] : cases)
    for (const unsigned int degree : {2u, 3u})
      for (const int L : {1, 2})
        {
          SCOPED_TRACE(::testing::Message() << "L-shape, " << name << ", Q" << degree << ", L = " << L);
          const LevelHierarchy mesh = make_box_hierarchy(make_lshape_description(), L);
          const Level         &fine = mesh.levels.back();
          CellVector<double>   b, u_host(fine.n_cells(), degree);
          assemble_right_hand_side(fine, degree, rhs, b);
          const MultigridSolver host(mesh, degree, parameters);
          MonitorControl        host_control(100, 1e-10);
          const unsigned int    host_iterations = host.solve(u_host, b, host_control).iterations();

          const cuda::MultigridSolver<>         device(mesh, degree, parameters);
          CellVector<double, MemorySpace::CUDA> du(fine.n_cells(), degree);
          const auto                            db = to_device(b);
          MonitorControl                        device_control(100, 1e-10);
          const unsigned int                    device_iterations = device.solve(du, db, device_control).iterations();
          const CellVector<double>              u_device          = to_host(du);
          // mixed: the FP32 cycles of host and device round differently
          // (the stationary patch solve at Q2, L = 1: 2 against 3 on the
          // H200, 2026-12-05), so the count ± 1
          if (parameters.precision == Precision::mixed)
            EXPECT_LE(std::max(device_iterations, host_iterations) - std::min(device_iterations, host_iterations), 1u);
          else
            EXPECT_EQ(device_iterations, host_iterations);
          // mixed: the FP32 cycle's rounding, as the box tests above
          EXPECT_LE(relative_difference(u_device, u_host), parameters.precision == Precision::mixed ? 1e-7 : 1e-9);
          const double e_host = compute_l2_error(fine, u_host, solution);
          EXPECT_NEAR(compute_l2_error(fine, u_device, solution), e_host, 1e-6 * e_host);
        }
}

// The device solve names a NaN in b or u (found through the first monitor,
// not by separate passes over the inputs), in the mixed stationary iteration
// and in FP64 CG, solving twice with the same solver (the kept residual).
TEST(CudaMultigridSolver, names_non_finite_inputs)
{
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  const LevelHierarchy mesh = make_box_hierarchy(BoxDescription{}, 3);
  const Level         &fine = mesh.levels.back();
  CellVector<double>   b;
  assemble_right_hand_side(fine, 3, [](const Point &) { return 1.; }, b);
  for (const bool mixed : {true, false})
    {
      MultigridParameters parameters;
      parameters.smoother  = mixed ? SmootherType::patch : SmootherType::chebyshev;
      parameters.outer     = mixed ? OuterIteration::stationary : OuterIteration::cg;
      parameters.precision = mixed ? Precision::mixed : Precision::fp64;
      const cuda::MultigridSolver<CellBlocked<32>> solver(mesh, 3, parameters);
      const auto                                   db = to_device(relayout<CellBlocked<32>>(b));
      for (const bool bad_guess : {false, true})
        {
          SCOPED_TRACE(::testing::Message() << (mixed ? "mixed stationary" : "FP64 CG") << (bad_guess ? ", NaN in u" : ", NaN in b"));
          CellVector<double> bad_b = b, u(fine.n_cells(), 3);
          (bad_guess ? u : bad_b)(5, 7) = std::nan("");
          auto          du = to_device(relayout<CellBlocked<32>>(u));
          MonitorControl control(20, 1e-9);
          try
            {
              solver.solve(du, to_device(relayout<CellBlocked<32>>(bad_b)), control);
              ADD_FAILURE() << "NaN accepted";
            }
          catch (const Error &e)
            {
              EXPECT_NE(std::string(e.what()).find(bad_guess ? "initial guess contains NaN" : "right-hand side contains NaN"),
                        std::string::npos)
                << e.what();
            }
          // and a clean solve with the same solver afterwards
          CellVector<double, MemorySpace::CUDA, CellBlocked<32>> clean(fine.n_cells(), 3);
          MonitorControl                                          clean_control(20, 1e-9);
          EXPECT_NO_THROW(solver.solve(clean, db, clean_control));
          EXPECT_LE(clean_control.last_value(), 1e-9 * clean_control.initial_value());
        }
    }
}

TEST(CudaMultigridSolver, coefficient_scales_the_operator_and_points_or_mappings_take_the_general_parts)
{
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  const LevelHierarchy mesh = make_box_hierarchy(BoxDescription{}, 1);
  MultigridParameters  parameters;
  parameters.coefficient = [](const Point &) { return 2.; };
  // a constant coefficient 2 doubles the operator: A_2 u = 2 A_1 u
  cuda::LaplaceOperator<double> scaled(mesh.levels.back(), 3), plain(mesh.levels.back(), 3);
  scaled.set_coefficient(mesh.levels.back(), parameters.coefficient);
  CellVector<double> host_u(mesh.levels.back().n_cells(), 3), a_scaled(host_u), a_plain(host_u);
  fill_random(host_u, 9);
  CellVector<double, MemorySpace::CUDA> u, au_scaled, au_plain;
  u.copy_from_host(host_u);
  au_scaled.reinit(u);
  au_plain.reinit(u);
  scaled.vmult(au_scaled, u);
  plain.vmult(au_plain, u);
  au_scaled.copy_to_host(a_scaled);
  au_plain.copy_to_host(a_plain);
  a_plain.scale(2.);
  a_scaled.add(-1., a_plain);
  EXPECT_LE(a_scaled.linfty_norm(), 1e-13 * a_plain.linfty_norm());

  // the coefficient at the quadrature points (the default) and curved cells
  // (a mapping) take the general parts (cuda_general_multigrid_test.cc
  // checks their solves against the host's)
  {
    const cuda::MultigridSolver<> solver(mesh, 3, parameters);
    EXPECT_TRUE(solver.uses_general_operator());
  }
  LevelHierarchy curved = make_box_hierarchy(BoxDescription{}, 1);
  map_hierarchy(curved, 1, [](const Point &x) { return Point{{x[0] + 0.1 * x[1] * x[2], x[1], x[2]}}; });
  {
    const cuda::MultigridSolver<> solver(curved, 3, MultigridParameters{});
    EXPECT_TRUE(solver.uses_general_operator());
  }
  // ... but not with the patch smoother, whose kernels take box cells and
  // one coefficient per level
  MultigridParameters patch = parameters;
  patch.smoother            = SmootherType::patch;
  EXPECT_THROW(const cuda::MultigridSolver<> solver(mesh, 3, patch), Error);

  parameters.coefficient_evaluation = CoefficientEvaluation::cell_average;
  parameters.smoother = SmootherType::patch;
  parameters.outer    = OuterIteration::stationary;
  try
    {
      const cuda::MultigridSolver<> solver(mesh, 3, parameters);
      FAIL() << "a variable coefficient with the patch smoother was accepted";
    }
  catch (const Error &e)
    {
      EXPECT_NE(std::string(e.what()).find("vertex-patch smoother is not available on the CUDA backend"), std::string::npos)
        << e.what();
    }
}

TYPED_TEST(CudaMultigrid, default_problem_matches_host)
{
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  using Layout     = TypeParam;
  using HostVector = typename TestFixture::HostVector;
  using Vector     = typename TestFixture::Vector;
  constexpr double     pi       = 3.14159265358979323846;
  const ScalarFunction solution = [](const Point &x) {
    return std::sin(pi * x[0]) * std::sin(pi * x[1]) * std::sin(pi * x[2]);
  };
  const ScalarFunction rhs = [&](const Point &x) { return 3 * pi * pi * solution(x); };
  constexpr unsigned int degree = 3;
  // the contiguous layout (the program's) on all levels; the blocked one on the small ones
  const int max_level = max_test_level(std::is_same_v<Layout, CellContiguous> ? 5 : 3);
  for (const MultigridParameters &parameters : {cg_chebyshev(), stationary_jacobi()})
    for (int L = 2; L <= max_level; ++L)
      {
        SCOPED_TRACE(::testing::Message() << "L = " << L << ", smoother " << to_string(parameters.smoother)
                                          << ", outer " << to_string(parameters.outer));
        const LevelHierarchy mesh = make_box_hierarchy(BoxDescription{}, L, CellOrdering::child_major);
        const Level         &fine = mesh.levels.back();
        HostVector           b;
        assemble_right_hand_side(fine, degree, rhs, b);

        // host: the program's solver (contiguous layout)
        CellVector<double> host_b, host_u(fine.n_cells(), degree);
        assemble_right_hand_side(fine, degree, rhs, host_b);
        const cellwise::MultigridSolver host(mesh, degree, parameters);
        MonitorControl                   host_control(100, 1e-9);
        const SolveStatistics           host_statistics = host.solve(host_u, host_b, host_control);
        const double host_error = compute_l2_error(fine, host_u, solution, true, degree + 1);

        const cuda::MultigridSolver<Layout> device(mesh, degree, parameters);
        Vector                              u(fine.n_cells(), degree);
        const Vector                        db = to_device(b);
        MonitorControl                       control(100, 1e-9);
        const SolveStatistics               statistics = device.solve(u, db, control);
        const double device_error = compute_l2_error(fine, to_host(u), solution, true, degree + 1);

        EXPECT_EQ(statistics.iterations(), host_statistics.iterations());
        EXPECT_NEAR(device_error, host_error, 1e-10 * host_error);
        EXPECT_NEAR(statistics.reduction(), host_statistics.reduction(), 1e-4 * host_statistics.reduction());
        std::cout << "  L = " << L << " " << to_string(parameters.outer) << " + " << to_string(parameters.smoother)
                  << ": " << statistics.iterations() << " iterations (host " << host_statistics.iterations()
                  << "), L2 error " << device_error << " (host " << host_error << ", relative difference "
                  << std::abs(device_error - host_error) / host_error << ")" << std::endl;
      }
}
