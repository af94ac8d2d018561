#pragma once
/**
 * @file
 * The cell-wise multigrid cycle as a deal.II preconditioner, for an outer
 * solver and operator of the user's own: deal.II's SolverCG on step-37's
 * MatrixFree operator (with its coefficient at the quadrature points), with
 * the cycle's levels on the backend of MultigridParameters::backend.
 *
 *   cellwise::MultigridParameters parameters;
 *   parameters.backend   = cellwise::Backend::cuda;   // levels on the GPU
 *   parameters.precision = cellwise::Precision::mixed;
 *   cellwise::dealii::MultigridPreconditioner preconditioner(dof_handler, parameters);
 *   SolverCG<LinearAlgebra::distributed::Vector<double>> cg(control);
 *   cg.solve(system_matrix, solution, rhs, preconditioner);
 *
 * On Backend::cuda the hierarchy is uploaded once at set-up and each vmult
 * moves the residual to the device and the correction back, once each (two
 * transfers of the cell-wise vector per outer iteration; the fast entry
 * MultigridPoissonSolver keeps the outer iteration on the device too).
 *
 * This is the cycle of MultigridPoissonSolver: a globally refined mesh. On a
 * locally refined one use deal.II's Multigrid with MultigridComponents and
 * its edge matrices (mg_adapters.h), or AdaptivePoissonSolver.
 */

#include <cellwise/dealii/solver.h>

#include <deal.II/base/smartpointer.h>

#include <iosfwd>

namespace cellwise::dealii
{
  class MultigridPreconditioner
  {
  public:
    /// Import @p dof_handler and set up the cycle on parameters.backend
    /// (refused with the reason where the backend cannot run).
    MultigridPreconditioner(const ::dealii::DoFHandler<3, 3> &dof_handler,
                            const MultigridParameters        &parameters = {},
                            std::ostream                     *log        = nullptr);

    /// @p dst = V @p src: @p src a residual in deal.II's active numbering,
    /// @p dst the correction (zero on the Dirichlet DoFs). Throws
    /// cellwise::Error if the DoFHandler was renumbered since the set-up.
    void
    vmult(DealiiVector &dst, const DealiiVector &src) const;

    /// The solver whose cycle this is (its backend, its imported hierarchy).
    const MultigridPoissonSolver &
    solver() const
    {
      return solver_;
    }

  private:
    ::dealii::SmartPointer<const ::dealii::DoFHandler<3, 3>> dof_handler_;
    MultigridPoissonSolver                                  solver_;
  };
} // namespace cellwise::dealii
