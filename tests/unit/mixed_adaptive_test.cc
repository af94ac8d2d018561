// Mixed precision with local smoothing (000 × 003, mixed_local_smoothing.h):
// the FP32 local-smoothing cycle inside the FP64 outer iteration gives
// conforming FP64 corrections, close to the FP64 cycle's, and the outer
// iteration converges to the FP64 solution (not 1e-7 from it, where the
// plain rounding and widening of the cycle stops), with the FP64 counts.

#include <cellwise/mesh/adaptive_builder.h>
#include <cellwise/multigrid/multigrid_solver.h>
#include <cellwise/operators/function_tools.h>

#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <limits>
#include <string>

#include "active_mesh_checks.h"
#include "test_utilities.h"

using namespace cellwise;
using namespace cellwise::testing;

namespace
{
  MultigridParameters
  parameters(const Precision precision, const SmootherType smoother, const OuterIteration outer = OuterIteration::cg)
  {
    MultigridParameters p;
    p.precision = precision;
    p.smoother  = smoother;
    p.outer     = outer;
    return p;
  }

  SolveStatistics
  solve_sine(const MultigridSolver &solver, CellVector<double> &u, const double tolerance)
  {
    CellVector<double> b;
    solver.assemble_right_hand_side(sine_load, b);
    u.reinit(b);
    MonitorControl control(300, tolerance);
    return solver.solve(u, b, control);
  }

  double
  relative_difference(const CellVector<double> &u, const CellVector<double> &v)
  {
    CellVector<double> d = u;
    d.add(-1., v);
    return d.linfty_norm() / v.linfty_norm();
  }

  /// A box unequal in its sides, so that no level is a cube lattice.
  BoxDescription
  unequal_box()
  {
    BoxDescription box;
    box.upper = {{1.0, 1.25, 0.75}};
    return box;
  }
} // namespace

TEST(MixedAdaptiveCycle, CorrectionIsConformingAndCloseToTheFp64One)
{
  const BoxDescription box = unequal_box();
  for (const std::string marker : {"octant", "ball"})
    {
      const LevelHierarchy h = make_adaptive_box_hierarchy(box, 1, 2, make_marker(marker, box));
      for (const unsigned int degree : {2u, 3u})
        for (const SmootherType smoother : {SmootherType::chebyshev, SmootherType::patch})
          {
            SCOPED_TRACE(marker + ", degree " + std::to_string(degree) + ", " + to_string(smoother));
            const MultigridSolver fp64(h, degree, parameters(Precision::fp64, smoother));
            const MultigridSolver mixed(h, degree, parameters(Precision::mixed, smoother));
            CellVector<double>    r(mixed.n_active_cells(), degree), z(r), z64(r);
            fill_random(r, 7);
            r.scale(mixed.dirichlet_mask());
            z.fill(std::numeric_limits<double>::quiet_NaN()); // every entry must be written
            mixed.preconditioner().vmult(z, r);
            ASSERT_TRUE(z.all_finite());
            fp64.preconditioner().vmult(z64, r);
            unsigned int n_faces = 0;
            // widened FP32 values at the hanging copies miss the masters'
            // interpolant by ~1e-8 of z; the rebuilt ones by FP64 rounding
            EXPECT_LE(max_hanging_jump(h, mixed.active_mesh(), z, &n_faces), 1e-14 * z.linfty_norm());
            EXPECT_GT(n_faces, 0u);
            // the FP32 cycle ran (it is not the FP64 one), with FP32 accuracy
            const double difference = relative_difference(z, z64);
            EXPECT_LE(difference, 1e-5);
            EXPECT_GT(difference, 1e-12);
          }
    }
}

TEST(MixedAdaptiveSolver, ConvergesToTheFp64SolutionWithItsCounts)
{
  const BoxDescription box = unequal_box();
  struct Case
  {
    const char  *marker;
    unsigned int n_global, n_adaptive, degree;
    SmootherType smoother;
  };
  const Case cases[] = {{"octant", 1, 2, 2, SmootherType::chebyshev}, {"octant", 2, 1, 3, SmootherType::patch},
                        {"ball", 1, 2, 2, SmootherType::chebyshev},   {"shell", 1, 2, 3, SmootherType::chebyshev},
                        {"octant", 1, 1, 4, SmootherType::jacobi}};
  for (const Case &c : cases)
    {
      SCOPED_TRACE(std::string(c.marker) + ", L = " + std::to_string(c.n_global) + ", k = " + std::to_string(c.n_adaptive) +
                   ", degree " + std::to_string(c.degree) + ", " + to_string(c.smoother));
      const LevelHierarchy  h = make_adaptive_box_hierarchy(box, c.n_global, c.n_adaptive, make_marker(c.marker, box));
      const MultigridSolver fp64(h, c.degree, parameters(Precision::fp64, c.smoother));
      const MultigridSolver mixed(h, c.degree, parameters(Precision::mixed, c.smoother));
      CellVector<double>    u64, u;
      // at the usual tolerance: the FP64 counts ± 1 and the solution to FP32 accuracy
      const SolveStatistics s64 = solve_sine(fp64, u64, 1e-10);
      const SolveStatistics s   = solve_sine(mixed, u, 1e-10);
      EXPECT_LE(s.iterations(), s64.iterations() + 1);
      EXPECT_GE(s.iterations() + 1, s64.iterations());
      const double loose = relative_difference(u, u64);
      EXPECT_LE(loose, 1e-7);
      // iterated on, the mixed solve reaches the FP64 solution (the plain
      // rounding and widening of the cycle stopped 1.2e-7 from it)
      solve_sine(fp64, u64, 1e-14);
      solve_sine(mixed, u, 1e-14);
      const double tight = relative_difference(u, u64);
      EXPECT_LE(tight, 1e-12);
      std::cout << c.marker << ", L = " << c.n_global << ", k = " << c.n_adaptive << ", Q" << c.degree << ", "
                << to_string(c.smoother) << ": CG counts FP64 " << s64.iterations() << ", mixed " << s.iterations()
                << "; mixed - FP64 " << loose << " (1e-10), " << tight << " (1e-14)" << std::endl;
      unsigned int n_faces = 0;
      EXPECT_LE(max_hanging_jump(h, mixed.active_mesh(), u, &n_faces), 1e-13 * u.linfty_norm());
    }
}

TEST(MixedAdaptiveSolver, StationaryIterationReachesTheFp64Solution)
{
  const BoxDescription  box = unequal_box();
  const LevelHierarchy  h   = make_adaptive_box_hierarchy(box, 1, 2, make_marker("shell", box));
  const MultigridSolver fp64(h, 2, parameters(Precision::fp64, SmootherType::chebyshev));
  const MultigridSolver stationary(h, 2, parameters(Precision::mixed, SmootherType::chebyshev, OuterIteration::stationary));
  CellVector<double>    u64, u;
  solve_sine(fp64, u64, 1e-14);
  solve_sine(stationary, u, 1e-14);
  EXPECT_LE(relative_difference(u, u64), 1e-12);
}
