// Set-up of the device adaptive multigrid solver: the same components per
// level as the host builder (source/multigrid/adaptive_multigrid_solver.cc), device
// versions of each, plugged into the shared LocalSmoothingVCycle with the
// device distribution and reassembly. No kernels here.

#include <cellwise/base/config.h>
#include <cellwise/multigrid/cuda_active_mesh_transfer.h>
#include <cellwise/multigrid/cuda_adaptive_multigrid_solver.h>
#include <cellwise/multigrid/cuda_cell_transfer.h>
#include <cellwise/multigrid/cuda_coarse_solvers.h>
#include <cellwise/multigrid/cuda_level_smoothers.h>
#include <cellwise/multigrid/capabilities.h>
#include <cellwise/multigrid/coarse_solvers.h>
#include <cellwise/multigrid/refinement_edge.h>
#include <cellwise/storage/dirichlet_mask.h>

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
      CELLWISE_CHECK(!parameters.coefficient || parameters.smoother != SmootherType::patch,
                     "a variable coefficient with the vertex-patch smoother is not available on the CUDA backend yet "
                     "(its patch kernels assume one coefficient per level): use the Chebyshev or Jacobi smoother, or the "
                     "host backend");
      const auto start = std::chrono::steady_clock::now();
      using V          = VectorType;

      mesh_            = make_active_mesh(hierarchy);
      active_operator_ = std::make_shared<LaplaceOperator<double, Layout>>(mesh_.level, degree);
      if (parameters.coefficient)
        active_operator_->set_coefficient(mesh_.level, parameters.coefficient);
      // Dirichlet copies of the active cells: those of their level's mask (a
      // Dirichlet DoF lies on a boundary face of every box cell touching it).
      HostVectorType host_active_mask(mesh_.n_active_cells(), degree);

      typename LocalSmoothingVCycle<V>::Components components;
      for (unsigned int l = 0; l < hierarchy.n_levels(); ++l)
        {
          const Level         &level     = hierarchy.level(l);
          const HostVectorType dirichlet = make_dirichlet_mask<double, Layout>(level, degree, parameters.dirichlet_ids);
          for (unsigned int j = 0; j < mesh_.active_cells[l].size(); ++j)
            for (unsigned int i = 0; i < dirichlet.dofs_per_cell(); ++i)
              host_active_mask(mesh_.level_offset[l] + j, i) = dirichlet(mesh_.active_cells[l][j], i);

          const auto op = std::make_shared<LaplaceOperator<double, Layout>>(level, degree);
          if (parameters.coefficient)
            op->set_coefficient(level, parameters.coefficient);
          components.operators.push_back(op);
          components.level_shapes.push_back(V(level.n_cells(), degree));
          if (l == 0)
            {
              CELLWISE_CHECK(!has_refinement_edge(level), "level 0 must cover the domain");
              components.smoothers.push_back(nullptr);
              if (coarse_solver_for(parameters, level, degree) == CoarseSolverType::cholesky)
                components.coarse_solver = std::make_shared<CholeskyCoarseSolver<double, Layout>>(level, degree, dirichlet,
                                                                                                 parameters.coefficient);
              else
                {
                  V mask;
                  mask.copy_from_host(dirichlet);
                  components.coarse_solver = make_smoother_coarse_solver<V>(
                    parameters, coarse_solver_for(parameters, level, degree), op,
                    make_level_smoother<double, Layout>(level, *op, mask, parameters), mask,
                    parameters.coarse_smoother_applications);
                }
            }
          else
            {
              // 0 on Dirichlet and on the refinement edge E_l (003 §5)
              V free_mask;
              free_mask.copy_from_host(make_free_mask<double, Layout>(level, degree, parameters.dirichlet_ids));
              components.smoothers.push_back(make_level_smoother<double, Layout>(level, *op, free_mask, parameters));
            }
          if (log)
            *log << "  level " << std::setw(2) << l << ": " << std::setw(10) << level.n_cells() << " cells, " << std::setw(10)
                 << mesh_.active_cells[l].size() << " active, "
                 << (l == 0 ? describe_coarse_solver(parameters, level, degree) : "smoother " + to_string(parameters.smoother))
                 << " (device)" << std::endl;
        }
      active_mask_.copy_from_host(host_active_mask);
      if (hierarchy.n_levels() > 1)
        components.transfer = std::make_shared<CellTransfer<double, Layout>>(hierarchy, degree);

      const VCycleParameters cycle = parameters.cycle_parameters();
      cycle_ = std::make_shared<LocalSmoothingVCycle<V>>(std::make_shared<ActiveMeshTransfer<double, Layout>>(mesh_),
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
