// Concurrent use of one device solver (base/work_space_lock.h): host threads
// that share a cuda::MultigridSolver get the answers of its lone solves, bit
// for bit (the device's reductions are deterministic), in FP64 and mixed
// precision, CG and the stationary iteration.

#include <cellwise/mesh/box_builder.h>
#include <cellwise/multigrid/cuda_multigrid_solver.h>
#include <cellwise/operators/function_tools.h>

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "concurrent_solve_check.h"
#include "cuda/cuda_test_utilities.h"
#include "test_utilities.h"

using namespace cellwise;
using namespace cellwise::testing;

TEST(CudaConcurrentSolve, ThreadsSharingOneSolverGetTheLoneAnswers)
{
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  const LevelHierarchy                mesh = make_box_hierarchy(BoxDescription{}, 3);
  const std::vector<ScalarFunction>   rhs  = {[](const Point &x) { return std::sin(3 * x[0]) * std::cos(2 * x[1]) + x[2]; },
                                              [](const Point &x) { return 1. + x[0] * x[1] - 3 * x[2] * x[2]; }};
  using DeviceVector                       = CellVector<double, MemorySpace::CUDA>;
  std::vector<DeviceVector> loads;
  for (const ScalarFunction &f : rhs)
    {
      CellVector<double> b;
      assemble_right_hand_side(mesh.levels.back(), 3, f, b);
      loads.push_back(to_device(b));
    }
  const auto entries = [](const DeviceVector &u) {
    const CellVector<double> host = to_host(u);
    return std::vector<double>(host.data(), host.data() + host.storage_size());
  };
  for (const Precision precision : {Precision::fp64, Precision::mixed})
    for (const OuterIteration outer : {OuterIteration::cg, OuterIteration::stationary})
      {
        SCOPED_TRACE(to_string(precision) + ", " + to_string(outer));
        MultigridParameters parameters;
        parameters.smoother  = SmootherType::patch;
        parameters.precision = precision;
        parameters.outer     = outer;
        const cuda::MultigridSolver<> solver(mesh, 3, parameters);
        expect_concurrent_solves_as_lone_ones(solver, loads, 100, 1e-10, entries, 3, 2);
      }
}
