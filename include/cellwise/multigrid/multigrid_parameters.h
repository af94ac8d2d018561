#pragma once
/**
 * @file
 * The parameters of the cell-wise multigrid solvers, on their own so that the
 * pieces a solver is assembled from (level smoothers, memory estimates, the
 * capability table) need not see a solver: the smoother, cycle, coarse solver,
 * outer iteration, precision and backend, their names as the command lines
 * spell them, and MultigridParameters with its check.
 */

#include <cellwise/base/function.h>
#include <cellwise/multigrid/interfaces.h>
#include <cellwise/operators/laplace_metric.h>

#include <string>
#include <vector>

namespace cellwise
{
  struct ChebyshevParameters; // multigrid/point_smoother_steps.h
  struct JacobiParameters;

  enum class SmootherType
  {
    jacobi,    ///< masked damped DSS-Jacobi
    chebyshev, ///< Chebyshev acceleration of DSS-Jacobi
    patch      ///< multiplicative vertex-patch Schwarz with exact local solves
  };

  enum class CoarseSolverType
  {
    automatic, ///< cholesky where its set-up is cheap (coarse_solver_for), else cg (deal.II programs: amg on Q1, dealii_coarse_solver_for)
    cholesky,  ///< exact: dense Cholesky of the assembled coarse matrix
    smoother,  ///< the level smoother, applied a fixed number of times
    cg,        ///< CG preconditioned by the level smoother to a reduction of 1e-3 (large coarse levels)
    amg        ///< CG with deal.II's Trilinos AMG on the assembled coarse matrix to a reduction of 1e-3 (deal.II programs' MultigridComponents only)
  };

  enum class OuterIteration
  {
    cg,        ///< CG with the symmetric cycle
    stationary ///< u ← u + V(b − A u) with the forward cycle
  };

  /// Sweep directions of the V-cycle: symmetric (forward pre, reverse post:
  /// required by CG) or forward (forward pre and post: the faster stationary
  /// iteration, 000 §7.2); automatic picks by the outer iteration.
  enum class CycleType
  {
    automatic,
    symmetric,
    forward
  };

  enum class Precision
  {
    fp64, ///< all levels in FP64
    mixed ///< FP32 hierarchy inside the FP64 outer iteration (000 §4)
  };

  /// Parse/print helpers for the enums ("jacobi", "chebyshev", "patch", ...);
  /// parsing throws cellwise::Error naming the allowed values.
  SmootherType
  parse_smoother_type(const std::string &name);
  std::string
  to_string(SmootherType type);
  OuterIteration
  parse_outer_iteration(const std::string &name);
  std::string
  to_string(OuterIteration type);
  CoarseSolverType
  parse_coarse_solver_type(const std::string &name);
  std::string
  to_string(CoarseSolverType type);
  /// "auto", "symmetric" or "forward"
  CycleType
  parse_cycle_type(const std::string &name);
  std::string
  to_string(CycleType type);
  /// Where the levels of a solver live, for the entry points that choose at
  /// run time (make_host_vector_solver, cellwise::dealii's solvers).
  enum class Backend
  {
    host, ///< the host solvers
    cuda  ///< the CUDA solvers on the current device
  };
  /// "host" or "cuda"
  Backend
  parse_backend(const std::string &name);
  std::string
  to_string(Backend backend);
  /// "fp64" or "mixed" (the spelling of the command lines too)
  Precision
  parse_precision(const std::string &name);
  std::string
  to_string(Precision precision);

  struct MultigridParameters
  {
    SmootherType smoother = SmootherType::chebyshev;
    /// Smoother applications before and after the coarse correction.
    unsigned int smoothing_steps = 1;
    /// Jacobi: damping and steps per application.
    double       jacobi_omega       = 0.7;
    unsigned int jacobi_steps       = 2;
    /// Chebyshev: degree (operator applications), range, eigenvalue steps.
    unsigned int chebyshev_degree      = 4;
    double       smoothing_range       = 15.;
    unsigned int eigenvalue_iterations = 12;
    /// Vertex patch: sweeps per application.
    unsigned int patch_sweeps = 1;

    CoarseSolverType coarse_solver                = CoarseSolverType::automatic;
    unsigned int     coarse_smoother_applications = 20;

    OuterIteration outer = OuterIteration::cg;
    CycleType      cycle = CycleType::automatic;

    /// The V-cycle's smoothing steps and directions: smoothing_steps
    /// before and after, forward pre-smoothing, post-smoothing as
    /// post_smoothing_direction() says.
    VCycleParameters
    cycle_parameters() const
    {
      return {smoothing_steps, smoothing_steps, SweepDirection::forward, post_smoothing_direction()};
    }

    /// The point smoothers' parameters of these: Chebyshev's degree, range
    /// and eigenvalue steps, Jacobi's damping and steps (the types are in
    /// multigrid/point_smoother_steps.h).
    ChebyshevParameters
    chebyshev_parameters() const;
    JacobiParameters
    jacobi_parameters() const;

    /// The post-smoothing direction in effect.
    SweepDirection
    post_smoothing_direction() const
    {
      if (cycle == CycleType::automatic)
        return outer == OuterIteration::cg ? SweepDirection::reverse : SweepDirection::forward;
      return cycle == CycleType::symmetric ? SweepDirection::reverse : SweepDirection::forward;
    }

    Precision precision = Precision::fp64;
    /// Rebalance the FP64 residual (mean of the copies, 000 §4.4) before it is
    /// preconditioned in every k-th outer iteration; 0: never; -1 (default):
    /// every iteration for the stationary solver, every third for CG.
    int rebalance_every = -1;
    /// Stationary iteration: stop on the extrapolated monitor
    /// η̂_{n+1} = η_n² / η_{n−1} (000 eq. 14), saving the extra cycle.
    bool stop_on_extrapolated_monitor = false;

    /// The rebalancing period in effect (resolves the default).
    unsigned int
    effective_rebalance_period() const
    {
      if (rebalance_every >= 0)
        return static_cast<unsigned int>(rebalance_every);
      return outer == OuterIteration::stationary ? 1u : 3u;
    }

    /// Coefficient c of −∇·(c∇u) on every level (empty: 1); called from
    /// several threads at once at set-up. On both backends; in the device
    /// box parts averaged per cell only, and not with the vertex-patch
    /// smoother (cuda::MultigridSolver's general parts take it at the
    /// points).
    ScalarFunction coefficient;
    /// Where the coefficient enters every level's operator: at the quadrature
    /// points (the default, the operator of deal.II's MatrixFree, step-37)
    /// or as its cell averages (cheaper; the only form of the device box
    /// solvers, refused there otherwise).
    CoefficientEvaluation coefficient_evaluation = CoefficientEvaluation::quadrature_points;

    /// Boundary ids with homogeneous Dirichlet conditions (empty: all).
    std::vector<unsigned int> dirichlet_ids;

    /// No Dirichlet boundary at all (dirichlet_ids must be empty): the pure
    /// Neumann problem, singular, solved up to its constant null space
    /// (storage/constant_null_space.h): the right-hand side is made
    /// compatible (its part along the constants removed, as its quadrature
    /// error leaves one even for compatible data), the residual is kept
    /// compatible in every iteration, the coarse Cholesky factorizes
    /// A + s 1 1ᵀ, and the solution has zero mean over the DoFs. Only the
    /// host MultigridSolver (and the deal.II MultigridPreconditioner on it)
    /// takes it, with the Chebyshev or Jacobi smoother: the vertex patches
    /// do not cover the boundary DoFs, which are unknowns here.
    bool pure_neumann = false;

    /// The backend of the entry points that choose one at run time
    /// (make_host_vector_solver, make_adaptive_host_vector_solver, the
    /// deal.II MultigridPreconditioner); the classes of one backend (MultigridSolver,
    /// cuda::MultigridSolver) are that backend whatever it says.
    Backend backend = Backend::host;

    /// Throws cellwise::Error naming a bad value.
    void
    check() const;
  };

  /// Every field of @p parameters as (name, value) text, values exact (the
  /// doubles with every digit), for the check that the ranks of a job pass
  /// the same (RankAgreement, base/mpi_rank_agreement.h). The coefficient,
  /// a function, is compared by whether it is given and by its values at a
  /// few fixed points.
  std::vector<std::pair<std::string, std::string>>
  settings(const MultigridParameters &parameters);
} // namespace cellwise
