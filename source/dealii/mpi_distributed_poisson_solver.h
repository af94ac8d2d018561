#pragma once
// The front door's implementation on several MPI ranks (private to
// source/dealii): cellwise::dealii::MultigridPreconditioner on the ranks of a
// parallel::distributed::Triangulation (mpi_multigrid_preconditioner.cc)
// runs this solver's cycle (precondition) or its whole solve; definitions
// in mpi_distributed_poisson_solver.cc, built only with cellwise::mpi. A
// program names only the front door (this class was public before 1.0,
// CHANGELOG.md), so the refusals a user can meet through it name the front
// door.
//
// The cell-wise multigrid solver distributed over the ranks, taking and
// returning deal.II's distributed vectors (doc/mpi.md, "deal.II on ranks").
// The partition is deal.II's (p4est's): a rank owns the level cells whose
// level_subdomain_id is its rank, and the active cells it owns. The solver
// takes it as a BoxPartition (dealii/mpi_box_partition.h): each rank builds
// its own cells and their ghosts, and no rank the whole hierarchy (on a
// locally refined mesh every rank holds the hierarchy, its owners
// deal.II's, and the outer iteration runs on the active cells with local
// smoothing, as AdaptivePoissonSolver's, in FP64). The vectors are
// deal.II's distributed ones and the cell-wise vectors hold only a rank's
// owned and ghost cells. Taken: meshes whose coarse mesh is a lattice of
// equal boxes with flat manifolds (subdivided_hyper_rectangle, hyper_cube,
// hyper_L and the like), globally or locally refined, FE_Q(p) on
// Gauss–Lobatto points, level DoFs, a coefficient, the smoothers, outer
// iterations and backends of DistributedMultigridSolver; refused with a
// message on every rank: curved or unstructured coarse meshes, a
// triangulation without the multigrid hierarchy, what the distributed
// solver does not take. On a locally refined mesh the vectors are as
// AdaptivePoissonSolver's (hanging DoFs have their own index; the initial
// guess satisfies the hanging-node constraints).

#include <cellwise/base/work_space_lock.h>
#include <cellwise/dealii/import.h>
#include <cellwise/dealii/live_pointer.h>
#include <cellwise/dealii/mpi_box_partition.h>
#include <cellwise/dealii/solver.h>
#include <cellwise/multigrid/mpi_distributed_multigrid_solver.h>

#include <deal.II/base/index_set.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/lac/solver_control.h>

#include <iosfwd>
#include <memory>
#include <vector>

namespace cellwise::dealii::internal
{
  class DistributedPoissonSolver
  {
  public:
    /**
     * Collective over the triangulation's communicator. @p dof_handler: on a
     * parallel::distributed::Triangulation<3> built with
     * construct_multigrid_hierarchy, FE_Q(p), distribute_dofs(fe) called.
     * Homogeneous Dirichlet conditions on parameters.dirichlet_ids (every
     * boundary id if empty). Set-up progress to @p log (rank 0 writes).
     */
    DistributedPoissonSolver(const ::dealii::DoFHandler<3, 3> &dof_handler,
                             const MultigridParameters        &parameters = {},
                             std::ostream                     *log        = nullptr);
    /// The DoFHandler is watched (LiveDoFHandler): a solve after it or its
    /// Triangulation was destroyed throws cellwise::Error on every rank; a
    /// temporary one is refused at compile time.
    DistributedPoissonSolver(const ::dealii::DoFHandler<3, 3> &&dof_handler, const MultigridParameters &parameters = {},
                             std::ostream *log = nullptr) = delete;

    DistributedPoissonSolver(const DistributedPoissonSolver &) = delete;
    DistributedPoissonSolver &
    operator=(const DistributedPoissonSolver &) = delete;

    /**
     * Solve A u = b, collectively. @p rhs: the load vector in deal.II's
     * numbering (zero on constrained DoFs, as after
     * AffineConstraints::distribute_local_to_global and compress); any
     * ghost layout. @p solution: the initial guess on entry (its Dirichlet
     * entries are kept), the solution on exit (locally owned entries
     * written, ghosts updated if it has any). Reports to @p control as
     * MultigridPoissonSolver does (poisson_solvers.h); throws
     * NoConvergenceWithReason on failure, on every rank.
     */
    SolveStatistics
    solve(DealiiVector &solution, const DealiiVector &rhs, ::dealii::SolverControl &control) const;

    /**
     * @p dst = V @p src, one V-cycle, collectively (what
     * MultigridPreconditioner::vmult does on several ranks): @p src a residual in
     * deal.II's numbering, @p dst the correction, zero on the Dirichlet
     * DoFs and on a locally refined mesh on the hanging DoFs (the
     * correction of deal.II's constrained system) (locally owned entries written; ghosts updated if @p dst is in
     * the ghosted state, else zero, as an outer solver's vectors are).
     */
    void
    precondition(DealiiVector &dst, const DealiiVector &src) const;

    /// The load vector of @p f on deal.II's DoFs, collectively
    /// (MultigridPreconditioner::assemble_right_hand_side): each rank
    /// integrates over its own cells, deal.II's compress adds the shared
    /// DoFs; zero on the Dirichlet DoFs. @p rhs: deal.II's locally owned
    /// DoFs, any ghost layout (ghosts updated if it has any).
    void
    assemble_right_hand_side(const ScalarFunction &f, DealiiVector &rhs, unsigned int n_q_points) const;

    /// The distributed solver (its local levels, its exchange counts).
    const DistributedMultigridSolver &
    solver() const
    {
      return *solver_;
    }
    /// deal.II's partition as a box partition.
    const DealiiBoxPartition &
    box_partition() const
    {
      return *box_partition_;
    }

  private:
    /// Serializes the solves of threads that share this object (base/work_space_lock.h).
    WorkSpaceLock work_space_lock_;
    /// The owned cells of the outer level into a distributed cell vector:
    /// (@p balanced) every copy of DoF j gets v_j / valence_j, else v_j.
    void
    scatter(const DealiiVector &v, DistributedMultigridSolver::VectorType &cells, bool balanced) const;
    /// The locally owned entries of @p v from the owned outer-level cells
    /// of @p cells (whose copies agree); ghosts zero, or updated where
    /// @p update_ghosts (the same on every rank: collective).
    void
    write_owned(const DistributedMultigridSolver::VectorType &cells, DealiiVector &v, bool update_ghosts) const;
    /// Refuses, on every rank, a DoFHandler destroyed or redistributed since
    /// the set-up.
    void
    check_dofs_unchanged(const char *who) const;

    LiveDoFHandler                                          dof_handler_;
    MPI_Comm                                                comm_;
    MultigridParameters                                     parameters_;
    std::unique_ptr<const DealiiBoxPartition>   box_partition_;
    std::unique_ptr<DistributedMultigridSolver> solver_;
    /// Per owned cell of the outer level (local index k; the finest level,
    /// or the active mesh): deal.II's DoF indices of the rank's active
    /// cell, lexicographic, at k (p+1)^3 + i.
    std::vector<dof_index> outer_indices_;
    /// The number of copies of each DoF of the owned cells over all ranks'
    /// active cells, counted by deal.II's index, as a cell vector.
    DistributedMultigridSolver::VectorType valence_;
    /// On a locally refined mesh: the locally owned hanging DoFs.
    std::vector<dof_index> hanging_dofs_;
    /// deal.II's locally owned, locally relevant and Dirichlet DoFs.
    ::dealii::IndexSet locally_owned_, locally_relevant_, dirichlet_dofs_;
    /// deal.II's DoF count at the set-up (a redistribution is refused).
    dof_index n_dofs_ = 0;
  };
} // namespace cellwise::dealii::internal
