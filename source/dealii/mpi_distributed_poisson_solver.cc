// The front door's implementation on several ranks (mpi_distributed_poisson_solver.h).

#include <cellwise/base/mpi_check.h>
#include <cellwise/dealii/import.h>
#include <cellwise/dealii/mpi_box_partition.h>
#include <cellwise/mesh/partition.h>
#include <cellwise/mesh/partitioned_hierarchy.h>
#include <cellwise/multigrid/adaptive_v_cycle.h>
#include <cellwise/operators/function_tools.h>

#include <deal.II/base/mpi.h>
#include <deal.II/distributed/tria.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/component_mask.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_tools.h>
#include <deal.II/grid/grid_tools.h>
#include <deal.II/grid/tria.h>
#include <deal.II/lac/affine_constraints.h>
#include <deal.II/lac/la_parallel_vector.h>

#include "mpi_distributed_poisson_solver.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <sstream>

namespace cellwise::dealii::internal
{
  namespace
  {
    using DistributedTria = ::dealii::parallel::distributed::Triangulation<3, 3>;
  } // namespace

  DistributedPoissonSolver::DistributedPoissonSolver(const ::dealii::DoFHandler<3, 3> &dof_handler,
                                                     const MultigridParameters        &parameters,
                                                     std::ostream                     *log)
    : dof_handler_(dof_handler, "cellwise::dealii::MultigridPreconditioner", "preconditioner")
    , comm_(dof_handler.get_triangulation().get_communicator())
    , parameters_(parameters)
  {
    const auto &tria = dof_handler.get_triangulation();
    const int   rank        = mpi_rank(comm_);
    const auto *distributed = dynamic_cast<const DistributedTria *>(&tria);
    check_collectively(comm_, distributed != nullptr,
                       "cellwise::dealii::MultigridPreconditioner takes, on several ranks, a DoFHandler on a "
                       "parallel::distributed::Triangulation<3> (on one rank, also a serial Triangulation)");
    check_collectively(comm_,
                       distributed->is_multilevel_hierarchy_constructed() && dof_handler.has_active_dofs() &&
                         dynamic_cast<const ::dealii::FE_Q<3, 3> *>(&dof_handler.get_fe()) != nullptr,
                       "cellwise::dealii::MultigridPreconditioner needs FE_Q<3>(p), a triangulation built with "
                       "construct_multigrid_hierarchy and dof_handler.distribute_dofs(fe)");
    std::string fe_problem;
    try
      {
        check_fe(dof_handler);
      }
    catch (const Error &e)
      {
        fe_problem = e.what();
      }
    check_collectively(comm_, fe_problem.empty(), "cellwise::dealii::MultigridPreconditioner: " + fe_problem);

    // deal.II's partition as a box partition: each rank builds its own
    // cells and their ghosts, none the whole hierarchy (a locally refined
    // mesh: the hierarchy replicated on every rank, deal.II's owners)
    box_partition_ = std::make_unique<const DealiiBoxPartition>(*distributed);
    check_collectively(comm_, box_partition_->taken(),
                       "cellwise::dealii::MultigridPreconditioner: " + box_partition_->why_not() +
                         "; on several ranks it takes lattices of equal boxes (subdivided_hyper_rectangle, hyper_cube, "
                         "hyper_L and the like) with flat manifolds, globally or locally refined");
    // (named in deal.II's boundary ids, before the solver names the box's)
    if (parameters.smoother == SmootherType::patch)
      {
        const std::string patch = patch_smoother_refusal(box_partition_->neumann_ids(parameters.dirichlet_ids));
        check_collectively(comm_, patch.empty(), "cellwise::dealii::MultigridPreconditioner: " + patch);
      }
    // deal.II's Dirichlet ids as the box's face ids (the same on every rank:
    // from the coarse mesh)
    MultigridParameters box_parameters = parameters;
    box_parameters.dirichlet_ids       = box_partition_->box_dirichlet_ids(parameters.dirichlet_ids);
    if (log && rank == 0)
      *log << "  partition: deal.II's (p4est's), "
           << (box_partition_->locally_refined() ? "the locally refined hierarchy on every rank" : "each rank its own cells")
           << std::endl;
    solver_ = std::make_unique<DistributedMultigridSolver>(box_partition_->hierarchy(), dof_handler.get_fe().degree,
                                                           box_parameters, comm_, rank == 0 ? log : nullptr);

    // deal.II's DoF indices of the owned cells of the outer level (the
    // finest level, or the active mesh of a locally refined one),
    // lexicographic
    const LocalLevel               &outer  = *solver_->outer_level()->local;
    const ActiveMesh               *active = solver_->active_mesh();
    const unsigned int              degree = dof_handler.get_fe().degree;
    const unsigned int              n3     = dof_handler.get_fe().n_dofs_per_cell();
    const std::vector<unsigned int> lex    = ::dealii::FETools::lexicographic_to_hierarchic_numbering<3>(degree);
    outer_indices_.assign(std::size_t(outer.n_owned_cells()) * n3, ::dealii::numbers::invalid_dof_index);
    std::vector<::dealii::types::global_dof_index> dofs(n3);
    bool                                           covered = true;
    for (const auto &cell : dof_handler.active_cell_iterators())
      if (cell->is_locally_owned())
        {
          long c = box_partition_->serial_index(*cell);
          if (active && c >= 0) // its index among the active cells
            c = active->active_index.at(cell->level()).at(c);
          const long k = c < 0 ? -1 : local_index_of(outer, static_cast<std::uint64_t>(c), true);
          if (k < 0)
            {
              covered = false;
              continue;
            }
          cell->get_dof_indices(dofs);
          for (unsigned int i = 0; i < n3; ++i)
            outer_indices_[std::size_t(k) * n3 + i] = dofs[lex[i]];
        }
    covered = covered && std::count(outer_indices_.begin(), outer_indices_.end(), ::dealii::numbers::invalid_dof_index) == 0;
    check_collectively(comm_, covered,
                       "cellwise::dealii::MultigridPreconditioner: the active cells a rank owns are not the active cells "
                       "of its level subdomains");

    locally_owned_    = dof_handler.locally_owned_dofs();
    locally_relevant_ = ::dealii::DoFTools::extract_locally_relevant_dofs(dof_handler);

    // the copies of each DoF over all ranks' active cells, counted by
    // deal.II's index (a hanging DoF has its own, on the fine cells only)
    {
      DealiiVector count(locally_owned_, locally_relevant_, comm_);
      for (const dof_index j : outer_indices_)
        count(j) += 1.;
      count.compress(::dealii::VectorOperation::add);
      count.update_ghost_values();
      valence_ = solver_->vector();
      for (unsigned int k = 0; k < valence_.n_owned_cells(); ++k)
        for (unsigned int i = 0; i < n3; ++i)
          valence_.local()(k, i) = count(outer_indices_[std::size_t(k) * n3 + i]);
    }
    // a locally refined mesh: the hanging DoFs, which a correction for a
    // constrained outer system must leave zero
    if (box_partition_->locally_refined())
      {
        ::dealii::AffineConstraints<double> hanging(locally_relevant_);
        ::dealii::DoFTools::make_hanging_node_constraints(dof_handler, hanging);
        hanging.close();
        for (const auto &line : hanging.get_lines())
          if (locally_owned_.is_element(line.index))
            hanging_dofs_.push_back(line.index);
      }
    std::set<::dealii::types::boundary_id> ids(parameters.dirichlet_ids.begin(), parameters.dirichlet_ids.end());
    dirichlet_dofs_ = ::dealii::DoFTools::extract_boundary_dofs(dof_handler, ::dealii::ComponentMask(), ids);
    n_dofs_         = dof_handler.n_dofs();
  }

  void
  DistributedPoissonSolver::scatter(const DealiiVector &v, DistributedMultigridSolver::VectorType &cells, const bool balanced) const
  {
    check_collectively(comm_, v.locally_owned_elements() == locally_owned_,
                       "cellwise::dealii::MultigridPreconditioner: a vector whose locally owned range is not the "
                       "DoFHandler's on this rank");
    DealiiVector ghosted(locally_owned_, locally_relevant_, comm_);
    ghosted.copy_locally_owned_data_from(v);
    ghosted.update_ghost_values();
    cells                  = solver_->vector();
    const unsigned int n3  = cells.dofs_per_cell();
    const unsigned int own = cells.n_owned_cells();
    for (unsigned int k = 0; k < own; ++k)
      for (unsigned int i = 0; i < n3; ++i)
        {
          const double value   = ghosted(outer_indices_[std::size_t(k) * n3 + i]);
          cells.local()(k, i) = balanced ? value / valence_.local()(k, i) : value;
        }
  }

  void
  DistributedPoissonSolver::write_owned(const DistributedMultigridSolver::VectorType &cells, DealiiVector &v,
                                        const bool update_ghosts) const
  {
    // every locally owned DoF lies in an owned cell
    v.zero_out_ghost_values();
    const unsigned int n3 = cells.dofs_per_cell();
    for (unsigned int k = 0; k < cells.n_owned_cells(); ++k)
      for (unsigned int i = 0; i < n3; ++i)
        {
          const dof_index j = outer_indices_[std::size_t(k) * n3 + i];
          if (locally_owned_.is_element(j))
            v(j) = cells.local()(k, i);
        }
    if (update_ghosts) // (collective: the same on every rank)
      v.update_ghost_values();
  }

  void
  DistributedPoissonSolver::check_dofs_unchanged(const char *who) const
  {
    // collective: a rank whose DoFHandler is gone must not leave the others
    // waiting in the cycle
    check_collectively(comm_, dof_handler_.alive(), dof_handler_.destroyed_message());
    check_collectively(comm_, dof_handler_->n_dofs() == n_dofs_,
                       std::string(who) + ": the DoFHandler has " + std::to_string(dof_handler_->n_dofs()) +
                         " DoFs, at the set-up it had " + std::to_string(n_dofs_) +
                         ": build the preconditioner again after distribute_dofs");
  }

  void
  DistributedPoissonSolver::assemble_right_hand_side(const ScalarFunction &f, DealiiVector &rhs,
                                                     const unsigned int n_q_points) const
  {
    const auto lock = work_space_lock_.lock("cellwise::dealii::internal::DistributedPoissonSolver::assemble_right_hand_side");
    check_dofs_unchanged("cellwise::dealii::MultigridPreconditioner::assemble_right_hand_side");
    check_collectively(comm_, rhs.locally_owned_elements() == locally_owned_,
                       "cellwise::dealii::MultigridPreconditioner::assemble_right_hand_side: a vector whose locally owned "
                       "range is not the DoFHandler's on this rank");
    // the integrals of the rank's own cells (its ghost cells are another
    // rank's own), summed into its DoFs and the ghosts, which compress adds
    // to their owners
    const LocalLevel  &outer = *solver_->outer_level()->local;
    CellVector<double> cells;
    ::cellwise::assemble_right_hand_side(outer.level, dof_handler_->get_fe().degree, f, cells, n_q_points);
    DealiiVector       sum(locally_owned_, locally_relevant_, comm_);
    const unsigned int n3 = cells.dofs_per_cell();
    for (unsigned int k = 0; k < outer.n_owned_cells(); ++k)
      for (unsigned int i = 0; i < n3; ++i)
        sum(outer_indices_[std::size_t(k) * n3 + i]) += cells(k, i);
    sum.compress(::dealii::VectorOperation::add);
    for (const auto j : dirichlet_dofs_)
      if (locally_owned_.is_element(j))
        sum(j) = 0.;
    const bool ghosted = rhs.has_ghost_elements() || rhs.get_partitioner()->n_ghost_indices() > 0;
    rhs.zero_out_ghost_values();
    rhs.copy_locally_owned_data_from(sum);
    if (::dealii::Utilities::MPI::max(int(ghosted), comm_) > 0) // (collective: the same on every rank)
      rhs.update_ghost_values();
  }

  void
  DistributedPoissonSolver::precondition(DealiiVector &dst, const DealiiVector &src) const
  {
    const auto lock = work_space_lock_.lock("cellwise::dealii::internal::DistributedPoissonSolver::precondition");
    CELLWISE_CHECK(&dst != &src, "cellwise::dealii::MultigridPreconditioner::vmult: dst and src must be different vectors");
    check_dofs_unchanged("cellwise::dealii::MultigridPreconditioner::vmult");
    DistributedMultigridSolver::VectorType r, z;
    scatter(src, r, true);
    solver_->precondition(z, r);
    // the copies of a DoF agree up to the rounding of the cycle's last
    // steps: their mean, as the serial preconditioner takes it
    solver_->outer_level()->dss.apply(z.local(), DssMode::mean);
    // ghosts updated only where dst was in the ghosted state (an outer
    // solver's vectors are not; a rank's ghost count is no collective
    // decision: ranks without ghosts would leave the others waiting)
    const bool ghosted = dst.has_ghost_elements();
    write_owned(z, dst, false);
    // the correction of a constrained system (deal.II's condensed matrix,
    // or its operator with constraints.set_zero): zero on the hanging DoFs,
    // which the cycle's conforming correction interpolates
    for (const dof_index j : hanging_dofs_)
      dst(j) = 0.;
    if (ghosted)
      dst.update_ghost_values();
  }

  SolveStatistics
  DistributedPoissonSolver::solve(DealiiVector &solution, const DealiiVector &rhs, ::dealii::SolverControl &control) const
  {
    const auto lock = work_space_lock_.lock("cellwise::dealii::internal::DistributedPoissonSolver::solve");
    CELLWISE_CHECK(&solution != &rhs, "cellwise::dealii::MultigridPreconditioner::solve: the solution and the right-hand "
                                      "side must be different vectors");
    check_dofs_unchanged("cellwise::dealii::MultigridPreconditioner::solve");
    DistributedMultigridSolver::VectorType b, u;
    scatter(rhs, b, true);
    scatter(solution, u, false);

    // ‖b − A u₀‖₂ in deal.II's numbering without the Dirichlet entries
    DealiiVector r(locally_owned_, locally_relevant_, comm_);
    r.copy_locally_owned_data_from(rhs);
    if (solution.linfty_norm() != 0.)
      {
        DistributedMultigridSolver::VectorType au = solver_->vector();
        solver_->outer_operator().vmult(au, u);
        const unsigned int n3 = au.dofs_per_cell();
        for (unsigned int k = 0; k < au.n_owned_cells(); ++k)
          for (unsigned int i = 0; i < n3; ++i)
            r(outer_indices_[std::size_t(k) * n3 + i]) -= au.local()(k, i);
        r.compress(::dealii::VectorOperation::add);
      }
    for (const auto j : dirichlet_dofs_)
      if (locally_owned_.is_element(j))
        r(j) = 0.;
    const double r0 = r.l2_norm();

    const SolveStatistics statistics =
      internal::forward_solve([&](IterationControl &forward) { return solver_->solve(u, b, forward); }, control, r0);

    // (the copies of the solution agree) a solution with a ghost layout
    // gets its ghosts, collectively: on every rank if on any
    const bool ghosted = solution.has_ghost_elements() || solution.get_partitioner()->n_ghost_indices() > 0;
    write_owned(u, solution, ::dealii::Utilities::MPI::max(int(ghosted), comm_) > 0);
    return statistics;
  }
} // namespace cellwise::dealii::internal
