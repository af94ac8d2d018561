#include <cellwise/base/mpi_check.h>
#include <cellwise/dealii/import.h>
#include <cellwise/dealii/mpi_distributed_poisson_solver.h>
#include <cellwise/mesh/partition.h>

#include <deal.II/distributed/tria.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/component_mask.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_tools.h>
#include <deal.II/grid/grid_tools.h>
#include <deal.II/grid/tria.h>
#include <deal.II/lac/la_parallel_vector.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <map>
#include <memory>
#include <set>
#include <sstream>

namespace cellwise::dealii
{
  namespace
  {
    using DistributedTria = ::dealii::parallel::distributed::Triangulation<3, 3>;

    /// Level cells by their centres: a key of the centre rounded to a
    /// quarter of the level's smallest cell size, from the domain's lower
    /// corner (centres of a lattice are then integers of that unit).
    class CentreLookup
    {
    public:
      CentreLookup(const Level &level, const std::array<double, 3> &lower)
        : lower_(lower)
      {
        unit_ = std::numeric_limits<double>::max();
        for (unsigned int c = 0; c < level.n_cells(); ++c)
          for (unsigned int d = 0; d < 3; ++d)
            unit_ = std::min(unit_, 0.25 * level.boxes[c].size[d]);
        for (unsigned int c = 0; c < level.n_cells(); ++c)
          {
            std::array<double, 3> centre;
            for (unsigned int d = 0; d < 3; ++d)
              centre[d] = level.boxes[c].lower[d] + 0.5 * level.boxes[c].size[d];
            cells_.emplace(key(centre), c);
          }
      }
      /// The level cell at @p centre, or −1.
      long
      find(const ::dealii::Point<3> &centre) const
      {
        const auto found = cells_.find(key({{centre[0], centre[1], centre[2]}}));
        return found == cells_.end() ? -1 : long(found->second);
      }

    private:
      std::array<long long, 3>
      key(const std::array<double, 3> &centre) const
      {
        return {{std::llround((centre[0] - lower_[0]) / unit_), std::llround((centre[1] - lower_[1]) / unit_),
                 std::llround((centre[2] - lower_[2]) / unit_)}};
      }

      std::array<double, 3>                           lower_;
      double                                          unit_ = 1.;
      std::map<std::array<long long, 3>, unsigned int> cells_;
    };

    /// The serial hierarchy of @p tria's coarse mesh refined as @p tria is
    /// (globally, n_global_levels − 1 times), imported with @p fe; its
    /// serial DoF maps are dropped (the ranks use deal.II's distributed
    /// numbering).
    ImportedHierarchy
    import_serial_copy(const DistributedTria &tria, const ::dealii::FiniteElement<3, 3> &fe)
    {
      ::dealii::Triangulation<3> serial(::dealii::Triangulation<3>::limit_level_difference_at_vertices);
      const auto [vertices, cells, subcells] = ::dealii::GridTools::get_coarse_mesh_description(tria);
      serial.create_triangulation(vertices, cells, subcells);
      serial.refine_global(tria.n_global_levels() - 1);
      ::dealii::DoFHandler<3> dof_handler(serial);
      dof_handler.distribute_dofs(fe);
      dof_handler.distribute_mg_dofs();
      ImportedHierarchy imported = import_dof_handler(dof_handler);
      imported.level_dofs.clear();
      imported.active_dofs.clear();
      return imported;
    }
  } // namespace

  DistributedPoissonSolver::DistributedPoissonSolver(const ::dealii::DoFHandler<3, 3> &dof_handler,
                                                     const MultigridParameters        &parameters,
                                                     std::ostream                     *log)
    : dof_handler_(&dof_handler, "cellwise::dealii::DistributedPoissonSolver")
    , comm_(dof_handler.get_triangulation().get_communicator())
    , parameters_(parameters)
  {
    const auto &tria = dof_handler.get_triangulation();
    const int   rank = mpi_rank(comm_), size = mpi_size(comm_);
    const auto *distributed = dynamic_cast<const DistributedTria *>(&tria);
    check_collectively(comm_, distributed != nullptr,
                       "cellwise::dealii::DistributedPoissonSolver takes a DoFHandler on a "
                       "parallel::distributed::Triangulation<3> (on a serial Triangulation use MultigridPoissonSolver)");
    check_collectively(comm_,
                       distributed->is_multilevel_hierarchy_constructed() && dof_handler.has_level_dofs() &&
                         dynamic_cast<const ::dealii::FE_Q<3, 3> *>(&dof_handler.get_fe()) != nullptr,
                       "cellwise::dealii::DistributedPoissonSolver needs FE_Q<3>(p), a triangulation built with "
                       "construct_multigrid_hierarchy and dof_handler.distribute_mg_dofs()");
    const unsigned int finest   = tria.n_global_levels() - 1;
    const double       expected = double(tria.n_cells(0)) * std::pow(8., finest);
    check_collectively(comm_, double(tria.n_global_active_cells()) == expected,
                       "cellwise::dealii::DistributedPoissonSolver: the mesh is locally refined (" +
                         std::to_string(tria.n_global_active_cells()) + " active cells, " + std::to_string(tria.n_cells(0)) +
                         " coarse cells refined " + std::to_string(finest) +
                         " times); on several ranks it takes globally refined meshes yet");

    // every rank: the serial hierarchy of the same coarse mesh (what the
    // import refuses, every rank refuses alike)
    std::string why;
    try
      {
        imported_ = import_serial_copy(*distributed, dof_handler.get_fe());
      }
    catch (const Error &e)
      {
        why = e.what();
      }
    check_collectively(comm_, why.empty(), "cellwise::dealii::DistributedPoissonSolver: " + why);
    const LevelHierarchy &h = imported_.hierarchy;
    check_collectively(comm_, !h.levels.back().has_skeleton() && h.levels.back().mapping.empty(),
                       "cellwise::dealii::DistributedPoissonSolver: the coarse mesh is not a lattice of boxes; on several "
                       "ranks it takes lattices yet (subdivided_hyper_rectangle and the like)");

    // the partition: deal.II's level subdomains, gathered
    owners_.resize(finest + 1);
    bool               found_all = true;
    std::ostringstream problem;
    // the finest level's lookup also finds the owned active cells below
    std::unique_ptr<const CentreLookup> finest_lookup;
    for (unsigned int l = 0; l <= finest && found_all; ++l)
      {
        auto                level_lookup = std::make_unique<const CentreLookup>(h.level(l), imported_.domain_lower);
        const CentreLookup &lookup       = *level_lookup;
        if (l == finest)
          finest_lookup = std::move(level_lookup);
        std::vector<unsigned int> mine;
        for (const auto &cell : tria.cell_iterators_on_level(l))
          if (cell->level_subdomain_id() == static_cast<::dealii::types::subdomain_id>(rank))
            {
              const long c = lookup.find(cell->center());
              if (c < 0)
                {
                  found_all = false;
                  problem << "cellwise::dealii::DistributedPoissonSolver: level cell " << cell->level() << "."
                          << cell->index() << " at " << cell->center()
                          << " is not a cell of the serial copy of the mesh (a curved boundary?)";
                  break;
                }
              mine.push_back(static_cast<unsigned int>(c));
            }
        if (!found_all)
          break;
        std::vector<int> counts(size), offsets(size + 1, 0);
        const int        count = static_cast<int>(mine.size());
        CELLWISE_MPI_CHECK(MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, comm_));
        for (int r = 0; r < size; ++r)
          offsets[r + 1] = offsets[r] + counts[r];
        std::vector<unsigned int> all(offsets[size]);
        CELLWISE_MPI_CHECK(MPI_Allgatherv(mine.data(), count, MPI_UNSIGNED, all.data(), counts.data(), offsets.data(),
                                          MPI_UNSIGNED, comm_));
        owners_[l].assign(h.level(l).n_cells(), -1);
        for (int r = 0; r < size; ++r)
          for (int k = offsets[r]; k < offsets[r + 1]; ++k)
            if (all[k] >= owners_[l].size() || owners_[l][all[k]] != -1)
              found_all = false;
            else
              owners_[l][all[k]] = r;
        found_all = found_all && std::count(owners_[l].begin(), owners_[l].end(), -1) == 0;
        if (!found_all)
          problem << "cellwise::dealii::DistributedPoissonSolver: deal.II's level subdomains of level " << l
                  << " do not give every cell of the serial copy exactly one owner";
      }
    check_collectively(comm_, found_all, problem.str());

    solver_ = std::make_unique<DistributedMultigridSolver>(h, imported_.degree, parameters, comm_, rank == 0 ? log : nullptr,
                                                           owners_);

    // deal.II's DoF indices of the owned finest cells, lexicographic
    const LocalLevel               &fine = solver_->local_level(finest);
    const std::vector<long>         local_index = owned_local_indices(fine, h.levels.back().n_cells());
    const unsigned int              n3 = dof_handler.get_fe().n_dofs_per_cell();
    const std::vector<unsigned int> lex = ::dealii::FETools::lexicographic_to_hierarchic_numbering<3>(imported_.degree);
    fine_indices_.assign(std::size_t(fine.n_owned_cells()) * n3, ::dealii::numbers::invalid_dof_index);
    const CentreLookup                          &lookup = *finest_lookup;
    std::vector<::dealii::types::global_dof_index> dofs(n3);
    bool                                         covered = true;
    for (const auto &cell : dof_handler.active_cell_iterators())
      if (cell->is_locally_owned())
        {
          const long c = lookup.find(cell->center());
          const long k = c < 0 ? -1 : local_index[c];
          if (k < 0)
            {
              covered = false;
              continue;
            }
          cell->get_dof_indices(dofs);
          for (unsigned int i = 0; i < n3; ++i)
            fine_indices_[std::size_t(k) * n3 + i] = dofs[lex[i]];
        }
    covered = covered && std::count(fine_indices_.begin(), fine_indices_.end(), ::dealii::numbers::invalid_dof_index) == 0;
    check_collectively(comm_, covered,
                       "cellwise::dealii::DistributedPoissonSolver: the active cells a rank owns are not the finest level "
                       "cells of its level subdomain");

    // the copies of each DoF over all ranks: DSS of ones
    valence_ = solver_->vector();
    valence_.fill(1.);
    solver_->outer_level()->dss.apply(valence_.local(), DssMode::sum);

    locally_owned_    = dof_handler.locally_owned_dofs();
    locally_relevant_ = ::dealii::DoFTools::extract_locally_relevant_dofs(dof_handler);
    std::set<::dealii::types::boundary_id> ids(parameters.dirichlet_ids.begin(), parameters.dirichlet_ids.end());
    dirichlet_dofs_ = ::dealii::DoFTools::extract_boundary_dofs(dof_handler, ::dealii::ComponentMask(), ids);
    n_dofs_         = dof_handler.n_dofs();
  }

  void
  DistributedPoissonSolver::scatter(const DealiiVector &v, DistributedMultigridSolver::VectorType &cells, const bool balanced) const
  {
    check_collectively(comm_, v.locally_owned_elements() == locally_owned_,
                       "cellwise::dealii::DistributedPoissonSolver::solve: a vector whose locally owned range is not the "
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
          const double value   = ghosted(fine_indices_[std::size_t(k) * n3 + i]);
          cells.local()(k, i) = balanced ? value / valence_.local()(k, i) : value;
        }
  }

  SolveStatistics
  DistributedPoissonSolver::solve(DealiiVector &solution, const DealiiVector &rhs, ::dealii::SolverControl &control) const
  {
    CELLWISE_CHECK(&solution != &rhs, "cellwise::dealii::DistributedPoissonSolver::solve: the solution and the right-hand "
                                      "side must be different vectors");
    check_collectively(comm_, dof_handler_->n_dofs() == n_dofs_,
                       "cellwise::dealii::DistributedPoissonSolver::solve: the DoFHandler has " +
                         std::to_string(dof_handler_->n_dofs()) + " DoFs, at the set-up it had " + std::to_string(n_dofs_) +
                         ": set the solver up again after distribute_dofs");
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
            r(fine_indices_[std::size_t(k) * n3 + i]) -= au.local()(k, i);
        r.compress(::dealii::VectorOperation::add);
      }
    for (const auto j : dirichlet_dofs_)
      if (locally_owned_.is_element(j))
        r(j) = 0.;
    const double r0 = r.l2_norm();

    const SolveStatistics statistics =
      internal::forward_solve([&](IterationControl &forward) { return solver_->solve(u, b, forward); }, control, r0);

    // every locally owned DoF lies in an owned cell; the copies agree
    solution.zero_out_ghost_values();
    const unsigned int n3 = u.dofs_per_cell();
    for (unsigned int k = 0; k < u.n_owned_cells(); ++k)
      for (unsigned int i = 0; i < n3; ++i)
        {
          const dof_index j = fine_indices_[std::size_t(k) * n3 + i];
          if (locally_owned_.is_element(j))
            solution(j) = u.local()(k, i);
        }
    if (solution.has_ghost_elements() || solution.get_partitioner()->n_ghost_indices() > 0)
      solution.update_ghost_values();
    return statistics;
  }
} // namespace cellwise::dealii
