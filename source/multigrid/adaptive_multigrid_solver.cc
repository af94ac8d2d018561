#include <cellwise/base/config.h>
#include <cellwise/multigrid/adaptive_multigrid_solver.h>
#include <cellwise/multigrid/capabilities.h>
#include <cellwise/multigrid/cell_transfer.h>
#include <cellwise/multigrid/coarse_solvers.h>
#include <cellwise/multigrid/level_smoothers.h>
#include <cellwise/multigrid/outer_solvers.h>
#include <cellwise/multigrid/refinement_edge.h>
#include <cellwise/operators/function_tools.h>
#include <cellwise/storage/dirichlet_mask.h>

#include <chrono>
#include <iomanip>
#include <ostream>

namespace cellwise
{
  namespace
  {
    using V = CellVector<double>;
  } // namespace

  AdaptiveMultigridSolver::AdaptiveMultigridSolver(const LevelHierarchy      &hierarchy,
                                                   const unsigned int         degree,
                                                   const MultigridParameters &parameters,
                                                   std::ostream              *log)
    : hierarchy_(hierarchy)
    , degree_(degree)
    , parameters_(parameters)
  {
    check_solver_set_up(hierarchy, degree, parameters);
    // Curved cells and unstructured coarse meshes need nothing of their own
    // here: the active operator is cell-local (the active mesh keeps each
    // cell's mapping), and every DSS happens on the levels, whose smoothers
    // hold their skeletons.
    check_no_pure_neumann(parameters, "cellwise::AdaptiveMultigridSolver");
    Configuration configuration = configuration_of(hierarchy, parameters);
    configuration.backend       = Backend::host;
    check_supported(configuration, "cellwise::AdaptiveMultigridSolver");
    const auto start = std::chrono::steady_clock::now();

    mesh_            = make_active_mesh(hierarchy);
    active_operator_ =
      std::make_shared<LaplaceOperator<double>>(mesh_.level, degree, parameters.coefficient, parameters.coefficient_evaluation);
    // Dirichlet copies of the active cells: those of their level's mask (a
    // Dirichlet DoF lies on a boundary face of every box cell touching it).
    active_mask_.reinit(mesh_.n_active_cells(), degree);

    AdaptiveVCycle<double>::Components components;
    for (unsigned int l = 0; l < hierarchy.n_levels(); ++l)
      {
        const Level &level     = hierarchy.level(l);
        const V      dirichlet = make_dirichlet_mask<double>(level, degree, parameters.dirichlet_ids);
        free_masks_.push_back(make_free_mask<double>(level, degree, parameters.dirichlet_ids));
        for (unsigned int j = 0; j < mesh_.active_cells[l].size(); ++j)
          for (unsigned int i = 0; i < dirichlet.dofs_per_cell(); ++i)
            active_mask_(mesh_.level_offset[l] + j, i) = dirichlet(mesh_.active_cells[l][j], i);

        const auto op = std::make_shared<LaplaceOperator<double>>(level, degree, parameters.coefficient, parameters.coefficient_evaluation);
        components.operators.push_back(op);
        components.level_shapes.push_back(V(level.n_cells(), degree));
        if (l == 0)
          {
            CELLWISE_CHECK(!has_refinement_edge(level), "level 0 must cover the domain");
            components.smoothers.push_back(nullptr);
            if (coarse_solver_for(parameters, level, degree) == CoarseSolverType::cholesky)
              components.coarse_solver = std::make_shared<CholeskyCoarseSolver<double>>(level, *op, dirichlet);
            else
              components.coarse_solver =
                make_smoother_coarse_solver<V>(parameters, coarse_solver_for(parameters, level, degree), op,
                                               make_level_smoother(level, *op, dirichlet, parameters), dirichlet,
                                               parameters.coarse_smoother_applications);
          }
        else
          components.smoothers.push_back(make_level_smoother(level, *op, free_masks_.back(), parameters));
        if (log)
          *log << "  level " << std::setw(2) << l << ": " << std::setw(10) << level.n_cells() << " cells, " << std::setw(10)
               << mesh_.active_cells[l].size() << " active, "
               << (l == 0 ? describe_coarse_solver(parameters, level, degree) : "smoother " + to_string(parameters.smoother))
               << std::endl;
      }
    if (hierarchy.n_levels() > 1)
      components.transfer = std::make_shared<CellTransfer<double>>(hierarchy, degree);

    const VCycleParameters cycle = parameters.cycle_parameters();
    cycle_               = std::make_shared<AdaptiveVCycle<double>>(mesh_, std::move(components), cycle);
    if (log)
      *log << "  adaptive set-up of " << hierarchy.n_levels() << " levels, " << mesh_.n_active_cells() << " active cells: "
           << std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() << " s" << std::endl;
  }

  SolveStatistics
  AdaptiveMultigridSolver::solve(VectorType &u, const VectorType &b, IterationControl &control) const
  {
    // FP64 only (checked at set-up): solve_outer never rebalances, so the
    // averaging DSS it would take is never called. The same checks of u and
    // b as the uniform solvers (shape, aliasing, non-finite values).
    return solve_outer(parameters_, *active_operator_, n_active_cells(), degree_, *cycle_, u, b, active_mask_, control,
                       [](VectorType &) { CELLWISE_CHECK(false, "the adaptive solver does not rebalance: it runs in FP64 only"); },
                       &work_);
  }

  void
  AdaptiveMultigridSolver::assemble_right_hand_side(const ScalarFunction &f, VectorType &b, const unsigned int n_q_points) const
  {
    ::cellwise::assemble_right_hand_side(mesh_.level, degree_, f, b, n_q_points);
  }

  void
  AdaptiveMultigridSolver::interpolate(const ScalarFunction &f, VectorType &u) const
  {
    ::cellwise::interpolate(mesh_.level, degree_, f, u);
  }

  double
  AdaptiveMultigridSolver::compute_l2_error(const VectorType &u, const ScalarFunction &exact, const unsigned int n_q_points) const
  {
    return ::cellwise::compute_l2_error(mesh_.level, u, exact, true, n_q_points);
  }
} // namespace cellwise
