// Mixed precision (000 §4): the rounding of an unrebalanced residual loses the
// cancellation of its copies, the rebalanced one does not; the FP32 hierarchy
// inside the FP64 outer iteration converges as the FP64 one.

#include <cellwise/mesh/box_builder.h>
#include <cellwise/mesh/unstructured_builder.h>
#include <cellwise/multigrid/mixed_precision.h>
#include <cellwise/multigrid/multigrid_solver.h>
#include <cellwise/operators/function_tools.h>
#include <cellwise/storage/dss.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <memory>
#include <vector>

#include "test_utilities.h"

using namespace cellwise;
using namespace cellwise::testing;

namespace
{
  /// ‖G^T (fl32(r) − r)‖ / ‖G^T r‖
  double
  assembled_rounding_error(const CoordinateNumbering &numbering, const CellVector<double> &r)
  {
    CellVector<float> r32;
    r32.copy_from(r);
    CellVector<double> rounded;
    rounded.copy_from(r32);
    const std::vector<double> exact = sum_copies_by(numbering, r);
    const std::vector<double> approx = sum_copies_by(numbering, rounded);
    double diff = 0, norm = 0;
    for (std::size_t k = 0; k < exact.size(); ++k)
      {
        diff += (approx[k] - exact[k]) * (approx[k] - exact[k]);
        norm += exact[k] * exact[k];
      }
    return std::sqrt(diff / norm);
  }
} // namespace

TEST(MixedPrecision, RebalancingKeepsTheRoundedResidualAccurate)
{
  // A residual after a few iterations: its copies carry O(1) fluxes of
  // opposite sign that cancel in the assembly (000 §4.3).
  const LevelHierarchy h    = make_box_hierarchy(BoxDescription{}, 4);
  const Level         &fine = h.levels.back();
  MultigridSolver      solver(h, 3, MultigridParameters{});
  CellVector<double>   b, u(fine.n_cells(), 3), r;
  assemble_right_hand_side(fine, 3, sine_load, b);
  MonitorControl control(100, 1e-7);
  solver.solve(u, b, control);
  solver.fine_operator().residual(r, b, u);
  r.scale(solver.dirichlet_mask());

  const auto   numbering = number_by_coordinates(fine, 3);
  const double raw       = assembled_rounding_error(numbering, r);
  CellVector<double> balanced = r;
  apply_dss(fine, balanced, DssMode::mean);
  const double rebalanced = assembled_rounding_error(numbering, balanced);
  std::cout << "relative error of G^T fl32(r): raw " << raw << ", rebalanced " << rebalanced << std::endl;
  EXPECT_LE(rebalanced, 1e-6) << "rebalanced residual should round at FP32 accuracy";
  EXPECT_GE(raw, 100 * rebalanced) << "raw " << raw << ", rebalanced " << rebalanced;
}

class MixedMatchesDouble : public ::testing::TestWithParam<std::tuple<SmootherType, OuterIteration>>
{};

TEST_P(MixedMatchesDouble, SameIterationCounts)
{
  const auto [smoother, outer] = GetParam();
  for (int L = 2; L <= 4; ++L)
    {
      const LevelHierarchy h    = make_box_hierarchy(BoxDescription{}, L);
      const Level         &fine = h.levels.back();
      CellVector<double>   b;
      assemble_right_hand_side(fine, 3, sine_load, b);
      unsigned int iterations[2];
      double       fractional[2];
      for (const Precision precision : {Precision::fp64, Precision::mixed})
        {
          MultigridParameters parameters;
          parameters.smoother  = smoother;
          parameters.outer     = outer;
          parameters.precision = precision;
          MultigridSolver    solver(h, 3, parameters);
          CellVector<double> u(fine.n_cells(), 3);
          MonitorControl      control(50, 1e-9);
          const auto         statistics = solver.solve(u, b, control);
          iterations[precision == Precision::mixed] = statistics.iterations();
          fractional[precision == Precision::mixed] = statistics.fractional_iterations(1e-9);
        }
      EXPECT_EQ(iterations[0], iterations[1]) << "L = " << L;
      EXPECT_NEAR(fractional[0], fractional[1], 0.05) << "L = " << L;
    }
}

INSTANTIATE_TEST_SUITE_P(Configurations,
                         MixedMatchesDouble,
                         ::testing::Values(std::make_tuple(SmootherType::patch, OuterIteration::stationary),
                                           std::make_tuple(SmootherType::patch, OuterIteration::cg),
                                           std::make_tuple(SmootherType::chebyshev, OuterIteration::cg)));

namespace
{
  /// Counts the cycles an outer iteration applies. As a plain Preconditioner
  /// it also hides the wrapped one's own stationary step: the stationary
  /// iteration then widens V r into an FP64 vector, pairs it with the FP64
  /// residual and adds it (the arithmetic before the fused mixed step).
  struct CountingPreconditioner : Preconditioner<CellVector<double>>
  {
    explicit CountingPreconditioner(const Preconditioner<CellVector<double>> &inner)
      : inner(inner)
    {}
    void
    vmult(CellVector<double> &z, const CellVector<double> &r) const override
    {
      ++count;
      inner.vmult(z, r);
    }
    const Preconditioner<CellVector<double>> &inner;
    mutable unsigned int                      count = 0;
  };
} // namespace

TEST(MixedPrecision, ExtrapolatedStopSavesTheLastCycle)
{
  const LevelHierarchy h    = make_box_hierarchy(BoxDescription{}, 3);
  const Level         &fine = h.levels.back();
  CellVector<double>   b;
  assemble_right_hand_side(fine, 3, sine_load, b);
  MultigridParameters parameters;
  parameters.smoother  = SmootherType::patch;
  parameters.outer     = OuterIteration::stationary;
  parameters.precision = Precision::mixed;
  MultigridSolver                        solver(h, 3, parameters);
  const ResidualHook<CellVector<double>> rebalance = [&](CellVector<double> &r, unsigned int) { apply_dss(fine, r, DssMode::mean); };
  unsigned int                           corrections[2], cycles[2];
  for (const bool extrapolated : {false, true})
    {
      CountingPreconditioner V(solver.preconditioner());
      CellVector<double>     u(fine.n_cells(), 3);
      MonitorControl          control(50, 1e-9);
      corrections[extrapolated] =
        solve_stationary<CellVector<double>>(solver.fine_operator(), V, u, b, solver.dirichlet_mask(), control, rebalance, extrapolated)
          .iterations();
      cycles[extrapolated] = V.count;
    }
  // the measured monitor of u_n needs the (n+1)-th cycle; the estimate does not
  EXPECT_EQ(cycles[0], corrections[0] + 1);
  EXPECT_EQ(cycles[1], corrections[1]);
  EXPECT_EQ(corrections[1], corrections[0]);
}

TEST(MixedPrecision, WithoutRebalancingTheStationaryIterationStalls)
{
  const LevelHierarchy h    = make_box_hierarchy(BoxDescription{}, 3);
  const Level         &fine = h.levels.back();
  CellVector<double>   b;
  assemble_right_hand_side(fine, 3, sine_load, b);
  MultigridParameters parameters;
  parameters.smoother  = SmootherType::patch;
  parameters.outer     = OuterIteration::stationary;
  parameters.precision = Precision::mixed;
  for (const int period : {0, 1})
    {
      parameters.rebalance_every = period;
      MultigridSolver    solver(h, 3, parameters);
      CellVector<double> u(fine.n_cells(), 3);
      MonitorControl      control(30, 1e-11);
      if (period == 0)
        EXPECT_THROW(solver.solve(u, b, control), NoConvergence) << "no stall without rebalancing";
      else
        EXPECT_LE(solver.solve(u, b, control).iterations(), 8u);
    }
}

TEST(MixedPrecision, ForwardCycleWithCgAndPatchIsRejected)
{
  const LevelHierarchy h = make_box_hierarchy(BoxDescription{}, 1);
  MultigridParameters  parameters;
  parameters.smoother = SmootherType::patch;
  parameters.cycle    = CycleType::forward;
  EXPECT_THROW(MultigridSolver(h, 3, parameters), Error);
  parameters.rebalance_every = -2;
  parameters.outer           = OuterIteration::stationary;
  EXPECT_THROW(MultigridSolver(h, 3, parameters), Error);
}

namespace
{

  MultigridParameters
  mixed_patch_stationary()
  {
    MultigridParameters parameters;
    parameters.smoother  = SmootherType::patch;
    parameters.outer     = OuterIteration::stationary;
    parameters.precision = Precision::mixed;
    return parameters;
  }
} // namespace

TEST(MixedPrecision, FusedStepPairsTheFp32VectorsAndAddsTheWidenedCorrection)
{
  // apply: ⟨fl32(r), z32⟩ accumulated in double; add_correction: u += widen(z32),
  // both bit for bit against the widened vmult (the widening is exact, so z32
  // is the rounding of the widened correction).
  const LevelHierarchy h    = make_box_hierarchy(BoxDescription{}, 2);
  const Level         &fine = h.levels.back();
  MultigridSolver      solver(h, 3, mixed_patch_stationary());
  const auto          &V = solver.preconditioner();
  CellVector<double>   b, r, u(fine.n_cells(), 3);
  assemble_right_hand_side(fine, 3, sine_load, b);
  solver.fine_operator().masked_residual(r, b, u, solver.dirichlet_mask());
  apply_dss(fine, r, DssMode::mean);

  CellVector<double> z(fine.n_cells(), 3);
  V.vmult(z, r);
  CellVector<float> r32, z32;
  r32.copy_from(r);
  z32.copy_from(z);
  const double pairing_fp32 = r32.dot(z32);

  const auto step = V.make_stationary_step();
  const double rz  = step->apply(r);
  EXPECT_EQ(rz, pairing_fp32);
  EXPECT_NEAR(rz, r.dot(z), 1e-6 * rz) << "the pairings differ by more than the rounding of r";
  fill_random(u, 4);
  CellVector<double> expected = u;
  expected.add(1., z);
  step->add_correction(u);
  for (std::size_t k = 0; k < u.storage_size(); ++k)
    ASSERT_EQ(u.data()[k], expected.data()[k]) << "entry " << k;
}

TEST(MixedPrecision, FusedStepGivesTheIteratesOfTheWidenedOne)
{
  // The corrections are the same FP32 vectors, added exactly widened either
  // way: the iterates agree bit for bit; only the monitor moves, by the
  // rounding of the residual it pairs.
  for (int L = 2; L <= 4; ++L)
    {
      SCOPED_TRACE(::testing::Message() << "L = " << L);
      const LevelHierarchy h    = make_box_hierarchy(BoxDescription{}, L);
      const Level         &fine = h.levels.back();
      CellVector<double>   b;
      assemble_right_hand_side(fine, 3, sine_load, b);
      MultigridSolver                        solver(h, 3, mixed_patch_stationary());
      const ResidualHook<CellVector<double>> rebalance = [&](CellVector<double> &r, unsigned int) {
        apply_dss(fine, r, DssMode::mean);
      };
      const CountingPreconditioner widened(solver.preconditioner());
      CellVector<double>      u_fused(fine.n_cells(), 3), u_widened(fine.n_cells(), 3);
      MonitorControl           control_fused(50, 1e-9), control_widened(50, 1e-9);
      const auto fused = solve_stationary<CellVector<double>>(solver.fine_operator(), solver.preconditioner(), u_fused, b,
                                                              solver.dirichlet_mask(), control_fused, rebalance);
      const auto reference = solve_stationary<CellVector<double>>(solver.fine_operator(), widened, u_widened, b,
                                                                  solver.dirichlet_mask(), control_widened, rebalance);
      ASSERT_EQ(fused.iterations(), reference.iterations());
      double largest_change = 0;
      for (std::size_t n = 0; n < fused.monitor.size(); ++n)
        largest_change = std::max(largest_change, std::abs(fused.monitor[n] - reference.monitor[n]) / reference.monitor[n]);
      std::cout << "L = " << L << ": " << fused.iterations() << " cycles, largest relative change of the monitor "
                << largest_change << std::endl;
      EXPECT_LE(largest_change, 1e-6);
      for (std::size_t k = 0; k < u_fused.storage_size(); ++k)
        ASSERT_EQ(u_fused.data()[k], u_widened.data()[k]) << "entry " << k;
    }
}

TEST(MixedPrecision, CgTakesTheStepOfTheMixedPreconditioner)
{
  // CG pairs fl32(r) with the FP32 correction and forms its search direction
  // from it in one pass (update_direction), with no widened copy of it.
  // Against the same CG through vmult only (the correction widened into an
  // FP64 work vector and paired with r): the same iteration counts, and
  // solutions far closer to each other than to the stopping tolerance. The
  // monitors move by more than the rounding of r itself: between two
  // rebalancings (every third step) the copies of r cancel in the pairing, so
  // their rounding shows relative to a smaller sum (measured: up to 5.3e-4 at
  // L = 2, 1.7e-4 at L = 4).
  MultigridParameters parameters;
  parameters.smoother  = SmootherType::chebyshev;
  parameters.outer     = OuterIteration::cg;
  parameters.precision = Precision::mixed;
  for (int L = 2; L <= 4; ++L)
    {
      SCOPED_TRACE(::testing::Message() << "L = " << L);
      const LevelHierarchy h    = make_box_hierarchy(BoxDescription{}, L);
      const Level         &fine = h.levels.back();
      CellVector<double>   b;
      assemble_right_hand_side(fine, 3, sine_load, b);
      MultigridSolver                        solver(h, 3, parameters);
      const ResidualHook<CellVector<double>> rebalance = [&](CellVector<double> &r, unsigned int step) {
        if (step % 3 == 0)
          apply_dss(fine, r, DssMode::mean);
      };
      const CountingPreconditioner widened(solver.preconditioner());
      CellVector<double>           u_step(fine.n_cells(), 3), u_widened(fine.n_cells(), 3);
      MonitorControl               control_step(50, 1e-9), control_widened(50, 1e-9);
      const auto with_step = solve_cg<CellVector<double>>(solver.fine_operator(), solver.preconditioner(), u_step, b,
                                                          solver.dirichlet_mask(), control_step, rebalance);
      const auto reference = solve_cg<CellVector<double>>(solver.fine_operator(), widened, u_widened, b, solver.dirichlet_mask(),
                                                          control_widened, rebalance);
      ASSERT_EQ(with_step.iterations(), reference.iterations());
      EXPECT_EQ(widened.count, reference.iterations() + 1); // the widened CG went through vmult
      double largest_change = 0;
      for (std::size_t n = 0; n < with_step.monitor.size(); ++n)
        largest_change = std::max(largest_change, std::abs(with_step.monitor[n] - reference.monitor[n]) / reference.monitor[n]);
      EXPECT_LE(largest_change, 2e-3);
      CellVector<double> difference = u_step;
      difference.add(-1., u_widened);
      EXPECT_LE(difference.linfty_norm(), 1e-6 * u_widened.linfty_norm());

      // The hook called at every third step only (prepare_period): between
      // rebalancings the step rounds r in the pass that updates it
      // (add_and_convert) — the same arithmetic, so the same iterates and
      // monitors bit for bit.
      const ResidualHook<CellVector<double>> rebalance_when_called = [&](CellVector<double> &r, unsigned int step) {
        EXPECT_EQ(step % 3, 0u) << "the hook is called at the steps of its period only";
        apply_dss(fine, r, DssMode::mean);
      };
      CellVector<double> u_fused(fine.n_cells(), 3);
      MonitorControl     control_fused(50, 1e-9);
      const auto fused = solve_cg<CellVector<double>>(solver.fine_operator(), solver.preconditioner(), u_fused, b,
                                                      solver.dirichlet_mask(), control_fused, rebalance_when_called, 3);
      ASSERT_EQ(fused.monitor, with_step.monitor);
      for (std::size_t k = 0; k < u_fused.storage_size(); ++k)
        ASSERT_EQ(u_fused.data()[k], u_step.data()[k]) << "storage entry " << k;
    }
}

TEST(MixedPrecision, CorrectedResidualTakesTheUpdateAndTheNextResidual)
{
  // A backend's fused update and residual (here the host composition,
  // counted) replaces the step's two calls after every step but the last:
  // the same iterates and monitors bit for bit. A pass that does not serve
  // the operator returns false and the step makes the two calls itself.
  const LevelHierarchy h    = make_box_hierarchy(BoxDescription{}, 2);
  const Level         &fine = h.levels.back();
  MultigridSolver      solver(h, 3, mixed_patch_stationary());
  CellVector<double>   b;
  assemble_right_hand_side(fine, 3, sine_load, b);
  const ResidualHook<CellVector<double>> rebalance = [&](CellVector<double> &r, unsigned int) { apply_dss(fine, r, DssMode::mean); };

  // an FP32 preconditioner: the solver's cycle between a widening and a rounding
  struct Fp32Cycle : Preconditioner<CellVector<float>>
  {
    explicit Fp32Cycle(const Preconditioner<CellVector<double>> &V)
      : V(V)
    {}
    void
    vmult(CellVector<float> &z, const CellVector<float> &r) const override
    {
      CellVector<double> r64, z64;
      r64.copy_from(r);
      z64.reinit(r64);
      V.vmult(z64, r64);
      z.copy_from(z64);
    }
    const Preconditioner<CellVector<double>> &V;
  };
  const auto inner = std::make_shared<Fp32Cycle>(solver.preconditioner());
  using Mixed      = MixedPrecisionPreconditioner<CellVector<double>, CellVector<float>>;

  enum Fusion
  {
    none,
    serving,
    refusing
  };
  std::vector<CellVector<double>>  solutions;
  std::vector<std::vector<double>> monitors;
  for (const Fusion fusion : {none, serving, refusing})
    {
      Mixed        V(inner, CellVector<float>(fine.n_cells(), 3));
      unsigned int calls = 0;
      if (fusion != none)
        V.fuse_correction_into_residual([&](const LevelOperator<CellVector<double>> &A, CellVector<double> &r,
                                            const CellVector<double> &b, CellVector<double> &u,
                                            const CellVector<double> &mask, const CellVector<float> &z) {
          ++calls;
          if (fusion == refusing)
            return false;
          u.add(1., z);
          A.masked_residual(r, b, u, mask);
          return true;
        });
      CellVector<double> u(fine.n_cells(), 3);
      MonitorControl      control(50, 1e-9);
      const auto         statistics =
        solve_stationary<CellVector<double>>(solver.fine_operator(), V, u, b, solver.dirichlet_mask(), control, rebalance);
      EXPECT_GE(statistics.iterations(), 2u);
      EXPECT_EQ(calls, fusion == none ? 0u : statistics.iterations());
      solutions.push_back(u);
      monitors.push_back(statistics.monitor);
    }
  for (const Fusion fusion : {serving, refusing})
    {
      EXPECT_EQ(monitors[fusion], monitors[none]);
      for (std::size_t k = 0; k < solutions[none].storage_size(); ++k)
        ASSERT_EQ(solutions[fusion].data()[k], solutions[none].data()[k]) << "entry " << k;
    }
}

// The outer iteration is FP64, so the mixed solve's fixed point is the FP64
// one: on curved unstructured cells (the ball, mapping degree 2 and 3, Q2)
// a tight mixed solve equals a tight FP64 solve to 1e-12 relative, CG and
// stationary, and its copies of a DoF agree. Before the FP32 corrections
// were made consistent (MixedPrecisionPreconditioner::
// make_corrections_consistent) the stationary iteration stopped 3.6e-11 and
// 6.7e-11 away with jumps of 6e-11 between copies, however far it iterated.
TEST(MixedPrecision, CurvedMeshFixedPointIsTheFp64One)
{
  for (const unsigned int mapping_degree : {2u, 3u})
    for (const OuterIteration outer : {OuterIteration::cg, OuterIteration::stationary})
      {
        SCOPED_TRACE(::testing::Message() << "ball, mapping degree " << mapping_degree << ", "
                                          << (outer == OuterIteration::cg ? "CG" : "stationary"));
        const LevelHierarchy h      = make_unstructured_hierarchy(make_ball_coarse_mesh(), 1, mapping_degree);
        const Level         &fine   = h.levels.back();
        const unsigned int   degree = 2;
        CellVector<double>   b;
        assemble_right_hand_side(fine, degree, [](const Point &) { return 1.; }, b);
        std::vector<CellVector<double>> solutions;
        std::vector<unsigned int>       iterations;
        for (const Precision precision : {Precision::fp64, Precision::mixed})
          {
            MultigridParameters parameters;
            parameters.precision = precision;
            parameters.outer     = outer;
            const MultigridSolver solver(h, degree, parameters);
            CellVector<double>    u;
            // the monitor to 1e-15 of its start (CG stalls near 1e-14)
            MonitorControl control(100, outer == OuterIteration::cg ? 1e-13 : 1e-15);
            iterations.push_back(solver.solve(u, b, control).iterations());
            solutions.push_back(u);
          }
        EXPECT_EQ(iterations[1], iterations[0]);
        CellVector<double> difference = solutions[1];
        difference.add(-1., solutions[0]);
        EXPECT_LE(difference.l2_norm(), 1e-12 * solutions[0].l2_norm());
        // one value per DoF: the mean of the copies changes nothing
        CellVector<double> mean = solutions[1];
        apply_dss(fine, DssSkeleton(fine, degree), mean, DssMode::mean);
        mean.add(-1., solutions[1]);
        EXPECT_LE(mean.linfty_norm(), 1e-14 * solutions[1].linfty_norm());
      }
}
