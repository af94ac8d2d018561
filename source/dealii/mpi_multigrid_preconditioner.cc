// The front door's implementation on several ranks:
// internal::DistributedPoissonSolver (built only with cellwise::mpi).

#include <cellwise/base/mpi_check.h>

#include <deal.II/base/mpi.h>

#include "mpi_distributed_poisson_solver.h"
#include "multigrid_preconditioner_implementation.h"

namespace cellwise::dealii
{
  namespace
  {
    class DistributedImplementation : public MultigridPreconditioner::Implementation
    {
    public:
      DistributedImplementation(const ::dealii::DoFHandler<3, 3> &dof_handler,
                                const MultigridParameters        &parameters,
                                std::ostream                     *log)
        : dof_handler_(dof_handler, "cellwise::dealii::MultigridPreconditioner", "preconditioner")
        , comm_(dof_handler.get_triangulation().get_communicator())
        , solver_(dof_handler, parameters, log)
      {
        configuration.geometry    = MeshGeometry::box; // a lattice of boxes: the distributed solver takes no other
        configuration.refinement  = solver_.box_partition().locally_refined() ? MeshRefinement::local : MeshRefinement::uniform;
        configuration.precision   = parameters.precision;
        configuration.smoother    = parameters.smoother;
        configuration.distributed = true;
        configuration.backend     = parameters.backend;
        n_ranks = ::dealii::Utilities::MPI::n_mpi_processes(dof_handler.get_triangulation().get_communicator());
      }

      void
      vmult(DealiiVector &dst, const DealiiVector &src) const override
      {
        check_dof_handler_alive();
        solver_.precondition(dst, src);
      }

      SolveStatistics
      solve(DealiiVector &solution, const DealiiVector &rhs, ::dealii::SolverControl &control) const override
      {
        check_dof_handler_alive();
        return solver_.solve(solution, rhs, control);
      }

      void
      assemble_right_hand_side(const ScalarFunction &f, DealiiVector &rhs, const unsigned int n_q_points) const override
      {
        check_dof_handler_alive();
        solver_.assemble_right_hand_side(f, rhs, n_q_points);
      }

    private:
      /// On every rank (collective), before the solver's own checks.
      void
      check_dof_handler_alive() const
      {
        check_collectively(comm_, dof_handler_.alive(), dof_handler_.destroyed_message());
      }

      LiveDoFHandler                     dof_handler_;
      MPI_Comm                           comm_;
      internal::DistributedPoissonSolver solver_;
    };
  } // namespace

  std::unique_ptr<const MultigridPreconditioner::Implementation>
  internal::make_distributed_implementation(const ::dealii::DoFHandler<3, 3> &dof_handler,
                                            const MultigridParameters        &parameters,
                                            std::ostream                     *log)
  {
    return std::make_unique<const DistributedImplementation>(dof_handler, parameters, log);
  }
} // namespace cellwise::dealii
