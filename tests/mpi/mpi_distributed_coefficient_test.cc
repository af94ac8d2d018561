// A variable coefficient, −∇·(c∇u), on ranks: each rank evaluates c on its
// owned and ghost cells, so every level operator, the smoothers built from
// them (Chebyshev's eigenvalue estimate, Jacobi's diagonal, the patches'
// surrogate inverses) and the gathered coarse level equal the serial ones,
// and the distributed solve gives the serial solver's iteration counts and
// solution. step-37's coefficient varies by a factor of 40 over the unit
// cube; on the unequal box (up to 3 × 2 × 1.5) by more. The device cases
// are in mpi_cuda_distributed_components_test.cc.

#include <cellwise/mesh/box_partition.h>
#include <cellwise/multigrid/mpi_distributed_multigrid_solver.h>

#include <gtest/gtest.h>

#include "mpi_test_utilities.h"

using namespace cellwise;
using namespace cellwise::testing;

namespace
{
  /// step-37's coefficient, 1 / (0.05 + 2 |x|²).
  ScalarFunction
  step37_coefficient()
  {
    return [](const Point &x) { return 1. / (0.05 + 2. * (x[0] * x[0] + x[1] * x[1] + x[2] * x[2])); };
  }
} // namespace

TEST(DistributedCoefficient, SolvesAsTheSerialSolverOnTheHost)
{
  MultigridParameters chebyshev; // CG with the Chebyshev V-cycle
  chebyshev.coefficient = step37_coefficient();
  for (const unsigned int degree : {2u, 3u})
    compare_with_serial_solver(chebyshev, degree, 1e-12, "coefficient at the quadrature points, Chebyshev, CG");
  chebyshev.coefficient_evaluation = CoefficientEvaluation::cell_average;
  compare_with_serial_solver(chebyshev, 2, 1e-12, "coefficient per cell, Chebyshev, CG", family_cutting_mpi_row());

  MultigridParameters jacobi;
  jacobi.coefficient = step37_coefficient();
  jacobi.smoother    = SmootherType::jacobi;
  compare_with_serial_solver(jacobi, 2, 1e-12, "coefficient, Jacobi, CG");

  // the patches' local solves take the coefficient's cell averages
  // (surrogate inverses where a patch's cells differ)
  MultigridParameters patch;
  patch.coefficient = step37_coefficient();
  patch.smoother    = SmootherType::patch;
  patch.outer       = OuterIteration::stationary;
  compare_with_serial_solver(patch, 3, 1e-12, "coefficient, patch, stationary", family_cutting_mpi_row());
  patch.precision = Precision::mixed;
  compare_with_serial_solver(patch, 3, 1e-7, "coefficient, patch, stationary, mixed");
}

TEST(DistributedCoefficient, FromABoxPartitionSolvesAsTheSerialSolver)
{
  // no rank holds the serial hierarchy: the coefficient on the rank's own
  // cells and ghosts only
  MultigridParameters chebyshev;
  chebyshev.coefficient = step37_coefficient();
  compare_box_partition_solver(chebyshev, 2, 1e-12, "coefficient, Chebyshev, CG, row", family_cutting_mpi_row());
}

TEST(DistributedCoefficient, ANegativeValueOnOneRanksCellsIsAnErrorOnEveryRank)
{
  // negative only for x > 4.9, at the end of the row: no quadrature point
  // of the coarse level (which every rank holds) lies there, those of the
  // finer levels' cells there do, and on several ranks only the last rank
  // owns or sees them; the others must not wait for it
  MultigridParameters parameters;
  parameters.coefficient = [](const Point &x) { return x[0] > 4.9 ? -1. : 1.; };
  const LevelHierarchy h = make_box_hierarchy(family_cutting_mpi_row(), 2);
  for (const SmootherType smoother : {SmootherType::chebyshev, SmootherType::patch})
    {
      parameters.smoother = smoother;
      std::string message = "no error";
      try
        {
          const DistributedMultigridSolver solver(h, 2, parameters, MPI_COMM_WORLD);
        }
      catch (const Error &e)
        {
          message = e.what();
        }
      EXPECT_TRUE(message.find("the coefficient is -1") != std::string::npos ||
                  message.find("failed a collective check") != std::string::npos)
        << message;
    }
}
