#pragma once
// The front door's implementations on one rank (private to source/dealii):
// cellwise::dealii::MultigridPreconditioner (multigrid_preconditioner.cc)
// sets up MultigridPoissonSolver on a mesh without hanging nodes and
// AdaptivePoissonSolver on one with them, and runs their cycle (vmult) or
// their whole solve (solve). Definitions in poisson_solvers.cc. A program
// names only the front door (these two were public before 1.0,
// CHANGELOG.md), so the refusals a user can meet through them name it too.

#include <cellwise/base/work_space_lock.h>
#include <cellwise/dealii/import.h>
#include <cellwise/dealii/live_pointer.h>
#include <cellwise/dealii/solver.h>
#include <cellwise/multigrid/multigrid_solver.h>
#include <cellwise/multigrid/host_vector_solvers.h>
#include <cellwise/multigrid/solver_control.h>
#include <cellwise/operators/laplace_operator.h>

#include <deal.II/base/index_set.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/fe/mapping.h>
#include <deal.II/lac/solver_control.h>

#include <iosfwd>
#include <memory>

namespace cellwise::dealii::internal
{
  /**
   * The cell-wise multigrid solver for the Laplacian with homogeneous
   * Dirichlet conditions on a globally refined mesh, set up from a DoFHandler
   * (FE_Q(p) with level DoFs; see import_dof_handler() for what is refused).
   * Locally refined meshes are refused: use AdaptivePoissonSolver.
   *
   * parameters.backend says where the levels live: Backend::host
   * (cellwise::MultigridSolver) or Backend::cuda (cuda::MultigridSolver on
   * the current device; refused with the reason where there is none). On the
   * device the hierarchy is uploaded at set-up, and a solve moves the
   * scattered right-hand side and the guess to the device and the solution
   * back, once each. Every option of MultigridParameters works on both,
   * except pure_neumann (host only).
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
    /// The same with the program's mapping (MappingQ1 or MappingQ(k)): on a
    /// mesh that is not a lattice of boxes the cells are its support points
    /// (import_dof_handler(mapping, dof_handler)), e.g. a curved boundary.
    MultigridPoissonSolver(const ::dealii::Mapping<3, 3>    &mapping,
                           const ::dealii::DoFHandler<3, 3> &dof_handler,
                           const MultigridParameters        &parameters = {},
                           std::ostream                     *log        = nullptr);

    /// The DoFHandler is watched (LiveDoFHandler): a solve after it or its
    /// Triangulation was destroyed throws cellwise::Error; a temporary one
    /// is refused at compile time.
    MultigridPoissonSolver(const ::dealii::DoFHandler<3, 3> &&dof_handler, const MultigridParameters &parameters = {},
                           std::ostream *log = nullptr) = delete;
    MultigridPoissonSolver(const ::dealii::Mapping<3, 3> &mapping, const ::dealii::DoFHandler<3, 3> &&dof_handler,
                           const MultigridParameters &parameters = {}, std::ostream *log = nullptr) = delete;

    // The solver keeps a reference to the imported hierarchy.
    MultigridPoissonSolver(const MultigridPoissonSolver &) = delete;
    MultigridPoissonSolver &
    operator=(const MultigridPoissonSolver &) = delete;

    /**
     * Solve A u = b. @p rhs is the load vector assembled in deal.II's active
     * numbering (zero on constrained DoFs, as after
     * AffineConstraints::distribute_local_to_global); @p solution is the
     * initial guess on entry and the solution on
     * exit; the two must be different vectors. The Dirichlet entries of the
     * guess are kept as they are: zero gives the homogeneous problem, the
     * boundary values (VectorTools::interpolate_boundary_values) the
     * inhomogeneous one, as for MultigridSolver::solve. Iterations are reported to
     * @p control; on failure throws ::dealii::SolverControl::NoConvergence
     * like deal.II's solvers (a NoConvergenceWithReason, which says why). Throws cellwise::Error if the DoFHandler was
     * renumbered since the set-up (check_numbering_unchanged).
     */
    SolveStatistics
    solve(DealiiVector &solution, const DealiiVector &rhs, ::dealii::SolverControl &control) const;

    const ImportedHierarchy &
    imported() const
    {
      return imported_;
    }
    /// The solver on the backend of the parameters.
    const HostVectorSolver &
    solver() const
    {
      return *solver_;
    }
    /// The same on deal.II's vectors (the finest level's DoF map).
    const NumberedVectorSolver &
    numbered() const
    {
      return *numbered_;
    }
    /// deal.II's DoFs on the Dirichlet boundary.
    const ::dealii::IndexSet &
    dirichlet_dofs() const
    {
      return dirichlet_dofs_;
    }

  private:
    /// Serializes the solves of threads that share this object (base/work_space_lock.h).
    WorkSpaceLock work_space_lock_;
    LiveDoFHandler                                          dof_handler_;
    ImportedHierarchy                                       imported_;
    MultigridParameters                                     parameters_;
    std::unique_ptr<HostVectorSolver>                       solver_;
    std::unique_ptr<NumberedVectorSolver>                   numbered_;
    /// deal.II's DoFs on the Dirichlet boundary (left out of ‖r₀‖₂)
    ::dealii::IndexSet dirichlet_dofs_;
    /// The FP64 operator of the finest level on the host, built at the first
    /// solve from a non-zero guess (‖b − A u₀‖₂ on every backend).
    mutable std::unique_ptr<LaplaceOperator<double>> host_operator_;
  };

  /**
   * The fast entry point on a locally refined mesh (also takes a globally
   * refined one): cellwise::MultigridSolver (local smoothing, no
   * hanging-node constraint object; doc/adaptive.md) set up from a DoFHandler
   * on a Triangulation<3> with limit_level_difference_at_vertices, FE_Q(p),
   * level DoFs; homogeneous Dirichlet conditions on parameters.dirichlet_ids
   * (all boundary ids if empty).
   *
   * Vectors are in deal.II's active numbering, which has its own indices for
   * hanging DoFs (constrained by the user's AffineConstraints with
   * make_hanging_node_constraints). With C the constraint matrix (free DoFs to
   * all DoFs) and G the gather into the active cells (make_active_mesh_map),
   * the system solved is C^T G^T A_cell G C u = C^T rhs, deal.II's constrained
   * system:
   *
   *  - right-hand side: @p rhs is scattered balanced (every copy of DoF j gets
   *    rhs_j / valence_j, so G^T of it is rhs). This is right for both forms a
   *    user may have: the condensed vector of
   *    AffineConstraints::distribute_local_to_global (zero on the constrained
   *    DoFs, already C^T of the load) and the plain load vector assembled
   *    without constraints (the cycle routes the hanging copies to their
   *    masters, i.e. applies C^T itself; doc/adaptive.md §Duals). Entries on
   *    Dirichlet DoFs are ignored.
   *  - solution: on entry the initial guess, which must satisfy the
   *    hanging-node constraints (zero, or after constraints.distribute()) and
   *    be zero on Dirichlet DoFs; on exit every DoF, hanging ones included,
   *    holds its first copy in the active cells. The cell-wise
   *    solution is continuous with the hanging-node constraints, so the
   *    hanging DoFs already equal their interpolation to rounding and
   *    constraints.distribute() changes nothing beyond that.
   *
   * Iterations are reported to the SolverControl as in MultigridPoissonSolver
   * (η scaled to ‖r₀‖₂ at step 0; absolute tolerances are converted). Supported parameters are those of
   * MultigridSolver (every smoother, fp64, cg or stationary), on
   * either backend (parameters.backend, as for MultigridPoissonSolver).
   */
  class AdaptivePoissonSolver
  {
  public:
    AdaptivePoissonSolver(const ::dealii::DoFHandler<3, 3> &dof_handler,
                          const MultigridParameters        &parameters = {},
                          std::ostream                     *log        = nullptr);
    /// The same with the program's mapping (as MultigridPoissonSolver).
    AdaptivePoissonSolver(const ::dealii::Mapping<3, 3>    &mapping,
                          const ::dealii::DoFHandler<3, 3> &dof_handler,
                          const MultigridParameters        &parameters = {},
                          std::ostream                     *log        = nullptr);

    /// The DoFHandler is watched (LiveDoFHandler): a solve after it or its
    /// Triangulation was destroyed throws cellwise::Error; a temporary one
    /// is refused at compile time.
    AdaptivePoissonSolver(const ::dealii::DoFHandler<3, 3> &&dof_handler, const MultigridParameters &parameters = {},
                          std::ostream *log = nullptr) = delete;
    AdaptivePoissonSolver(const ::dealii::Mapping<3, 3> &mapping, const ::dealii::DoFHandler<3, 3> &&dof_handler,
                          const MultigridParameters &parameters = {}, std::ostream *log = nullptr) = delete;

    // The solver keeps a reference to the imported hierarchy.
    AdaptivePoissonSolver(const AdaptivePoissonSolver &) = delete;
    AdaptivePoissonSolver &
    operator=(const AdaptivePoissonSolver &) = delete;

    /// Solve; see the class description for the vectors (different vectors).
    /// On failure throws ::dealii::SolverControl::NoConvergence; throws
    /// cellwise::Error if the DoFHandler was renumbered since the set-up.
    SolveStatistics
    solve(DealiiVector &solution, const DealiiVector &rhs, ::dealii::SolverControl &control) const;

    const ImportedHierarchy &
    imported() const
    {
      return imported_;
    }
    /// The active-mesh DoF map (deal.II's active numbering on the active cells
    /// in the order of solver().active_mesh()).
    const DofMap &
    active_map() const
    {
      return active_map_;
    }
    /// The solver on the backend of the parameters.
    const AdaptiveHostVectorSolver &
    solver() const
    {
      return *solver_;
    }
    /// The same on deal.II's vectors (the active map).
    const NumberedVectorSolver &
    numbered() const
    {
      return *numbered_;
    }
    /// deal.II's DoFs on the Dirichlet boundary.
    const ::dealii::IndexSet &
    dirichlet_dofs() const
    {
      return dirichlet_dofs_;
    }
    /// The FP64 operator of the active cells on the host (built on the first
    /// call): what the solver's outer iteration applies, for tests and ‖r₀‖₂.
    const LaplaceOperator<double> &
    active_operator() const;

  private:
    /// Serializes the solves of threads that share this object (base/work_space_lock.h).
    WorkSpaceLock work_space_lock_;
    LiveDoFHandler                                          dof_handler_;
    ImportedHierarchy                                       imported_;
    MultigridParameters                                     parameters_;
    std::unique_ptr<AdaptiveHostVectorSolver>               solver_;
    DofMap                                                  active_map_;
    std::unique_ptr<NumberedVectorSolver>                   numbered_;
    ::dealii::IndexSet                                      dirichlet_dofs_;
    mutable std::unique_ptr<LaplaceOperator<double>>        host_operator_;
  };
} // namespace cellwise::dealii::internal
