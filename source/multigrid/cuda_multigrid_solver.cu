// Set-up of the device multigrid solver: the shared level loop
// (lagrange_levels.h, level_assembly.h) with the device's parts of box
// levels (cuda_lagrange_parts.h) or of any levels (the general operator,
// cuda_general_lagrange_parts.h), the shared mixed-precision wrapper and
// outer iteration; on a locally refined hierarchy the box parts in the
// shared local-smoothing cycle (adaptive_v_cycle.h) with the device
// distribution and reassembly. No kernels here.

#include <cellwise/base/config.h>
#include <cellwise/base/cuda_check.h>
#include <cellwise/base/setup_times.h>
#include <cellwise/multigrid/capabilities.h>
#include <cellwise/multigrid/cuda_active_mesh_transfer.h>
#include <cellwise/multigrid/cuda_cell_transfer.h>
#include <cellwise/multigrid/cuda_multigrid_solver.h>
#include <cellwise/multigrid/mixed_local_smoothing.h>
#include <cellwise/multigrid/mixed_precision.h>
#include <cellwise/multigrid/refinement_edge.h>
#include <cellwise/multigrid/timed_components.h>
#include <cellwise/operators/cuda_laplace_operator.h>
#include <cellwise/operators/laplace_operator.h>
#include <cellwise/storage/cuda_dirichlet_mask.h>
#include <cellwise/storage/cuda_dss.h>
#include <cellwise/storage/cuda_level_data.h>

#include "cuda_general_lagrange_parts.h"
#include "cuda_lagrange_parts.h"
#include "cuda_setup_stage.h"

#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace cellwise
{
  namespace cuda
  {
    namespace
    {
      constexpr const char *solver_name = "cellwise::cuda::MultigridSolver";

      /// The device V-cycle over the levels that @p parts make (each
      /// component wrapped for @p timer if given). @p finest, if given, is
      /// the finest level's operator, already made for the outer iteration.
      /// With @p mesh (a locally refined hierarchy), the local-smoothing
      /// cycle on its active cells.
      template <typename Vector, typename Parts>
      std::shared_ptr<const Preconditioner<Vector>>
      make_cycle(const LevelHierarchy                        &hierarchy,
                 const unsigned int                           degree,
                 const MultigridParameters                   &parameters,
                 Parts                                       &parts,
                 std::shared_ptr<typename Parts::Operator>    finest,
                 std::ostream                                *log,
                 ComponentTimer                              *timer,
                 const ActiveMesh                            *mesh = nullptr)
      {
        // on the levels of local smoothing the smoothers leave the
        // refinement edge E_l alone (003 §5)
        ::cellwise::internal::LagrangeLevels levels(
          hierarchy, degree, parameters, parts,
          mesh ? ::cellwise::internal::SmoothedCopies::all_but_dirichlet_and_refinement_edge :
                 ::cellwise::internal::SmoothedCopies::all_but_dirichlet,
          std::move(finest), mesh);
        typename VCycle<Vector>::Components components = ::cellwise::internal::assemble_levels(hierarchy, levels, log);
        if (timer)
          time_cycle_components<Vector>(components, *timer, to_string(parameters.smoother) + " smoother");
        std::shared_ptr<const Preconditioner<Vector>> v_cycle;
        if (mesh)
          v_cycle = std::make_shared<LocalSmoothingVCycle<Vector>>(
            std::make_shared<ActiveMeshTransfer<typename Vector::value_type, typename Vector::layout_type>>(*mesh),
            std::move(components), parameters.cycle_parameters());
        else
          v_cycle = std::make_shared<VCycle<Vector>>(std::move(components), parameters.cycle_parameters());
        if (!timer)
          return v_cycle;
        return std::make_shared<TimedPreconditioner<Vector>>(v_cycle, *timer, "cycle: zero fills, vector operations");
      }

      /// The FP32 local-smoothing cycle of @p parts in the FP64 routing and
      /// rebuilding of the refinement-edge copies (mixed_local_smoothing.h),
      /// on the device: the FP64 distribution and reassembly, transfers,
      /// edge masks and levels' DSS data as set-up stages.
      template <typename OuterVector, typename Parts>
      std::shared_ptr<const Preconditioner<OuterVector>>
      make_mixed_local_smoothing_cycle(const LevelHierarchy      &hierarchy,
                                       const ActiveMesh          &mesh,
                                       const unsigned int         degree,
                                       const MultigridParameters &parameters,
                                       Parts                     &parts,
                                       std::ostream              *log,
                                       ComponentTimer            *timer,
                                       SetupTimes                &times)
      {
        using InnerVector = typename Parts::Vector;
        using Layout      = typename OuterVector::layout_type;
        ::cellwise::internal::LagrangeLevels levels(hierarchy, degree, parameters, parts,
                                                    ::cellwise::internal::SmoothedCopies::all_but_dirichlet_and_refinement_edge,
                                                    nullptr, &mesh);
        typename VCycle<InnerVector>::Components components = ::cellwise::internal::assemble_levels(hierarchy, levels, log);
        if (timer)
          time_cycle_components<InnerVector>(components, *timer, to_string(parameters.smoother) + " smoother");
        auto cycle = std::make_shared<LocalSmoothingVCycle<InnerVector>>(
          std::make_shared<ActiveMeshTransfer<typename InnerVector::value_type, typename InnerVector::layout_type>>(mesh),
          std::move(components), parameters.cycle_parameters());

        using Mixed = MixedLocalSmoothingCycle<OuterVector, InnerVector>;
        typename Mixed::Levels fp64;
        device_stage(times, "FP64 distribution, transfers and edge masks", [&] {
          fp64.active_transfer = std::make_shared<ActiveMeshTransfer<double, Layout>>(mesh);
          fp64.transfer        = std::make_shared<CellTransfer<double, Layout>>(hierarchy, degree);
          auto level_data      = std::make_shared<std::vector<LevelData>>();
          level_data->reserve(hierarchy.n_levels());
          for (unsigned int l = 0; l < hierarchy.n_levels(); ++l)
            {
              const Level &level = hierarchy.level(l);
              level_data->emplace_back(level, degree);
              fp64.edge.emplace_back();
              fp64.kept.emplace_back();
              // (level 0 covers the domain: no refinement edge)
              CellVector<double, MemorySpace::Host, Layout> kept(level.n_cells(), degree);
              kept.fill(1.);
              if (l > 0)
                {
                  const auto edge = make_refinement_edge_mask<double, Layout>(level, degree);
                  kept.add(-1., edge);
                  fp64.edge.back().copy_from_host(edge);
                }
              fp64.kept.back().copy_from_host(kept);
            }
          fp64.level_mean = [level_data](const unsigned int l, OuterVector &v) { apply_dss((*level_data)[l], v, DssMode::mean); };
        });
        return std::make_shared<Mixed>(std::move(cycle), std::move(fp64));
      }

      /// The FP32 @p cycle inside the FP64 outer iteration: its correction
      /// vector on the finest level's @p n_cells, made as a set-up stage.
      template <typename OuterVector, typename InnerVector>
      std::shared_ptr<MixedPrecisionPreconditioner<OuterVector, InnerVector>>
      make_mixed(std::shared_ptr<const Preconditioner<InnerVector>> cycle,
                 const unsigned int                                 n_cells,
                 const unsigned int                                 degree,
                 SetupTimes                                        &times)
      {
        std::shared_ptr<MixedPrecisionPreconditioner<OuterVector, InnerVector>> mixed;
        device_stage(times, "FP32 correction vector", [&] {
          mixed = std::make_shared<MixedPrecisionPreconditioner<OuterVector, InnerVector>>(std::move(cycle),
                                                                                          InnerVector(n_cells, degree));
        });
        return mixed;
      }
    } // namespace

    template <typename Layout>
    struct MultigridSolver<Layout>::Components
    {
      MultigridParameters              parameters;
      unsigned int                     degree  = 0;
      bool                             general = false;
      std::shared_ptr<const LevelData> fine_level_data; ///< the rebalancing's DSS
      /// the finest level's Dirichlet mask; the box operator keeps its address
      VectorType                                        mask;
      std::shared_ptr<const LevelOperator<VectorType>>  fine_operator;
      /// the outer iteration's operator: fine_operator, or it timed
      std::shared_ptr<const LevelOperator<VectorType>>  outer_operator;
      std::shared_ptr<const Preconditioner<VectorType>> preconditioner;
      /// the active cells of a locally refined hierarchy
      std::unique_ptr<const ActiveMesh>                 mesh;
      ComponentTimer                                   *timer = nullptr;
      /// the outer iteration's work vectors, kept between solves (no
      /// allocation and zero fill of FP64 vectors per solve)
      OuterWorkVectors<VectorType> work;

      /// The outer operator: the fine one, timed as "FP64 operator" with a timer.
      void
      set_outer_operator()
      {
        outer_operator = fine_operator;
        if (timer)
          outer_operator = std::make_shared<TimedLevelOperator<VectorType>>(fine_operator, *timer, "FP64 operator");
      }

      /// The mixed-precision preconditioner, timed with a timer.
      void
      set_mixed_preconditioner(std::shared_ptr<const Preconditioner<VectorType>> mixed)
      {
        preconditioner = std::move(mixed);
        if (timer)
          preconditioner = std::make_shared<TimedPreconditioner<VectorType>>(preconditioner, *timer, "FP64/FP32 conversions",
                                                                            "correction update (widened)");
      }

      void
      set_up_box(const LevelHierarchy &hierarchy, std::ostream *log, SetupTimes &times);
      void
      set_up_general(const LevelHierarchy &hierarchy, GeneralKernel kernel, std::ostream *log, SetupTimes &times);
      void
      set_up_local_smoothing(const LevelHierarchy &hierarchy, std::ostream *log, SetupTimes &times);
    };

    // A locally refined hierarchy: the box parts on every level, the
    // active-mesh operator A_act for the outer iteration, the Dirichlet
    // mask of the active cells (not the hanging copies); FP64 levels, or
    // FP32 ones in the FP64 routing and rebuilding of the edge copies.
    template <typename Layout>
    void
    MultigridSolver<Layout>::Components::set_up_local_smoothing(const LevelHierarchy &hierarchy,
                                                                std::ostream         *log,
                                                                SetupTimes           &times)
    {
      Configuration configuration = configuration_of(hierarchy, parameters);
      configuration.backend       = Backend::cuda;
      check_supported(configuration, solver_name);
      check_device_geometry_and_coefficient(hierarchy, parameters, solver_name);
      CELLWISE_CHECK(!has_refinement_edge(hierarchy.level(0)), "level 0 must cover the domain");
      times.measure("active mesh (host)", [&] { mesh = std::make_unique<const ActiveMesh>(make_active_mesh(hierarchy)); });
      device_stage(times, "active mesh: Dirichlet mask", [&] {
        mask.copy_from_host(::cellwise::internal::make_active_dirichlet_mask<double, Layout>(
          hierarchy, *mesh, degree, parameters.dirichlet_ids, lagrange_trace_layers(degree)));
      });
      device_stage(times, "active mesh: FP64 operator", [&] {
        fine_operator = std::make_shared<LaplaceOperator<double, Layout>>(mesh->level, degree, parameters.coefficient,
                                                                          parameters.coefficient_evaluation);
      });
      set_outer_operator();
      if (parameters.precision == Precision::fp64)
        {
          BoxLagrangeParts<double, Layout> parts(hierarchy, degree, parameters, times, nullptr, false);
          preconditioner = make_cycle<VectorType>(hierarchy, degree, parameters, parts, nullptr, log, timer, mesh.get());
          return;
        }
      // FP32 levels cell-contiguous whatever the outer layout, as on
      // uniform meshes (the conversions change the layout in their pass)
      BoxLagrangeParts<float, CellContiguous> parts(hierarchy, degree, parameters, times, nullptr, false);
      set_mixed_preconditioner(
        make_mixed_local_smoothing_cycle<VectorType>(hierarchy, *mesh, degree, parameters, parts, log, timer, times));
    }

    // Box cells: the fused kernels of cuda::LaplaceOperator; the finest
    // level's device data is built once, for the outer operator, the mask
    // and the cycle's finest level (at L = 8 it is 0.8 GB and takes a
    // second to build).
    template <typename Layout>
    void
    MultigridSolver<Layout>::Components::set_up_box(const LevelHierarchy &hierarchy, std::ostream *log, SetupTimes &times)
    {
      check_device_geometry_and_coefficient(hierarchy, parameters, solver_name);
      const Level                                     &fine = hierarchy.levels.back();
      std::shared_ptr<LaplaceOperator<double, Layout>> box;
      device_stage(times, "fine level: DSS data", [&] { fine_level_data = std::make_shared<const LevelData>(fine, degree); });
      device_stage(times, "fine level: Dirichlet mask (device)",
                   [&] { make_dirichlet_mask(*fine_level_data, degree, parameters.dirichlet_ids, mask); });
      device_stage(times, "fine level: FP64 operator", [&] {
        box = std::make_shared<LaplaceOperator<double, Layout>>(fine, degree, parameters.coefficient, parameters.coefficient_evaluation);
        box->use_dirichlet_mask(mask); // the outer residual reads bits, not FP64 values
      });
      fine_operator = box;
      set_outer_operator();
      if (parameters.precision == Precision::fp64)
        {
          BoxLagrangeParts<double, Layout> parts(hierarchy, degree, parameters, times, fine_level_data.get(), true);
          preconditioner = make_cycle<VectorType>(hierarchy, degree, parameters, parts, nullptr, log, timer);
          return;
        }
      // FP32 levels cell-contiguous whatever the outer layout (the register
      // patch kernel needs it, 000 §5.2); the conversions change the layout
      // in the same pass
      using InnerVector = CellVector<float, MemorySpace::CUDA, CellContiguous>;
      BoxLagrangeParts<float, CellContiguous> parts(hierarchy, degree, parameters, times, fine_level_data.get(), true);
      auto mixed = make_mixed<VectorType>(make_cycle<InnerVector>(hierarchy, degree, parameters, parts, nullptr, log, timer),
                                          fine.n_cells(), degree, times);
      // u += widen(z) and the next residual in one pass, for the operator
      // this solver passes to the outer iteration (timed or not)
      mixed->fuse_correction_into_residual([fine_op = box.get(), outer = outer_operator.get()](
                                             const LevelOperator<VectorType> &A, VectorType &r, const VectorType &b, VectorType &u,
                                             const VectorType &mask, const InnerVector &z) {
        if (&A != fine_op && &A != outer)
          return false;
        fine_op->add_and_masked_residual(r, b, u, mask, z);
        return true;
      });
      set_mixed_preconditioner(mixed);
    }

    // Mapped and unstructured levels, or the coefficient at the points: the
    // general operator on every level, the levels' device data built once
    // and shared by the masks, the smoothers of either precision and the
    // rebalancing.
    template <typename Layout>
    void
    MultigridSolver<Layout>::Components::set_up_general(const LevelHierarchy &hierarchy,
                                                        const GeneralKernel   kernel,
                                                        std::ostream         *log,
                                                        SetupTimes           &times)
    {
      Configuration configuration = configuration_of(hierarchy, parameters);
      configuration.backend       = Backend::cuda;
      check_supported(configuration, solver_name);
      CELLWISE_CHECK(parameters.smoother != SmootherType::patch,
                     solver_name << ": the vertex-patch smoother on mapped or unstructured cells or with a coefficient at the "
                                    "quadrature points is not built on the device (its kernels take box cells and one "
                                    "coefficient per level): use the Chebyshev or Jacobi smoother, or the host backend");
      using Operator    = general_parts::Operator<double, Layout>;
      const Level &fine = hierarchy.levels.back();
      std::vector<std::shared_ptr<const LevelData>> level_data;
      device_stage(times, "level data (neighbours, skeleton groups)",
                   [&] { level_data = general_parts::make_level_data(hierarchy, degree); });
      fine_level_data = level_data.back();
      device_stage(times, "Dirichlet masks (device)",
                   [&] { make_dirichlet_mask(*fine_level_data, degree, parameters.dirichlet_ids, mask); });
      // A mixed solve without a coefficient makes the finest level's host
      // metric once: its FP32 operator takes it rounded, bit for bit what
      // make_laplace_metric<float> would give (1.7 s of the ball's set-up
      // at L = 6, Q3, on the H200's host). With a coefficient the FP32 box
      // factors round differently, and each precision makes its own.
      std::optional<LaplaceMetric<float>> fine_metric_fp32;
      std::shared_ptr<Operator>           general;
      if (parameters.precision != Precision::fp64 && !parameters.coefficient)
        {
          LaplaceMetric<double> fine_metric;
          times.measure("FP64 operators: metric on the host", [&] {
            fine_metric = make_laplace_metric<double>(fine, degree, parameters.coefficient, parameters.coefficient_evaluation,
                                                      Operator::host_values(fine, parameters.coefficient,
                                                                            parameters.coefficient_evaluation,
                                                                            GeneralCellMetric::automatic));
          });
          general = general_parts::make_operator<double, Layout>(fine, degree, parameters, kernel, times, &fine_metric);
          times.measure("FP32 operators: finest metric rounded from FP64", [&] { fine_metric_fp32 = rounded_to_float(fine_metric); });
        }
      else
        general = general_parts::make_operator<double, Layout>(fine, degree, parameters, kernel, times);
      fine_operator = general;
      set_outer_operator();
      if (parameters.precision == Precision::fp64)
        {
          GeneralLagrangeParts<double, Layout> parts(hierarchy, level_data, degree, parameters, kernel, times, nullptr);
          preconditioner = make_cycle<VectorType>(hierarchy, degree, parameters, parts, general, log, timer);
        }
      else
        {
          using InnerVector = general_parts::LevelVector<float, Layout>;
          GeneralLagrangeParts<float, Layout> parts(hierarchy, level_data, degree, parameters, kernel, times,
                                                    fine_metric_fp32 ? &*fine_metric_fp32 : nullptr);
          auto cycle = make_cycle<InnerVector>(hierarchy, degree, parameters, parts, nullptr, log, timer);
          fine_metric_fp32.reset();
          auto mixed = make_mixed<VectorType>(std::move(cycle), fine.n_cells(), degree, times);
          // on unstructured levels the FP32 copies of a DoF differ in their
          // last bits (mixed_precision.h): one value per DoF before widening
          if (fine.has_skeleton())
            mixed->make_corrections_consistent(
              [data = fine_level_data](InnerVector &z) { apply_dss(*data, z, DssMode::mean); });
          set_mixed_preconditioner(mixed);
        }
      if (log)
        *log << "  geometry of the finest level on the device: " << general->metric_bytes() << " bytes, "
             << double(general->metric_bytes()) / (double(fine.n_cells()) * mask.dofs_per_cell()) << " B per cell-wise value"
             << std::endl;
    }

    template <typename Layout>
    bool
    MultigridSolver<Layout>::uses_general_operator(const LevelHierarchy &hierarchy, const MultigridParameters &parameters)
    {
      if (parameters.coefficient && parameters.coefficient_evaluation == CoefficientEvaluation::quadrature_points)
        return true;
      for (const Level &level : hierarchy.levels)
        if (!level.mapping.empty() || level.has_skeleton())
          return true;
      return false;
    }

    template <typename Layout>
    MultigridSolver<Layout>::MultigridSolver(const LevelHierarchy      &hierarchy,
                                             const unsigned int         degree,
                                             const MultigridParameters &parameters,
                                             std::ostream              *log,
                                             ComponentTimer            *timer,
                                             const GeneralKernel        kernel)
      : components_(std::make_unique<Components>())
    {
      // validated before any device work, so that the error is the first thing seen
      check_solver_set_up(hierarchy, degree, parameters);
      check_no_pure_neumann(parameters, solver_name);
      Components &c = *components_;
      c.parameters  = parameters;
      c.degree      = degree;
      c.timer       = timer;
      SetupTimes times;
      if (is_locally_refined(hierarchy))
        c.set_up_local_smoothing(hierarchy, log, times);
      else if ((c.general = uses_general_operator(hierarchy, parameters)))
        c.set_up_general(hierarchy, kernel, log, times);
      else
        c.set_up_box(hierarchy, log, times);
      if (log)
        times.print(*log, "set-up of " + std::to_string(hierarchy.n_levels()) + " levels on the device" +
                            (c.mesh ? ", " + std::to_string(c.mesh->n_active_cells()) + " active cells" : std::string()));
    }

    template <typename Layout>
    MultigridSolver<Layout>::~MultigridSolver() = default;

    template <typename Layout>
    bool
    MultigridSolver<Layout>::uses_general_operator() const
    {
      return components_->general;
    }

    template <typename Layout>
    bool
    MultigridSolver<Layout>::locally_refined() const
    {
      return components_->mesh != nullptr;
    }

    template <typename Layout>
    const ActiveMesh &
    MultigridSolver<Layout>::active_mesh() const
    {
      CELLWISE_CHECK(components_->mesh, solver_name << "::active_mesh: the hierarchy is uniformly refined; the solve's cells are "
                                                       "its finest level");
      return *components_->mesh;
    }

    template <typename Layout>
    unsigned int
    MultigridSolver<Layout>::n_active_cells() const
    {
      return components_->mask.n_cells();
    }

    template <typename Layout>
    const LevelOperator<typename MultigridSolver<Layout>::VectorType> &
    MultigridSolver<Layout>::fine_operator() const
    {
      return *components_->fine_operator;
    }

    template <typename Layout>
    const Preconditioner<typename MultigridSolver<Layout>::VectorType> &
    MultigridSolver<Layout>::preconditioner() const
    {
      return *components_->preconditioner;
    }

    template <typename Layout>
    const typename MultigridSolver<Layout>::VectorType &
    MultigridSolver<Layout>::dirichlet_mask() const
    {
      return components_->mask;
    }

    template <typename Layout>
    const MultigridParameters &
    MultigridSolver<Layout>::parameters() const
    {
      return components_->parameters;
    }

    template <typename Layout>
    unsigned int
    MultigridSolver<Layout>::degree() const
    {
      return components_->degree;
    }

    template <typename Layout>
    SolveStatistics
    MultigridSolver<Layout>::solve(VectorType &u, const VectorType &b, IterationControl &control) const
    {
      const auto  lock = work_space_lock_.lock("cellwise::cuda::MultigridSolver::solve");
      Components &c    = *components_;
      return solve_outer(c.parameters, *c.outer_operator, c.mask.n_cells(), c.degree, *c.preconditioner, u, b, c.mask,
                         control, [&c](VectorType &r) {
                           // on the active mesh the mixed cycle rebalances the
                           // level right-hand sides itself, after routing the
                           // refinement-edge copies (mixed_local_smoothing.h)
                           if (c.mesh)
                             return;
                           if (!c.timer)
                             return apply_dss(*c.fine_level_data, r, DssMode::mean);
                           TimedScope scope(*c.timer, "rebalancing (mean DSS)");
                           apply_dss(*c.fine_level_data, r, DssMode::mean);
                         },
                         &c.work);
    }

    CELLWISE_INSTANTIATE_LAYOUTS(MultigridSolver)
  } // namespace cuda
} // namespace cellwise
