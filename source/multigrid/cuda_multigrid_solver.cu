// Set-up of the device multigrid solver: the shared level loop
// (level_assembly.h) with the device's parts of box levels
// (cuda_lagrange_parts.h). No kernels here.

#include <cellwise/base/config.h>
#include <cellwise/base/cuda_check.h>
#include <cellwise/base/setup_times.h>
#include <cellwise/storage/cuda_dirichlet_mask.h>
#include <cellwise/storage/cuda_dss.h>
#include <cellwise/storage/cuda_level_data.h>
#include <cellwise/multigrid/cuda_multigrid_solver.h>
#include <cellwise/multigrid/mixed_precision.h>
#include <cellwise/multigrid/timed_components.h>

#include "cuda_lagrange_parts.h"
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
        BoxLagrangeParts<Number, Layout>     parts(hierarchy, degree, parameters, times, &finest, true);
        ::cellwise::internal::LagrangeLevels levels(hierarchy, degree, parameters, parts,
                                                    ::cellwise::internal::SmoothedCopies::all_but_dirichlet);
        typename VCycle<V>::Components       components = ::cellwise::internal::assemble_levels(hierarchy, levels, log);
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
      SetupTimes   times;
      const Level &fine = hierarchy.levels.back();
      device_stage(times, "fine level: DSS data", [&] { fine_level_data_ = std::make_unique<LevelData>(fine, degree); });
      device_stage(times, "fine level: Dirichlet mask (device)",
                   [&] { make_dirichlet_mask(*fine_level_data_, degree, parameters.dirichlet_ids, mask_); });
      device_stage(times, "fine level: FP64 operator", [&] {
        fine_operator_ =
          std::make_shared<LaplaceOperator<double, Layout>>(fine, degree, parameters.coefficient, parameters.coefficient_evaluation);
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
