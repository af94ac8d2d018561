// The pure Neumann problem (MultigridParameters::pure_neumann): −Δu = f with
// ∂u/∂n = 0 on the whole boundary of the unit cube, u = cos πx cos πy cos πz.
// The solver converges as fast as with Dirichlet conditions, its solution has
// zero mean over the DoFs and converges to u (up to the constant) at the
// element's rate, in CG and the stationary iteration, FP64 and mixed; the
// constant null space helpers obey their identities; what cannot solve it
// refuses it.

#include <cellwise/base/exceptions.h>
#include <cellwise/mesh/adaptive_builder.h>
#include <cellwise/mesh/box_builder.h>
#include <cellwise/multigrid/multigrid_solver.h>
#include <cellwise/operators/function_tools.h>
#include <cellwise/storage/constant_null_space.h>
#include <cellwise/storage/dss.h>

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "test_utilities.h"

using namespace cellwise;
using namespace cellwise::testing;

namespace
{
  const double pi = std::acos(-1.);

  /// Expects @p f to throw cellwise::Error with @p phrase in its message.
  template <typename F>
  void
  expect_error_containing(F &&f, const std::string &phrase)
  {
    try
      {
        f();
        ADD_FAILURE() << "no error; expected one containing '" << phrase << "'";
      }
    catch (const Error &e)
      {
        EXPECT_NE(std::string(e.what()).find(phrase), std::string::npos) << e.what();
      }
  }

  double
  exact(const Point &x)
  {
    return std::cos(pi * x[0]) * std::cos(pi * x[1]) * std::cos(pi * x[2]);
  }

  double
  rhs(const Point &x)
  {
    return 3 * pi * pi * exact(x);
  }

  struct NeumannResult
  {
    unsigned int iterations = 0;
    double       mean       = 0; ///< Σ_j u_j / N of the solution
    double       error      = 0; ///< L2 error of u − I(exact), its DoF mean removed
  };

  NeumannResult
  solve_neumann(const unsigned int L, const unsigned int degree, MultigridParameters parameters)
  {
    parameters.pure_neumann         = true;
    const LevelHierarchy   h        = make_box_hierarchy(BoxDescription{}, L);
    const Level           &fine     = h.level(h.max_level());
    const MultigridSolver  solver(h, degree, parameters);
    CellVector<double>     b, u, interpolant;
    assemble_right_hand_side(fine, degree, rhs, b);
    MonitorControl        control(60, 1e-10);
    const SolveStatistics statistics = solver.solve(u, b, control);

    const ConstantNullSpace<double> null_space(fine, degree);
    NeumannResult                   result;
    result.iterations = statistics.iterations();
    CellVector<double> shifted = u;
    null_space.subtract_mean(shifted);
    CellVector<double> difference = u;
    difference.add(-1., shifted);
    result.mean = difference.linfty_norm(); // the mean that was left in u
    interpolate(fine, degree, exact, interpolant);
    CellVector<double> e = u;
    e.add(-1., interpolant);
    null_space.subtract_mean(e);
    result.error = compute_l2_error(fine, e, [](const Point &) { return 0.; });
    return result;
  }
} // namespace

TEST(ConstantNullSpace, WeightsSumToTheDoFCountAndMakeDualsCompatible)
{
  const LevelHierarchy            h    = make_box_hierarchy(BoxDescription{{0., 0., 0.}, {1., 2., 1.}, {2, 1, 3}}, 1);
  const Level                    &fine = h.level(1);
  const unsigned int              p    = 2;
  const ConstantNullSpace<double> null_space(fine, p);
  // (2·2 p + 1)(1·2 p + 1)(3·2 p + 1) unique DoFs
  EXPECT_NEAR(null_space.n_dofs(), 9. * 5. * 13., 1e-9);

  CellVector<double> b(fine.n_cells(), p), u(fine.n_cells(), p);
  fill_random(b, 3);
  fill_random(u, 4);
  null_space.make_compatible(b);
  EXPECT_NEAR(null_space.dual_sum(b), 0., 1e-12 * b.l2_norm() * null_space.n_dofs());
  // a primal vector (copies agree) after subtract_mean has zero DoF mean:
  // ⟨u, w⟩ = 0, i.e. making the dual w-scaled copy compatible does nothing
  apply_dss(fine, u, DssMode::mean);
  null_space.subtract_mean(u);
  CellVector<double> again = u;
  null_space.subtract_mean(again);
  again.add(-1., u);
  EXPECT_LE(again.linfty_norm(), 1e-14);
}

TEST(PureNeumann, CGConvergesWithZeroMeanAndTheElementRate)
{
  for (const SmootherType smoother : {SmootherType::chebyshev, SmootherType::jacobi})
    {
      MultigridParameters parameters;
      parameters.smoother      = smoother;
      const NeumannResult r2   = solve_neumann(2, 2, parameters);
      const NeumannResult r3   = solve_neumann(3, 2, parameters);
      SCOPED_TRACE(to_string(smoother));
      EXPECT_LE(r3.iterations, smoother == SmootherType::chebyshev ? 12u : 20u);
      EXPECT_LE(r3.iterations, r2.iterations + 2); // mesh-independent
      EXPECT_LE(r2.mean, 1e-12);
      EXPECT_LE(r3.mean, 1e-12);
      // Q2: the error of the mean-free part falls by about 2^3 per refinement
      EXPECT_GT(r2.error / r3.error, 6.);
      EXPECT_LT(r3.error, 1e-3);
    }
}

TEST(PureNeumann, StationaryMixedAndTheSmootherCoarseSolveAgree)
{
  MultigridParameters fp64;
  const NeumannResult reference = solve_neumann(3, 3, fp64);

  MultigridParameters mixed;
  mixed.precision          = Precision::mixed;
  const NeumannResult r_mp = solve_neumann(3, 3, mixed);
  EXPECT_LE(r_mp.iterations, reference.iterations + 1);
  EXPECT_NEAR(r_mp.error, reference.error, 0.01 * reference.error);

  MultigridParameters stationary;
  stationary.outer          = OuterIteration::stationary;
  const NeumannResult r_st  = solve_neumann(3, 3, stationary);
  EXPECT_LE(r_st.iterations, 40u);
  EXPECT_NEAR(r_st.error, reference.error, 0.01 * reference.error);

  MultigridParameters smoother_coarse;
  smoother_coarse.coarse_solver = CoarseSolverType::smoother;
  const NeumannResult r_sc      = solve_neumann(3, 3, smoother_coarse);
  EXPECT_NEAR(r_sc.error, reference.error, 0.01 * reference.error);
}

TEST(PureNeumann, WhatCannotSolveItRefusesIt)
{
  const LevelHierarchy h = make_box_hierarchy(BoxDescription{}, 2);
  MultigridParameters  parameters;
  parameters.pure_neumann = true;

  MultigridParameters with_ids = parameters;
  with_ids.dirichlet_ids       = {0};
  expect_error_containing([&] { MultigridSolver s(h, 2, with_ids); }, "no Dirichlet boundary");

  MultigridParameters patch = parameters;
  patch.smoother            = SmootherType::patch;
  patch.outer               = OuterIteration::stationary;
  expect_error_containing([&] { MultigridSolver s(h, 2, patch); }, "boundary DoFs");

  // on a locally refined hierarchy not yet (the solve on the active cells)
  const LevelHierarchy a = make_adaptive_box_hierarchy(BoxDescription{}, 1, 1, make_octant_marker(BoxDescription{}));
  expect_error_containing([&] { MultigridSolver s(a, 2, parameters); }, "does not solve pure Neumann problems");

  // without the option, no Dirichlet id is still no problem to solve: the
  // default takes every boundary face as Dirichlet, as before
  EXPECT_NO_THROW(MultigridSolver(h, 2, MultigridParameters{}));
}
