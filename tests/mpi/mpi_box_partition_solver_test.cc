// DistributedMultigridSolver built from a BoxPartition — each rank makes its
// own cells of every level and nothing per serial cell — against the same
// solver on the replicated serial hierarchy (bit for bit) and against the
// serial solver (iteration counts, solutions to rounding), on the host:
// the unequal box, the row whose cuts split families (so the transfers'
// messages come from the lattice's families), the L-shape and the Kershaw
// box (MappedPartitionedHierarchy). The device cases are in
// mpi_cuda_distributed_components_test.cc.

#include <cellwise/mesh/box_partition.h>
#include <cellwise/mesh/kershaw_map.h>
#include <cellwise/multigrid/mpi_distributed_multigrid_solver.h>

#include <gtest/gtest.h>

#include "mpi_test_utilities.h"

using namespace cellwise;
using namespace cellwise::testing;

TEST(BoxPartitionSolver, EqualsTheReplicatedAndTheSerialSolveOnTheHost)
{
  MultigridParameters chebyshev; // CG with the Chebyshev V-cycle
  for (const unsigned int degree : {2u, 3u})
    compare_box_partition_solver(chebyshev, degree, 1e-12, "host, Chebyshev, CG, unequal box", unequal_mpi_box());
  compare_box_partition_solver(chebyshev, 2, 1e-12, "host, Chebyshev, CG, row", family_cutting_mpi_row());
  compare_box_partition_solver(chebyshev, 2, 1e-12, "host, Chebyshev, CG, L-shape", make_lshape_description());
  BoxDescription kershaw; // the unit cube in the map's 6 x 2 x 2 layers
  kershaw.subdivisions = {{6, 2, 2}};
  compare_box_partition_solver(chebyshev, 2, 1e-12, "host, Chebyshev, CG, Kershaw box", kershaw, kershaw_map(0.3, 0.3));

  MultigridParameters jacobi;
  jacobi.smoother = SmootherType::jacobi;
  compare_box_partition_solver(jacobi, 2, 1e-12, "host, Jacobi, CG, row", family_cutting_mpi_row());

  MultigridParameters patch; // 000's method: the stationary iteration, vertex patches
  patch.smoother = SmootherType::patch;
  patch.outer    = OuterIteration::stationary;
  compare_box_partition_solver(patch, 3, 1e-12, "host, patch, stationary, row", family_cutting_mpi_row());
  patch.precision = Precision::mixed;
  compare_box_partition_solver(patch, 3, 1e-7, "host, patch, stationary, mixed, unequal box", unequal_mpi_box());
}

TEST(BoxPartitionSolver, RanksWithoutCellsSolveAsTheSerialSolver)
{
  // p4est leaves ranks empty where a mesh has fewer families of leaves than
  // ranks (step-37's first mesh, 8 cells, on 2 ranks): such ranks own no
  // cell of any level
  const int size = mpi_size(MPI_COMM_WORLD);
  if (size < 2)
    GTEST_SKIP() << "needs 2 ranks or more for a rank without cells";
  const std::vector<std::uint64_t> cuts = row_cuts_with_empty_ranks(size);
  MultigridParameters chebyshev;
  compare_box_partition_solver(chebyshev, 2, 1e-12, "host, Chebyshev, CG, row, empty ranks", family_cutting_mpi_row(), {}, cuts);
  MultigridParameters patch;
  patch.smoother = SmootherType::patch;
  patch.outer    = OuterIteration::stationary;
  compare_box_partition_solver(patch, 3, 1e-12, "host, patch, stationary, row, empty ranks", family_cutting_mpi_row(), {}, cuts);
  patch.precision = Precision::mixed;
  compare_box_partition_solver(patch, 3, 1e-7, "host, patch, stationary, mixed, row, empty ranks", family_cutting_mpi_row(), {},
                               cuts);
}

TEST(BoxPartitionSolver, RefusesAPartitionForAnotherNumberOfRanks)
{
  const int size = mpi_size(MPI_COMM_WORLD);
  EXPECT_THROW(DistributedMultigridSolver(std::make_shared<const BoxPartition>(unequal_mpi_box(), 1, size + 1), 2,
                                          MultigridParameters(), MPI_COMM_WORLD),
               Error);
}
