// Set-up of the device adaptive multigrid solver: the shared level loop
// (level_assembly.h) with the device's parts of box levels
// (cuda_lagrange_parts.h), plugged into the shared LocalSmoothingVCycle with
// the device distribution and reassembly. No kernels here.

#include <cellwise/base/config.h>
#include <cellwise/multigrid/cuda_active_mesh_transfer.h>
#include <cellwise/multigrid/cuda_adaptive_multigrid_solver.h>
#include <cellwise/multigrid/capabilities.h>
#include <cellwise/multigrid/refinement_edge.h>

#include "cuda_lagrange_parts.h"

#include <chrono>
#include <iomanip>
#include <ostream>

namespace cellwise
{
  namespace cuda
  {
    template <typename Layout>
    AdaptiveMultigridSolver<Layout>::AdaptiveMultigridSolver(const LevelHierarchy      &hierarchy,
                                                             const unsigned int         degree,
                                                             const MultigridParameters &parameters,
                                                             std::ostream              *log)
      : hierarchy_(hierarchy)
      , degree_(degree)
      , parameters_(parameters)
    {
      check_solver_set_up(hierarchy, degree, parameters);
      check_no_pure_neumann(parameters, "cellwise::cuda::AdaptiveMultigridSolver");
      // Validate before any device work, so that the error is the first thing seen.
      Configuration configuration = configuration_of(hierarchy, parameters);
      configuration.backend       = Backend::cuda;
      check_supported(configuration, "cellwise::cuda::AdaptiveMultigridSolver");
      check_device_geometry_and_coefficient(hierarchy, parameters, "cellwise::cuda::AdaptiveMultigridSolver");
      const auto start = std::chrono::steady_clock::now();

      mesh_            = make_active_mesh(hierarchy);
      active_operator_ = std::make_shared<LaplaceOperator<double, Layout>>(mesh_.level, degree, parameters.coefficient,
                                                                           parameters.coefficient_evaluation);
      active_mask_.copy_from_host(
        ::cellwise::internal::make_active_dirichlet_mask<double, Layout>(hierarchy, mesh_, degree, parameters.dirichlet_ids,
                                                                         lagrange_trace_layers(degree)));

      CELLWISE_CHECK(!has_refinement_edge(hierarchy.level(0)), "level 0 must cover the domain");
      // the smoother works on the free copies (the refinement edge E_l zero,
      // 003 §5), the coarse solver on the Dirichlet mask of level 0
      SetupTimes                       times; // not printed: the adaptive set-up is reported as a whole
      BoxLagrangeParts<double, Layout> parts(hierarchy, degree, parameters, times, nullptr, false);
      ::cellwise::internal::LagrangeLevels levels(
        hierarchy, degree, parameters, parts, ::cellwise::internal::SmoothedCopies::all_but_dirichlet_and_refinement_edge, nullptr,
        &mesh_);
      typename LocalSmoothingVCycle<VectorType>::Components components =
        ::cellwise::internal::assemble_levels(hierarchy, levels, log);
      const VCycleParameters cycle = parameters.cycle_parameters();
      cycle_ = std::make_shared<LocalSmoothingVCycle<VectorType>>(std::make_shared<ActiveMeshTransfer<double, Layout>>(mesh_),
                                                                  std::move(components), cycle);
      if (log)
        *log << "  adaptive set-up of " << hierarchy.n_levels() << " levels, " << mesh_.n_active_cells()
             << " active cells on the device: " << std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()
             << " s" << std::endl;
    }

    template <typename Layout>
    AdaptiveMultigridSolver<Layout>::~AdaptiveMultigridSolver() = default;

    template <typename Layout>
    SolveStatistics
    AdaptiveMultigridSolver<Layout>::solve(VectorType &u, const VectorType &b, IterationControl &control) const
    {
      const auto lock = work_space_lock_.lock("cellwise::cuda::AdaptiveMultigridSolver::solve");
      // FP64 only (checked at set-up): solve_outer never rebalances, so the
      // averaging DSS it would take is never called.
      return solve_outer(parameters_, *active_operator_, n_active_cells(), degree_, *cycle_, u, b, active_mask_, control,
                         [](VectorType &) {
                           CELLWISE_CHECK(false, "the adaptive solver does not rebalance: it runs in FP64 only");
                         },
                         &work_);
    }

    CELLWISE_INSTANTIATE_LAYOUTS(AdaptiveMultigridSolver)
  } // namespace cuda
} // namespace cellwise
