#include <cellwise/base/exceptions.h>
#include <cellwise/multigrid/multigrid_parameters.h>
#include <cellwise/multigrid/point_smoother_steps.h>

#include <exception>
#include <iomanip>
#include <limits>
#include <sstream>

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
    if (name == "auto")
      return CoarseSolverType::automatic;
    if (name == "cholesky")
      return CoarseSolverType::cholesky;
    if (name == "smoother")
      return CoarseSolverType::smoother;
    if (name == "cg")
      return CoarseSolverType::cg;
    if (name == "amg")
      return CoarseSolverType::amg;
    CELLWISE_CHECK(false, "unknown coarse solver '" << name << "': use auto, cholesky, smoother, cg or amg");
  }
  std::string
  to_string(const CoarseSolverType type)
  {
    return type == CoarseSolverType::automatic  ? "auto"
           : type == CoarseSolverType::cholesky ? "cholesky"
           : type == CoarseSolverType::cg       ? "cg"
           : type == CoarseSolverType::amg      ? "amg"
                                                : "smoother";
  }

  ChebyshevParameters
  MultigridParameters::chebyshev_parameters() const
  {
    ChebyshevParameters chebyshev;
    chebyshev.degree                = chebyshev_degree;
    chebyshev.smoothing_range       = smoothing_range;
    chebyshev.eigenvalue_iterations = eigenvalue_iterations;
    return chebyshev;
  }

  JacobiParameters
  MultigridParameters::jacobi_parameters() const
  {
    return {jacobi_omega, jacobi_steps};
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
    CELLWISE_CHECK(rebalance_every >= -1, "rebalancing period " << rebalance_every << " is not allowed: use -1 (default), 0 (never) or k >= 1");
    // The forward cycle with the multiplicative patch smoother is not
    // symmetric; CG would lose its short recurrence.
    CELLWISE_CHECK(!(outer == OuterIteration::cg && smoother == SmootherType::patch && cycle == CycleType::forward),
                   "CG needs the symmetric cycle with the vertex-patch smoother; use --cycle symmetric or the stationary iteration");
    CELLWISE_CHECK(!pure_neumann || dirichlet_ids.empty(),
                   "a pure Neumann problem has no Dirichlet boundary: leave dirichlet_ids empty");
    CELLWISE_CHECK(!pure_neumann || smoother != SmootherType::patch,
                   "the vertex-patch smoother does not update the boundary DoFs, which a pure Neumann problem solves "
                   "for: use the Chebyshev or the Jacobi smoother");
  }

  CycleType
  parse_cycle_type(const std::string &name)
  {
    if (name == "auto")
      return CycleType::automatic;
    if (name == "symmetric")
      return CycleType::symmetric;
    if (name == "forward")
      return CycleType::forward;
    CELLWISE_CHECK(false, "unknown cycle '" << name << "': use auto, symmetric or forward");
  }
  std::string
  to_string(const CycleType type)
  {
    switch (type)
      {
        case CycleType::automatic:
          return "auto";
        case CycleType::symmetric:
          return "symmetric";
        default:
          return "forward";
      }
  }

  Precision
  parse_precision(const std::string &name)
  {
    if (name == "fp64")
      return Precision::fp64;
    if (name == "mixed")
      return Precision::mixed;
    // the spelling before 2026-12-07 (CHANGELOG.md): named, not taken, so
    // that a script that used it learns the one spelling
    CELLWISE_CHECK(name != "double", "precision 'double' is now spelled 'fp64' (use fp64 or mixed)");
    CELLWISE_CHECK(false, "unknown precision '" << name << "': use fp64 or mixed");
  }
  Backend
  parse_backend(const std::string &name)
  {
    if (name == "host")
      return Backend::host;
    if (name == "cuda")
      return Backend::cuda;
    CELLWISE_CHECK(false, "unknown backend '" << name << "': use host or cuda");
  }

  std::string
  to_string(const Backend backend)
  {
    return backend == Backend::host ? "host" : "cuda";
  }

  std::string
  to_string(const Precision precision)
  {
    return precision == Precision::fp64 ? "fp64" : "mixed";
  }

  std::vector<std::pair<std::string, std::string>>
  settings(const MultigridParameters &p)
  {
    const auto exact = [](const double x) {
      std::ostringstream text;
      text << std::setprecision(std::numeric_limits<double>::max_digits10) << x;
      return text.str();
    };
    std::string coefficient = "none";
    if (p.coefficient)
      {
        // a function is compared by its values at a few points (those of
        // any domain the programs use, or its errors there)
        coefficient = "values";
        for (const Point &x : {Point{{0.1, 0.2, 0.3}}, Point{{0.7, 0.45, 0.9}}, Point{{-0.35, 0.6, -0.8}}})
          try
            {
              coefficient += " " + exact(p.coefficient(x));
            }
          catch (const std::exception &e)
            {
              coefficient += std::string(" (throws: ") + e.what() + ")";
            }
      }
    std::string dirichlet_ids = "{";
    for (std::size_t i = 0; i < p.dirichlet_ids.size(); ++i)
      dirichlet_ids += (i ? ", " : "") + std::to_string(p.dirichlet_ids[i]);
    dirichlet_ids += "}";
    return {{"smoother", to_string(p.smoother)},
            {"smoothing steps", std::to_string(p.smoothing_steps)},
            {"Jacobi damping", exact(p.jacobi_omega)},
            {"Jacobi steps", std::to_string(p.jacobi_steps)},
            {"Chebyshev degree", std::to_string(p.chebyshev_degree)},
            {"smoothing range", exact(p.smoothing_range)},
            {"eigenvalue iterations", std::to_string(p.eigenvalue_iterations)},
            {"patch sweeps", std::to_string(p.patch_sweeps)},
            {"coarse solver", to_string(p.coarse_solver)},
            {"coarse smoother applications", std::to_string(p.coarse_smoother_applications)},
            {"outer iteration", to_string(p.outer)},
            {"cycle", to_string(p.cycle)},
            {"precision", to_string(p.precision)},
            {"rebalance every", std::to_string(p.rebalance_every)},
            {"stop on the extrapolated monitor", p.stop_on_extrapolated_monitor ? "yes" : "no"},
            {"coefficient", coefficient},
            {"coefficient evaluation", to_string(p.coefficient_evaluation)},
            {"Dirichlet ids", dirichlet_ids},
            {"pure Neumann", p.pure_neumann ? "yes" : "no"},
            {"backend", to_string(p.backend)}};
  }
} // namespace cellwise
