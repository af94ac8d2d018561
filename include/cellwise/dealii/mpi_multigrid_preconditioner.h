#pragma once
/**
 * @file
 * The cell-wise multigrid cycle as a deal.II preconditioner on N MPI ranks:
 * MultigridPreconditioner's counterpart for a DoFHandler on a
 * parallel::distributed::Triangulation, for an outer solver and operator of
 * the user's own (step-37's SolverCG on its MatrixFree operator under
 * mpirun):
 *
 *   cellwise::MultigridParameters parameters;
 *   parameters.coefficient = cellwise::dealii::to_scalar_function(Coefficient<3>());
 *   cellwise::dealii::DistributedMultigridPreconditioner preconditioner(dof_handler, parameters);
 *   SolverCG<LinearAlgebra::distributed::Vector<double>> cg(control);
 *   cg.solve(system_matrix, solution, rhs, preconditioner);
 *
 * Each vmult is one V-cycle of DistributedPoissonSolver's distributed
 * solver (the partition deal.II's, each rank its own cells), collectively:
 * the residual is scattered onto the rank's owned cells (every copy of DoF
 * j gets r_j / valence_j, the ghost DoFs from a deal.II ghost update), the
 * cycle runs on the host or, with Backend::cuda, on the rank's GPU, and the
 * correction comes back as the mean of its copies. The cycle is the serial
 * preconditioner's on the same mesh: an outer CG takes the same number of
 * iterations on any number of ranks. Meshes and options: those of
 * DistributedPoissonSolver (lattices of boxes, globally or locally refined;
 * on a locally refined mesh the correction is zero on the hanging DoFs, for
 * deal.II's constrained system, and the cycle is the local-smoothing one
 * on the active cells).
 *
 * Built where deal.II and cellwise::mpi are (library cellwise::dealii).
 */

#include <cellwise/base/mpi_check.h>
#include <cellwise/dealii/mpi_distributed_poisson_solver.h>

#include <iosfwd>

namespace cellwise::dealii
{
  class DistributedMultigridPreconditioner
  {
  public:
    /// Collective: set up the distributed cycle on parameters.backend
    /// (refused on every rank with the reason where it cannot run).
    DistributedMultigridPreconditioner(const ::dealii::DoFHandler<3, 3> &dof_handler,
                                       const MultigridParameters        &parameters = {},
                                       std::ostream                     *log        = nullptr)
      : dof_handler_(dof_handler, "cellwise::dealii::DistributedMultigridPreconditioner", "preconditioner")
      , comm_(dof_handler.get_triangulation().get_communicator())
      , solver_(dof_handler, parameters, log)
    {}
    /// The DoFHandler is kept: a temporary would dangle.
    DistributedMultigridPreconditioner(const ::dealii::DoFHandler<3, 3> &&dof_handler, const MultigridParameters &parameters = {},
                                       std::ostream *log = nullptr) = delete;

    /// @p dst = V @p src, collectively: @p src a residual in deal.II's
    /// numbering, @p dst the correction (zero on the Dirichlet DoFs).
    /// Throws cellwise::Error on every rank if the DoFHandler was destroyed.
    void
    vmult(DealiiVector &dst, const DealiiVector &src) const
    {
      check_collectively(comm_, dof_handler_.alive(), dof_handler_.destroyed_message());
      solver_.precondition(dst, src);
    }

    /// The solver whose cycle this is (its partition, its local levels).
    const DistributedPoissonSolver &
    solver() const
    {
      return solver_;
    }

  private:
    LiveDoFHandler           dof_handler_;
    MPI_Comm                 comm_;
    DistributedPoissonSolver solver_;
  };
} // namespace cellwise::dealii
