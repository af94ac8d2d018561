#pragma once
/**
 * @file
 * The fast entry point: the whole cell-wise multigrid solver (operators,
 * V-cycle and FP64 outer iteration of cellwise::MultigridSolver, no deal.II
 * Multigrid in the loop) built from a DoFHandler, taking and returning
 * deal.II vectors. This is the path the GPU backend will take.
 *
 * The outer iteration reports to the user's ::dealii::SolverControl through
 * DealiiIterationControl. The monitored value is the cycle's own
 * η = ⟨r, M^{-1} r⟩^{1/2} (no assembly needed), not deal.II's ‖r‖₂, so a
 * tolerance relative to the initial value (SolverControl's reduction, or
 * ReductionControl) is what carries over between the two.
 */

#include <cellwise/dealii/import.h>
#include <cellwise/multigrid/multigrid_solver.h>
#include <cellwise/multigrid/solver_control.h>

#include <iosfwd>
#include <memory>

namespace dealii
{
  class SolverControl;
  namespace LinearAlgebra::distributed
  {
    template <typename Number, typename MemorySpace>
    class Vector;
  }
  namespace MemorySpace
  {
    struct Host;
  }
} // namespace dealii

namespace cellwise::dealii
{
  /// The outer vector type of the fast entry point.
  using DealiiVector = ::dealii::LinearAlgebra::distributed::Vector<double, ::dealii::MemorySpace::Host>;

  /// cellwise::IterationControl that forwards check() to a deal.II
  /// SolverControl (so deal.II's logging, history and limits apply).
  class DealiiIterationControl : public IterationControl
  {
  public:
    /// Keeps a reference to @p control.
    explicit DealiiIterationControl(::dealii::SolverControl &control);

    State
    check(unsigned int step, double value) override;

    std::string
    failure_reason() const override;

  private:
    ::dealii::SolverControl &control_;
  };

  /**
   * The cell-wise multigrid solver for the Laplacian with homogeneous
   * Dirichlet conditions on a globally refined mesh, set up from a DoFHandler
   * (FE_Q(p) with level DoFs; see import_dof_handler() for what is refused).
   */
  class MultigridPoissonSolver
  {
  public:
    /**
     * Import @p dof_handler and set up the hierarchy.
     * @param parameters smoother, coarse solver, outer iteration, Dirichlet ids
     * @param log progress of the set-up, or nullptr
     */
    MultigridPoissonSolver(const ::dealii::DoFHandler<3, 3> &dof_handler,
                           const MultigridParameters        &parameters = {},
                           std::ostream                     *log        = nullptr);

    /**
     * Solve A u = b. @p rhs is the load vector assembled in deal.II's active
     * numbering (zero on constrained DoFs, as after
     * AffineConstraints::distribute_local_to_global); @p solution is the
     * initial guess on entry (zero on Dirichlet DoFs) and the solution on
     * exit. Iterations are reported to @p control; on failure throws
     * ::dealii::SolverControl::NoConvergence like deal.II's solvers.
     */
    SolveStatistics
    solve(DealiiVector &solution, const DealiiVector &rhs, ::dealii::SolverControl &control) const;

    const ImportedHierarchy &
    imported() const
    {
      return imported_;
    }
    const MultigridSolver &
    solver() const
    {
      return *solver_;
    }

  private:
    ImportedHierarchy                imported_;
    std::unique_ptr<MultigridSolver> solver_;
  };
} // namespace cellwise::dealii
