// Concurrent use of one solver (base/work_space_lock.h): threads that share a
// solver, a V-cycle or a mixed-precision preconditioner get the answers they
// would get alone, bit for bit; a call that re-enters an object from inside
// its own call is refused by name. scripts/run-sanitizers.sh runs these under
// ThreadSanitizer too.

#include <cellwise/base/work_space_lock.h>
#include <cellwise/mesh/adaptive_builder.h>
#include <cellwise/mesh/box_builder.h>
#include <cellwise/multigrid/multigrid_solver.h>
#include <cellwise/multigrid/hermite_multigrid_solver.h>
#include <cellwise/operators/function_tools.h>
#include <cellwise/operators/hermite_function_tools.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <string>
#include <thread>
#include <vector>

#include "concurrent_solve_check.h"
#include "hermite_test_problem.h"

using namespace cellwise;
using namespace cellwise::testing;

namespace
{
  std::vector<double>
  host_entries(const CellVector<double> &u)
  {
    return std::vector<double>(u.data(), u.data() + u.storage_size());
  }

  /// Three different loads: a smooth one, a rougher one, a corner bump.
  std::vector<ScalarFunction>
  right_hand_sides()
  {
    return {[](const Point &x) { return std::sin(M_PI * x[0]) * std::sin(M_PI * x[1]) * std::sin(M_PI * x[2]); },
            [](const Point &x) { return 1. + x[0] * x[1] - 3 * x[2] * x[2]; },
            [](const Point &x) { return std::exp(-20 * (x[0] * x[0] + x[1] * x[1] + x[2] * x[2])); }};
  }
} // namespace

TEST(WorkSpaceLock, ASecondThreadWaitsAndReEntryIsRefusedByName)
{
  const WorkSpaceLock lock;
  std::atomic<bool>   second_has_it{false};
  std::thread         second;
  {
    const auto held = lock.lock("cellwise::Example::solve");
    second          = std::thread([&] {
      const auto held_too = lock.lock("cellwise::Example::solve");
      second_has_it       = true;
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_FALSE(second_has_it) << "the second thread got the lock while the first held it";
    try
      {
        const auto again = lock.lock("cellwise::Example::solve");
        FAIL() << "re-entry on the same thread accepted";
      }
    catch (const Error &e)
      {
        const std::string what = e.what();
        EXPECT_NE(what.find("cellwise::Example::solve was called again from inside its own call"), std::string::npos) << what;
      }
  }
  second.join();
  EXPECT_TRUE(second_has_it);
  // a copy is a new object: its lock is free while the original's is held
  const auto          held = lock.lock("cellwise::Example::solve");
  const WorkSpaceLock copy(lock);
  EXPECT_NO_THROW(const auto held_copy = copy.lock("cellwise::Example::solve"));
}

class ConcurrentMultigridSolve : public ::testing::TestWithParam<std::tuple<OuterIteration, Precision, SmootherType>>
{};

TEST_P(ConcurrentMultigridSolve, ThreadsSharingOneSolverGetTheLoneAnswers)
{
  const auto [outer, precision, smoother] = GetParam();
  const LevelHierarchy h                  = make_box_hierarchy(BoxDescription{}, 2);
  MultigridParameters  parameters;
  parameters.outer     = outer;
  parameters.precision = precision;
  parameters.smoother  = smoother;
  const MultigridSolver           solver(h, 2, parameters);
  std::vector<CellVector<double>> loads(3);
  for (unsigned int i = 0; i < loads.size(); ++i)
    assemble_right_hand_side(h.levels.back(), 2, right_hand_sides()[i], loads[i]);
  expect_concurrent_solves_as_lone_ones(solver, loads, 100, 1e-10, host_entries);
}

INSTANTIATE_TEST_SUITE_P(OuterPrecisionSmoother,
                         ConcurrentMultigridSolve,
                         ::testing::Values(std::make_tuple(OuterIteration::cg, Precision::fp64, SmootherType::chebyshev),
                                           std::make_tuple(OuterIteration::cg, Precision::mixed, SmootherType::chebyshev),
                                           std::make_tuple(OuterIteration::stationary, Precision::mixed, SmootherType::patch),
                                           std::make_tuple(OuterIteration::stationary, Precision::fp64, SmootherType::jacobi)),
                         [](const auto &info) {
                           return to_string(std::get<0>(info.param)) + "_" + to_string(std::get<1>(info.param)) + "_" +
                                  to_string(std::get<2>(info.param));
                         });

// The preconditioner a solver hands out is the one its solve uses: a thread
// applying it while another solves must not overwrite the solve's kept
// FP32 correction (the mixed-precision step holds the preconditioner's lock
// from its first apply to the end of the solve).
TEST(ConcurrentMultigridSolve, PreconditionerAppliedWhileTheSolverSolves)
{
  const LevelHierarchy h = make_box_hierarchy(BoxDescription{}, 2);
  MultigridParameters  parameters;
  parameters.precision = Precision::mixed;
  const MultigridSolver           solver(h, 2, parameters);
  std::vector<CellVector<double>> loads(3);
  for (unsigned int i = 0; i < loads.size(); ++i)
    assemble_right_hand_side(h.levels.back(), 2, right_hand_sides()[i], loads[i]);
  CellVector<double> z_alone;
  z_alone.reinit(loads[1]);
  solver.preconditioner().vmult(z_alone, loads[1]);

  std::atomic<bool> stop{false};
  std::string       vmult_error;
  bool              vmult_differs = false;
  std::thread       applier([&] {
    try
      {
        while (!stop)
          {
            CellVector<double> z;
            z.reinit(loads[1]);
            solver.preconditioner().vmult(z, loads[1]);
            vmult_differs = vmult_differs || host_entries(z) != host_entries(z_alone);
          }
      }
    catch (const std::exception &e)
      {
        vmult_error = e.what();
      }
  });
  expect_concurrent_solves_as_lone_ones(solver, loads, 100, 1e-10, host_entries, 2, 2);
  stop = true;
  applier.join();
  EXPECT_EQ(vmult_error, "");
  EXPECT_FALSE(vmult_differs);
}

TEST(ConcurrentAdaptiveSolve, ThreadsSharingOneSolverGetTheLoneAnswers)
{
  BoxDescription                  box;
  const LevelHierarchy            h = make_adaptive_box_hierarchy(box, 1, 2, make_octant_marker(box));
  const MultigridSolver   solver(h, 2, MultigridParameters{});
  std::vector<CellVector<double>> loads(3);
  for (unsigned int i = 0; i < loads.size(); ++i)
    solver.assemble_right_hand_side(right_hand_sides()[i], loads[i]);
  expect_concurrent_solves_as_lone_ones(solver, loads, 200, 1e-10, host_entries);
}

TEST(ConcurrentHermiteSolve, ThreadsSharingOneSolverGetTheLoneAnswers)
{
  BoxDescription box;
  box.subdivisions                = {{2, 2, 2}};
  const LevelHierarchy         h = make_box_hierarchy(box, 2);
  const HermiteMultigridSolver solver(h, HermiteMultigridParameters());
  std::vector<CellVector<double>> loads(2);
  assemble_hermite_right_hand_side(h.levels.back(), clamped_bilaplacian, loads[0]);
  assemble_hermite_right_hand_side(h.levels.back(), right_hand_sides()[1], loads[1]);
  expect_concurrent_solves_as_lone_ones(solver, loads, 50, 1e-10, host_entries, 2, 2);
}
