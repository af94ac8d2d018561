#include <cellwise/fe/face_dofs.h>
#include <cellwise/multigrid/coarse_solvers.h>
#include <cellwise/multigrid/dss_jacobi_preconditioner.h>
#include <cellwise/multigrid/hermite_cell_transfer.h>
#include <cellwise/multigrid/hermite_multigrid_solver.h>
#include <cellwise/multigrid/hermite_vertex_patch_smoother.h>
#include <cellwise/multigrid/mixed_precision.h>
#include <cellwise/multigrid/outer_solvers.h>
#include <cellwise/multigrid/point_smoothers.h>
#include <cellwise/multigrid/refinement_edge.h>
#include <cellwise/multigrid/v_cycle.h>
#include <cellwise/operators/hermite_biharmonic_operator.h>
#include <cellwise/operators/hermite_function_tools.h>
#include <cellwise/storage/dof_numbering.h>
#include <cellwise/storage/dirichlet_mask.h>
#include <cellwise/storage/dss.h>

#include "level_assembly.h"

#include <algorithm>
#include <functional>
#include <iomanip>
#include <sstream>
#include <string>

namespace cellwise
{
  namespace
  {
    template <typename Number>
    using OperatorT = HermiteBiharmonicOperator<Number>;
    template <typename Number>
    using SmootherT = PointChebyshevSmoother<DssJacobiPreconditioner<Number, CellContiguous, OperatorT<Number>>>;
    template <typename Number>
    using VectorN  = CellVector<Number>;
    using Operator = OperatorT<double>;
    using VectorT  = VectorN<double>;
  } // namespace

  void
  HermiteMultigridParameters::check() const
  {
    CELLWISE_CHECK(chebyshev_degree >= 1, "Hermite multigrid: Chebyshev degree must be at least 1, got " << chebyshev_degree);
    CELLWISE_CHECK(patch_sweeps >= 1, "Hermite multigrid: patch sweeps must be at least 1, got " << patch_sweeps);
    CELLWISE_CHECK(coarse_chebyshev_degree >= 1,
                   "Hermite multigrid: the coarse Chebyshev degree must be at least 1, got " << coarse_chebyshev_degree);
    CELLWISE_CHECK(smoothing_range > 1, "Hermite multigrid: smoothing range " << smoothing_range << " must exceed 1");
    CELLWISE_CHECK(coarse_solver == CoarseSolverType::automatic || coarse_solver == CoarseSolverType::cholesky ||
                     coarse_solver == CoarseSolverType::smoother,
                   "Hermite multigrid: coarse solver " << to_string(coarse_solver)
                                                       << " is not available for the Hermite element; use auto, cholesky or smoother");
    CELLWISE_CHECK(rebalance_every >= -1, "Hermite multigrid: rebalance period " << rebalance_every << " (use -1, 0 or k > 0)");
    CELLWISE_CHECK(smoother != HermiteSmoother::vertex_patch || clamped_ids.empty(),
                   "Hermite multigrid: the vertex-patch smoother needs the whole boundary clamped (its patches are the "
                   "interior vertices; a free boundary vertex would never be smoothed)");
    CELLWISE_CHECK(stationary || post_direction == SweepDirection::reverse || smoother != HermiteSmoother::vertex_patch,
                   "Hermite multigrid: CG needs a symmetric cycle; the forward post-smoothing patch cycle is not (use the "
                   "stationary iteration)");
  }

  struct HermiteMultigridSolver::Components
  {
    /// The FP64 operator of the finest level (uniform hierarchies): the
    /// FP64 cycle's own, or in mixed precision one for the outer residual.
    std::shared_ptr<const LevelOperator<VectorT>> finest_operator;
    std::vector<VectorT>                          free_masks;
    /// Mixed precision: the finest level's DSS pattern for the rebalancing,
    /// and the outer iteration as solve_outer takes it.
    const Level        *fine_level = nullptr;
    MultigridParameters outer;
    /// The outer iteration's work vectors, kept between solves.
    OuterWorkVectors<VectorT> work;
    /// Locally refined hierarchies only: the active cells (the local-smoothing
    /// cycle keeps a reference, so they are declared before it) and their
    /// operator.
    ActiveMesh                mesh;
    std::shared_ptr<Operator> active_operator;
    /// The uniform cycle or the local-smoothing one.
    std::shared_ptr<Preconditioner<VectorT>> cycle;
    const Level              *active_level = nullptr;
  };

  namespace
  {
    /// The dense coarse solve where level 0 is small, else the Chebyshev
    /// smoother; its description for the log. @p mask in @p Number, @p
    /// double_mask the same in FP64 (the coarse solver's choice).
    template <typename Number>
    std::shared_ptr<const CoarseSolver<VectorN<Number>>>
    make_coarse_solver(const Level                      &level,
                       const OperatorT<Number>          &op,
                       const VectorN<Number>            &mask,
                       const VectorT                    &double_mask,
                       const HermiteMultigridParameters &parameters,
                       std::string                      &description)
    {
      const CoarseSolverType type = resolve_hermite_coarse_solver(level, double_mask, parameters.coarse_solver);
      if (type == CoarseSolverType::cholesky)
        {
          // factorized in double from the FP64 cell matrices, applied in Number
          const Operator double_op(level);
          auto           solver = std::make_shared<CholeskyCoarseSolver<Number>>(
            level, hermite::storage_degree, hermite_trace_layers(),
            [&double_op](const unsigned int cell) { return double_op.cell_matrix(cell); }, mask);
          description = "Cholesky coarse solve (" + std::to_string(solver->n_free_dofs()) + " free DoFs)";
          return solver;
        }
      const ChebyshevParameters chebyshev = parameters.chebyshev_parameters(true);
      description                         = "Chebyshev coarse solve (" + std::to_string(chebyshev.degree) + " stages)";
      return std::make_shared<SmootherCoarseSolver<VectorN<Number>>>(std::make_shared<SmootherT<Number>>(level, op, mask, chebyshev), 1);
    }

    /// The factory of the shared level loop (level_assembly.h) for the
    /// Hermite levels in @p Number: per level the FP64 smoother mask
    /// (make_hermite_free_mask, kept in @p free_masks with the cells at the
    /// level's refinement edge in @p edge_cells), its operator, the smoother
    /// (Chebyshev over the masked DSS-Jacobi, or the vertex-block patches)
    /// and level 0's coarse solver; the transfers.
    template <typename Number>
    class HermiteLevels
    {
    public:
      using Vector   = VectorN<Number>;
      using Operator = OperatorT<Number>;
      /// The level's smoother mask in Number, and in FP64 (the coarse
      /// solver's choice).
      struct Masks
      {
        Vector         mask;
        const VectorT *double_mask;
      };

      /// @p log_line(l, what): the log line's words after "N cells".
      HermiteLevels(const LevelHierarchy                                                 &hierarchy,
                    const HermiteMultigridParameters                                     &parameters,
                    const bool                                                            locally_refined,
                    std::vector<VectorT>                                                 &free_masks,
                    std::vector<unsigned int>                                            &edge_cells,
                    const std::function<std::string(unsigned int, const std::string &)> &log_line)
        : hierarchy_(hierarchy)
        , parameters_(parameters)
        , locally_refined_(locally_refined)
        , free_masks_(free_masks)
        , edge_cells_(edge_cells)
        , log_line_(log_line)
      {}

      Masks
      masks(const unsigned int l)
      {
        if (free_masks_.size() == l) // the first cycle made (mixed: both make the same FP64 masks)
          {
            // clamped and refinement-edge vertices: all eight DoFs (doc/hermite.md)
            edge_cells_.push_back(0);
            free_masks_.push_back(make_hermite_free_mask(hierarchy_.level(l), parameters_.clamped_ids, &edge_cells_.back()));
            CELLWISE_CHECK(l + 1 < hierarchy_.n_levels() || locally_refined_ || free_masks_.back().l2_norm() > 0,
                           "Hermite multigrid: the finest level has no free DoF (every vertex lies on the clamped boundary); "
                           "the mesh needs at least 2 cells along every axis");
          }
        Masks masks{Vector(), &free_masks_[l]};
        masks.mask.copy_from(free_masks_[l]);
        return masks;
      }

      std::shared_ptr<Operator>
      make_operator(const unsigned int l) const
      {
        return std::make_shared<Operator>(hierarchy_.level(l));
      }

      Vector
      shape(const unsigned int l) const
      {
        return Vector(hierarchy_.level(l).n_cells(), hermite::storage_degree);
      }

      internal::Described<CoarseSolver<Vector>>
      make_coarse_solver(const std::shared_ptr<Operator> &op, const Masks &masks)
      {
        internal::Described<CoarseSolver<Vector>> coarse;
        coarse.component   = cellwise::make_coarse_solver<Number>(hierarchy_.level(0), *op, masks.mask, *masks.double_mask,
                                                                parameters_, coarse_description_);
        coarse.description = coarse_description_;
        return coarse;
      }

      /// The coarse solver's words, once it is made.
      const std::string &
      coarse_description() const
      {
        return coarse_description_;
      }

      internal::Described<LevelSmoother<Vector>>
      make_smoother(const unsigned int l, const std::shared_ptr<Operator> &op, const Masks &masks) const
      {
        if (parameters_.smoother == HermiteSmoother::chebyshev)
          {
            const ChebyshevParameters chebyshev = parameters_.chebyshev_parameters();
            return {std::make_shared<SmootherT<Number>>(hierarchy_.level(l), *op, masks.mask, chebyshev),
                    "Chebyshev smoother (" + std::to_string(chebyshev.degree) + " stages)"};
          }
        // no mask: clamped and refinement-edge vertices carry no patch
        return {std::make_shared<HermiteVertexPatchSmoother<Number>>(hierarchy_.level(l), *op, parameters_.patch_sweeps),
                "vertex-block patch smoother (" + std::to_string(parameters_.patch_sweeps) + " sweep" +
                  (parameters_.patch_sweeps > 1 ? "s)" : ")")};
      }

      std::string
      log_line(const unsigned int l, const Operator &, const std::string &what) const
      {
        return log_line_(l, what);
      }

      template <typename Components>
      void
      add_transfers(Components &components, const std::vector<std::shared_ptr<Operator>> &) const
      {
        components.transfer = std::make_shared<HermiteCellTransfer<Number>>(hierarchy_);
      }

    private:
      const LevelHierarchy                                                 &hierarchy_;
      const HermiteMultigridParameters                                     &parameters_;
      const bool                                                            locally_refined_;
      std::vector<VectorT>                                                 &free_masks_;
      std::vector<unsigned int>                                            &edge_cells_;
      const std::function<std::string(unsigned int, const std::string &)>  log_line_;
      std::string                                                           coarse_description_;
    };
  } // namespace

  CellVector<double>
  make_hermite_free_mask(const Level &level, const std::vector<unsigned int> &clamped_ids, unsigned int *edge_cells)
  {
    VectorT      mask  = make_dirichlet_mask<double>(level, hermite::storage_degree, clamped_ids, hermite_trace_layers());
    unsigned int count = 0;
    if (has_refinement_edge(level))
      {
        const VectorT edge = make_refinement_edge_mask<double>(level, hermite::storage_degree, hermite_trace_layers());
        for (unsigned int cell = 0; cell < level.n_cells(); ++cell)
          {
            bool touches = false;
            for (unsigned int i = 0; i < hermite::dofs_per_cell; ++i)
              if (edge(cell, i) != 0.)
                {
                  mask(cell, i) = 0.;
                  touches       = true;
                }
            count += touches;
          }
      }
    if (edge_cells)
      *edge_cells = count;
    return mask;
  }

  CellVector<double>
  make_hermite_active_mask(const LevelHierarchy &hierarchy, const ActiveMesh &mesh, const std::vector<unsigned int> &clamped_ids)
  {
    CELLWISE_CHECK(mesh.n_levels() == hierarchy.n_levels(),
                   "make_hermite_active_mask: an active mesh of " << mesh.n_levels() << " levels for a hierarchy of "
                                                                  << hierarchy.n_levels());
    return internal::make_active_dirichlet_mask<double>(hierarchy, mesh, hermite::storage_degree, clamped_ids, hermite_trace_layers());
  }

  CoarseSolverType
  resolve_hermite_coarse_solver(const Level &level, const CellVector<double> &mask, const CoarseSolverType requested)
  {
    if (requested != CoarseSolverType::automatic)
      return requested;
    const DofNumbering numbering = make_dof_numbering(level, hermite::storage_degree, hermite_trace_layers());
    std::vector<bool>  is_free(numbering.n_unique, true);
    for (unsigned int cell = 0; cell < level.n_cells(); ++cell)
      for (unsigned int i = 0; i < hermite::dofs_per_cell; ++i)
        if (mask(cell, i) == 0.)
          is_free[numbering(cell, i)] = false;
    const auto n_free = static_cast<unsigned int>(std::count(is_free.begin(), is_free.end(), true));
    return n_free <= hermite_cholesky_max_dofs ? CoarseSolverType::cholesky : CoarseSolverType::smoother;
  }

  Configuration
  hermite_configuration(const LevelHierarchy &hierarchy, const HermiteMultigridParameters &parameters, const Backend backend)
  {
    Configuration configuration;
    configuration.equation   = Equation::biharmonic;
    configuration.refinement = is_locally_refined(hierarchy) ? MeshRefinement::local : MeshRefinement::uniform;
    configuration.precision  = parameters.precision;
    configuration.smoother   = parameters.smoother == HermiteSmoother::vertex_patch ? SmootherType::patch : SmootherType::chebyshev;
    configuration.backend    = backend;
    return configuration;
  }

  HermiteMultigridSolver::HermiteMultigridSolver(const LevelHierarchy             &hierarchy,
                                                 const HermiteMultigridParameters &parameters,
                                                 std::ostream                     *log)
    : components_(std::make_unique<Components>())
  {
    parameters.check();
    CELLWISE_CHECK(hierarchy.n_levels() >= 1, "Hermite multigrid: the hierarchy has no level");
    check_dirichlet_ids(hierarchy.level(0), parameters.clamped_ids);
    CELLWISE_CHECK(!has_refinement_edge(hierarchy.level(0)), "Hermite multigrid: level 0 must cover the domain");
    locally_refined_ = is_locally_refined(hierarchy);
    const bool mixed = parameters.precision == Precision::mixed;
    check_supported(hermite_configuration(hierarchy, parameters, Backend::host), "cellwise::HermiteMultigridSolver");
    if (locally_refined_)
      components_->mesh = make_active_mesh(hierarchy);
    // the FP64 smoother mask of every level (the API's; the FP64 cycle's),
    // made with the first level of the cycle, and the cells at each level's
    // refinement edge
    std::vector<unsigned int> edge_cells;
    const auto log_line = [&](const unsigned int l, const std::string &what) {
      std::ostringstream line;
      line << ", ";
      if (locally_refined_)
        line << std::setw(10) << components_->mesh.active_cells[l].size() << " active, ";
      line << "Hermite Q3, " << (mixed ? "FP32, " : "") << what;
      // the share of cells at the refinement edge drives the counts (001 §6.5)
      if (edge_cells[l] > 0)
        line << ", " << edge_cells[l] << " cells at the refinement edge (" << std::fixed << std::setprecision(1)
             << 100. * edge_cells[l] / hierarchy.level(l).n_cells() << " %)";
      return line.str();
    };
    typename VCycle<VectorT>::Parameters cycle_parameters;
    cycle_parameters.pre_direction  = SweepDirection::forward;
    cycle_parameters.post_direction = parameters.post_direction;
    if (!mixed)
      {
        HermiteLevels<double>                levels(hierarchy, parameters, locally_refined_, components_->free_masks, edge_cells, log_line);
        typename VCycle<VectorT>::Components cycle = internal::assemble_levels(hierarchy, levels, log);
        coarse_description_                        = levels.coarse_description();
        components_->finest_operator = cycle.operators.back();
        if (locally_refined_)
          {
            const ActiveMesh &mesh       = components_->mesh;
            mask_                        = make_hermite_active_mask(hierarchy, mesh, parameters.clamped_ids);
            components_->active_operator = std::make_shared<Operator>(mesh.level);
            components_->active_level    = &mesh.level;
            CELLWISE_CHECK(mask_.l2_norm() > 0, "Hermite multigrid: the active mesh has no free DoF");
            components_->cycle = std::make_shared<AdaptiveVCycle<double>>(mesh, std::move(cycle), cycle_parameters);
          }
        else
          {
            components_->active_level = &hierarchy.level(hierarchy.n_levels() - 1);
            mask_                     = components_->free_masks.back();
            components_->cycle        = std::make_shared<VCycle<VectorT>>(std::move(cycle), cycle_parameters);
          }
      }
    else
      {
        // the FP32 cycle inside the FP64 outer iteration (000 §4), as the
        // device solver's; an FP64 operator for the API and the outer residual
        using InnerVector = VectorN<float>;
        HermiteLevels<float>                     levels(hierarchy, parameters, locally_refined_, components_->free_masks, edge_cells, log_line);
        typename VCycle<InnerVector>::Components cycle = internal::assemble_levels(hierarchy, levels, log);
        coarse_description_                            = levels.coarse_description();
        typename VCycle<InnerVector>::Parameters inner_parameters;
        inner_parameters.pre_direction  = cycle_parameters.pre_direction;
        inner_parameters.post_direction = cycle_parameters.post_direction;
        const Level &fine               = hierarchy.level(hierarchy.n_levels() - 1);
        auto         inner              = std::make_shared<VCycle<InnerVector>>(std::move(cycle), inner_parameters);
        components_->cycle              = std::make_shared<MixedPrecisionPreconditioner<VectorT, InnerVector>>(
          inner, InnerVector(fine.n_cells(), hermite::storage_degree));
        components_->finest_operator = std::make_shared<Operator>(fine);
        components_->active_level    = &fine;
        components_->fine_level      = &fine;
        mask_                        = components_->free_masks.back();
      }
    MultigridParameters &outer = components_->outer;
    outer.outer                = parameters.stationary ? OuterIteration::stationary : OuterIteration::cg;
    outer.precision            = parameters.precision;
    outer.rebalance_every      = parameters.rebalance_every; // the Poisson recipe by default (doc/hermite.md)
    stationary_ = parameters.stationary;
  }

  HermiteMultigridSolver::~HermiteMultigridSolver() = default;

  const Level &
  HermiteMultigridSolver::active_level() const
  {
    return *components_->active_level;
  }

  const ActiveMesh &
  HermiteMultigridSolver::active_mesh() const
  {
    CELLWISE_CHECK(locally_refined_, "HermiteMultigridSolver: a uniform hierarchy has no separate active mesh (its active "
                                     "cells are the finest level's)");
    return components_->mesh;
  }

  const HermiteMultigridSolver::VectorType &
  HermiteMultigridSolver::free_mask(const unsigned int level) const
  {
    CELLWISE_CHECK(level < components_->free_masks.size(),
                   "HermiteMultigridSolver: level " << level << " of " << components_->free_masks.size());
    return components_->free_masks[level];
  }

  const LevelOperator<HermiteMultigridSolver::VectorType> &
  HermiteMultigridSolver::fine_operator() const
  {
    if (locally_refined_)
      return *components_->active_operator;
    return *components_->finest_operator;
  }

  const Preconditioner<HermiteMultigridSolver::VectorType> &
  HermiteMultigridSolver::preconditioner() const
  {
    return *components_->cycle;
  }

  void
  HermiteMultigridSolver::assemble_right_hand_side(const ScalarFunction &f, VectorType &b, const unsigned int n_q_points) const
  {
    assemble_hermite_right_hand_side(active_level(), f, b, n_q_points);
  }

  double
  HermiteMultigridSolver::compute_l2_error(const VectorType &u, const ScalarFunction &exact, const unsigned int n_q_points) const
  {
    return compute_hermite_l2_error(active_level(), u, exact, true, n_q_points);
  }

  SolveStatistics
  HermiteMultigridSolver::solve(VectorType &u, const VectorType &b, IterationControl &control) const
  {
    const auto lock = work_space_lock_.lock("cellwise::HermiteMultigridSolver::solve");
    CELLWISE_CHECK(b.has_shape_of(mask_), "HermiteMultigridSolver: right-hand side of " << b.n_cells() << " cells of degree "
                                                                                        << b.degree() << " for "
                                                                                        << mask_.n_cells() << " active cells");
    CELLWISE_CHECK(b.all_finite(), "HermiteMultigridSolver: the right-hand side has NaN or infinite entries");
    if (!u.has_shape_of(b))
      u.reinit(b);
    u.scale(mask_);
    if (components_->fine_level) // mixed precision: the outer iteration with the rebalancing
      return solve_outer(components_->outer, fine_operator(), mask_.n_cells(), hermite::storage_degree, preconditioner(), u, b,
                         mask_, control, [this](VectorT &r) {
                           apply_dss(*components_->fine_level, r, DssMode::mean, hermite_trace_layers());
                         },
                         &components_->work);
    if (stationary_)
      return solve_stationary(fine_operator(), preconditioner(), u, b, mask_, control, {}, false, &components_->work);
    return solve_cg(fine_operator(), preconditioner(), u, b, mask_, control, {}, 1, &components_->work);
  }
} // namespace cellwise
