#include "problem_file_solve.h"

#include "solve_control.h"

#include <cellwise/base/exceptions.h>
#include <cellwise/multigrid/adaptive_multigrid_solver.h>
#include <cellwise/multigrid/multigrid_solver.h>
#include <cellwise/storage/dof_numbering.h>
#include <cellwise/storage/problem_file.h>
#ifdef CELLWISE_WITH_CUDA
#  include "device_solve.h"
#endif

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>

namespace
{
  using namespace poisson_program;

  /// max |u − reference| / max |reference| over all copies.
  double
  relative_max_difference(const cellwise::CellVector<double> &u, const cellwise::CellVector<double> &reference)
  {
    double difference = 0, size = 0;
    for (std::size_t k = 0; k < u.storage_size(); ++k)
      {
        difference = std::max(difference, std::abs(u.data()[k] - reference.data()[k]));
        size       = std::max(size, std::abs(reference.data()[k]));
      }
    return size > 0 ? difference / size : difference;
  }

  std::string
  describe_ids(const std::vector<unsigned int> &ids)
  {
    if (ids.empty())
      return "all";
    std::string text;
    for (const unsigned int id : ids)
      text += (text.empty() ? "" : ",") + std::to_string(id);
    return text;
  }
} // namespace

int
solve_problem_file(const ProgramOptions &options, const bool on_device)
{
  using namespace cellwise;
  const auto    read_start = std::chrono::steady_clock::now();
  const Problem problem    = read_problem_file(options.problem_file);
  const double  read_time  = seconds_since(read_start);
  const LevelHierarchy &h  = problem.hierarchy;
  std::cout << "cellwise-poisson: problem file " << options.problem_file << " ('" << problem.description << "'), Q"
            << problem.degree << ", " << h.n_levels() << " levels, " << h.n_active_cells() << " active cells, "
            << (problem.locally_refined ? "locally refined" : "uniform") << ", Dirichlet ids "
            << describe_ids(problem.dirichlet_ids) << ", read in " << read_time << " s\n  outer "
            << to_string(options.multigrid.outer) << ", smoother " << to_string(options.multigrid.smoother) << ", precision "
            << to_string(options.multigrid.precision) << ", tolerance " << options.tolerance << ", backend " << options.backend
            << std::endl;

  MultigridParameters parameters = options.multigrid;
  parameters.dirichlet_ids       = problem.dirichlet_ids;
  if (problem.locally_refined)
    CELLWISE_CHECK(parameters.precision == Precision::fp64,
                   "the problem is locally refined: the adaptive solver runs in double precision only (drop --precision mixed)");

  const auto         setup_start = std::chrono::steady_clock::now();
  CellVector<double> u(problem.rhs.n_cells(), problem.degree);
  const auto         control = make_control(options);
  SolveStatistics    statistics;
  double             setup_seconds = 0, solve_seconds = 0;
  // one of four solvers: uniform or locally refined, host or device
  const auto solve = [&](auto &solver, auto run) {
    setup_seconds          = seconds_since(setup_start);
    const auto solve_start = std::chrono::steady_clock::now();
    statistics             = solve_with_history(*control, [&](IterationControl &c) { return run(solver, c); });
    if (solve_seconds == 0)
      solve_seconds = seconds_since(solve_start);
  };
  const auto on_host = [&](const auto &solver, IterationControl &c) { return solver.solve(u, problem.rhs, c); };
#ifdef CELLWISE_WITH_CUDA
  const auto on_gpu = [&](const auto &solver, IterationControl &c) { return solver.solve(u, problem.rhs, c, solve_seconds); };
  if (on_device && problem.locally_refined)
    {
      const AdaptiveDeviceSolve solver(h, problem.degree, parameters, &std::cout);
      solve(solver, on_gpu);
    }
  else if (on_device)
    {
      const DeviceSolve solver(h, problem.degree, parameters, &std::cout);
      solve(solver, on_gpu);
    }
  else
#else
  CELLWISE_CHECK(!on_device, "this build has no CUDA backend");
#endif
    if (problem.locally_refined)
    {
      const AdaptiveMultigridSolver solver(h, problem.degree, parameters, &std::cout);
      solve(solver, on_host);
    }
  else
    {
      const MultigridSolver solver(h, problem.degree, parameters, &std::cout);
      solve(solver, on_host);
    }

  for (unsigned int k = 0; k < statistics.monitor.size(); ++k)
    std::cout << "  iteration " << k << ": η/η_0 = " << statistics.monitor[k] / statistics.monitor[0] << std::endl;
  CellVector<double> difference = u;
  difference.add(-1., problem.solution);
  const double dofs = problem.locally_refined ? double(h.n_active_cells()) * std::pow(problem.degree, 3)
                                              : double(make_dof_numbering(h.levels.back(), problem.degree).n_unique);
  std::printf("  %-12s %5s %10s %9s %9s %9s %13s %13s\n", "DoFs", "iter", "η_n/η_0", "setup[s]", "solve[s]", "MDoF/s",
              "max diff.", "l2 diff.");
  std::printf("  %-12.0f %5u %10.2e %9.3f %9.3f %9.2f %13.3e %13.3e\n", dofs, statistics.iterations(), statistics.reduction(),
              setup_seconds, solve_seconds, dofs / solve_seconds * 1e-6, relative_max_difference(u, problem.solution),
              difference.l2_norm() / problem.solution.l2_norm());
  std::cout << "  (differences to the stored solution, relative: max over the copies, and l2 of all copies; "
            << (problem.locally_refined ? "DoFs counted as active cells × p³)" : "DoFs unique, boundary included)")
            << std::endl;
  return 0;
}
