// Set-up of the device multigrid solver: the same components per level as the
// host builder (source/multigrid/multigrid_solver.cc), device versions of each.
// No kernels here.

#include <cellwise/base/config.h>
#include <cellwise/base/cuda_check.h>
#include <cellwise/base/setup_times.h>
#include <cellwise/multigrid/cuda_cell_transfer.h>
#include <cellwise/multigrid/cuda_laplace_residual_restriction.h>
#include <cellwise/multigrid/cuda_coarse_solvers.h>
#include <cellwise/storage/cuda_dirichlet_mask.h>
#include <cellwise/storage/cuda_dss.h>
#include <cellwise/storage/cuda_level_data.h>
#include <cellwise/multigrid/cuda_multigrid_solver.h>
#include <cellwise/multigrid/cuda_level_smoothers.h>
#include <cellwise/multigrid/mixed_precision.h>
#include <cellwise/multigrid/timed_components.h>
#include <cellwise/multigrid/coarse_solvers.h>
#include <cellwise/storage/dirichlet_mask.h>

#include "cuda_setup_stage.h"

#include <iomanip>
#include <ostream>
#include <string>

namespace cellwise
{
  namespace cuda
  {
    namespace
    {
      /// The device V-cycle with all level components in precision Number,
      /// the same components as the host builder's make_cycle (each wrapped
      /// for @p timer if given); the stages are timed into @p times.
      /// @p finest is the finest level's device data, already built for the
      /// outer operator (at L = 8 it is 0.8 GB and takes a second to build).
      template <typename Number, typename Layout>
      std::shared_ptr<const Preconditioner<CellVector<Number, MemorySpace::CUDA, Layout>>>
      make_cycle(const LevelHierarchy      &hierarchy,
                 const LevelData           &finest,
                 const unsigned int         degree,
                 const MultigridParameters &parameters,
                 std::ostream              *log,
                 ComponentTimer            *timer,
                 SetupTimes                &times)
      {
        using V = CellVector<Number, MemorySpace::CUDA, Layout>;
        typename VCycle<V>::Components components;
        std::vector<std::shared_ptr<const LaplaceOperator<Number, Layout>>> level_operators; // untimed, for the fused restriction
        for (unsigned int l = 0; l < hierarchy.n_levels(); ++l)
          {
            const Level                                  &level = hierarchy.level(l);
            CellVector<Number, MemorySpace::Host, Layout> host_mask; // level 0 only: the coarse solver's
            V                                             mask;
            if (l == 0)
              {
                times.measure("coarse Dirichlet mask (host)",
                              [&] { host_mask = ::cellwise::make_dirichlet_mask<Number, Layout>(level, degree, parameters.dirichlet_ids); });
                device_stage(times, "coarse mask: upload", [&] { mask.copy_from_host(host_mask); });
              }
            else
              device_stage(times, "level Dirichlet masks (device)", [&] {
                if (l + 1 == hierarchy.n_levels())
                  make_dirichlet_mask(finest, degree, parameters.dirichlet_ids, mask);
                else
                  make_dirichlet_mask(LevelData(level, degree), degree, parameters.dirichlet_ids, mask);
              });
            std::shared_ptr<LaplaceOperator<Number, Layout>> op;
            device_stage(times, "level operators", [&] {
              op = std::make_shared<LaplaceOperator<Number, Layout>>(level, degree);
              if (parameters.coefficient)
                op->set_coefficient(level, parameters.coefficient);
            });
            components.operators.push_back(op);
            level_operators.push_back(op);
            device_stage(times, "level vector shapes", [&] { components.level_shapes.push_back(V(level.n_cells(), degree)); });
            if (l == 0)
              {
                components.smoothers.push_back(nullptr);
                device_stage(times, "coarse solver", [&] {
                  if (coarse_solver_for(parameters, level, degree) == CoarseSolverType::cholesky)
                    components.coarse_solver =
                      std::make_shared<CholeskyCoarseSolver<Number, Layout>>(level, degree, host_mask, parameters.coefficient);
                  else
                    components.coarse_solver = make_smoother_coarse_solver<V>(
                      parameters, coarse_solver_for(parameters, level, degree), op, make_level_smoother(level, *op, mask, parameters),
                      mask, parameters.coarse_smoother_applications);
                });
              }
            else
              device_stage(times, "smoothers (" + to_string(parameters.smoother) + ")",
                           [&] { components.smoothers.push_back(make_level_smoother(level, *op, mask, parameters)); });
            if (log)
              *log << "  level " << std::setw(2) << l << ": " << std::setw(10) << level.n_cells() << " cells, "
                   << (l == 0 ? describe_coarse_solver(parameters, level, degree) : "smoother " + to_string(parameters.smoother))
                   << (sizeof(Number) == 4 ? ", FP32" : ", FP64") << " (device)" << std::endl;
          }
        if (hierarchy.n_levels() > 1)
          device_stage(times, "transfers", [&] {
            auto transfer         = std::make_shared<CellTransfer<Number, Layout>>(hierarchy, degree);
            components.transfer   = transfer;
            // every level above the coarsest restricts b − A u with A
            // applied inside (A u never stored), where the fused kernel exists
            if (LaplaceResidualRestriction<Number, Layout>::supports(degree))
              {
                components.residual_restrictions.assign(hierarchy.n_levels(), nullptr);
                for (unsigned int l = 1; l < hierarchy.n_levels(); ++l)
                  components.residual_restrictions[l] = std::make_shared<LaplaceResidualRestriction<Number, Layout>>(
                    transfer, l, level_operators[l]);
              }
          });
        if (timer)
          time_cycle_components<V>(components, *timer, to_string(parameters.smoother) + " smoother");

        const VCycleParameters cycle = parameters.cycle_parameters();
        auto v_cycle = std::make_shared<VCycle<V>>(std::move(components), cycle);
        if (!timer)
          return v_cycle;
        return std::make_shared<TimedPreconditioner<V>>(v_cycle, *timer, "cycle: zero fills, vector operations");
      }
    } // namespace

    template <typename Layout>
    MultigridSolver<Layout>::MultigridSolver(const LevelHierarchy      &hierarchy,
                                             const unsigned int         degree,
                                             const MultigridParameters &parameters,
                                             std::ostream              *log,
                                             ComponentTimer            *timer)
      : hierarchy_(hierarchy)
      , degree_(degree)
      , parameters_(parameters)
      , timer_(timer)
    {
      check_solver_set_up(hierarchy, degree, parameters);
      check_no_pure_neumann(parameters, "cellwise::cuda::MultigridSolver");
      check_device_geometry_and_coefficient(hierarchy, parameters, "cellwise::cuda::MultigridSolver");
      // Validate before any device work, so that the error is the first thing seen.
      CELLWISE_CHECK(!parameters.coefficient || parameters.smoother != SmootherType::patch,
                     "a variable coefficient with the vertex-patch smoother is not available on the CUDA backend yet "
                     "(its patch kernels assume one coefficient per level): use the Chebyshev or Jacobi smoother, or the "
                     "host backend");
      SetupTimes   times;
      const Level &fine = hierarchy.levels.back();
      device_stage(times, "fine level: DSS data", [&] { fine_level_data_ = std::make_unique<LevelData>(fine, degree); });
      device_stage(times, "fine level: Dirichlet mask (device)",
                   [&] { make_dirichlet_mask(*fine_level_data_, degree, parameters.dirichlet_ids, mask_); });
      device_stage(times, "fine level: FP64 operator", [&] {
        fine_operator_ = std::make_shared<LaplaceOperator<double, Layout>>(fine, degree);
        if (parameters.coefficient)
          fine_operator_->set_coefficient(fine, parameters.coefficient);
        fine_operator_->use_dirichlet_mask(mask_); // the outer residual reads bits, not FP64 values
      });
      outer_operator_ = fine_operator_;
      if (timer)
        outer_operator_ = std::make_shared<TimedLevelOperator<VectorType>>(fine_operator_, *timer, "FP64 operator");
      if (parameters.precision == Precision::fp64)
        preconditioner_ = make_cycle<double, Layout>(hierarchy, *fine_level_data_, degree, parameters, log, timer, times);
      else
        {
          // FP32 levels cell-contiguous whatever the outer layout (the register
          // patch kernel needs it, 000 §5.2); the conversions change the layout
          // in the same pass
          using InnerVector = CellVector<float, MemorySpace::CUDA, CellContiguous>;
          auto cycle        = make_cycle<float, CellContiguous>(hierarchy, *fine_level_data_, degree, parameters, log, timer, times);
          std::shared_ptr<MixedPrecisionPreconditioner<VectorType, InnerVector>> mixed;
          device_stage(times, "FP32 correction vector", [&] {
            mixed = std::make_shared<MixedPrecisionPreconditioner<VectorType, InnerVector>>(cycle, InnerVector(fine.n_cells(), degree));
          });
          // u += widen(z) and the next residual in one pass, for the operator
          // this solver passes to the outer iteration (timed or not)
          mixed->fuse_correction_into_residual(
            [fine = fine_operator_.get(), outer = outer_operator_.get()](const LevelOperator<VectorType> &A, VectorType &r,
                                                                          const VectorType &b, VectorType &u,
                                                                          const VectorType &mask, const InnerVector &z) {
              if (&A != fine && &A != outer)
                return false;
              fine->add_and_masked_residual(r, b, u, mask, z);
              return true;
            });
          preconditioner_ = mixed;
          if (timer)
            preconditioner_ = std::make_shared<TimedPreconditioner<VectorType>>(preconditioner_, *timer, "FP64/FP32 conversions",
                                                                                "correction update (widened)");
        }
      if (log)
        times.print(*log, "set-up of " + std::to_string(hierarchy.n_levels()) + " levels on the device");
    }

    template <typename Layout>
    MultigridSolver<Layout>::~MultigridSolver() = default;

    template <typename Layout>
    SolveStatistics
    MultigridSolver<Layout>::solve(VectorType &u, const VectorType &b, IterationControl &control) const
    {
      const auto lock = work_space_lock_.lock("cellwise::cuda::MultigridSolver::solve");
      return solve_outer(parameters_, *outer_operator_, fine_operator_->n_cells(), degree_, *preconditioner_, u, b, mask_, control,
                         [this](VectorType &r) {
                           if (!timer_)
                             return apply_dss(*fine_level_data_, r, DssMode::mean);
                           TimedScope scope(*timer_, "rebalancing (mean DSS)");
                           apply_dss(*fine_level_data_, r, DssMode::mean);
                         },
                         &work_);
    }

    CELLWISE_INSTANTIATE_LAYOUTS(MultigridSolver)
  } // namespace cuda
} // namespace cellwise
