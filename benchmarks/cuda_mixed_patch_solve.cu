// The headline solve of 000 §7 on the device: the stationary forward V-cycle
// with the vertex-patch smoother, the FP32 hierarchy inside the FP64
// iteration and rebalancing in every cycle, Q3 on the unit cube; FP64
// vectors blocked by 32 cells, FP32 levels cell-contiguous.
//
//  1. Solve time per mesh, L = 4..max L (000 Table 12): a fixed number of four
//     cycles (the count the tolerance 1e-9 needs on every mesh, 000 Table 2),
//     median of n runs after a warm-up solve, CUDA events around the whole
//     solve; MDoF/s counts unique DoFs (3 2^L + 1)^3 including the boundary.
//  2. The GPU time per component of the L = 6 solve (000 Table 11): the same
//     solve with every component wrapped by cuda::EventTimer (events in stream
//     order, exclusive parts, see base/cuda_event_timer.h), averaged over n solves,
//     next to the untimed wall time so that the events' own cost shows.
//
// Usage: cellwise-benchmark-mixed-solve [n_runs (10)] [max L (8)] [breakdown L (6)]

#include <cellwise/base/cuda_check.h>
#include <cellwise/base/cuda_event_timer.h>
#include <cellwise/multigrid/cuda_multigrid_solver.h>
#include <cellwise/mesh/box_builder.h>
#include <cellwise/operators/function_tools.h>
#include <cellwise/storage/cuda_cell_vector.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

#include "benchmark_timing.h"

using namespace cellwise;

namespace
{
  // FP64 outer vectors blocked by 32 cells (residual and rebalancing DSS
  // coalesced); the solver's FP32 levels are cell-contiguous
  using OuterLayout = CellBlocked<32>;
  using Vector      = CellVector<double, MemorySpace::CUDA, OuterLayout>;
  using Solver      = cuda::MultigridSolver<OuterLayout>;

  constexpr unsigned int degree   = 3;
  constexpr unsigned int n_cycles = 4;

  MultigridParameters
  headline_parameters()
  {
    MultigridParameters parameters;
    parameters.smoother  = SmootherType::patch;
    parameters.outer     = OuterIteration::stationary;
    parameters.precision = Precision::mixed; // rebalancing every cycle (the stationary default)
    // stop on η̂ (000 eq. 14): with a fixed count of 4 the solve applies exactly
    // four cycles; a stop on the measured η would apply a fifth
    parameters.stop_on_extrapolated_monitor = true;
    return parameters;
  }

  /// Right-hand side of the default problem (u = sin πx sin πy sin πz).
  Vector
  right_hand_side(const Level &fine)
  {
    constexpr double   pi = 3.14159265358979323846;
    CellVector<double> host_b;
    assemble_right_hand_side(fine, degree,
                             [](const Point &p) {
                               return 3 * pi * pi * std::sin(pi * p[0]) * std::sin(pi * p[1]) * std::sin(pi * p[2]);
                             },
                             host_b);
    CellVector<double, MemorySpace::CUDA, CellContiguous> staged;
    staged.copy_from_host(host_b);
    Vector b;
    b.copy_from(staged); // relayout on the device
    return b;
  }

  double
  copy_bandwidth(const unsigned int n_cells, const int n_runs)
  {
    Vector       x(n_cells, degree), y(n_cells, degree);
    const double bytes = static_cast<double>(x.storage_size()) * sizeof(double);
    const double time  = median_time([&] {
      CELLWISE_CUDA_CHECK(cudaMemcpyAsync(y.data(), x.data(), bytes, cudaMemcpyDeviceToDevice));
    }, n_runs);
    return 2 * bytes / time;
  }

  /// One solve of n_cycles cycles from zero; returns the monitor reduction.
  double
  solve_once(const Solver &solver, Vector &u, const Vector &b)
  {
    u.set_zero();
    FixedIterationControl control(n_cycles); // the timed solves of 000 Table 12
    const SolveStatistics statistics = solver.solve(u, b, control);
    return statistics.reduction();
  }

  void
  solve_time_row(const int L, const int n_runs)
  {
    const LevelHierarchy hierarchy   = make_box_hierarchy(BoxDescription{}, L, CellOrdering::child_major);
    const Level         &fine        = hierarchy.levels.back();
    const double         unique_dofs = std::pow(3. * (1 << L) + 1., 3);
    const Solver solver(hierarchy, degree, headline_parameters());
    const Vector b = right_hand_side(fine);
    Vector       u(fine.n_cells(), degree);
    double       reduction = 0;
    const double seconds   = median_time([&] { reduction = solve_once(solver, u, b); }, n_runs, 1);
    std::printf("%3d %10u %12.4g %7u %12.3f %10.1f %12.2e %10.3f\n", L, fine.n_cells(), unique_dofs, n_cycles, seconds * 1e3,
                unique_dofs / seconds * 1e-6, reduction, copy_bandwidth(fine.n_cells(), 10) * 1e-12);
  }

  void
  breakdown(const int L, const int n_runs)
  {
    const LevelHierarchy hierarchy = make_box_hierarchy(BoxDescription{}, L, CellOrdering::child_major);
    const Level         &fine      = hierarchy.levels.back();
    const Vector         b         = right_hand_side(fine);
    Vector               u(fine.n_cells(), degree);

    const Solver plain(hierarchy, degree, headline_parameters());
    const double untimed = median_time([&] { solve_once(plain, u, b); }, n_runs, 1);

    cuda::EventTimer                            timer;
    const Solver timed(hierarchy, degree, headline_parameters(), nullptr, &timer);
    const std::string                           outer = "outer iteration: vector operations, monitor, host waits";
    auto timed_solve = [&] {
      TimedScope scope(timer, outer);
      solve_once(timed, u, b);
    };
    timed_solve(); // warm-up
    timer.clear();
    for (int run = 0; run < n_runs; ++run)
      timed_solve();
    const auto   parts = timer.parts();
    const double total = timer.span();

    std::printf("\nGPU time per component, L = %d (%u cells), %u cycles, average of %d solves (000 Table 11)\n", L,
                fine.n_cells(), n_cycles, n_runs);
    std::printf("untimed solve (median): %.3f ms; timed solve: %.3f ms (events cost %.1f %%)\n", untimed * 1e3,
                total / n_runs * 1e3, 100. * (total / n_runs - untimed) / untimed);
    std::printf("%-58s %8s %10s %8s\n", "part", "calls", "time [ms]", "share");
    std::vector<cuda::EventTimer::Part> sorted(parts.begin(), parts.end());
    std::sort(sorted.begin(), sorted.end(), [](const auto &a, const auto &b) { return a.seconds > b.seconds; });
    for (const auto &part : sorted)
      std::printf("%-58s %8.1f %10.3f %7.1f%%\n", part.name.c_str(), double(part.calls) / n_runs,
                  part.seconds / n_runs * 1e3, 100. * part.seconds / total);
    std::printf("%-58s %8s %10.3f %7.1f%%\n", "total (first to last event)", "", total / n_runs * 1e3, 100.);
  }
} // namespace

int
main(int argc, char **argv)
{
  line_buffered_stdout();
  try
    {
      const int n_runs      = argc > 1 ? std::max(3, std::atoi(argv[1])) : 10;
      const int max_level   = argc > 2 ? std::atoi(argv[2]) : 8;
      const int split_level = argc > 3 ? std::atoi(argv[3]) : 6;
      char      date[64];
      const std::time_t now = std::time(nullptr);
      std::strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S %Z", std::localtime(&now));
      std::printf("cellwise mixed-precision patch solve (000 Tables 11, 12), %s\ndevice: %s\n", date,
                  cuda::device_description().c_str());
      if (!cuda::device_available())
        return 0;
      std::printf("stationary forward V-cycle, vertex-patch smoother, FP32 levels (cell-contiguous), FP64 outer (blocked by 32),\n"
                  "rebalancing every cycle, Q%u, %u cycles per solve (fixed), median of %d solves after one warm-up\n",
                  degree, n_cycles, n_runs);
      std::printf("%3s %10s %12s %7s %12s %10s %12s %10s\n", "L", "cells", "DoFs", "cycles", "solve [ms]", "MDoF/s",
                  "eta_n/eta_0", "copy TB/s");
      for (int L = 4; L <= max_level; ++L)
        solve_time_row(L, L >= 8 ? std::max(3, n_runs / 3) : n_runs);
      if (split_level >= 2)
        breakdown(split_level, n_runs);
    }
  catch (const std::exception &e)
    {
      std::fprintf(stderr, "error: %s\n", e.what());
      return 1;
    }
  return 0;
}
