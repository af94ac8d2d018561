#pragma once
/**
 * @file
 * The check that a solver keeping its outer work vectors between solves
 * (OuterWorkVectors, multigrid/outer_solvers.h) never reads them stale: its
 * solve of a second load equals a fresh solver's solve of it bit for bit,
 * monitors and solution. Shared by the host, device and MPI solver tests.
 */

#include <cellwise/multigrid/multigrid_solver.h>
#include <cellwise/multigrid/solver_control.h>
#include <cellwise/storage/cell_vector.h>

#include <gtest/gtest.h>

#include <cstddef>

namespace cellwise::testing
{
  /// @p kept solves @p b1, then @p b2; @p fresh solves @p b2 alone (both
  /// with solve(u, b, control) on serial vectors, from the zero guess).
  template <typename Solver>
  void
  expect_second_solve_as_a_fresh_one(const Solver             &kept,
                                     const Solver             &fresh,
                                     const CellVector<double> &b1,
                                     const CellVector<double> &b2,
                                     const unsigned int        max_iterations,
                                     const double              tolerance)
  {
    CellVector<double> u1, u_kept, u_fresh;
    MonitorControl     control1(max_iterations, tolerance), control_kept(max_iterations, tolerance),
      control_fresh(max_iterations, tolerance);
    kept.solve(u1, b1, control1);
    const SolveStatistics second = kept.solve(u_kept, b2, control_kept);
    const SolveStatistics first  = fresh.solve(u_fresh, b2, control_fresh);
    ASSERT_EQ(second.monitor.size(), first.monitor.size());
    for (std::size_t k = 0; k < first.monitor.size(); ++k)
      EXPECT_EQ(second.monitor[k], first.monitor[k]) << "monitor " << k;
    ASSERT_TRUE(u_kept.has_shape_of(u_fresh));
    for (std::size_t k = 0; k < u_fresh.storage_size(); ++k)
      ASSERT_EQ(u_kept.data()[k], u_fresh.data()[k]) << "entry " << k;
  }

  /// Calls body(parameters) for CG and the stationary iteration, each in
  /// FP64 and mixed precision (MultigridParameters otherwise default),
  /// inside a trace that names the combination.
  template <typename Body>
  void
  for_each_outer_iteration_and_precision(Body &&body)
  {
    for (const OuterIteration outer : {OuterIteration::cg, OuterIteration::stationary})
      for (const Precision precision : {Precision::fp64, Precision::mixed})
        {
          SCOPED_TRACE(::testing::Message() << (outer == OuterIteration::cg ? "CG" : "stationary") << ", "
                                            << (precision == Precision::mixed ? "mixed" : "FP64"));
          MultigridParameters parameters;
          parameters.outer     = outer;
          parameters.precision = precision;
          body(parameters);
        }
  }
} // namespace cellwise::testing
