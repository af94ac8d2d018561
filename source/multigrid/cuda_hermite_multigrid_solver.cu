// cuda::HermiteMultigridSolver (multigrid/cuda_hermite_multigrid_solver.h):
// the components of the host Hermite solver, each replaced by its device
// twin, in the shared V-cycle and outer iterations. No kernels of its own.

#include <cellwise/fe/face_dofs.h>
#include <cellwise/fe/hermite_element.h>
#include <cellwise/multigrid/coarse_solvers.h>
#include <cellwise/multigrid/cuda_coarse_solvers.h>
#include <cellwise/multigrid/cuda_hermite_cell_transfer.h>
#include <cellwise/multigrid/cuda_hermite_multigrid_solver.h>
#include <cellwise/multigrid/cuda_point_smoothers.h>
#include <cellwise/multigrid/outer_solvers.h>
#include <cellwise/multigrid/point_smoothers.h>
#include <cellwise/multigrid/v_cycle.h>
#include <cellwise/operators/cuda_hermite_biharmonic_operator.h>
#include <cellwise/operators/hermite_biharmonic_operator.h>
#include <cellwise/storage/dirichlet_mask.h>

#include <iomanip>
#include <string>
#include <vector>

namespace cellwise
{
  namespace cuda
  {
    namespace
    {
      using VectorT  = HermiteMultigridSolver::VectorType;
      using Operator = HermiteBiharmonicOperator<double, CellContiguous>;
      using Smoother = PointChebyshevSmoother<DssJacobiPreconditioner<double, CellContiguous, Operator>>;

      /// The parts the device does not have yet, refused with the host's name.
      void
      check_supported(const LevelHierarchy &hierarchy, const HermiteMultigridParameters &parameters)
      {
        for (unsigned int l = 0; l + 1 < hierarchy.n_levels(); ++l)
          CELLWISE_CHECK(hierarchy.level(l).n_refined_cells() == hierarchy.level(l).n_cells(),
                         "cuda::HermiteMultigridSolver: level "
                           << l << " keeps active cells (a locally refined hierarchy); local smoothing of the Hermite "
                           << "element is not on the device yet: use cellwise::HermiteMultigridSolver (host)");
        CELLWISE_CHECK(parameters.smoother == HermiteSmoother::chebyshev,
                       "cuda::HermiteMultigridSolver: the vertex-block patch smoother is not on the device yet: use the "
                       "Chebyshev smoother, or cellwise::HermiteMultigridSolver (host)");
      }
    } // namespace

    struct HermiteMultigridSolver::Components
    {
      std::vector<std::shared_ptr<Operator>>   operators;
      std::shared_ptr<Preconditioner<VectorT>> cycle;
    };

    HermiteMultigridSolver::HermiteMultigridSolver(const LevelHierarchy             &hierarchy,
                                                   const HermiteMultigridParameters &parameters,
                                                   std::ostream                     *log)
      : components_(std::make_unique<Components>())
    {
      parameters.check();
      CELLWISE_CHECK(hierarchy.n_levels() >= 1, "cuda::HermiteMultigridSolver: the hierarchy has no level");
      check_dirichlet_ids(hierarchy.level(0), parameters.clamped_ids);
      check_supported(hierarchy, parameters);
      typename VCycle<VectorT>::Components cycle;
      for (unsigned int l = 0; l < hierarchy.n_levels(); ++l)
        {
          const Level                  &level     = hierarchy.level(l);
          auto                          op        = std::make_shared<Operator>(level);
          const CellVector<double>      host_mask = make_hermite_free_mask(level, parameters.clamped_ids);
          VectorT                       mask;
          mask.copy_from_host(host_mask);
          CELLWISE_CHECK(l + 1 < hierarchy.n_levels() || host_mask.l2_norm() > 0,
                         "cuda::HermiteMultigridSolver: the finest level has no free DoF (every vertex lies on the clamped "
                         "boundary); the mesh needs at least 2 cells along every axis");
          ChebyshevParameters chebyshev;
          chebyshev.degree          = parameters.chebyshev_degree;
          chebyshev.smoothing_range = parameters.smoothing_range;
          std::string what;
          if (l == 0)
            {
              cycle.smoothers.push_back(nullptr);
              if (resolve_hermite_coarse_solver(level, host_mask, parameters.coarse_solver) == CoarseSolverType::cholesky)
                {
                  // the factorization of the host operator's dense cell matrices
                  const ::cellwise::HermiteBiharmonicOperator<double> host_op(level);
                  auto host_solver = std::make_unique<::cellwise::CholeskyCoarseSolver<double>>(
                    level, hermite::storage_degree, hermite_trace_layers(),
                    [&host_op](const unsigned int cell) { return host_op.cell_matrix(cell); }, host_mask);
                  coarse_description_ = "Cholesky coarse solve (" + std::to_string(host_solver->n_free_dofs()) + " free DoFs)";
                  cycle.coarse_solver =
                    std::make_shared<CholeskyCoarseSolver<double>>(level, hermite::storage_degree, std::move(host_solver));
                }
              else
                {
                  ChebyshevParameters coarse = chebyshev;
                  coarse.degree              = parameters.coarse_chebyshev_degree;
                  coarse_description_        = "Chebyshev coarse solve (" + std::to_string(coarse.degree) + " stages)";
                  cycle.coarse_solver =
                    std::make_shared<SmootherCoarseSolver<VectorT>>(std::make_shared<Smoother>(level, *op, mask, coarse), 1);
                }
              what = coarse_description_;
            }
          else
            {
              cycle.smoothers.push_back(std::make_shared<Smoother>(level, *op, mask, chebyshev));
              what = "Chebyshev smoother (" + std::to_string(chebyshev.degree) + " stages)";
            }
          cycle.operators.push_back(op);
          cycle.level_shapes.push_back(VectorT(level.n_cells(), hermite::storage_degree));
          components_->operators.push_back(op);
          if (l + 1 == hierarchy.n_levels())
            mask_ = std::move(mask);
          if (log)
            *log << "  level " << std::setw(2) << l << ": " << std::setw(10) << level.n_cells()
                 << " cells, Hermite Q3 on the device, " << what << std::endl;
        }
      if (hierarchy.n_levels() > 1)
        cycle.transfer = std::make_shared<HermiteCellTransfer<double>>(hierarchy);
      typename VCycle<VectorT>::Parameters cycle_parameters;
      cycle_parameters.pre_direction  = SweepDirection::forward;
      cycle_parameters.post_direction = parameters.post_direction;
      components_->cycle              = std::make_shared<VCycle<VectorT>>(std::move(cycle), cycle_parameters);
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
      CELLWISE_CHECK(b.n_cells() == mask_.n_cells() && b.degree() == mask_.degree(),
                     "cuda::HermiteMultigridSolver: right-hand side of " << b.n_cells() << " cells of degree " << b.degree()
                                                                         << " for " << mask_.n_cells() << " cells");
      CELLWISE_CHECK(b.all_finite(), "cuda::HermiteMultigridSolver: the right-hand side has NaN or infinite entries");
      if (u.n_cells() != b.n_cells() || u.degree() != b.degree())
        u.reinit(b.n_cells(), b.degree());
      CELLWISE_CHECK(u.all_finite(), "cuda::HermiteMultigridSolver: the initial guess has NaN or infinite entries");
      u.scale(mask_);
      if (stationary_)
        return solve_stationary(fine_operator(), preconditioner(), u, b, mask_, control);
      return solve_cg(fine_operator(), preconditioner(), u, b, mask_, control);
    }
  } // namespace cuda
} // namespace cellwise
