#include "biharmonic_solve.h"

#include <cellwise/base/setup_times.h>
#include <cellwise/mesh/adaptive_builder.h>
#include <cellwise/mesh/box_builder.h>
#include <cellwise/multigrid/hermite_multigrid_solver.h>
#include <cellwise/multigrid/host_vector_solvers.h>
#include <cellwise/operators/hermite_function_tools.h>

#include <omp.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <algorithm>
#include <iostream>
#include <string>
#include <tuple>
#include <vector>

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
    /// Δ²u = Σ_d ∂⁴_d u + 2 Σ_{d<e} ∂²_d ∂²_e u, with d/dx = (1/length) d/dt:
    /// six products of one-coordinate functions, so that the load vector is
    /// formed from 1D integrals (assemble_hermite_right_hand_side).
    cellwise::SeparableFunction
    separable_bilaplacian() const
    {
      const auto factor = [this](const unsigned int d, const int order) {
        const double lower_d = lower[d], length_d = length[d];
        return std::function<double(double)>([=](const double x) { return g((x - lower_d) / length_d, order); });
      };
      cellwise::SeparableFunction terms;
      for (unsigned int d = 0; d < 3; ++d)
        {
          const unsigned int    e = (d + 1) % 3, f = (d + 2) % 3;
          cellwise::SeparableTerm fourth, mixed;
          fourth.coefficient = 1. / std::pow(length[d], 4);
          fourth.factors[d]  = factor(d, 4);
          fourth.factors[e]  = factor(e, 0);
          fourth.factors[f]  = factor(f, 0);
          mixed.coefficient  = 2. / (std::pow(length[e], 2) * std::pow(length[f], 2));
          mixed.factors[d]   = factor(d, 0);
          mixed.factors[e]   = factor(e, 2);
          mixed.factors[f]   = factor(f, 2);
          terms.push_back(fourth);
          terms.push_back(mixed);
        }
      return terms;
    }
  };
  /// Hermite DoFs of the active cells: eight per distinct vertex, hanging
  /// vertices included once (deal.II's count before constraints). Vertices
  /// are keyed on the lattice of the smallest cell width.
  double
  count_hermite_dofs(const cellwise::Level &active)
  {
    std::array<double, 3> h{{1e300, 1e300, 1e300}};
    for (unsigned int c = 0; c < active.n_cells(); ++c)
      for (unsigned int d = 0; d < 3; ++d)
        h[d] = std::min(h[d], active.boxes[c].size[d]);
    using Key = std::tuple<long long, long long, long long>;
    std::vector<Key> vertices;
    vertices.reserve(std::size_t(8) * active.n_cells());
    for (unsigned int c = 0; c < active.n_cells(); ++c)
      for (unsigned int v = 0; v < 8; ++v)
        {
          const cellwise::CellBox &box = active.boxes[c];
          long long                k[3];
          for (unsigned int d = 0; d < 3; ++d)
            k[d] = std::llround((box.lower[d] + ((v >> d) & 1) * box.size[d]) / h[d]);
          vertices.emplace_back(k[0], k[1], k[2]);
        }
    std::sort(vertices.begin(), vertices.end());
    return 8. * double(std::unique(vertices.begin(), vertices.end()) - vertices.begin());
  }
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
  const bool patch          = options.multigrid.smoother == SmootherType::patch;
  parameters.smoother       = patch ? HermiteSmoother::vertex_patch : HermiteSmoother::chebyshev;
  parameters.stationary     = options.multigrid.outer == OuterIteration::stationary;
  parameters.post_direction = options.multigrid.post_smoothing_direction();
  parameters.coarse_solver  = options.multigrid.coarse_solver;
  parameters.patch_sweeps   = options.multigrid.patch_sweeps;
  parameters.precision      = options.multigrid.precision;
  if (options.multigrid.rebalance_every >= 0)
    parameters.rebalance_every = options.multigrid.rebalance_every;
  const std::string outer   = parameters.stationary ? "stationary iteration" : "CG";
  const std::string cycle =
    patch ? std::string("vertex-block patch V-cycle (forward pre-, ") +
              (parameters.post_direction == SweepDirection::reverse ? "reverse" : "forward") + " post-smoothing)"
          : "Chebyshev(" + std::to_string(parameters.chebyshev_degree) + ")-Jacobi V-cycle";
  std::cout << "cellwise-poisson --problem biharmonic: Δ²u = f, u = ∂n u = 0 on [" << options.box.lower[0] << ","
            << options.box.upper[0] << "]x[" << options.box.lower[1] << "," << options.box.upper[1] << "]x["
            << options.box.lower[2] << "," << options.box.upper[2] << "] with " << options.box.subdivisions[0] << "x"
            << options.box.subdivisions[1] << "x" << options.box.subdivisions[2]
            << " coarse cells";
  if (options.adaptive_steps > 0)
    std::cout << ", " << options.adaptive_steps << " local refinements (" << options.marker << " marker)";
  const bool on_device = options.multigrid.backend == Backend::cuda;
  std::cout << ", u = Π sin²(π t_d), C¹ cubic Hermite\n  " << outer << " with the " << cycle << ", tolerance "
            << options.tolerance << " on η/η0, "
            << (on_device ? std::string("device, ") : "host, " + std::to_string(omp_get_max_threads()) + " threads, ")
            << (parameters.precision == Precision::mixed ? "FP32 levels, FP64 outer iteration" : "FP64")
            << std::endl;

  const char *header = " L active cells  Hermite DoFs  iter  η_n/η_0    L2 error   rate  setup[s]  solve[s]  MDoF/s";
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
      SetupTimes     times;
      LevelHierarchy hierarchy;
      // the host solver (uniform or locally refined), or the device one
      // behind the host-vector interface (uniform, Chebyshev-Jacobi)
      std::unique_ptr<HermiteMultigridSolver> solver;
      std::unique_ptr<HostVectorSolver>       device_solver;
      CellVector<double>                      b, u;
      times.measure("mesh hierarchy", [&] {
        hierarchy = options.adaptive_steps > 0 ? make_adaptive_box_hierarchy(options.box, L, int(options.adaptive_steps),
                                                                             make_marker(options.marker, options.box))
                                               : make_box_hierarchy(options.box, L);
      });
      times.measure("solver (levels, eigenvalue estimates)", [&] {
        if (on_device)
          device_solver = make_hermite_host_vector_solver(hierarchy, parameters, Backend::cuda, &std::cout);
        else
          solver = std::make_unique<HermiteMultigridSolver>(hierarchy, parameters, &std::cout);
      });
      // the device solver's vectors are on the same active cells, in the
      // order of make_active_mesh (the finest level on a uniform hierarchy)
      ActiveMesh device_mesh;
      if (on_device && options.adaptive_steps > 0)
        device_mesh = make_active_mesh(hierarchy);
      const Level &active = !on_device ? solver->active_level() : (options.adaptive_steps > 0 ? device_mesh.level : hierarchy.levels.back());
      times.measure("right-hand side", [&] { assemble_hermite_right_hand_side(active, solution.separable_bilaplacian(), b); });
      times.print(std::cout, "set-up");
      MonitorControl        control(options.max_iterations, options.tolerance);
      const auto            start      = std::chrono::steady_clock::now();
      const SolveStatistics statistics = on_device ? device_solver->solve(u, b, control) : solver->solve(u, b, control);
      // on the device the solve alone, without the copies of b and u
      const double seconds = on_device ? device_solver->last_solve_seconds()
                                       : std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      for (unsigned int k = 0; k < statistics.monitor.size(); ++k)
        std::cout << "  iteration " << k << ": η/η_0 = " << statistics.monitor[k] / statistics.monitor[0] << std::endl;
      const double error = compute_hermite_l2_error(active, u, [&](const Point &x) { return solution.value(x); });
      const double dofs  = count_hermite_dofs(active);
      char row[256];
      char rate[16] = "     -";
      if (previous_error > 0)
        std::snprintf(rate, sizeof(rate), "%6.2f", std::log2(previous_error / error));
      std::snprintf(row, sizeof(row), "%2d %10u %13.0f %5u  %9.2e  %10.3e %s %9.3f %9.3f %7.2f", L, active.n_cells(), dofs,
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
