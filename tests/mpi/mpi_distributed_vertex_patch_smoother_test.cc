// The vertex-patch smoother across MPI ranks against the serial one: each
// rank solves the patches that touch its owned cells, from its vertex halo,
// and the owners send after each colour the ghost cells that a patch of
// other ranks changed (of each cell the nodes the colour can change). The
// owned values after forward and reverse sweeps, from zero and from a
// nonzero guess, must equal the serial sweep's exactly (ghosts start as
// NaN, so a ghost value an exchange fails to deliver spoils its patch); the whole solve — the stationary iteration and CG with
// the patch-smoothed V-cycle — must take the serial iteration counts and
// give its solution to rounding. The tests were checked to fail when one
// colour's halo update is left out.

#include <cellwise/base/mpi_check.h>
#include <cellwise/mesh/box_builder.h>
#include <cellwise/mesh/partition.h>
#include <cellwise/multigrid/host_vector_solvers.h>
#include <cellwise/multigrid/mpi_distributed_multigrid_solver.h>
#include <cellwise/multigrid/mpi_distributed_vertex_patch_smoother.h>
#include <cellwise/multigrid/solver_control.h>
#include <cellwise/multigrid/vertex_patch_smoother.h>
#include <cellwise/operators/laplace_operator.h>
#include <cellwise/operators/mpi_distributed_laplace_operator.h>
#include <cellwise/storage/dirichlet_mask.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "mpi_test_utilities.h"
#include "test_utilities.h"

using namespace cellwise;
using namespace cellwise::testing;

namespace
{
  /// Serial and distributed sweeps of level @p l, compared exactly on the
  /// owned cells. Returns the values this rank sent in the distributed one.
  std::size_t
  compare_sweeps(const LevelHierarchy &h, const unsigned int l, const unsigned int degree, const unsigned int n_sweeps)
  {
    const MPI_Comm   comm = MPI_COMM_WORLD;
    const int        rank = mpi_rank(comm), size = mpi_size(comm);
    const auto       owner = morton_partition(h, size);
    const Level     &serial_level = h.level(l);
    const LocalLevel local        = make_local_level(serial_level, owner[l], rank, GhostLayer::vertices);
    const auto       level = std::make_shared<const DistributedLevel>(local, comm, serial_level.n_cells(), lagrange_trace_layers(degree));

    const LaplaceOperator<double>            serial_op(serial_level, degree);
    const VertexPatchSmoother<double>        serial(serial_level, serial_op, n_sweeps);
    const DistributedLaplaceOperator<double> op(level, degree);
    const DistributedVertexPatchSmoother<double> distributed(op, n_sweeps);

    CellVector<double> b(serial_level.n_cells(), degree), u0(serial_level.n_cells(), degree);
    fill_random(b, 11 + l);
    fill_random(u0, 23 + degree);
    std::size_t sent = 0;
    for (const bool zero : {true, false})
      for (const SweepDirection direction : {SweepDirection::forward, SweepDirection::reverse})
        {
          CellVector<double> u = u0;
          serial.smooth(u, b, zero, direction);

          DistributedCellVector<double> db(level, degree), du(level, degree);
          db.local() = local_part(local, b);
          du.local() = local_part(local, u0);
          distributed.smooth(du, db, zero, direction);
          EXPECT_EQ(owned_mismatches(local, du.local(), u), 0u)
            << "level " << l << ", Q" << degree << ", " << n_sweeps << " sweep(s), " << (zero ? "zero" : "nonzero")
            << " initial guess, " << (direction == SweepDirection::forward ? "forward" : "reverse") << ", rank " << rank << " of "
            << size;
          EXPECT_EQ(owned_mismatches(local, db.local(), b), 0u) << "the smoother changed b's owned values";
          sent += distributed.values_sent_per_smooth(zero, direction);
        }
    // every patch that touches an owned cell is solved here
    const auto membership = count_patch_memberships(distributed.local_smoother().patches(), local.level.n_cells());
    const auto serial_membership = count_patch_memberships(serial.patches(), serial_level.n_cells());
    for (unsigned int k = 0; k < local.n_owned_cells(); ++k)
      EXPECT_EQ(membership[k], serial_membership[local.serial_index[k]]) << "owned cell " << k;
    return sent;
  }
} // namespace

TEST(DistributedVertexPatchSmoother, SweepsEqualTheSerialOnesExactly)
{
  const LevelHierarchy h = make_box_hierarchy(unequal_mpi_box(), 2);
  std::size_t          sent = 0;
  for (const unsigned int degree : {2u, 3u})
    for (const unsigned int l : {1u, 2u})
      sent += compare_sweeps(h, l, degree, 1);
  sent += compare_sweeps(h, 2, 4, 2);
  std::size_t all = 0;
  CELLWISE_MPI_CHECK(MPI_Allreduce(&sent, &all, 1, MPI_UNSIGNED_LONG, MPI_SUM, MPI_COMM_WORLD));
  if (mpi_size(MPI_COMM_WORLD) > 1)
    EXPECT_GT(all, 0u) << "no cell travelled: the test would not see a missing exchange";
}

TEST(DistributedVertexPatchSmoother, FaceGhostsAreRefusedOnEveryRank)
{
  const MPI_Comm       comm  = MPI_COMM_WORLD;
  const LevelHierarchy h     = make_box_hierarchy(unequal_mpi_box(), 1);
  const auto           owner = morton_partition(h, mpi_size(comm));
  const LocalLevel     local = make_local_level(h.level(1), owner[1], mpi_rank(comm));
  const auto level = std::make_shared<const DistributedLevel>(local, comm, h.level(1).n_cells(), lagrange_trace_layers(2));
  const DistributedLaplaceOperator<double> op(level, 2);
  EXPECT_THROW(DistributedVertexPatchSmoother<double>(op, 1), Error);
}

TEST(DistributedVertexPatchSmoother, SolvesAsTheSerialSolver)
{
  for (const OuterIteration outer : {OuterIteration::stationary, OuterIteration::cg})
    for (const unsigned int degree : {2u, 3u, 4u})
      {
        MultigridParameters parameters;
        parameters.smoother = SmootherType::patch;
        parameters.outer    = outer;
        compare_with_serial_solver(parameters, degree, 1e-12, "patch smoother, " + to_string(outer));
      }
}

TEST(DistributedVertexPatchSmoother, MixedPrecisionSolvesAsTheSerialSolver)
{
  // FP32 levels in the FP64 outer iteration (000 §4). The stationary patch
  // solve has no global sum in its iterate (the monitor only): the same
  // solution bit for bit. CG with the Chebyshev cycle: the FP32 eigenvalue
  // estimates and CG's step lengths are global sums, whose order differs.
  MultigridParameters parameters;
  parameters.precision = Precision::mixed;
  parameters.smoother  = SmootherType::patch;
  parameters.outer     = OuterIteration::stationary;
  compare_with_serial_solver(parameters, 3, 0., "mixed, patch smoother, stationary");
  parameters.smoother = SmootherType::chebyshev;
  parameters.outer    = OuterIteration::cg;
  compare_with_serial_solver(parameters, 3, 1e-10, "mixed, Chebyshev, CG");
}
