// The front door's implementations on one rank (poisson_solvers.h).

#include <cellwise/dealii/vector_transfer.h>

#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/component_mask.h>
#include <deal.II/fe/mapping_q1.h>
#include <deal.II/lac/la_parallel_vector.h>
#include <deal.II/lac/solver_control.h>

#include "poisson_solvers.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <set>

namespace cellwise::dealii::internal
{
  namespace
  {
    /// ‖b − A u‖₂ in deal.II's numbering without the Dirichlet entries: the
    /// value deal.II's solvers report at step 0. From a zero guess the
    /// right-hand side itself (without a copy where its Dirichlet entries
    /// are zero, as after AffineConstraints::distribute_local_to_global: at
    /// 17 M DoFs the copy cost more than a device solve's transfers);
    /// otherwise G^T A G u (A the FP64 operator @p make_operator builds on
    /// the host) subtracted.
    double
    initial_residual_l2(const DealiiVector                                         &rhs,
                        const DealiiVector                                         &guess,
                        const bool                                                  zero_guess,
                        const DofMap                                               &map,
                        const ::dealii::IndexSet                                   &dirichlet_dofs,
                        const std::function<const LaplaceOperator<double> &()>     &make_operator)
    {
      if (zero_guess && std::all_of(dirichlet_dofs.begin(), dirichlet_dofs.end(),
                                    [&rhs](const ::dealii::types::global_dof_index j) { return rhs(j) == 0.; }))
        return rhs.l2_norm();
      DealiiVector r(rhs);
      if (!zero_guess)
        {
          CellVector<double> u, au;
          gather(map, guess, u);
          make_operator().vmult(au, u);
          au.scale(-1.);
          gather_transpose_add(map, au, r);
        }
      for (const auto j : dirichlet_dofs)
        r(j) = 0.;
      return r.l2_norm();
    }

    double
    seconds_since(const std::chrono::steady_clock::time_point start)
    {
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    }

    /// deal.II's DoFs on the Dirichlet faces of @p parameters (every
    /// boundary face if no ids; none for the pure Neumann problem), from the
    /// imported mesh: extract_boundary_dofs's set (dirichlet_dofs, tested
    /// against it in dealii/import_operator) without its single-threaded loop.
    /// Its time goes to @p log.
    ::dealii::IndexSet
    dirichlet_dofs_of(const ImportedHierarchy &imported, const MultigridParameters &parameters, std::ostream *log)
    {
      const auto         start = std::chrono::steady_clock::now();
      ::dealii::IndexSet set(imported.active_dofs.back().n_dofs);
      if (!parameters.pure_neumann)
        {
          const std::vector<dof_index> dofs = dirichlet_dofs(imported, parameters.dirichlet_ids);
          set.add_indices(dofs.begin(), dofs.end());
        }
      if (log)
        *log << "  deal.II's Dirichlet DoFs (host): " << seconds_since(start) << " s" << std::endl;
      return set;
    }

    /// The host FP64 operator of @p level with the coefficient of @p parameters.
    std::unique_ptr<LaplaceOperator<double>>
    make_host_operator(const Level &level, const unsigned int degree, const MultigridParameters &parameters)
    {
      return std::make_unique<LaplaceOperator<double>>(level, degree, parameters.coefficient, parameters.coefficient_evaluation);
    }


    /// import_dof_handler, its time written to @p log.
    ImportedHierarchy
    logged_import(const ::dealii::Mapping<3, 3> &mapping, const ::dealii::DoFHandler<3, 3> &dof_handler, std::ostream *log)
    {
      const auto        start    = std::chrono::steady_clock::now();
      ImportedHierarchy imported = import_dof_handler(mapping, dof_handler);
      if (log)
        *log << "  import of the DoFHandler (host): " << seconds_since(start) << " s, " << imported.hierarchy.levels.size()
             << " levels" << std::endl;
      return imported;
    }

    /// @p solver on deal.II's vectors of @p map, its set-up time written to @p log.
    std::unique_ptr<NumberedVectorSolver>
    logged_numbered(const HostVectorSolver &solver, const DofMap &map, std::ostream *log)
    {
      const auto start    = std::chrono::steady_clock::now();
      auto       numbered = solver.numbered(to_dof_numbering(map, "cellwise::dealii::MultigridPreconditioner"));
      if (log)
        *log << "  deal.II's numbering for the solve's vectors (" << to_string(solver.backend())
             << "): " << seconds_since(start) << " s" << std::endl;
      return numbered;
    }
  } // namespace

  MultigridPoissonSolver::MultigridPoissonSolver(const ::dealii::DoFHandler<3, 3> &dof_handler,
                                                 const MultigridParameters        &parameters,
                                                 std::ostream                     *log)
    : MultigridPoissonSolver(::dealii::StaticMappingQ1<3, 3>::mapping, dof_handler, parameters, log)
  {}

  MultigridPoissonSolver::MultigridPoissonSolver(const ::dealii::Mapping<3, 3>    &mapping,
                                                 const ::dealii::DoFHandler<3, 3> &dof_handler,
                                                 const MultigridParameters        &parameters,
                                                 std::ostream                     *log)
    : dof_handler_(dof_handler, "cellwise::dealii::MultigridPreconditioner", "preconditioner")
    , imported_(logged_import(mapping, dof_handler, log))
    , parameters_(parameters)
  {
    // MultigridSolver works on the finest level: every active cell must be
    // there (locally refined meshes go to AdaptivePoissonSolver).
    const LevelHierarchy &h = imported_.hierarchy;
    CELLWISE_CHECK(h.n_active_cells() == h.level(h.max_level()).n_cells(),
                   "cellwise::dealii::internal::MultigridPoissonSolver: the mesh is locally refined ("
                     << h.n_active_cells() << " active cells, " << h.level(h.max_level()).n_cells()
                     << " on the finest level); this solver takes globally refined meshes, "
                        "internal::AdaptivePoissonSolver takes locally refined ones");
    solver_ = make_host_vector_solver(h, imported_.degree, parameters, log);
    numbered_ = logged_numbered(*solver_, imported_.active_dofs.back(), log);
    dirichlet_dofs_ = dirichlet_dofs_of(imported_, parameters, log);
  }

  SolveStatistics
  MultigridPoissonSolver::solve(DealiiVector &solution, const DealiiVector &rhs, ::dealii::SolverControl &control) const
  {
    const auto lock = work_space_lock_.lock("cellwise::dealii::internal::MultigridPoissonSolver::solve");
    CELLWISE_CHECK(&solution != &rhs, "cellwise::dealii::MultigridPreconditioner::solve: the solution and the right-hand "
                                      "side must be different vectors");
    check_numbering_unchanged(imported_, *dof_handler_, "cellwise::dealii::MultigridPreconditioner::solve");
    const DofMap &map = imported_.active_dofs.back();
    check_whole_vector(rhs, map.n_dofs, "cellwise::dealii::MultigridPreconditioner::solve (the right-hand side)");
    check_whole_vector(solution, map.n_dofs, "cellwise::dealii::MultigridPreconditioner::solve (the solution)");
    const bool   zero_guess = solution.linfty_norm() == 0.;
    const double r0 =
      initial_residual_l2(rhs, solution, zero_guess, map, dirichlet_dofs_, [&]() -> const LaplaceOperator<double> & {
        if (!host_operator_)
          host_operator_ = make_host_operator(imported_.hierarchy.levels.back(), imported_.degree, parameters_);
        return *host_operator_;
      });
    // b and u as deal.II's vectors: on cuda they cross the bus once each
    // and become cell vectors on the device (NumberedVectorSolver)
    return forward_solve(
      [&](IterationControl &forward) { return numbered_->solve(solution.begin(), rhs.begin(), zero_guess, forward); },
      control, r0);
  }

  AdaptivePoissonSolver::AdaptivePoissonSolver(const ::dealii::DoFHandler<3, 3> &dof_handler,
                                               const MultigridParameters        &parameters,
                                               std::ostream                     *log)
    : AdaptivePoissonSolver(::dealii::StaticMappingQ1<3, 3>::mapping, dof_handler, parameters, log)
  {}

  AdaptivePoissonSolver::AdaptivePoissonSolver(const ::dealii::Mapping<3, 3>    &mapping,
                                               const ::dealii::DoFHandler<3, 3> &dof_handler,
                                               const MultigridParameters        &parameters,
                                               std::ostream                     *log)
    : dof_handler_(dof_handler, "cellwise::dealii::MultigridPreconditioner", "preconditioner")
    , imported_(logged_import(mapping, dof_handler, log))
    , parameters_(parameters)
  {
    solver_         = make_adaptive_host_vector_solver(imported_.hierarchy, imported_.degree, parameters, log);
    active_map_     = make_active_mesh_map(imported_, solver_->active_mesh());
    numbered_       = logged_numbered(*solver_, active_map_, log);
    dirichlet_dofs_ = dirichlet_dofs_of(imported_, parameters, log);
  }

  const LaplaceOperator<double> &
  AdaptivePoissonSolver::active_operator() const
  {
    if (!host_operator_)
      host_operator_ = make_host_operator(solver_->active_mesh().level, imported_.degree, parameters_);
    return *host_operator_;
  }

  SolveStatistics
  AdaptivePoissonSolver::solve(DealiiVector &solution, const DealiiVector &rhs, ::dealii::SolverControl &control) const
  {
    const auto lock = work_space_lock_.lock("cellwise::dealii::internal::AdaptivePoissonSolver::solve");
    CELLWISE_CHECK(&solution != &rhs, "cellwise::dealii::MultigridPreconditioner::solve: the solution and the right-hand "
                                      "side must be different vectors");
    check_numbering_unchanged(imported_, *dof_handler_, "cellwise::dealii::MultigridPreconditioner::solve");
    check_whole_vector(rhs, active_map_.n_dofs, "cellwise::dealii::MultigridPreconditioner::solve (the right-hand side)");
    check_whole_vector(solution, active_map_.n_dofs, "cellwise::dealii::MultigridPreconditioner::solve (the solution)");
    const bool   zero_guess = solution.linfty_norm() == 0.;
    const double r0 =
      initial_residual_l2(rhs, solution, zero_guess, active_map_, dirichlet_dofs_,
                          [&]() -> const LaplaceOperator<double> & { return active_operator(); });
    // b scattered balanced: G^T b = rhs; the hanging copies of a plain load
    // vector are routed to the masters by the cycle (C^T), those of a
    // condensed one are 0. The initial guess satisfies the constraints: G of
    // it is conforming. On exit every DoF, hanging ones included, from its
    // first copy: the copies agree (conforming solution).
    return forward_solve(
      [&](IterationControl &forward) { return numbered_->solve(solution.begin(), rhs.begin(), zero_guess, forward); },
      control, r0);
  }
} // namespace cellwise::dealii::internal
