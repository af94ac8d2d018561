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

#include "lagrange_levels.h"

#include <chrono>
#include <iomanip>
#include <ostream>
#include <sstream>
#include <utility>

namespace cellwise
{
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
    active_mask_     = internal::make_active_dirichlet_mask<double>(hierarchy, mesh_, degree, parameters.dirichlet_ids,
                                                                    lagrange_trace_layers(degree));

    CELLWISE_CHECK(!has_refinement_edge(hierarchy.level(0)), "level 0 must cover the domain");
    // the smoother works on the free copies (the refinement edge E_l zero,
    // 003 §5), the coarse solver on the Dirichlet mask of level 0
    internal::HostLagrangeParts<double> parts(hierarchy, degree, parameters);
    internal::LagrangeLevels            levels(hierarchy, degree, parameters, parts,
                                               internal::SmoothedCopies::all_but_dirichlet_and_refinement_edge, nullptr, &mesh_,
                                               &free_masks_);
    AdaptiveVCycle<double>::Components components = internal::assemble_levels(hierarchy, levels, log);
    const VCycleParameters cycle = parameters.cycle_parameters();
    cycle_               = std::make_shared<AdaptiveVCycle<double>>(mesh_, std::move(components), cycle);
    if (log)
      *log << "  adaptive set-up of " << hierarchy.n_levels() << " levels, " << mesh_.n_active_cells() << " active cells: "
           << std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() << " s" << std::endl;
  }

  SolveStatistics
  AdaptiveMultigridSolver::solve(VectorType &u, const VectorType &b, IterationControl &control) const
  {
    const auto lock = work_space_lock_.lock("cellwise::AdaptiveMultigridSolver::solve");
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
