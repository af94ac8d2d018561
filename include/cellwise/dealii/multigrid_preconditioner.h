#pragma once
/**
 * @file
 * The deal.II front door: one class for the cell-wise multigrid in a deal.II
 * program, whatever the mesh, the ranks or the backend.
 *
 *   cellwise::MultigridParameters parameters;               // smoother, precision, backend, ...
 *   cellwise::dealii::MultigridPreconditioner mg(mapping, dof_handler, parameters);
 *
 *   // as a preconditioner of the program's own solver and operator:
 *   SolverCG<LinearAlgebra::distributed::Vector<double>> cg(control);
 *   cg.solve(system_matrix, solution, rhs, mg);
 *
 *   // or the whole solve, the cell-wise outer iteration under deal.II's
 *   // SolverControl (the fast path: on Backend::cuda nothing but b and x
 *   // cross the bus), with the load vector from the imported cells (no
 *   // MatrixFree object or FEValues loop of the program's own needed):
 *   mg.assemble_right_hand_side(Functions::ConstantFunction<3>(1.), rhs);
 *   mg.solve(solution, rhs, control);
 *
 * It takes a DoFHandler of FE_Q(p) (distribute_dofs; level DoFs from
 * distribute_mg_dofs are not needed: the levels' connectivity is the
 * cell-wise one) on a Triangulation<3> or a
 * parallel::distributed::Triangulation<3>, globally or locally refined
 * (construct_multigrid_hierarchy on p4est), with the program's mapping (curved cells on one rank;
 * on several ranks the mesh is a lattice of boxes, where the mapping changes
 * nothing), and MultigridParameters of any smoother, precision, outer
 * iteration and backend — what the capability table
 * (cellwise-poisson --capabilities, doc/capabilities.md) marks as supported
 * runs, the rest is refused at construction with the table's reason, on every
 * rank.
 *
 * Which solver it sets up follows from the mesh: one rank and no hanging
 * node, the uniform solver (cellwise::MultigridSolver, or its device twins
 * on Backend::cuda); one rank with hanging nodes, local smoothing on the
 * active cells (cellwise::MultigridSolver, doc/adaptive.md); several
 * ranks, the distributed solver on p4est's partition
 * (cellwise::DistributedMultigridSolver, doc/mpi.md). This class is the one
 * deal.II entry point (CHANGELOG.md names the older ones it replaces).
 *
 * vmult(dst, src) is one V-cycle: src a residual in deal.II's active
 * numbering, dst the correction, zero on the Dirichlet DoFs and, on a locally
 * refined mesh, on the hanging DoFs (the correction of deal.II's constrained
 * system, as an operator with constraints.set_zero or a condensed matrix
 * needs it). On Backend::cuda each vmult moves the residual to the device and
 * the correction back; solve() keeps the outer iteration on the device.
 */

#include <cellwise/base/work_space_lock.h>
#include <cellwise/dealii/solver.h>
#include <cellwise/multigrid/capabilities.h>
#include <cellwise/multigrid/solver_control.h>

#include <deal.II/base/function.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/fe/mapping.h>
#include <deal.II/lac/solver_control.h>

#include <iosfwd>
#include <memory>
#include <string>

namespace cellwise::dealii
{
  class MultigridPreconditioner
  {
  public:
    /// Import @p dof_handler with @p mapping and set up the solver the mesh
    /// calls for (see the file comment). Collective over the
    /// triangulation's communicator on a parallel::distributed one. Set-up
    /// progress to @p log (rank 0 writes).
    MultigridPreconditioner(const ::dealii::Mapping<3, 3>    &mapping,
                            const ::dealii::DoFHandler<3, 3> &dof_handler,
                            const MultigridParameters        &parameters = {},
                            std::ostream                     *log        = nullptr);
    /// The same with MappingQ1 (cells as their vertices give them).
    MultigridPreconditioner(const ::dealii::DoFHandler<3, 3> &dof_handler,
                            const MultigridParameters        &parameters = {},
                            std::ostream                     *log        = nullptr);
    /// The DoFHandler is kept (the mapping only read here): a temporary is
    /// refused at compile time, and a vmult or solve after the DoFHandler or
    /// its Triangulation was destroyed throws cellwise::Error (build the
    /// preconditioner again) instead of reading freed memory.
    MultigridPreconditioner(const ::dealii::Mapping<3, 3> &mapping, const ::dealii::DoFHandler<3, 3> &&dof_handler,
                            const MultigridParameters &parameters = {}, std::ostream *log = nullptr) = delete;
    MultigridPreconditioner(const ::dealii::DoFHandler<3, 3> &&dof_handler, const MultigridParameters &parameters = {},
                            std::ostream *log = nullptr) = delete;
    ~MultigridPreconditioner();

    // The solver keeps references to the imported hierarchy and the
    // DoFHandler (which must outlive it).
    MultigridPreconditioner(const MultigridPreconditioner &) = delete;
    MultigridPreconditioner &
    operator=(const MultigridPreconditioner &) = delete;

    /// @p dst = V @p src, one V-cycle (collective on several ranks). Throws
    /// cellwise::Error if the DoFHandler was renumbered or destroyed since
    /// the set-up.
    void
    vmult(DealiiVector &dst, const DealiiVector &src) const;

    /**
     * Solve A u = b by the cell-wise outer iteration (CG or the stationary
     * one, as the parameters say) with this cycle, reporting to @p control
     * as deal.II's solvers do (η scaled to ‖r₀‖₂ at step 0: a
     * ReductionControl reduces η as it would ‖r‖₂). @p rhs: the load vector
     * in deal.II's numbering (zero on constrained DoFs); @p solution: the
     * initial guess on entry (Dirichlet entries kept: the boundary values of
     * an inhomogeneous problem; hanging-node constraints satisfied), the
     * solution on exit. Throws NoConvergenceWithReason on failure (on every
     * rank).
     */
    SolveStatistics
    solve(DealiiVector &solution, const DealiiVector &rhs, ::dealii::SolverControl &control) const;

    /**
     * The load vector rhs_j = ∫ f φ_j of deal.II's DoFs (collective on
     * several ranks): Gauss quadrature with @p n_q_points per direction
     * (0: p + 2; p + 1 is deal.II's usual QGauss(p + 1)) on the imported
     * cells with the mapping given at construction, on the host's threads;
     * zero on the Dirichlet DoFs, as AffineConstraints::
     * distribute_local_to_global leaves them. On a locally refined mesh the
     * hanging DoFs keep their own load (solve() takes that form as well as
     * the condensed one; AffineConstraints::condense() makes the condensed
     * one for a solver of the program's own). @p rhs: deal.II's locally
     * owned DoFs of the DoFHandler, any ghost layout (ghosts updated if it
     * has any). @p f is called from several threads at once. More than
     * max_right_hand_side_points points per direction are refused.
     */
    void
    assemble_right_hand_side(const ::dealii::Function<3> &f, DealiiVector &rhs, unsigned int n_q_points = 0) const;
    static constexpr unsigned int max_right_hand_side_points = 32;

    /// What it was set up as: the mesh's geometry and refinement, the
    /// parameters' precision, smoother and backend, and whether it runs on
    /// several ranks.
    const Configuration &
    configuration() const;

    /// One line: "cellwise::dealii::MultigridPreconditioner (uniform|local
    /// smoothing, host|cuda, fp64|mixed, <smoother>, 1 rank|distributed over
    /// N MPI ranks)".
    std::string
    describe() const;

    /// The backend the levels live on.
    Backend
    backend() const
    {
      return configuration().backend;
    }

    class Implementation;

  private:
    /// Serializes the solves of threads that share this object (base/work_space_lock.h).
    WorkSpaceLock work_space_lock_;
    std::unique_ptr<const Implementation> implementation_;
  };
} // namespace cellwise::dealii
