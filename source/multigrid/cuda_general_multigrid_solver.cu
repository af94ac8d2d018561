// cuda::GeneralMultigridSolver (multigrid/cuda_general_multigrid_solver.h):
// the host MultigridSolver's components on mapped levels, each replaced by
// its device twin, in the shared V-cycle, mixed-precision wrapper and outer
// iteration. No kernels of its own.

#include <cellwise/base/cuda_check.h>
#include <cellwise/base/setup_times.h>
#include <cellwise/multigrid/capabilities.h>
#include <cellwise/multigrid/coarse_solvers.h>
#include <cellwise/multigrid/cuda_cell_transfer.h>
#include <cellwise/multigrid/cuda_coarse_solvers.h>
#include <cellwise/multigrid/cuda_general_multigrid_solver.h>
#include <cellwise/multigrid/cuda_point_smoothers.h>
#include <cellwise/multigrid/mixed_precision.h>
#include <cellwise/multigrid/point_smoothers.h>
#include <cellwise/multigrid/timed_components.h>
#include <cellwise/multigrid/v_cycle.h>
#include <cellwise/operators/cuda_general_laplace_operator.h>
#include <cellwise/operators/laplace_operator.h>
#include <cellwise/storage/cuda_dirichlet_mask.h>
#include <cellwise/storage/cuda_dss.h>
#include <cellwise/storage/cuda_level_data.h>
#include <cellwise/storage/dirichlet_mask.h>

#include "cuda_setup_stage.h"
#include "lagrange_levels.h"

#include <iomanip>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace cellwise
{
  namespace cuda
  {
    namespace
    {
      template <typename Number, typename Layout>
      using LevelVector = CellVector<Number, MemorySpace::CUDA, Layout>;
      template <typename Number, typename Layout>
      using Operator = GeneralLaplaceOperator<Number, Layout>;
      template <typename Number, typename Layout>
      using DssJacobi = DssJacobiPreconditioner<Number, Layout, Operator<Number, Layout>>;

      /// The level operator: the general Laplacian with the coefficient of
      /// @p parameters where it enters, applied by @p kernel where it takes
      /// the level (planes: blocked layouts, degrees 2..4; lines elsewhere);
      /// its set-up stages added to @p times. From @p metric where given
      /// (the level's host metric, made for this operator), else from its
      /// own.
      template <typename Number, typename Layout>
      std::shared_ptr<Operator<Number, Layout>>
      make_operator(const Level                 &level,
                    const unsigned int           degree,
                    const MultigridParameters   &parameters,
                    const GeneralKernel          kernel,
                    SetupTimes                  &times,
                    const LaplaceMetric<Number> *metric = nullptr)
      {
        auto op = metric ? std::make_shared<Operator<Number, Layout>>(level, degree, *metric, parameters.coefficient,
                                                                      parameters.coefficient_evaluation)
                         : std::make_shared<Operator<Number, Layout>>(level, degree, parameters.coefficient,
                                                                      parameters.coefficient_evaluation);
        op->use_kernel(kernel == GeneralKernel::planes && !op->planes_available() ? GeneralKernel::lines : kernel);
        for (const auto &[stage, seconds] : op->setup_times().stages())
          times.add(std::string(sizeof(Number) == 4 ? "FP32" : "FP64") + " operators: " + stage, seconds);
        return op;
      }

      /// The level smoother of @p parameters (Jacobi or Chebyshev) on the
      /// general operator, over the level's shared device data.
      template <typename Number, typename Layout>
      std::shared_ptr<const LevelSmoother<LevelVector<Number, Layout>>>
      make_smoother(const Level                            &level,
                    const Operator<Number, Layout>         &op,
                    const LevelVector<Number, Layout>      &mask,
                    const MultigridParameters              &parameters,
                    const std::shared_ptr<const LevelData> &level_data)
      {
        if (parameters.smoother == SmootherType::jacobi)
          return std::make_shared<PointJacobiSmoother<DssJacobi<Number, Layout>>>(level, op, mask, parameters.jacobi_parameters(),
                                                                                  level_data);
        return std::make_shared<PointChebyshevSmoother<DssJacobi<Number, Layout>>>(level, op, mask, parameters.chebyshev_parameters(),
                                                                                     level_data);
      }

      /// The device data of every level (neighbours, skeleton groups), built
      /// once and shared by the masks, the smoothers of either precision and
      /// the rebalancing: on an unstructured level each costs two DoF
      /// numberings of the level on the host.
      std::vector<std::shared_ptr<const LevelData>>
      make_level_data(const LevelHierarchy &hierarchy, const unsigned int degree)
      {
        std::vector<std::shared_ptr<const LevelData>> data;
        for (const Level &level : hierarchy.levels)
          data.push_back(std::make_shared<const LevelData>(level, degree));
        return data;
      }

      /// The device's parts of FE_Q levels of any cells (mapped, unstructured)
      /// for the shared level loop (lagrange_levels.h): the general operator
      /// and its point smoothers over the level's shared device data.
      template <typename Number, typename Layout>
      class GeneralLagrangeParts : public ::cellwise::internal::PlainLevelWords<true>, public DeviceStages
      {
      public:
        using Vector   = LevelVector<Number, Layout>;
        using Operator = cuda::Operator<Number, Layout>;
        using Cholesky = CholeskyCoarseSolver<Number, Layout>;

        /// @p finest_metric, if given, is the finest level's host metric,
        /// made for its operator.
        GeneralLagrangeParts(const LevelHierarchy                                &hierarchy,
                             const std::vector<std::shared_ptr<const LevelData>> &level_data,
                             const unsigned int                                   degree,
                             const MultigridParameters                           &parameters,
                             const GeneralKernel                                  kernel,
                             SetupTimes                                          &times,
                             const LaplaceMetric<Number>                         *finest_metric)
          : DeviceStages(times)
          , hierarchy_(hierarchy)
          , level_data_(level_data)
          , degree_(degree)
          , parameters_(parameters)
          , kernel_(kernel)
          , times_(times)
          , finest_metric_(finest_metric)
        {}

        Vector
        dirichlet_mask(const unsigned int l) const
        {
          Vector mask;
          make_dirichlet_mask(*level_data_[l], degree_, parameters_.dirichlet_ids, mask);
          return mask;
        }

        Vector
        free_mask(unsigned int) const
        {
          CELLWISE_CHECK(false, "cellwise::cuda::GeneralMultigridSolver takes uniform levels only (no local smoothing)");
          return {};
        }

        std::shared_ptr<Operator>
        make_operator(const unsigned int l) const
        {
          return cuda::make_operator<Number, Layout>(hierarchy_.level(l), degree_, parameters_, kernel_, times_,
                                                     l + 1 == hierarchy_.n_levels() ? finest_metric_ : nullptr);
        }

        std::shared_ptr<const LevelSmoother<Vector>>
        make_smoother(const unsigned int l, const Operator &op, const Vector &mask) const
        {
          return cuda::make_smoother(hierarchy_.level(l), op, mask, parameters_, level_data_[l]);
        }

        /// " (N cartesian, … general), ": the cells of each metric form
        /// (in place of the plain words').
        std::string
        level_note(unsigned int, const Operator &op) const
        {
          const auto &forms = op.form_counts();
          return " (" + std::to_string(forms[0]) + " cartesian, " + std::to_string(forms[1]) + " cartesian with c(x), " +
                 std::to_string(forms[2]) + " affine, " + std::to_string(forms[3]) + " general), ";
        }

        template <typename Components>
        void
        add_transfers(Components &components, const std::vector<std::shared_ptr<Operator>> &) const
        {
          components.transfer = std::make_shared<CellTransfer<Number, Layout>>(hierarchy_, degree_);
        }

      private:
        const LevelHierarchy                                &hierarchy_;
        const std::vector<std::shared_ptr<const LevelData>> &level_data_;
        const unsigned int                                   degree_;
        const MultigridParameters                           &parameters_;
        const GeneralKernel                                  kernel_;
        SetupTimes                                          &times_;
        const LaplaceMetric<Number>                         *finest_metric_;
      };

      /// The V-cycle in @p Number on all levels of @p hierarchy: operators,
      /// Dirichlet masks (device), smoothers, coarse solver, transfers.
      /// @p finest, if given, is the finest level's operator, already built
      /// (the outer iteration's in FP64: on curved cells its metric is most
      /// of the set-up and of the device memory, 700 MB for the ball at
      /// L = 5); else @p finest_metric, if given, is the finest level's host
      /// metric.
      template <typename Number, typename Layout>
      std::shared_ptr<const Preconditioner<LevelVector<Number, Layout>>>
      make_cycle(const LevelHierarchy                                &hierarchy,
                 const std::vector<std::shared_ptr<const LevelData>> &level_data,
                 const unsigned int                                   degree,
                 const MultigridParameters                           &parameters,
                 const GeneralKernel                                  kernel,
                 const std::shared_ptr<Operator<Number, Layout>>     &finest,
                 std::ostream                                        *log,
                 ComponentTimer                                      *timer,
                 SetupTimes                                          &times,
                 const LaplaceMetric<Number>                         *finest_metric = nullptr)
      {
        using V = LevelVector<Number, Layout>;
        GeneralLagrangeParts<Number, Layout> parts(hierarchy, level_data, degree, parameters, kernel, times, finest_metric);
        ::cellwise::internal::LagrangeLevels levels(hierarchy, degree, parameters, parts,
                                                    ::cellwise::internal::SmoothedCopies::all_but_dirichlet, finest);
        typename VCycle<V>::Components components = ::cellwise::internal::assemble_levels(hierarchy, levels, log);
        if (timer)
          time_cycle_components<V>(components, *timer, to_string(parameters.smoother) + " smoother");
        const VCycleParameters cycle = parameters.cycle_parameters();
        auto v_cycle         = std::make_shared<VCycle<V>>(std::move(components), cycle);
        if (!timer)
          return v_cycle;
        return std::make_shared<TimedPreconditioner<V>>(v_cycle, *timer, "cycle: zero fills, vector operations");
      }
    } // namespace

    template <typename Layout>
    struct GeneralMultigridSolver<Layout>::Components
    {
      MultigridParameters                       parameters;
      unsigned int                              degree = 0;
      std::shared_ptr<const LevelData>          fine_level_data; ///< the rebalancing's DSS
      VectorType                                mask;
      std::shared_ptr<Operator<double, Layout>> fine_operator;
      /// the outer iteration's operator: fine_operator, or it timed
      std::shared_ptr<const LevelOperator<VectorType>>  outer_operator;
      std::shared_ptr<const Preconditioner<VectorType>> preconditioner;
      ComponentTimer                                   *timer = nullptr;
      /// the outer iteration's work vectors, kept between solves
      OuterWorkVectors<VectorType> work;
    };

    template <typename Layout>
    GeneralMultigridSolver<Layout>::GeneralMultigridSolver(const LevelHierarchy      &hierarchy,
                                                           const unsigned int         degree,
                                                           const MultigridParameters &parameters,
                                                           std::ostream              *log,
                                                           ComponentTimer            *timer,
                                                           const GeneralKernel        kernel)
      : components_(std::make_unique<Components>())
    {
      check_solver_set_up(hierarchy, degree, parameters);
      check_no_pure_neumann(parameters, "cellwise::cuda::GeneralMultigridSolver");
      Configuration configuration = configuration_of(hierarchy, parameters);
      configuration.backend       = Backend::cuda;
      check_supported(configuration, "cellwise::cuda::GeneralMultigridSolver");
      // box cells come here for a coefficient at the quadrature points
      // (make_host_vector_solver): their device patch smoother assumes one
      // coefficient per level
      CELLWISE_CHECK(parameters.smoother != SmootherType::patch,
                     "cellwise::cuda::GeneralMultigridSolver: the vertex-patch smoother with a coefficient at the "
                     "quadrature points is not built on the device: use the Chebyshev or Jacobi smoother, or the host "
                     "backend");
      Components &c = *components_;
      c.parameters  = parameters;
      c.degree      = degree;
      SetupTimes   times;
      const Level &fine = hierarchy.levels.back();
      std::vector<std::shared_ptr<const LevelData>> level_data;
      device_stage(times, "level data (neighbours, skeleton groups)", [&] { level_data = make_level_data(hierarchy, degree); });
      c.fine_level_data = level_data.back();
      device_stage(times, "Dirichlet masks (device)",
                   [&] { make_dirichlet_mask(*c.fine_level_data, degree, parameters.dirichlet_ids, c.mask); });
      // A mixed solve without a coefficient makes the finest level's host
      // metric once: its FP32 operator takes it rounded, bit for bit what
      // make_laplace_metric<float> would give (1.7 s of the ball's set-up
      // at L = 6, Q3, on the H200's host). With a coefficient the FP32 box
      // factors round differently, and each precision makes its own.
      std::optional<LaplaceMetric<float>> fine_metric_fp32;
      if (parameters.precision != Precision::fp64 && !parameters.coefficient)
        {
          LaplaceMetric<double> fine_metric;
          times.measure("FP64 operators: metric on the host", [&] {
            fine_metric = make_laplace_metric<double>(fine, degree, parameters.coefficient, parameters.coefficient_evaluation,
                                                      Operator<double, Layout>::host_values(fine, parameters.coefficient,
                                                                                            parameters.coefficient_evaluation,
                                                                                            GeneralCellMetric::automatic));
          });
          c.fine_operator = make_operator<double, Layout>(fine, degree, parameters, kernel, times, &fine_metric);
          times.measure("FP32 operators: finest metric rounded from FP64", [&] { fine_metric_fp32 = rounded_to_float(fine_metric); });
        }
      else
        c.fine_operator = make_operator<double, Layout>(fine, degree, parameters, kernel, times);
      c.timer          = timer;
      c.outer_operator = c.fine_operator;
      if (timer)
        c.outer_operator = std::make_shared<TimedLevelOperator<VectorType>>(c.fine_operator, *timer, "FP64 operator");
      if (parameters.precision == Precision::fp64)
        c.preconditioner =
          make_cycle<double, Layout>(hierarchy, level_data, degree, parameters, kernel, c.fine_operator, log, timer, times);
      else
        {
          using InnerVector = LevelVector<float, Layout>;
          auto cycle = make_cycle<float, Layout>(hierarchy, level_data, degree, parameters, kernel, nullptr, log, timer, times,
                                                 fine_metric_fp32 ? &*fine_metric_fp32 : nullptr);
          fine_metric_fp32.reset();
          device_stage(times, "FP32 correction vector", [&] {
            c.preconditioner =
              std::make_shared<MixedPrecisionPreconditioner<VectorType, InnerVector>>(std::move(cycle), InnerVector(fine.n_cells(), degree));
          });
          if (timer)
            c.preconditioner = std::make_shared<TimedPreconditioner<VectorType>>(c.preconditioner, *timer, "FP64/FP32 conversions",
                                                                                  "correction update (widened)");
        }
      if (log)
        {
          *log << "  geometry of the finest level on the device: " << c.fine_operator->metric_bytes() << " bytes, "
               << double(c.fine_operator->metric_bytes()) / (double(fine.n_cells()) * c.mask.dofs_per_cell())
               << " B per cell-wise value" << std::endl;
          times.print(*log, "set-up of " + std::to_string(hierarchy.n_levels()) + " levels on the device");
        }
    }

    template <typename Layout>
    GeneralMultigridSolver<Layout>::~GeneralMultigridSolver() = default;

    template <typename Layout>
    const typename GeneralMultigridSolver<Layout>::VectorType &
    GeneralMultigridSolver<Layout>::mask() const
    {
      return components_->mask;
    }

    template <typename Layout>
    const LevelOperator<typename GeneralMultigridSolver<Layout>::VectorType> &
    GeneralMultigridSolver<Layout>::fine_operator() const
    {
      return *components_->fine_operator;
    }

    template <typename Layout>
    const Preconditioner<typename GeneralMultigridSolver<Layout>::VectorType> &
    GeneralMultigridSolver<Layout>::preconditioner() const
    {
      return *components_->preconditioner;
    }

    template <typename Layout>
    SolveStatistics
    GeneralMultigridSolver<Layout>::solve(VectorType &u, const VectorType &b, IterationControl &control) const
    {
      const auto lock = work_space_lock_.lock("cellwise::cuda::GeneralMultigridSolver::solve");
      Components &c = *components_;
      return solve_outer(c.parameters, *c.outer_operator, c.fine_operator->n_cells(), c.degree, *c.preconditioner, u, b, c.mask,
                         control, [&c](VectorType &r) {
                           if (!c.timer)
                             return apply_dss(*c.fine_level_data, r, DssMode::mean);
                           TimedScope scope(*c.timer, "rebalancing (mean DSS)");
                           apply_dss(*c.fine_level_data, r, DssMode::mean);
                         },
                         &c.work);
    }

    CELLWISE_INSTANTIATE_LAYOUTS(GeneralMultigridSolver)
  } // namespace cuda
} // namespace cellwise
