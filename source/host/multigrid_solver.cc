#include <cellwise/base/config.h>
#include <cellwise/multigrid/cell_transfer.h>
#include <cellwise/multigrid/chebyshev_smoother.h>
#include <cellwise/multigrid/coarse_solvers.h>
#include <cellwise/multigrid/jacobi_smoother.h>
#include <cellwise/multigrid/multigrid_solver.h>
#include <cellwise/storage/dirichlet_mask.h>

#include <chrono>
#include <iomanip>
#include <ostream>

namespace cellwise
{
  SmootherType
  parse_smoother_type(const std::string &name)
  {
    if (name == "jacobi")
      return SmootherType::jacobi;
    if (name == "chebyshev")
      return SmootherType::chebyshev;
    if (name == "patch")
      return SmootherType::patch;
    CELLWISE_CHECK(false, "unknown smoother '" << name << "': use jacobi, chebyshev or patch");
  }
  std::string
  to_string(const SmootherType type)
  {
    switch (type)
      {
        case SmootherType::jacobi:
          return "jacobi";
        case SmootherType::chebyshev:
          return "chebyshev";
        default:
          return "patch";
      }
  }
  OuterIteration
  parse_outer_iteration(const std::string &name)
  {
    if (name == "cg")
      return OuterIteration::cg;
    if (name == "stationary")
      return OuterIteration::stationary;
    CELLWISE_CHECK(false, "unknown outer iteration '" << name << "': use cg or stationary");
  }
  std::string
  to_string(const OuterIteration type)
  {
    return type == OuterIteration::cg ? "cg" : "stationary";
  }
  CoarseSolverType
  parse_coarse_solver_type(const std::string &name)
  {
    if (name == "cholesky")
      return CoarseSolverType::cholesky;
    if (name == "smoother")
      return CoarseSolverType::smoother;
    CELLWISE_CHECK(false, "unknown coarse solver '" << name << "': use cholesky or smoother");
  }
  std::string
  to_string(const CoarseSolverType type)
  {
    return type == CoarseSolverType::cholesky ? "cholesky" : "smoother";
  }

  void
  MultigridParameters::check() const
  {
    CELLWISE_CHECK(smoothing_steps >= 1, "smoothing steps " << smoothing_steps << " must be at least 1");
    CELLWISE_CHECK(jacobi_omega > 0 && jacobi_omega < 2, "Jacobi damping " << jacobi_omega << " is not in (0, 2)");
    CELLWISE_CHECK(jacobi_steps >= 1, "Jacobi steps " << jacobi_steps << " must be at least 1");
    CELLWISE_CHECK(chebyshev_degree >= 1, "Chebyshev degree " << chebyshev_degree << " must be at least 1");
    CELLWISE_CHECK(smoothing_range > 1, "smoothing range " << smoothing_range << " must exceed 1");
    CELLWISE_CHECK(eigenvalue_iterations >= 1, "eigenvalue iterations " << eigenvalue_iterations << " must be at least 1");
    CELLWISE_CHECK(patch_sweeps >= 1, "patch sweeps " << patch_sweeps << " must be at least 1");
    CELLWISE_CHECK(coarse_smoother_applications >= 1,
                   "coarse smoother applications " << coarse_smoother_applications << " must be at least 1");
  }

  namespace
  {
    std::shared_ptr<const LevelSmoother<CellVector<double>>>
    make_smoother(const Level &level, const LaplaceOperator<double> &op, const CellVector<double> &mask, const MultigridParameters &parameters)
    {
      switch (parameters.smoother)
        {
          case SmootherType::jacobi:
            return std::make_shared<JacobiSmoother<double>>(level, op, mask,
                                                            JacobiSmoother<double>::Parameters{parameters.jacobi_omega, parameters.jacobi_steps});
          case SmootherType::chebyshev:
            {
              ChebyshevSmoother<double>::Parameters p;
              p.degree                = parameters.chebyshev_degree;
              p.smoothing_range       = parameters.smoothing_range;
              p.eigenvalue_iterations = parameters.eigenvalue_iterations;
              return std::make_shared<ChebyshevSmoother<double>>(level, op, mask, p);
            }
          default:
            CELLWISE_CHECK(false, "the vertex-patch smoother is not available in this build");
        }
    }
  } // namespace

  MultigridSolver::MultigridSolver(const LevelHierarchy      &hierarchy,
                                   const unsigned int         degree,
                                   const MultigridParameters &parameters,
                                   std::ostream              *log)
    : hierarchy_(hierarchy)
    , degree_(degree)
    , parameters_(parameters)
  {
    check_degree(degree);
    parameters.check();
    CELLWISE_CHECK(hierarchy.n_levels() >= 1, "the multigrid solver needs at least one level");
    const auto start = std::chrono::steady_clock::now();

    using V = VectorType;
    typename VCycle<V>::Components components;
    const unsigned int             n_levels = hierarchy.n_levels();
    masks_.resize(n_levels);
    for (unsigned int l = 0; l < n_levels; ++l)
      {
        const Level &level = hierarchy.level(l);
        masks_[l]          = make_dirichlet_mask<double>(level, degree, parameters.dirichlet_ids);
        operators_.push_back(std::make_shared<LaplaceOperator<double>>(level, degree));
        components.operators.push_back(operators_.back());
        components.level_shapes.push_back(V(level.n_cells(), degree));
        if (l == 0)
          {
            components.smoothers.push_back(nullptr);
            if (parameters.coarse_solver == CoarseSolverType::cholesky)
              components.coarse_solver = std::make_shared<CholeskyCoarseSolver<double>>(level, *operators_.back(), masks_[l]);
            else
              components.coarse_solver = std::make_shared<SmootherCoarseSolver<V>>(
                make_smoother(level, *operators_.back(), masks_[l], parameters), parameters.coarse_smoother_applications);
          }
        else
          components.smoothers.push_back(make_smoother(level, *operators_.back(), masks_[l], parameters));
        if (log)
          *log << "  level " << std::setw(2) << l << ": " << std::setw(10) << level.n_cells() << " cells, smoother "
               << (l == 0 ? "(coarse: " + to_string(parameters.coarse_solver) + ")" : to_string(parameters.smoother)) << std::endl;
      }
    if (n_levels > 1)
      components.transfer = std::make_shared<CellTransfer<double>>(hierarchy, degree);

    typename VCycle<V>::Parameters cycle;
    cycle.pre_smoothing  = parameters.smoothing_steps;
    cycle.post_smoothing = parameters.smoothing_steps;
    cycle.pre_direction  = SweepDirection::forward;
    // CG needs the symmetric cycle (reverse post-sweeps), the stationary
    // iteration converges faster with the forward cycle (000 §7.2).
    cycle.post_direction = parameters.outer == OuterIteration::cg ? SweepDirection::reverse : SweepDirection::forward;
    cycle_               = std::make_unique<VCycle<V>>(std::move(components), cycle);
    if (log)
      *log << "  set-up of " << n_levels << " levels: "
           << std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() << " s" << std::endl;
  }

  SolveStatistics
  MultigridSolver::solve(VectorType &u, const VectorType &b, IterationControl &control) const
  {
    const LaplaceOperator<double> &A = *operators_.back();
    CELLWISE_CHECK(b.n_cells() == A.n_cells() && b.degree() == degree_,
                   "solve: right-hand side of " << b.n_cells() << " cells of degree " << b.degree() << ", the finest level has "
                                                << A.n_cells() << " cells of degree " << degree_);
    CELLWISE_CHECK(b.all_finite(), "solve: the right-hand side contains NaN or infinite values");
    if (u.n_cells() != b.n_cells() || u.degree() != b.degree())
      u.reinit(b);
    CELLWISE_CHECK(u.all_finite(), "solve: the initial guess contains NaN or infinite values");
    if (parameters_.outer == OuterIteration::cg)
      return solve_cg(A, *cycle_, u, b, masks_.back(), control);
    return solve_stationary(A, *cycle_, u, b, masks_.back(), control);
  }
} // namespace cellwise
