#pragma once
// What the front door (cellwise::dealii::MultigridPreconditioner) holds: one
// of three solvers, chosen by the mesh, behind one interface:
// internal::MultigridPoissonSolver or internal::AdaptivePoissonSolver on one
// rank (poisson_solvers.h), internal::DistributedPoissonSolver on several
// (mpi_distributed_poisson_solver.h; its implementation is defined in
// mpi_multigrid_preconditioner.cc, built only with cellwise::mpi). Private
// to source/dealii.

#include <cellwise/base/function.h>
#include <cellwise/dealii/multigrid_preconditioner.h>

#include <iosfwd>
#include <memory>

namespace cellwise::dealii
{
  class MultigridPreconditioner::Implementation
  {
  public:
    virtual ~Implementation() = default;

    virtual void
    vmult(DealiiVector &dst, const DealiiVector &src) const = 0;

    virtual SolveStatistics
    solve(DealiiVector &solution, const DealiiVector &rhs, ::dealii::SolverControl &control) const = 0;

    /// MultigridPreconditioner::assemble_right_hand_side with @p f as the
    /// core's function.
    virtual void
    assemble_right_hand_side(const ScalarFunction &f, DealiiVector &rhs, unsigned int n_q_points) const = 0;

    Configuration configuration;
    /// The MPI ranks it runs on.
    unsigned int n_ranks = 1;
  };

  namespace internal
  {
    /// The distributed implementation (DistributedPoissonSolver) on the
    /// ranks of @p dof_handler's parallel::distributed::Triangulation.
    std::unique_ptr<const MultigridPreconditioner::Implementation>
    make_distributed_implementation(const ::dealii::DoFHandler<3, 3> &dof_handler,
                                    const MultigridParameters        &parameters,
                                    std::ostream                     *log);
  } // namespace internal
} // namespace cellwise::dealii
