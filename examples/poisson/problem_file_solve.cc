#include "problem_file_solve.h"

#include "solve_control.h"

#include <cellwise/base/exceptions.h>
#include <cellwise/multigrid/capabilities.h>
#include <cellwise/multigrid/host_vector_solvers.h>
#include <cellwise/storage/dof_numbering.h>
#include <cellwise/storage/problem_file.h>

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
solve_problem_file(const ProgramOptions &options)
{
  using namespace cellwise;
  const auto    read_start = std::chrono::steady_clock::now();
  const Problem problem    = read_problem_file(options.problem_file);
  const double  read_time  = seconds_since(read_start);
  const LevelHierarchy &h  = problem.hierarchy;
  std::cout << "cellwise-poisson: problem file " << options.problem_file << " ('" << problem.description << "'), Q"
            << problem.degree << ", " << h.n_levels() << " levels, " << h.n_active_cells() << " active cells, "
            << (problem.locally_refined ? "locally refined" : "uniform") << ", Dirichlet ids "
            << describe_ids(problem.dirichlet_ids) << ", "
            << (problem.cell_coefficients.empty() ? "coefficient 1" : "coefficient per cell") << ", read in " << read_time
            << " s\n  outer "
            << to_string(options.multigrid.outer) << ", smoother " << to_string(options.multigrid.smoother) << ", precision "
            << to_string(options.multigrid.precision) << ", tolerance " << options.tolerance << ", backend " << options.backend
            << std::endl;

  MultigridParameters parameters = options.multigrid;
  parameters.dirichlet_ids       = problem.dirichlet_ids;
  if (!problem.cell_coefficients.empty())
    {
      // the file's coefficient is one value per cell: averaged per cell it is
      // exact on the finest level, and the coarser levels average it (the
      // form the device solvers take too)
      parameters.coefficient            = cell_coefficient_function(problem);
      parameters.coefficient_evaluation = CoefficientEvaluation::cell_average;
    }
  // before the set-up: what the file's mesh needs of the solvers
  check_supported(configuration_of(h, parameters), "--problem-file " + options.problem_file);

  const auto         setup_start = std::chrono::steady_clock::now();
  // uniform or locally refined, on the backend of the options
  const std::unique_ptr<HostVectorSolver> solver =
    problem.locally_refined ? std::unique_ptr<HostVectorSolver>(make_adaptive_host_vector_solver(h, problem.degree, parameters, &std::cout))
                            : make_host_vector_solver(h, problem.degree, parameters, &std::cout);
  const double       setup_seconds = seconds_since(setup_start);
  CellVector<double> u(problem.rhs.n_cells(), problem.degree);
  const auto         control = make_control(options);
  const SolveStatistics statistics =
    solve_with_history(*control, [&](IterationControl &c) { return solver->solve(u, problem.rhs, c); });
  const double solve_seconds = solver->last_solve_seconds();

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
