// The MPI backend's classes that keep a reference or a pointer to a local
// level, an operator or a serial hierarchy refuse a temporary at compile
// time (deleted rvalue overloads, as tests/unit/lifetime_test.cc checks for
// the host classes): the lvalue form is constructible, the temporary not.

#include <cellwise/multigrid/mpi_distributed_cell_transfer.h>
#include <cellwise/multigrid/mpi_distributed_multigrid_solver.h>
#include <cellwise/multigrid/mpi_distributed_point_smoothers.h>
#include <cellwise/multigrid/mpi_distributed_vertex_patch_smoother.h>
#include <cellwise/operators/mpi_distributed_laplace_operator.h>
#include <cellwise/storage/mpi_cell_halo_exchange.h>
#include <cellwise/storage/mpi_distributed_cell_vector.h>
#include <cellwise/storage/mpi_distributed_dss.h>
#include <cellwise/storage/mpi_serial_gather.h>

#include <gtest/gtest.h>

#include <type_traits>
#include <vector>

using namespace cellwise;

namespace
{
  template <typename Class, typename... Args>
  constexpr bool constructible = std::is_constructible_v<Class, Args...>;

  using LL      = LocalLevel;
  using Ghosts  = std::vector<unsigned int>;
  using Owner   = std::vector<std::vector<int>>;
  using DistOp  = DistributedLaplaceOperator<double>;
  using DistV   = DistributedCellVector<double>;
  using UInt    = unsigned int;
} // namespace

TEST(MpiLifetime, ClassesRefuseTemporariesTheyWouldKeep)
{
  EXPECT_TRUE((constructible<DistributedDss, const LL &, MPI_Comm, const TraceLayers &>));
  EXPECT_FALSE((constructible<DistributedDss, LL &&, MPI_Comm, const TraceLayers &>));
  EXPECT_FALSE((constructible<DistributedDss, const LL &&, MPI_Comm, const TraceLayers &>));

  EXPECT_TRUE((constructible<DistributedLevel, const LL &, MPI_Comm, UInt, const TraceLayers &>));
  EXPECT_FALSE((constructible<DistributedLevel, LL &&, MPI_Comm, UInt, const TraceLayers &>));

  EXPECT_TRUE((constructible<SerialGather, const LL &, MPI_Comm, UInt, UInt>));
  EXPECT_FALSE((constructible<SerialGather, LL &&, MPI_Comm, UInt, UInt>));

  EXPECT_TRUE((constructible<CellHaloExchange, const LL &, MPI_Comm, Ghosts &&, int>));
  EXPECT_FALSE((constructible<CellHaloExchange, LL &&, MPI_Comm, const Ghosts &, int>));
  EXPECT_TRUE((constructible<CellHaloExchange, const LL &, MPI_Comm, const Ghosts &, int, UInt>));
  EXPECT_FALSE((constructible<CellHaloExchange, LL &&, MPI_Comm, const Ghosts &, int, UInt>));

  using CellTransfer = DistributedCellTransfer<double>;
  EXPECT_TRUE((constructible<CellTransfer, const PartitionedHierarchy &, UInt, const LL &, const LL &, MPI_Comm, UInt>));
  EXPECT_FALSE((constructible<CellTransfer, const PartitionedHierarchy &, UInt, LL &&, const LL &, MPI_Comm, UInt>));
  EXPECT_FALSE((constructible<CellTransfer, const PartitionedHierarchy &, UInt, const LL &, LL &&, MPI_Comm, UInt>));
  EXPECT_TRUE((constructible<CellTransfer, const LevelHierarchy &, const Owner &, UInt, const LL &, const LL &, MPI_Comm, UInt>));
  EXPECT_FALSE((constructible<CellTransfer, const LevelHierarchy &, const Owner &, UInt, LL &&, const LL &, MPI_Comm, UInt>));
  EXPECT_FALSE((constructible<CellTransfer, const LevelHierarchy &, const Owner &, UInt, const LL &, LL &&, MPI_Comm, UInt>));

  using LevelTransfer = DistributedLevelTransfer<double>;
  EXPECT_TRUE((constructible<LevelTransfer, const PartitionedHierarchy &, const std::vector<LL> &, MPI_Comm, UInt>));
  EXPECT_FALSE((constructible<LevelTransfer, const PartitionedHierarchy &, std::vector<LL> &&, MPI_Comm, UInt>));
  EXPECT_TRUE((constructible<LevelTransfer, const LevelHierarchy &, const Owner &, const std::vector<LL> &, MPI_Comm, UInt>));
  EXPECT_FALSE((constructible<LevelTransfer, const LevelHierarchy &, const Owner &, std::vector<LL> &&, MPI_Comm, UInt>));

  EXPECT_TRUE((constructible<DistributedVertexPatchSmoother<double>, const DistOp &, UInt>));
  EXPECT_FALSE((constructible<DistributedVertexPatchSmoother<double>, DistOp &&, UInt>));

  // the point smoothers keep the operator; the preconditioner keeps the
  // level's DSS alive through the mask's shared level
  EXPECT_FALSE((constructible<DistributedJacobiSmoother<double>, const Level &, DistOp &&, const DistV &, const JacobiParameters &>));
  EXPECT_FALSE(
    (constructible<DistributedChebyshevSmoother<double>, const Level &, DistOp &&, const DistV &, const ChebyshevParameters &>));
  EXPECT_TRUE((constructible<DistributedDssJacobi<double>, const Level &, const DistOp &, DistV &&>));

  EXPECT_TRUE((constructible<DistributedMultigridSolver, const LevelHierarchy &, UInt, const MultigridParameters &, MPI_Comm>));
  EXPECT_FALSE((constructible<DistributedMultigridSolver, LevelHierarchy &&, UInt, const MultigridParameters &, MPI_Comm>));
}
