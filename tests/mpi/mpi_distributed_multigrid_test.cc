// The whole multigrid solve distributed over MPI ranks against the serial
// solve: CG preconditioned by a V-cycle with Chebyshev–Jacobi or damped
// Jacobi smoothing, the transfers, DSS and masks across ranks and the
// gathered coarse solve, built from the same components as the serial cycle
// (multigrid/v_cycle.h and multigrid/outer_solvers.h run unchanged on
// distributed vectors). The iteration counts equal the serial run's and the
// owned values of the solution equal it to 1e-12 (FP64), Q2..Q4, on a box
// and an L-shape, on every rank count. The tests were checked to fail when
// the smoother's DSS does not cross ranks.

#include <cellwise/base/mpi_check.h>
#include <cellwise/mesh/box_builder.h>
#include <cellwise/mesh/partition.h>
#include <cellwise/multigrid/chebyshev_smoother.h>
#include <cellwise/multigrid/cell_transfer.h>
#include <cellwise/multigrid/coarse_solvers.h>
#include <cellwise/multigrid/jacobi_smoother.h>
#include <cellwise/multigrid/mpi_distributed_cell_transfer.h>
#include <cellwise/multigrid/mpi_distributed_multigrid_solver.h>
#include <cellwise/multigrid/mpi_distributed_point_smoothers.h>
#include <cellwise/multigrid/mpi_gathered_coarse_solver.h>
#include <cellwise/multigrid/outer_solvers.h>
#include <cellwise/multigrid/v_cycle.h>
#include <cellwise/operators/laplace_operator.h>
#include <cellwise/operators/mpi_distributed_laplace_operator.h>
#include <cellwise/storage/dirichlet_mask.h>
#include <cellwise/storage/mpi_distributed_dirichlet_mask.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "repeated_solve_check.h"
#include "test_utilities.h"

using namespace cellwise;
using namespace cellwise::testing;

namespace
{
  enum class Smoother
  {
    chebyshev,
    jacobi
  };

  struct Solved
  {
    unsigned int       iterations = 0;
    CellVector<double> u; ///< serial: all cells; distributed: the local cells
  };

  template <typename Op, typename Vector>
  std::shared_ptr<const LevelSmoother<Vector>>
  make_smoother(const Smoother kind, const Level &level, const Op &op, const Vector &mask)
  {
    if (kind == Smoother::chebyshev)
      {
        if constexpr (std::is_same_v<Vector, CellVector<double>>)
          return std::make_shared<ChebyshevSmoother<double>>(level, op, mask, ChebyshevParameters());
        else
          return std::make_shared<DistributedChebyshevSmoother<double>>(level, op, mask, ChebyshevParameters());
      }
    if constexpr (std::is_same_v<Vector, CellVector<double>>)
      return std::make_shared<JacobiSmoother<double>>(level, op, mask, JacobiParameters());
    else
      return std::make_shared<DistributedJacobiSmoother<double>>(level, op, mask, JacobiParameters());
  }

  /// Serial: the V-cycle as multigrid_solver.cc builds it, CG to 1e-10.
  Solved
  solve_serial(const LevelHierarchy &h, const unsigned int degree, const Smoother kind, const CellVector<double> &b_fine)
  {
    using V = CellVector<double>;
    typename VCycle<V>::Components components;
    std::vector<V>                 masks;
    std::vector<std::shared_ptr<LaplaceOperator<double>>> ops;
    for (unsigned int l = 0; l < h.n_levels(); ++l)
      {
        const Level &level = h.level(l);
        masks.push_back(make_dirichlet_mask<double>(level, degree));
        ops.push_back(std::make_shared<LaplaceOperator<double>>(level, degree));
        components.operators.push_back(ops.back());
        components.level_shapes.push_back(V(level.n_cells(), degree));
        if (l == 0)
          {
            components.smoothers.push_back(nullptr);
            components.coarse_solver = std::make_shared<CholeskyCoarseSolver<double>>(level, *ops.back(), masks.back());
          }
        else
          components.smoothers.push_back(make_smoother(kind, level, *ops.back(), masks.back()));
      }
    components.transfer = std::make_shared<CellTransfer<double>>(h, degree);
    VCycle<V>      cycle(std::move(components), typename VCycle<V>::Parameters());
    Solved         solved;
    MonitorControl control(100, 1e-10);
    solved.u.reinit(b_fine);
    solved.iterations = solve_cg(*ops.back(), cycle, solved.u, b_fine, masks.back(), control).iterations();
    return solved;
  }

  /// Distributed: the same cycle from the distributed components.
  Solved
  solve_distributed(const LevelHierarchy &h, const unsigned int degree, const Smoother kind, const CellVector<double> &b_fine)
  {
    using V          = DistributedCellVector<double>;
    const MPI_Comm comm = MPI_COMM_WORLD;
    const int  rank  = mpi_rank(comm), size = mpi_size(comm);
    const auto owner = morton_partition(h, size);
    std::vector<LocalLevel> local;
    for (unsigned int l = 0; l < h.n_levels(); ++l)
      local.push_back(make_local_level(h.level(l), owner[l], rank));

    typename VCycle<V>::Components components;
    std::vector<V>                 masks;
    std::vector<std::shared_ptr<DistributedLaplaceOperator<double>>> ops;
    for (unsigned int l = 0; l < h.n_levels(); ++l)
      {
        const auto level = std::make_shared<const DistributedLevel>(local[l], comm, h.level(l).n_cells(),
                                                                    lagrange_trace_layers(degree));
        masks.push_back(make_distributed_dirichlet_mask<double>(level, degree));
        ops.push_back(std::make_shared<DistributedLaplaceOperator<double>>(level, degree));
        components.operators.push_back(ops.back());
        components.level_shapes.push_back(V(level, degree));
        if (l == 0)
          {
            components.smoothers.push_back(nullptr);
            const LaplaceOperator<double> serial_op(h.level(0), degree);
            const auto serial = std::make_shared<CholeskyCoarseSolver<double>>(h.level(0), serial_op,
                                                                                make_dirichlet_mask<double>(h.level(0), degree));
            components.coarse_solver = std::make_shared<GatheredCoarseSolver<double>>(serial, level, degree);
          }
        else
          components.smoothers.push_back(make_smoother(kind, local[l].level, *ops.back(), masks.back()));
      }
    components.transfer = std::make_shared<DistributedLevelTransfer<double>>(h, owner, local, comm, degree);
    VCycle<V> cycle(std::move(components), typename VCycle<V>::Parameters());

    const LocalLevel &fine = local.back();
    V                 b(ops.back()->level(), degree), u(ops.back()->level(), degree);
    for (unsigned int k = 0; k < fine.n_owned_cells(); ++k)
      for (unsigned int i = 0; i < b.dofs_per_cell(); ++i)
        b.local()(k, i) = b_fine(fine.serial_index[k], i);
    MonitorControl control(100, 1e-10);
    Solved         solved;
    solved.iterations = solve_cg(*ops.back(), cycle, u, b, masks.back(), control).iterations();
    solved.u          = u.local();
    return solved;
  }

  /// max over the owned cells of all ranks of |u_distributed − u_serial|,
  /// relative to max |u_serial|. Collective.
  double
  owned_difference(const LocalLevel &fine, const CellVector<double> &distributed, const CellVector<double> &serial)
  {
    double difference = 0, largest = 0;
    for (unsigned int c = 0; c < serial.n_cells(); ++c)
      for (unsigned int i = 0; i < serial.dofs_per_cell(); ++i)
        largest = std::max(largest, std::abs(serial(c, i)));
    for (unsigned int k = 0; k < fine.n_owned_cells(); ++k)
      for (unsigned int i = 0; i < serial.dofs_per_cell(); ++i)
        difference = std::max(difference, std::abs(distributed(k, i) - serial(fine.serial_index[k], i)));
    double all = 0;
    CELLWISE_MPI_CHECK(MPI_Allreduce(&difference, &all, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
    return all / largest;
  }

  void
  compare(const LevelHierarchy &h, const unsigned int degree, const Smoother kind, const char *what)
  {
    const int          rank = mpi_rank(MPI_COMM_WORLD), size = mpi_size(MPI_COMM_WORLD);
    CellVector<double> b(h.levels.back().n_cells(), degree);
    fill_random(b, 5);
    b.scale(make_dirichlet_mask<double>(h.levels.back(), degree));
    const Solved serial      = solve_serial(h, degree, kind, b);
    const Solved distributed = solve_distributed(h, degree, kind, b);
    const auto   owner       = morton_partition(h, size);
    const double difference =
      owned_difference(make_local_level(h.levels.back(), owner.back(), rank), distributed.u, serial.u);
    EXPECT_EQ(distributed.iterations, serial.iterations) << what << ", Q" << degree << ", " << size << " ranks";
    EXPECT_LE(difference, 1e-12) << what << ", Q" << degree << ", " << size << " ranks";
    EXPECT_GE(serial.iterations, 3u) << "a solve that tests nothing";
    if (rank == 0)
      std::cout << "  " << what << ", Q" << degree << ", " << size << " ranks: " << distributed.iterations
                << " CG iterations (serial " << serial.iterations << "), solution difference " << difference << std::endl;
  }

  BoxDescription
  unequal_box()
  {
    BoxDescription box;
    box.upper        = {{3., 2., 1.5}};
    box.subdivisions = {{3, 2, 1}};
    return box;
  }
} // namespace

TEST(DistributedMultigrid, ChebyshevCycleSolvesAsTheSerialOne)
{
  const LevelHierarchy h = make_box_hierarchy(unequal_box(), 2);
  for (const unsigned int degree : {2u, 3u, 4u})
    compare(h, degree, Smoother::chebyshev, "box, Chebyshev");
}

TEST(DistributedMultigrid, ChebyshevCycleSolvesAsTheSerialOneOnTheLShape)
{
  // deal.II's hyper_L: cells that touch the removed octant only along the
  // re-entrant edge get their Dirichlet copies from the mask's DSS, here
  // across ranks
  compare(make_box_hierarchy(make_lshape_description(), 2), 2, Smoother::chebyshev, "L-shape, Chebyshev");
}

TEST(DistributedMultigrid, JacobiCycleSolvesAsTheSerialOne)
{
  compare(make_box_hierarchy(unequal_box(), 2), 2, Smoother::jacobi, "box, Jacobi");
}

TEST(DistributedMultigrid, MismatchedVectorsOnOneRankAreAnErrorOnEveryRank)
{
  const int            rank = mpi_rank(MPI_COMM_WORLD), size = mpi_size(MPI_COMM_WORLD);
  const LevelHierarchy h    = make_box_hierarchy(unequal_box(), 1);
  const auto           owner = morton_partition(h, size);
  const LocalLevel     local = make_local_level(h.level(1), owner[1], rank);
  const auto level = std::make_shared<const DistributedLevel>(local, MPI_COMM_WORLD, h.level(1).n_cells(), lagrange_trace_layers(2));
  const DistributedCellVector<double> a(level, 2), b(level, 2), other_degree(level, 3);
  EXPECT_NO_THROW(a.dot(b));
  // the last rank pairs vectors of different degrees, the others do not
  EXPECT_THROW(a.dot(rank == size - 1 ? other_degree : b), Error);
  EXPECT_NO_THROW(a.dot(b)) << "the ranks are in step again";
}

TEST(DistributedMultigrid, NaNInTheRightHandSideIsNamedOnEveryRank)
{
  // the NaN sits in one cell, owned by one rank: the monitor is global, so
  // every rank stops and names the right-hand side
  const LevelHierarchy       h = make_box_hierarchy(unequal_box(), 2);
  MultigridParameters        parameters;
  DistributedMultigridSolver solver(h, 2, parameters, MPI_COMM_WORLD);
  CellVector<double>         b(h.levels.back().n_cells(), 2), u;
  fill_random(b, 3);
  b(h.levels.back().n_cells() / 2, 13) = std::numeric_limits<double>::quiet_NaN();
  MonitorControl control(100, 1e-10);
  try
    {
      solver.solve(u, b, control);
      ADD_FAILURE() << "a NaN in the right-hand side was not refused";
    }
  catch (const Error &e)
    {
      EXPECT_NE(std::string(e.what()).find("right-hand side contains NaN"), std::string::npos) << e.what();
    }
}

TEST(DistributedMultigrid, RepeatedSolvesReuseTheirWorkVectorsUnchanged)
{
  // The solver keeps the outer iteration's work vectors between solves,
  // reused without a zero fill: the solve of a second load gives, on every
  // rank, bit for bit what a fresh solver gives.
  const LevelHierarchy h = make_box_hierarchy(unequal_box(), 2);
  for_each_outer_iteration_and_precision([&](const MultigridParameters &parameters) {
    const DistributedMultigridSolver kept(h, 2, parameters, MPI_COMM_WORLD), fresh(h, 2, parameters, MPI_COMM_WORLD);
    CellVector<double> b1(h.levels.back().n_cells(), 2), b2(h.levels.back().n_cells(), 2);
    fill_random(b1, 8);
    fill_random(b2, 9);
    expect_second_solve_as_a_fresh_one(kept, fresh, b1, b2, 100, 1e-9);
  });
}
