#include "biharmonic_solve.h"

#include <cellwise/base/setup_times.h>
#include <cellwise/mesh/box_builder.h>
#include <cellwise/multigrid/hermite_multigrid_solver.h>
#include <cellwise/operators/hermite_function_tools.h>

#include <omp.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <string>

namespace
{
  /// g(t) = sin²(πt) and its derivatives of order 0, 1, 2, 4 in t.
  double
  g(const double t, const int order)
  {
    const double pi = M_PI;
    switch (order)
      {
        case 0:
          return std::pow(std::sin(pi * t), 2);
        case 1:
          return pi * std::sin(2 * pi * t);
        case 2:
          return 2 * pi * pi * std::cos(2 * pi * t);
        default:
          return -8 * pi * pi * pi * pi * std::cos(2 * pi * t);
      }
  }

  struct ClampedSolution
  {
    std::array<double, 3> lower, length;

    double
    t(const cellwise::Point &x, const unsigned int d) const
    {
      return (x[d] - lower[d]) / length[d];
    }
    double
    value(const cellwise::Point &x) const
    {
      return g(t(x, 0), 0) * g(t(x, 1), 0) * g(t(x, 2), 0);
    }
    /// Δ²u = Σ_d ∂⁴_d u + 2 Σ_{d<e} ∂²_d ∂²_e u, with d/dx = (1/length) d/dt.
    double
    bilaplacian(const cellwise::Point &x) const
    {
      double sum = 0;
      for (unsigned int d = 0; d < 3; ++d)
        {
          const unsigned int e = (d + 1) % 3, f = (d + 2) % 3;
          sum += g(t(x, d), 4) / std::pow(length[d], 4) * g(t(x, e), 0) * g(t(x, f), 0);
          sum += 2 * g(t(x, e), 2) * g(t(x, f), 2) / (std::pow(length[e], 2) * std::pow(length[f], 2)) * g(t(x, d), 0);
        }
      return sum;
    }
  };
} // namespace

int
solve_biharmonic(const ProgramOptions &options)
{
  using namespace cellwise;
  if (options.threads > 0)
    omp_set_num_threads(static_cast<int>(options.threads));
  ClampedSolution solution;
  for (unsigned int d = 0; d < 3; ++d)
    {
      solution.lower[d]  = options.box.lower[d];
      solution.length[d] = options.box.upper[d] - options.box.lower[d];
    }
  HermiteMultigridParameters parameters;
  if (options.chebyshev_degree_given)
    parameters.chebyshev_degree = options.multigrid.chebyshev_degree;
  std::cout << "cellwise-poisson --problem biharmonic: Δ²u = f, u = ∂n u = 0 on [" << options.box.lower[0] << ","
            << options.box.upper[0] << "]x[" << options.box.lower[1] << "," << options.box.upper[1] << "]x["
            << options.box.lower[2] << "," << options.box.upper[2] << "] with " << options.box.subdivisions[0] << "x"
            << options.box.subdivisions[1] << "x" << options.box.subdivisions[2]
            << " coarse cells, u = Π sin²(π t_d), C¹ cubic Hermite\n  CG with the Chebyshev(" << parameters.chebyshev_degree
            << ")-Jacobi V-cycle, " << parameters.coarse_chebyshev_degree << " Chebyshev stages on level 0, tolerance "
            << options.tolerance << " on η/η0, host, " << omp_get_max_threads() << " threads" << std::endl;

  const char *header = " L      cells  Hermite DoFs  iter  η_n/η_0    L2 error   rate  setup[s]  solve[s]  MDoF/s";
  std::vector<std::string> rows;
  double                   previous_error = 0;
  for (int L = options.min_refinements; L <= options.max_refinements; ++L)
    {
      check_box_hierarchy_size(options.box, L);
      for (unsigned int d = 0; d < 3; ++d)
        CELLWISE_CHECK((std::size_t(options.box.subdivisions[d]) << L) >= 2,
                       "--problem biharmonic at L = " << L << ": the finest level has "
                                                      << (std::size_t(options.box.subdivisions[d]) << L)
                                                      << " cell along axis " << d << ", so no interior vertex; the clamped "
                                                      << "problem needs at least 2 cells along every axis");
      std::cout << "L = " << L << ": setting up" << std::endl;
      SetupTimes                              times;
      LevelHierarchy                          hierarchy;
      std::unique_ptr<HermiteMultigridSolver> solver;
      CellVector<double>                      b, u;
      times.measure("mesh hierarchy", [&] { hierarchy = make_box_hierarchy(options.box, L); });
      const Level &fine = hierarchy.levels.back();
      times.measure("solver (levels, eigenvalue estimates)",
                    [&] { solver = std::make_unique<HermiteMultigridSolver>(hierarchy, parameters, &std::cout); });
      times.measure("right-hand side", [&] {
        assemble_hermite_right_hand_side(fine, [&](const Point &x) { return solution.bilaplacian(x); }, b);
      });
      times.print(std::cout, "set-up");
      MonitorControl        control(options.max_iterations, options.tolerance);
      const auto            start      = std::chrono::steady_clock::now();
      const SolveStatistics statistics = solver->solve(u, b, control);
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      for (unsigned int k = 0; k < statistics.monitor.size(); ++k)
        std::cout << "  iteration " << k << ": η/η_0 = " << statistics.monitor[k] / statistics.monitor[0] << std::endl;
      const double error = compute_hermite_l2_error(fine, u, [&](const Point &x) { return solution.value(x); });
      double       dofs  = 8;
      for (unsigned int d = 0; d < 3; ++d)
        dofs *= double(options.box.subdivisions[d] << L) + 1;
      char row[256];
      char rate[16] = "     -";
      if (previous_error > 0)
        std::snprintf(rate, sizeof(rate), "%6.2f", std::log2(previous_error / error));
      std::snprintf(row, sizeof(row), "%2d %10u %13.0f %5u  %9.2e  %10.3e %s %9.3f %9.3f %7.2f", L, fine.n_cells(), dofs,
                    statistics.iterations(), statistics.reduction(), error, rate, times.total(), seconds,
                    dofs / seconds * 1e-6);
      rows.push_back(row);
      previous_error = error;
      std::cout << header << "\n" << rows.back() << std::endl;
    }
  std::cout << "\nSummary\n" << header << "\n";
  for (const std::string &row : rows)
    std::cout << row << "\n";
  std::cout << std::flush;
  return 0;
}
