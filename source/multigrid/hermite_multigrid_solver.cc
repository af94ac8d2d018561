#include <cellwise/fe/face_dofs.h>
#include <cellwise/multigrid/coarse_solvers.h>
#include <cellwise/multigrid/dss_jacobi_preconditioner.h>
#include <cellwise/multigrid/hermite_cell_transfer.h>
#include <cellwise/multigrid/hermite_multigrid_solver.h>
#include <cellwise/multigrid/hermite_vertex_patch_smoother.h>
#include <cellwise/multigrid/outer_solvers.h>
#include <cellwise/multigrid/point_smoothers.h>
#include <cellwise/multigrid/v_cycle.h>
#include <cellwise/operators/hermite_biharmonic_operator.h>
#include <cellwise/storage/dirichlet_mask.h>

#include <iomanip>
#include <string>

namespace cellwise
{
  namespace
  {
    using Operator  = HermiteBiharmonicOperator<double>;
    using Smoother  = PointChebyshevSmoother<DssJacobiPreconditioner<double, CellContiguous, Operator>>;
    using VectorT   = CellVector<double>;
  } // namespace

  void
  HermiteMultigridParameters::check() const
  {
    CELLWISE_CHECK(chebyshev_degree >= 1, "Hermite multigrid: Chebyshev degree must be at least 1, got " << chebyshev_degree);
    CELLWISE_CHECK(coarse_chebyshev_degree >= 1,
                   "Hermite multigrid: the coarse Chebyshev degree must be at least 1, got " << coarse_chebyshev_degree);
    CELLWISE_CHECK(smoothing_range > 1, "Hermite multigrid: smoothing range " << smoothing_range << " must exceed 1");
    CELLWISE_CHECK(smoother != HermiteSmoother::vertex_patch || clamped_ids.empty(),
                   "Hermite multigrid: the vertex-patch smoother needs the whole boundary clamped (its patches are the "
                   "interior vertices; a free boundary vertex would never be smoothed)");
    CELLWISE_CHECK(stationary || post_direction == SweepDirection::reverse || smoother != HermiteSmoother::vertex_patch,
                   "Hermite multigrid: CG needs a symmetric cycle; the forward post-smoothing patch cycle is not (use the "
                   "stationary iteration)");
  }

  struct HermiteMultigridSolver::Components
  {
    std::vector<std::shared_ptr<Operator>> operators;
    std::vector<VectorT>                   masks;
    std::shared_ptr<VCycle<VectorT>>       cycle;
  };

  HermiteMultigridSolver::HermiteMultigridSolver(const LevelHierarchy             &hierarchy,
                                                 const HermiteMultigridParameters &parameters,
                                                 std::ostream                     *log)
    : components_(std::make_unique<Components>())
  {
    parameters.check();
    CELLWISE_CHECK(hierarchy.n_levels() >= 1, "Hermite multigrid: the hierarchy has no level");
    check_dirichlet_ids(hierarchy.level(0), parameters.clamped_ids);
    typename VCycle<VectorT>::Components cycle;
    for (unsigned int l = 0; l < hierarchy.n_levels(); ++l)
      {
        const Level &level = hierarchy.level(l);
        auto         op    = std::make_shared<Operator>(level);
        components_->masks.push_back(
          make_dirichlet_mask<double>(level, hermite::storage_degree, parameters.clamped_ids, hermite_trace_layers()));
        const VectorT &mask = components_->masks.back();
        CELLWISE_CHECK(l + 1 < hierarchy.n_levels() || mask.l2_norm() > 0,
                       "Hermite multigrid: the finest level has no free DoF (every vertex lies on the clamped boundary); "
                       "the mesh needs at least 2 cells along every axis");
        ChebyshevParameters chebyshev;
        chebyshev.degree          = l == 0 ? parameters.coarse_chebyshev_degree : parameters.chebyshev_degree;
        chebyshev.smoothing_range = parameters.smoothing_range;
        if (l == 0)
          {
            auto coarse = std::make_shared<Smoother>(level, *op, mask, chebyshev);
            cycle.smoothers.push_back(nullptr);
            cycle.coarse_solver = std::make_shared<SmootherCoarseSolver<VectorT>>(coarse, 1);
          }
        else if (parameters.smoother == HermiteSmoother::chebyshev)
          cycle.smoothers.push_back(std::make_shared<Smoother>(level, *op, mask, chebyshev));
        else
          cycle.smoothers.push_back(std::make_shared<HermiteVertexPatchSmoother<double>>(level, *op));
        cycle.operators.push_back(op);
        cycle.level_shapes.push_back(VectorT(level.n_cells(), hermite::storage_degree));
        components_->operators.push_back(op);
        if (log)
          *log << "  level " << std::setw(2) << l << ": " << std::setw(10) << level.n_cells() << " cells, Hermite Q3, "
               << (l == 0 ? "Chebyshev coarse solve (" + std::to_string(chebyshev.degree) + " stages)"
                          : (parameters.smoother == HermiteSmoother::chebyshev
                               ? "Chebyshev smoother (" + std::to_string(chebyshev.degree) + " stages)"
                               : std::string("vertex-block patch smoother")))
               << std::endl;
      }
    if (hierarchy.n_levels() > 1)
      cycle.transfer = std::make_shared<HermiteCellTransfer<double>>(hierarchy);
    typename VCycle<VectorT>::Parameters cycle_parameters;
    cycle_parameters.pre_direction  = SweepDirection::forward;
    cycle_parameters.post_direction = parameters.post_direction;
    components_->cycle              = std::make_shared<VCycle<VectorT>>(std::move(cycle), cycle_parameters);
    mask_                           = components_->masks.back();
    stationary_                     = parameters.stationary;
  }

  HermiteMultigridSolver::~HermiteMultigridSolver() = default;

  const LevelOperator<HermiteMultigridSolver::VectorType> &
  HermiteMultigridSolver::fine_operator() const
  {
    return *components_->operators.back();
  }

  const Preconditioner<HermiteMultigridSolver::VectorType> &
  HermiteMultigridSolver::preconditioner() const
  {
    return *components_->cycle;
  }

  SolveStatistics
  HermiteMultigridSolver::solve(VectorType &u, const VectorType &b, IterationControl &control) const
  {
    CELLWISE_CHECK(b.has_shape_of(mask_), "HermiteMultigridSolver: right-hand side of " << b.n_cells() << " cells of degree "
                                                                                        << b.degree() << " for a level of "
                                                                                        << mask_.n_cells() << " cells");
    CELLWISE_CHECK(b.all_finite(), "HermiteMultigridSolver: the right-hand side has NaN or infinite entries");
    if (!u.has_shape_of(b))
      u.reinit(b);
    u.scale(mask_);
    if (stationary_)
      return solve_stationary(fine_operator(), preconditioner(), u, b, mask_, control);
    return solve_cg(fine_operator(), preconditioner(), u, b, mask_, control);
  }
} // namespace cellwise
