// The outer iterations with the V-cycle: flat CG counts and optimal L2 rates on
// the default problem, continuity of the solution, the stationary iteration,
// the stopping control and bad input.

#include <cellwise/mesh/box_builder.h>
#include <cellwise/multigrid/multigrid_solver.h>
#include <cellwise/operators/function_tools.h>

#include <gtest/gtest.h>

#include <cmath>

#include "repeated_solve_check.h"
#include "test_utilities.h"

using namespace cellwise;
using namespace cellwise::testing;

namespace
{
  double
  sine_solution(const Point &x)
  {
    return std::sin(M_PI * x[0]) * std::sin(M_PI * x[1]) * std::sin(M_PI * x[2]);
  }
  double
  sine_rhs(const Point &x)
  {
    return 3 * M_PI * M_PI * sine_solution(x);
  }

  struct Result
  {
    unsigned int iterations;
    double       l2_error;
    double       copy_difference;
    double       max_value;
  };

  Result
  solve_default_problem(const unsigned int degree, const int L, const MultigridParameters &parameters, const double tolerance = 1e-9)
  {
    const LevelHierarchy h     = make_box_hierarchy(BoxDescription{}, L);
    const Level         &fine  = h.levels.back();
    MultigridSolver      solver(h, degree, parameters);
    CellVector<double>   b, u(fine.n_cells(), degree);
    assemble_right_hand_side(fine, degree, sine_rhs, b);
    MonitorControl         control(100, tolerance);
    const SolveStatistics statistics = solver.solve(u, b, control);
    return {statistics.iterations(), compute_l2_error(fine, u, sine_solution), max_copy_difference(number_by_coordinates(fine, degree), u),
            u.linfty_norm()};
  }
} // namespace

class CgFlatCounts : public ::testing::TestWithParam<std::tuple<unsigned int, SmootherType>>
{};

TEST_P(CgFlatCounts, IterationsFlatAndErrorsAtOptimalRate)
{
  const auto [degree, smoother] = GetParam();
  MultigridParameters parameters;
  parameters.smoother = smoother;
  std::vector<Result> results;
  for (int L = 2; L <= 5; ++L)
    results.push_back(solve_default_problem(degree, L, parameters));
  unsigned int min_it = 1000, max_it = 0;
  for (const Result &r : results)
    {
      min_it = std::min(min_it, r.iterations);
      max_it = std::max(max_it, r.iterations);
      EXPECT_LE(r.copy_difference, 1e-14 * r.max_value);
    }
  EXPECT_LE(max_it - min_it, 1u) << "CG counts not flat in L for degree " << degree;
  const double rate = std::log2(results[results.size() - 2].l2_error / results.back().l2_error);
  EXPECT_GE(rate, degree + 0.9) << "degree " << degree;
}

INSTANTIATE_TEST_SUITE_P(DegreesAndSmoothers,
                         CgFlatCounts,
                         ::testing::Combine(::testing::Values(2u, 3u, 4u), ::testing::Values(SmootherType::jacobi, SmootherType::chebyshev)));

TEST(StationaryIteration, ConvergesToTheCgSolution)
{
  MultigridParameters parameters;
  parameters.outer = OuterIteration::stationary;
  const Result stationary = solve_default_problem(3, 3, parameters, 1e-11);
  parameters.outer        = OuterIteration::cg;
  const Result cg         = solve_default_problem(3, 3, parameters, 1e-11);
  EXPECT_NEAR(stationary.l2_error, cg.l2_error, 1e-6 * cg.l2_error);
  EXPECT_LE(stationary.copy_difference, 1e-14 * stationary.max_value);
}

TEST(MonitorControl, DecidesAsDocumented)
{
  MonitorControl control(5, 1e-3);
  EXPECT_EQ(control.check(0, 2.), IterationControl::iterate);
  EXPECT_EQ(control.check(1, 1.), IterationControl::iterate);
  EXPECT_EQ(control.check(2, 1e-3), IterationControl::success);
  EXPECT_EQ(control.check(2, std::nan("")), IterationControl::failure);
  EXPECT_NE(control.failure_reason().find("nan"), std::string::npos) << control.failure_reason();
  EXPECT_EQ(control.check(3, 2.1e3), IterationControl::failure);
  EXPECT_NE(control.failure_reason().find("diverged"), std::string::npos);
  EXPECT_EQ(control.check(5, 1.), IterationControl::failure);
  EXPECT_NE(control.failure_reason().find("limit of 5"), std::string::npos);
  EXPECT_THROW(MonitorControl(5, 0.), Error);
  EXPECT_THROW(MonitorControl(5, -1.), Error);
}

TEST(FixedIterationControl, SucceedsAfterExactlyNSteps)
{
  FixedIterationControl control(3);
  EXPECT_EQ(control.check(0, 1.), IterationControl::iterate);
  EXPECT_EQ(control.check(2, 1e-30), IterationControl::iterate); // a tiny value does not stop it
  EXPECT_EQ(control.check(3, 1e30), IterationControl::success);  // nor does a large one keep it going
  EXPECT_EQ(control.check(1, std::nan("")), IterationControl::failure);
  EXPECT_EQ(control.check(1, HUGE_VAL), IterationControl::failure);
  EXPECT_NE(control.failure_reason().find("finite"), std::string::npos) << control.failure_reason();
}

TEST(SolveStatistics, FractionalCountInterpolatesLogarithmically)
{
  SolveStatistics s;
  s.monitor = {1., 1e-3, 1e-6, 1e-9, 1e-12};
  EXPECT_NEAR(s.fractional_iterations(1e-9), 3., 1e-12);
  EXPECT_NEAR(s.fractional_iterations(1e-10), 3. + 1. / 3., 1e-12);
  EXPECT_NEAR(s.average_contraction(), 1e-3, 1e-15);
}

TEST(MultigridSolver, IterationLimitAndNaNAreReportedClearly)
{
  const LevelHierarchy h    = make_box_hierarchy(BoxDescription{}, 2);
  const Level         &fine = h.levels.back();
  MultigridSolver      solver(h, 2, MultigridParameters{});
  CellVector<double>   b, u(fine.n_cells(), 2);
  assemble_right_hand_side(fine, 2, sine_rhs, b);
  MonitorControl control(1, 1e-12);
  try
    {
      solver.solve(u, b, control);
      FAIL() << "one iteration reached 1e-12";
    }
  catch (const NoConvergence &e)
    {
      EXPECT_NE(std::string(e.what()).find("iteration limit of 1"), std::string::npos) << e.what();
    }
  b(3, 5) = std::nan("");
  MonitorControl control2(10, 1e-6);
  u.set_zero();
  try
    {
      solver.solve(u, b, control2);
      FAIL() << "NaN accepted";
    }
  catch (const Error &e)
    {
      EXPECT_NE(std::string(e.what()).find("right-hand side contains NaN"), std::string::npos) << e.what();
    }
}

// The inputs are checked only when the first monitor is not finite (no
// passes over b and u in a normal solve): a NaN or infinity in either must
// still be named, for both outer iterations and whatever the control says
// (here one that never fails, even on NaN), with u left as it was.
TEST(MultigridSolver, NonFiniteInputsAreNamedWhateverTheControl)
{
  struct BlindControl : IterationControl
  {
    State
    check(const unsigned int step, double) override
    {
      return step >= 3 ? success : iterate;
    }
  };
  const LevelHierarchy h    = make_box_hierarchy(BoxDescription{}, 2);
  const Level         &fine = h.levels.back();
  for (const OuterIteration outer : {OuterIteration::cg, OuterIteration::stationary})
    for (const bool bad_guess : {false, true})
      for (const double bad : {std::nan(""), HUGE_VAL})
        {
          SCOPED_TRACE(::testing::Message() << (outer == OuterIteration::cg ? "CG" : "stationary") << ", " << bad
                                            << (bad_guess ? " in u" : " in b"));
          MultigridParameters parameters;
          parameters.outer = outer;
          MultigridSolver    solver(h, 2, parameters);
          CellVector<double> b, u(fine.n_cells(), 2);
          assemble_right_hand_side(fine, 2, sine_rhs, b);
          if (bad_guess)
            u(7, 4) = bad;
          else
            b(3, 5) = bad;
          const CellVector<double> u_before = u;
          BlindControl             control;
          try
            {
              solver.solve(u, b, control);
              ADD_FAILURE() << "a non-finite input was accepted";
            }
          catch (const Error &e)
            {
              const std::string expected = bad_guess ? "initial guess contains NaN or infinite" : "right-hand side contains NaN or infinite";
              EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
            }
          for (unsigned int cell = 0; cell < fine.n_cells(); ++cell)
            for (unsigned int i = 0; i < u.dofs_per_cell(); ++i)
              ASSERT_TRUE(u(cell, i) == u_before(cell, i) || (std::isnan(u(cell, i)) && std::isnan(u_before(cell, i))));
        }
}

TEST(MultigridSolver, BadParametersAreRejected)
{
  const LevelHierarchy h = make_box_hierarchy(BoxDescription{}, 1);
  MultigridParameters  p;
  p.jacobi_omega = 2.5;
  EXPECT_THROW(MultigridSolver(h, 2, p), Error);
  p              = MultigridParameters{};
  p.smoothing_steps = 0;
  EXPECT_THROW(MultigridSolver(h, 2, p), Error);
  EXPECT_THROW(MultigridSolver(h, 9, MultigridParameters{}), Error);
  EXPECT_THROW(parse_smoother_type("gauss-seidel"), Error);
}

TEST(OuterSolvers, IndefinitePreconditionerIsReportedNotRounding)
{
  // −V is negative definite: CG must stop with a clear message rather than
  // take it for the rounding of a converged residual.
  struct Negated : Preconditioner<CellVector<double>>
  {
    explicit Negated(const Preconditioner<CellVector<double>> &V)
      : V(V)
    {}
    void
    vmult(CellVector<double> &z, const CellVector<double> &r) const override
    {
      V.vmult(z, r);
      z.scale(-1.);
    }
    const Preconditioner<CellVector<double>> &V;
  };
  const LevelHierarchy h    = make_box_hierarchy(BoxDescription{}, 2);
  const Level         &fine = h.levels.back();
  MultigridSolver      solver(h, 2, MultigridParameters{});
  CellVector<double>   b, u(fine.n_cells(), 2);
  assemble_right_hand_side(fine, 2, sine_rhs, b);
  MonitorControl control(10, 1e-9);
  try
    {
      solve_cg<CellVector<double>>(solver.fine_operator(), Negated(solver.preconditioner()), u, b, solver.dirichlet_mask(), control);
      FAIL() << "a negative definite preconditioner was accepted";
    }
  catch (const Error &e)
    {
      EXPECT_NE(std::string(e.what()).find("not positive definite"), std::string::npos) << e.what();
    }
}

TEST(OuterSolvers, CgReturnsTheIterateOfItsLastMonitor)
{
  // CG adds α p to u in the pass of the next search direction, and the last
  // step at the end: the u it returns is the one whose residual gave the
  // last monitor (without the last step its residual is that of the step
  // before, several times larger).
  const LevelHierarchy h    = make_box_hierarchy(BoxDescription{}, 2);
  const Level         &fine = h.levels.back();
  MultigridSolver      solver(h, 2, MultigridParameters{});
  CellVector<double>   b, u(fine.n_cells(), 2), r, z;
  assemble_right_hand_side(fine, 2, sine_rhs, b);
  MonitorControl  control(50, 1e-9);
  const auto      statistics = solve_cg<CellVector<double>>(solver.fine_operator(), solver.preconditioner(), u, b,
                                                       solver.dirichlet_mask(), control);
  ASSERT_GE(statistics.iterations(), 2u);
  solver.fine_operator().masked_residual(r, b, u, solver.dirichlet_mask());
  z.reinit(r);
  solver.preconditioner().vmult(z, r);
  const double eta = std::sqrt(r.dot(z));
  EXPECT_NEAR(eta, statistics.monitor.back(), 1e-3 * statistics.monitor.back());
}

TEST(OuterSolvers, RepeatedSolvesReuseTheirWorkVectorsUnchanged)
{
  // The solver keeps the outer iteration's work vectors and the
  // preconditioner's step between solves, reused without a zero fill: the
  // solve of a second load gives bit for bit what a fresh solver gives.
  const LevelHierarchy h    = make_box_hierarchy(BoxDescription{}, 2);
  const Level         &fine = h.levels.back();
  for_each_outer_iteration_and_precision([&](const MultigridParameters &parameters) {
    MultigridSolver    kept(h, 2, parameters), fresh(h, 2, parameters);
    CellVector<double> b1, b2;
    assemble_right_hand_side(fine, 2, sine_rhs, b1);
    b2.reinit(b1); // another load: random copies on top of 3 b1
    fill_random(b2, 5);
    b2.add(3., b1);
    expect_second_solve_as_a_fresh_one(kept, fresh, b1, b2, 60, 1e-9);
  });
}

TEST(OuterSolvers, GenericStationaryStepIsVmultDotAdd)
{
  // An FP64 preconditioner keeps the default step: apply is vmult and ⟨r, z⟩,
  // add_correction is u += z, bit for bit (the FP64 stationary iteration is
  // unchanged by the step).
  const LevelHierarchy h    = make_box_hierarchy(BoxDescription{}, 2);
  const Level         &fine = h.levels.back();
  MultigridSolver      solver(h, 2, MultigridParameters{});
  const auto          &V = solver.preconditioner();
  CellVector<double>   b, r, u(fine.n_cells(), 2);
  assemble_right_hand_side(fine, 2, sine_rhs, b);
  fill_random(u, 3);
  u.scale(solver.dirichlet_mask());

  const auto step = V.make_stationary_step();
  for (int repeat = 0; repeat < 2; ++repeat)
    {
      solver.fine_operator().masked_residual(r, b, u, solver.dirichlet_mask());
      CellVector<double> z(fine.n_cells(), 2);
      V.vmult(z, r);
      const double expected_rz = r.dot(z);
      EXPECT_EQ(step->apply(r), expected_rz) << "step " << repeat;
      CellVector<double> expected_u = u;
      expected_u.add(1., z);
      step->add_correction(u);
      for (std::size_t k = 0; k < u.storage_size(); ++k)
        ASSERT_EQ(u.data()[k], expected_u.data()[k]) << "step " << repeat << ", entry " << k;
    }
}

// The default coarse solver is picked by cost: the dense Cholesky solve where
// the coarse level is small, the level smoother where the factorization
// would take long (3536 free DoFs took 11-13 s of set-up); the log says
// which and why.
TEST(MultigridSolver, AutomaticCoarseSolverIsPickedByCostAndLogged)
{
  const MultigridParameters automatic;
  EXPECT_EQ(automatic.coarse_solver, CoarseSolverType::automatic);
  const LevelHierarchy small = make_box_hierarchy(BoxDescription{}, 0); // 4^3 = 64 DoFs at Q3
  BoxDescription       large_box;
  large_box.subdivisions     = {{12, 12, 12}}; // 37^3 = 50653 DoFs at Q3
  const LevelHierarchy large = make_box_hierarchy(large_box, 0);
  EXPECT_EQ(coarse_solver_for(automatic, small.level(0), 3), CoarseSolverType::cholesky);
  EXPECT_EQ(coarse_solver_for(automatic, large.level(0), 3), CoarseSolverType::cg);
  EXPECT_EQ(describe_coarse_solver(automatic, large.level(0), 3),
            "coarse solver cg (automatic: 50653 DoFs, Cholesky up to 1500)");
  MultigridParameters cholesky;
  cholesky.coarse_solver = CoarseSolverType::cholesky;
  EXPECT_EQ(coarse_solver_for(cholesky, large.level(0), 3), CoarseSolverType::cholesky) << "an explicit choice stays";
  EXPECT_EQ(describe_coarse_solver(cholesky, large.level(0), 3), "coarse solver cholesky");
  EXPECT_EQ(parse_coarse_solver_type("auto"), CoarseSolverType::automatic);
}

// Large coarse levels (10^4 coarse cells): CG with the level smoother as the
// coarse solve gives the outer counts of the exact coarse solve; the sine
// problem (its right-hand side an eigenvector) must not fail either.
TEST(MultigridSolver, CgCoarseSolveOfALargeCoarseLevelMatchesTheExactOne)
{
  const auto solve = [](const unsigned int n_coarse, const CoarseSolverType type) {
    BoxDescription box;
    box.subdivisions       = {{n_coarse, n_coarse, n_coarse}};
    const LevelHierarchy h = make_box_hierarchy(box, 1);
    MultigridParameters  parameters;
    parameters.coarse_solver = type;
    const MultigridSolver solver(h, 1, parameters);
    CellVector<double>    b, u(h.levels.back().n_cells(), 1);
    // not the sine: that is an eigenvector of the level operators, which one
    // inner CG step solves, leaving rounding noise for the next coarse solve
    assemble_right_hand_side(h.levels.back(), 1, [](const Point &x) { return 1. + x[0] * x[1] + std::exp(x[2]); }, b);
    MonitorControl control(100, 1e-9);
    return solver.solve(u, b, control).iterations();
  };
  // 10^3 coarse cells, Q1: 729 free DoFs, where Cholesky is cheap
  const unsigned int exact = solve(10, CoarseSolverType::cholesky);
  const unsigned int cg    = solve(10, CoarseSolverType::cg);
  EXPECT_LE(cg, exact + 1);
  EXPECT_GE(cg + 1, exact);
  // 22^3 = 10 648 coarse cells: 9 261 free DoFs
  const unsigned int large_cg       = solve(22, CoarseSolverType::cg);
  const unsigned int large_smoother = solve(22, CoarseSolverType::smoother);
  std::cout << "  coarse 10^3: Cholesky " << exact << ", CG " << cg << " outer iterations; coarse 22^3: CG " << large_cg
            << ", 20 smoother applications " << large_smoother << std::endl;
  EXPECT_LE(large_cg, exact + 1);
  MultigridParameters cg_parameters;
  cg_parameters.coarse_solver = CoarseSolverType::cg;
  const Result sine           = solve_default_problem(1, 2, cg_parameters);
  EXPECT_LE(sine.iterations, 12u);
  EXPECT_EQ(parse_coarse_solver_type("cg"), CoarseSolverType::cg);
  EXPECT_EQ(to_string(CoarseSolverType::cg), "cg");
}
