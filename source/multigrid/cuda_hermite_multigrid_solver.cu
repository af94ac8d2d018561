// cuda::HermiteMultigridSolver (multigrid/cuda_hermite_multigrid_solver.h):
// the components of the host Hermite solver, each replaced by its device
// twin, in the shared V-cycle, mixed-precision wrapper and outer iteration
// (solve_outer: rebalancing, NaN reporting). No kernels of its own.

#include <cellwise/fe/face_dofs.h>
#include <cellwise/fe/hermite_element.h>
#include <cellwise/multigrid/adaptive_v_cycle.h>
#include <cellwise/multigrid/coarse_solvers.h>
#include <cellwise/multigrid/cuda_active_mesh_transfer.h>
#include <cellwise/multigrid/cuda_coarse_solvers.h>
#include <cellwise/multigrid/cuda_hermite_cell_transfer.h>
#include <cellwise/multigrid/cuda_hermite_multigrid_solver.h>
#include <cellwise/multigrid/cuda_hermite_vertex_patch_smoother.h>
#include <cellwise/multigrid/cuda_point_smoothers.h>
#include <cellwise/multigrid/mixed_precision.h>
#include <cellwise/storage/cuda_level_data.h>
#include <cellwise/storage/cuda_dss.h>
#include <cellwise/storage/cuda_rebalanced_rounding.h>
#include <cellwise/multigrid/outer_solvers.h>
#include <cellwise/multigrid/point_smoothers.h>
#include <cellwise/multigrid/timed_components.h>
#include <cellwise/multigrid/v_cycle.h>
#include <cellwise/operators/cuda_hermite_biharmonic_operator.h>
#include <cellwise/operators/hermite_biharmonic_operator.h>
#include <cellwise/storage/dirichlet_mask.h>

#include "level_assembly.h"

#include <iomanip>
#include <sstream>
#include <type_traits>
#include <string>
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
      using Operator = HermiteBiharmonicOperator<Number, Layout>;
      template <typename Number, typename Layout>
      using Smoother = PointChebyshevSmoother<DssJacobiPreconditioner<Number, Layout, Operator<Number, Layout>>>;

      /// The cell-contiguous host vector @p v in @p Number and @p Layout on
      /// the host (level 0's coarse solver takes its mask so).
      template <typename Number, typename Layout>
      CellVector<Number, MemorySpace::Host, Layout>
      host_copy_in(const CellVector<double> &v)
      {
        CellVector<Number, MemorySpace::Host, Layout> result(v.n_cells(), v.degree());
        for (unsigned int cell = 0; cell < v.n_cells(); ++cell)
          result.write_cell(cell, v.data() + std::size_t(cell) * v.dofs_per_cell());
        return result;
      }

      /// @p v uploaded as it is and turned into @p Number and @p Layout on
      /// the device (a relayout on the host writes a blocked vector with a
      /// stride of 32 cells: about 0.6 s for the finest mask at 2.1 M cells).
      template <typename Number, typename Layout>
      CellVector<Number, MemorySpace::CUDA, Layout>
      upload_in_layout(const CellVector<double> &v)
      {
        CellVector<double, MemorySpace::CUDA, CellContiguous> staged;
        staged.copy_from_host(v);
        CellVector<Number, MemorySpace::CUDA, Layout> result;
        result.copy_from(staged);
        return result;
      }

      /// The part the device does not have yet, refused with the host's name.
      void
      check_supported(const LevelHierarchy &hierarchy, const HermiteMultigridParameters &parameters)
      {
        cellwise::check_supported(hermite_configuration(hierarchy, parameters, Backend::cuda), "cellwise::cuda::HermiteMultigridSolver");
      }

      /// The finest level's operator and mask of a cycle.
      template <typename Number, typename Layout>
      struct Finest
      {
        std::shared_ptr<Operator<Number, Layout>> op;
        LevelVector<Number, Layout>               mask;
      };

      /// The factory of the shared level loop (level_assembly.h) for the
      /// device's Hermite levels in @p Number: level masks uploaded from the
      /// host's make_hermite_free_mask, operators, Chebyshev smoothers with
      /// their device eigenvalue estimates or the vertex-block patches, the
      /// coarse solver and the transfers; @p finest gets the finest level's
      /// operator and mask.
      template <typename Number, typename Layout>
      class HermiteLevels
      {
      public:
        using Vector   = LevelVector<Number, Layout>;
        using Operator = cuda::Operator<Number, Layout>;
        /// The level's smoother mask on the device, and on the host in FP64
        /// (the coarse solver's choice and factorization).
        struct Masks
        {
          Vector             mask;
          CellVector<double> host_mask;
        };

        HermiteLevels(const LevelHierarchy             &hierarchy,
                      const HermiteMultigridParameters &parameters,
                      const ActiveMesh                 *mesh,
                      Finest<Number, Layout>           &finest,
                      std::string                      &coarse_description)
          : hierarchy_(hierarchy)
          , parameters_(parameters)
          , mesh_(mesh)
          , finest_(finest)
          , coarse_description_(coarse_description)
        {}

        Masks
        masks(const unsigned int l) const
        {
          Masks masks;
          masks.host_mask = make_hermite_free_mask(hierarchy_.level(l), parameters_.clamped_ids);
          masks.mask      = upload_in_layout<Number, Layout>(masks.host_mask);
          CELLWISE_CHECK(l + 1 < hierarchy_.n_levels() || mesh_ || masks.host_mask.l2_norm() > 0,
                         "cuda::HermiteMultigridSolver: the finest level has no free DoF (every vertex lies on the clamped "
                         "boundary); the mesh needs at least 2 cells along every axis");
          if (l + 1 == hierarchy_.n_levels())
            finest_.mask = masks.mask;
          return masks;
        }

        std::shared_ptr<Operator>
        make_operator(const unsigned int l) const
        {
          auto op = std::make_shared<Operator>(hierarchy_.level(l));
          if (l + 1 == hierarchy_.n_levels())
            finest_.op = op;
          return op;
        }

        Vector
        shape(const unsigned int l) const
        {
          return Vector(hierarchy_.level(l).n_cells(), hermite::storage_degree);
        }

        ::cellwise::internal::Described<CoarseSolver<Vector>>
        make_coarse_solver(const std::shared_ptr<Operator> &op, const Masks &masks) const
        {
          const Level &level = hierarchy_.level(0);
          if (resolve_hermite_coarse_solver(level, masks.host_mask, parameters_.coarse_solver) == CoarseSolverType::cholesky)
            {
              // the factorization of the host operator's dense cell matrices
              const ::cellwise::HermiteBiharmonicOperator<double> host_op(level);
              auto host_solver = std::make_unique<::cellwise::CholeskyCoarseSolver<Number, Layout>>(
                level, hermite::storage_degree, hermite_trace_layers(),
                [&host_op](const unsigned int cell) { return host_op.cell_matrix(cell); },
                host_copy_in<Number, Layout>(masks.host_mask));
              coarse_description_ = "Cholesky coarse solve (" + std::to_string(host_solver->n_free_dofs()) + " free DoFs)";
              return {std::make_shared<CholeskyCoarseSolver<Number, Layout>>(level, hermite::storage_degree, std::move(host_solver)),
                      coarse_description_};
            }
          const ChebyshevParameters coarse = parameters_.chebyshev_parameters(true);
          coarse_description_              = "Chebyshev coarse solve (" + std::to_string(coarse.degree) + " stages)";
          return {std::make_shared<SmootherCoarseSolver<Vector>>(std::make_shared<Smoother<Number, Layout>>(level, *op, masks.mask, coarse), 1),
                  coarse_description_};
        }

        ::cellwise::internal::Described<LevelSmoother<Vector>>
        make_smoother(const unsigned int l, const std::shared_ptr<Operator> &op, const Masks &masks) const
        {
          if (parameters_.smoother == HermiteSmoother::chebyshev)
            {
              const ChebyshevParameters chebyshev = parameters_.chebyshev_parameters();
              return {std::make_shared<Smoother<Number, Layout>>(hierarchy_.level(l), *op, masks.mask, chebyshev),
                      "Chebyshev smoother (" + std::to_string(chebyshev.degree) + " stages)"};
            }
          // no mask: clamped and refinement-edge vertices carry no patch
          return {std::make_shared<HermiteVertexPatchSmoother<Number, Layout>>(hierarchy_.level(l), parameters_.patch_sweeps),
                  "vertex-block patch smoother (" + std::to_string(parameters_.patch_sweeps) + " sweep" +
                    (parameters_.patch_sweeps > 1 ? "s)" : ")")};
        }

        std::string
        log_line(const unsigned int l, const Operator &, const std::string &what) const
        {
          std::ostringstream line;
          line << ", ";
          if (mesh_)
            line << std::setw(10) << mesh_->active_cells[l].size() << " active, ";
          line << "Hermite Q3 on the device in " << (std::is_same_v<Number, double> ? "FP64" : "FP32") << ", " << what;
          return line.str();
        }

        template <typename Components>
        void
        add_transfers(Components &components, const std::vector<std::shared_ptr<Operator>> &) const
        {
          components.transfer = std::make_shared<HermiteCellTransfer<Number, Layout>>(hierarchy_);
        }

      private:
        const LevelHierarchy             &hierarchy_;
        const HermiteMultigridParameters &parameters_;
        const ActiveMesh                 *mesh_;
        Finest<Number, Layout>           &finest_;
        std::string                      &coarse_description_;
      };

      /// The V-cycle in @p Number on all levels of @p hierarchy (HermiteLevels);
      /// @p finest gets the finest level's operator and mask.
      template <typename Number, typename Layout>
      std::shared_ptr<Preconditioner<LevelVector<Number, Layout>>>
      make_cycle(const LevelHierarchy             &hierarchy,
                 const HermiteMultigridParameters &parameters,
                 std::ostream                     *log,
                 std::string                      &coarse_description,
                 Finest<Number, Layout>           &finest,
                 const ActiveMesh                 *mesh,
                 ComponentTimer                   *timer)
      {
        using Vector = LevelVector<Number, Layout>;
        HermiteLevels<Number, Layout>       levels(hierarchy, parameters, mesh, finest, coarse_description);
        typename VCycle<Vector>::Components cycle = ::cellwise::internal::assemble_levels(hierarchy, levels, log);
        typename VCycle<Vector>::Parameters cycle_parameters;
        cycle_parameters.pre_direction  = SweepDirection::forward;
        cycle_parameters.post_direction = parameters.post_direction;
        if (timer)
          time_cycle_components<Vector>(cycle, *timer,
                                        parameters.smoother == HermiteSmoother::chebyshev ? "Chebyshev-Jacobi smoother"
                                                                                          : "vertex-block patch smoother");
        std::shared_ptr<Preconditioner<Vector>> v_cycle;
        if (!mesh)
          v_cycle = std::make_shared<VCycle<Vector>>(std::move(cycle), cycle_parameters);
        else
          // local smoothing: the shared cycle with the device distribution and
          // reassembly between active and level vectors
          v_cycle = std::make_shared<LocalSmoothingVCycle<Vector>>(std::make_shared<ActiveMeshTransfer<Number, Layout>>(*mesh),
                                                                   std::move(cycle), cycle_parameters);
        if (!timer)
          return v_cycle;
        return std::make_shared<TimedPreconditioner<Vector>>(v_cycle, *timer, "cycle: zero fills, vector operations");
      }
    } // namespace

    template <typename Layout>
    struct HermiteMultigridSolver<Layout>::Components
    {
      using VectorT = typename HermiteMultigridSolver<Layout>::VectorType;
      /// A locally refined hierarchy's active cells (the cycle's distribution
      /// and reassembly are built from them, so they are declared first).
      ActiveMesh mesh;
      bool       locally_refined = false;
      /// The FP64 operator of the outer iteration on the finest level.
      std::shared_ptr<Operator<double, Layout>> fine_operator;
      /// The same, reporting to the solver's timer (null without one).
      std::shared_ptr<LevelOperator<VectorT>> fine_operator_timed;
      std::shared_ptr<Preconditioner<VectorT>> preconditioner;
      /// The finest level's DSS data, for the rebalancing of the residual,
      /// and whether the mixed preconditioner's rounding does it (on a box).
      std::unique_ptr<LevelData> fine_level_data;
      bool                       rebalanced_rounding = false;
      /// The outer iteration as the shared solve_outer takes it, and its
      /// work vectors, kept between solves.
      MultigridParameters       outer;
      OuterWorkVectors<VectorT> work;
    };

    template <typename Layout>
    HermiteMultigridSolver<Layout>::HermiteMultigridSolver(const LevelHierarchy             &hierarchy,
                                                           const HermiteMultigridParameters &parameters,
                                                           std::ostream                     *log,
                                                           ComponentTimer                   *timer)
      : components_(std::make_unique<Components>())
    {
      parameters.check();
      CELLWISE_CHECK(hierarchy.n_levels() >= 1, "cuda::HermiteMultigridSolver: the hierarchy has no level");
      check_dirichlet_ids(hierarchy.level(0), parameters.clamped_ids);
      check_supported(hierarchy, parameters);
      const Level &fine = hierarchy.levels.back();
      if (is_locally_refined(hierarchy))
        {
          // vectors on the active cells; their operator and clamped mask
          components_->locally_refined = true;
          components_->mesh            = make_active_mesh(hierarchy);
          Finest<double, Layout> finest;
          components_->preconditioner =
            make_cycle<double, Layout>(hierarchy, parameters, log, coarse_description_, finest, &components_->mesh, timer);
          components_->fine_operator = std::make_shared<Operator<double, Layout>>(components_->mesh.level);
          const CellVector<double> active_mask = make_hermite_active_mask(hierarchy, components_->mesh, parameters.clamped_ids);
          CELLWISE_CHECK(active_mask.l2_norm() > 0, "cuda::HermiteMultigridSolver: the active mesh has no free DoF");
          mask_ = upload_in_layout<double, Layout>(active_mask);
        }
      else if (parameters.precision == Precision::fp64)
        {
          Finest<double, Layout> finest;
          components_->preconditioner = make_cycle<double, Layout>(hierarchy, parameters, log, coarse_description_, finest, nullptr, timer);
          components_->fine_operator  = finest.op;
          mask_                       = std::move(finest.mask);
        }
      else
        {
          // the FP32 cycle inside the FP64 outer iteration; its finest operator
          // and mask stay FP32, the outer ones are built in FP64
          using InnerVector = LevelVector<float, Layout>;
          Finest<float, Layout> finest;
          auto                  cycle = make_cycle<float, Layout>(hierarchy, parameters, log, coarse_description_, finest, nullptr, timer);
          auto                  mixed = std::make_shared<MixedPrecisionPreconditioner<VectorType, InnerVector>>(
            cycle, InnerVector(fine.n_cells(), hermite::storage_degree));
          components_->fine_operator = std::make_shared<Operator<double, Layout>>(fine);
          mask_ = upload_in_layout<double, Layout>(make_hermite_free_mask(fine, parameters.clamped_ids));
          components_->fine_level_data = std::make_unique<LevelData>(fine); // the rebalancing's DSS
          // On a box the rounding rebalances in its own pass (at every step:
          // it costs no pass), so the outer iteration does not; 0 (never)
          // keeps the plain rounding. Blocked layout only: cell-contiguous
          // the fused pass's gathers do not coalesce and it took 4.4 ms
          // against 3.9 for the three passes it replaces (H100, L = 6).
          if (Layout::cell_block > 1 && parameters.rebalance_every != 0 && components_->fine_level_data->fills_box())
            {
              const LevelData &data = *components_->fine_level_data;
              mixed->fuse_rebalancing_into_rounding(
                {[&data](const VectorType &r, InnerVector &rounded) { round_rebalanced(data, r, rounded); },
                 [&data](VectorType &r, const double a, const VectorType &q, InnerVector &rounded) {
                   add_rebalance_and_round(data, r, a, q, rounded);
                 }});
              components_->rebalanced_rounding = true;
            }
          components_->preconditioner = std::move(mixed);
        }
      // the outer iteration's masked operator reads the mask as bits in its
      // pass (the even–odd and dense kernels; sum factorization scales after)
      components_->fine_operator->use_dirichlet_mask(mask_);
      if (timer)
        {
          components_->fine_operator_timed =
            std::make_shared<TimedLevelOperator<VectorType>>(components_->fine_operator, *timer, "FP64 operator");
          if (parameters.precision == Precision::mixed)
            components_->preconditioner = std::make_shared<TimedPreconditioner<VectorType>>(
              components_->preconditioner, *timer,
              components_->rebalanced_rounding ? "FP64/FP32 conversions, rebalanced" : "FP64/FP32 conversions",
              "correction update (widened)");
        }
      MultigridParameters &outer   = components_->outer;
      outer.outer                  = parameters.stationary ? OuterIteration::stationary : OuterIteration::cg;
      outer.precision              = parameters.precision;
      // the Poisson recipe by default (every step of the stationary iteration,
      // every third of CG): the Hermite element needs it no more often, but
      // needs it (doc/hermite.md); none where the rounding rebalances
      outer.rebalance_every = components_->rebalanced_rounding ? 0 : parameters.rebalance_every;
    }

    template <typename Layout>
    HermiteMultigridSolver<Layout>::~HermiteMultigridSolver() = default;

    template <typename Layout>
    const LevelOperator<typename HermiteMultigridSolver<Layout>::VectorType> &
    HermiteMultigridSolver<Layout>::fine_operator() const
    {
      return *components_->fine_operator;
    }

    template <typename Layout>
    const Preconditioner<typename HermiteMultigridSolver<Layout>::VectorType> &
    HermiteMultigridSolver<Layout>::preconditioner() const
    {
      return *components_->preconditioner;
    }

    template <typename Layout>
    SolveStatistics
    HermiteMultigridSolver<Layout>::solve(VectorType &u, const VectorType &b, IterationControl &control) const
    {
      const auto lock = work_space_lock_.lock("cellwise::cuda::HermiteMultigridSolver::solve");
      // a given start is made clamped; an empty u is the zero guess (solve_outer)
      if (u.n_cells() != 0)
        {
          CELLWISE_CHECK(u.n_cells() == mask_.n_cells() && u.degree() == mask_.degree(),
                         "cuda::HermiteMultigridSolver: initial guess of " << u.n_cells() << " cells of degree " << u.degree()
                                                                           << " for " << mask_.n_cells() << " cells");
          u.scale(mask_);
        }
      const LevelOperator<VectorType> &A = components_->fine_operator_timed
                                             ? *components_->fine_operator_timed
                                             : static_cast<const LevelOperator<VectorType> &>(*components_->fine_operator);
      // NaN or infinity in b or u: named by solve_outer from the first monitor
      return solve_outer(components_->outer, A, mask_.n_cells(), hermite::storage_degree,
                         *components_->preconditioner, u, b, mask_, control, [this](VectorType &r) {
                           // called in mixed precision only, which has the finest level's data
                           apply_dss(*components_->fine_level_data, r, DssMode::mean, hermite_trace_layers());
                         },
                         &components_->work);
    }

    CELLWISE_INSTANTIATE_LAYOUTS(HermiteMultigridSolver)
  } // namespace cuda
} // namespace cellwise
