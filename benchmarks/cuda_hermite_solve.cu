// The device Hermite biharmonic solve (001 Table 6 analogue: Chebyshev(3)-
// Jacobi CG, CG with the symmetric patch cycle and the stationary iteration
// with the forward one, two patch sweeps per smoothing step; FP64 and mixed
// precision): the clamped problem with f = 1 on
// the unit cube from 2^3 cells refined L times, CG to a reduction of the
// preconditioned residual norm by 1e-10. Per L and precision: set-up
// (hierarchy, device solver with its eigenvalue estimates), iterations, the
// solve from zero (median of n_runs after one warm-up solve, CUDA events),
// cells per second of the solve, the time of one FP64 operator application
// (and its fraction of a copy, counting 64 values read and written per cell)
// and of one V-cycle (with the conversions in mixed
// precision), against a float4 copy of an FP64 vector of that mesh in the
// same run. The mixed rows are run with rebalancing every third iteration
// (the default of CG), every iteration and never (the counts show what the
// h^-4 conditioning needs, doc/hermite.md). All vectors blocked by 32 cells
// (the layout of the host-vector solver), and for comparison cell-contiguous
// ("contig."). Then local smoothing on octant refinements (the 001
// comparison of adaptive and uniform throughput), counting active cells,
// and the GPU time per component of the FP64 and the mixed Chebyshev solve
// and of the FP64 patch CG solve at the largest L.
//
// Usage: cellwise-benchmark-hermite-solve [n_runs] [largest L] [smallest L]
//        [all | chebyshev] (default 5 6 1 all). "chebyshev" runs only the
// blocked Chebyshev CG rows (FP64, mixed, mixed rebalanced in every
// iteration) with their monitor histories, and the breakdowns: at L = 7
// (16.8 M cells, 8.6 GB per FP64 vector) the finest mesh that fits an H200.

#include <cellwise/base/cuda_check.h>
#include <cellwise/base/cuda_event_timer.h>
#include <cellwise/fe/hermite_element.h>
#include <cellwise/mesh/adaptive_builder.h>
#include <cellwise/mesh/box_builder.h>
#include <cellwise/multigrid/adaptive_v_cycle.h>
#include <cellwise/multigrid/cuda_hermite_multigrid_solver.h>
#include <cellwise/operators/hermite_function_tools.h>
#include <cellwise/storage/cuda_cell_vector.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <utility>
#include <vector>

#include "benchmark_timing.h"

using namespace cellwise;

namespace
{
  /// The load vector of f = 1 on @p fine in @p Layout on the device, staged
  /// in a scope of its own (at L = 7 each vector is 8.6 GB).
  template <typename Layout>
  CellVector<double, MemorySpace::CUDA, Layout>
  device_right_hand_side(const Level &fine)
  {
    CellVector<double> host_b;
    assemble_hermite_right_hand_side(fine, [](const Point &) { return 1.; }, host_b, 4);
    CellVector<double, MemorySpace::CUDA> staged;
    staged.copy_from_host(host_b);
    CellVector<double, MemorySpace::CUDA, Layout> b;
    b.copy_from(staged);
    return b;
  }

  /// One row: the solver in @p Layout (all its vectors) on the box refined
  /// @p L times; with @p print_history the monitor history η_k/η_0 under it.
  template <typename Layout>
  void
  run(const int L, const char *name, const HermiteMultigridParameters &parameters, const int n_runs, const int adaptive_steps = 0,
      const bool print_history = false)
  {
    using Vector = typename cuda::HermiteMultigridSolver<Layout>::VectorType;
    BoxDescription box;
    box.subdivisions         = {{2, 2, 2}};
    const auto     start     = std::chrono::steady_clock::now();
    LevelHierarchy hierarchy = adaptive_steps == 0
                                 ? make_box_hierarchy(box, L)
                                 : make_adaptive_box_hierarchy(box, L, adaptive_steps, make_octant_marker(box));
    const cuda::HermiteMultigridSolver<Layout> solver(hierarchy, parameters);
    CELLWISE_CUDA_CHECK(cudaDeviceSynchronize());
    const double setup = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    // the active cells (all cells of the finest level of a uniform hierarchy)
    const ActiveMesh mesh = adaptive_steps == 0 ? ActiveMesh{} : make_active_mesh(hierarchy);
    const Level     &fine = adaptive_steps == 0 ? hierarchy.levels.back() : mesh.level;

    const Vector b = device_right_hand_side<Layout>(fine);
    Vector       u, Au;
    // a solve that does not converge is a row, not the end of the table
    unsigned int        iterations = 0;
    bool                converged  = true;
    std::vector<double> monitor;
    const double        solve = median_time(
      [&] {
        u.reinit(b.n_cells(), b.degree());
        MonitorControl control(100, 1e-10);
        try
          {
            const SolveStatistics statistics = solver.solve(u, b, control);
            iterations                       = statistics.iterations();
            monitor                          = statistics.monitor;
          }
        catch (const NoConvergence &)
          {
            converged = false;
          }
      },
      n_runs, 1);
    const double cells         = fine.n_cells();
    const double operator_time = median_time([&] { solver.fine_operator().vmult(Au, u); }, std::max(n_runs, 10));
    const double cycle_time    = median_time([&] { solver.preconditioner().vmult(Au, b); }, std::max(n_runs, 10));
    // the same-run copy of an FP64 vector of this mesh (u into Au: both are
    // free now, and two more vectors would not fit at L = 7)
    const double copy_bandwidth =
      measure_copy_bandwidth(u.data(), Au.data(), u.storage_size() * sizeof(double), std::max(n_runs, 10));
    // the operator's minimum bytes: 64 values read and written per cell (the
    // even-odd kernel of a uniform level reads no per-cell data; the sum
    // factorization of the active cells of an adaptive mesh 9 numbers)
    const double operator_bytes = cells * (2. * hermite::dofs_per_cell + (adaptive_steps == 0 ? 0. : 9.)) * sizeof(double);
    if (!converged)
      {
        std::printf("%2d %10.0f %-18s %9.3f  no convergence in 100 iterations\n", L, cells, name, setup);
        return;
      }
    std::printf("%2d %10.0f %-18s %9.3f %5u %9.3f %10.2f %9.3f %8.3f %9.3f %9.1f %8.2f\n", L, cells, name, setup, iterations,
                solve * 1e3, cells / solve * 1e-6, operator_time * 1e3, operator_bytes / operator_time / copy_bandwidth,
                cycle_time * 1e3, copy_bandwidth * 1e-9, solve / (iterations * (cycle_time + operator_time)));
    if (print_history && !monitor.empty())
      {
        std::printf("   eta_k/eta_0:");
        for (const double eta : monitor)
          std::printf(" %.2e", eta / monitor.front());
        std::printf("\n");
      }
  }

  /// GPU time per component of the solve on the box refined @p L times
  /// (blocked vectors): every component wrapped by cuda::EventTimer, the
  /// rest of the outer iteration in a scope of its own; averages of
  /// @p n_runs solves after a warm-up (000 Table 11 analogue).
  void
  breakdown(const int L, const HermiteMultigridParameters &parameters, const char *name, const int n_runs)
  {
    using Layout = CellBlocked<32>;
    using Vector = cuda::HermiteMultigridSolver<Layout>::VectorType;
    BoxDescription box;
    box.subdivisions               = {{2, 2, 2}};
    const LevelHierarchy hierarchy = make_box_hierarchy(box, L);
    const Level         &fine      = hierarchy.levels.back();
    cuda::EventTimer                           timer;
    const cuda::HermiteMultigridSolver<Layout> solver(hierarchy, parameters, nullptr, &timer);
    const Vector                               b = device_right_hand_side<Layout>(fine);
    Vector                                     u;
    unsigned int iterations = 0;
    char         title[200];
    const auto   solve = [&] {
      u.reinit(b.n_cells(), b.degree());
      MonitorControl control(100, 1e-10);
      iterations = solver.solve(u, b, control).iterations();
    };
    solve(); // the count for the title
    std::snprintf(title, sizeof title, "GPU time per component, %s, L = %d (%u cells, blocked), %u iterations", name, L,
                  fine.n_cells(), iterations);
    print_component_times(timer, solve, n_runs, title);
  }
} // namespace

int
main(int argc, char **argv)
{
  line_buffered_stdout();
  try
    {
      const int n_runs = argc > 1 ? std::max(1, std::atoi(argv[1])) : 5;
      const int L_max  = argc > 2 ? std::atoi(argv[2]) : 6;
      const int L_min  = argc > 3 ? std::atoi(argv[3]) : 1;
      const std::string rows = argc > 4 ? argv[4] : "all";
      char      date[64];
      const std::time_t now = std::time(nullptr);
      std::strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S %Z", std::localtime(&now));
      std::printf("cellwise Hermite solve benchmark (V-cycles with Chebyshev(3)-Jacobi or the patch smoother, FP64 and mixed, "
                  "tolerance 1e-10), %s\n"
                  "device: %s\nmedian of %d solves after a warm-up solve\n",
                  date, cuda::device_description().c_str(), n_runs);
      if (!cuda::device_available())
        return 0;
      if (L_max < 1 || L_max > 7)
        {
          std::fprintf(stderr, "error: the largest L must be 1..7, got %d\n", L_max);
          return 1;
        }
      if (L_min < 1 || L_min > L_max)
        {
          std::fprintf(stderr, "error: the smallest L must be 1..%d, got %d\n", L_max, L_min);
          return 1;
        }
      if (rows != "all" && rows != "chebyshev")
        {
          std::fprintf(stderr, "error: the rows must be 'all' or 'chebyshev', got '%s'\n", rows.c_str());
          return 1;
        }
      const bool all_rows = rows == "all";
      std::printf("%2s %10s %-18s %9s %5s %9s %10s %9s %8s %9s %9s %8s\n", "L", "cells", "precision", "setup [s]", "iter",
                  "solve[ms]", "Mcells/s", "A u [ms]", "A of cp", "V [ms]", "copy GB/s", "it/V+A");
      struct Variant
      {
        const char *name;
        Precision   precision;
        int         rebalance_every;
        bool        blocked;
        /// none: Chebyshev CG; symmetric: CG with the symmetric patch
        /// cycle; forward: the stationary iteration with the forward one
        enum class Patch
        {
          none,
          symmetric,
          forward
        } patch = Patch::none;

        HermiteMultigridParameters
        parameters() const
        {
          HermiteMultigridParameters parameters;
          parameters.precision       = precision;
          parameters.rebalance_every = rebalance_every;
          if (patch != Patch::none)
            {
              parameters.smoother       = HermiteSmoother::vertex_patch;
              parameters.patch_sweeps   = 2;
              parameters.stationary     = patch == Patch::forward;
              parameters.post_direction = patch == Patch::forward ? SweepDirection::forward : SweepDirection::reverse;
            }
          return parameters;
        }
      };
      using Patch = Variant::Patch;
      // the default rebalancing of CG is every third iteration
      const Variant variants[] = {{"FP64", Precision::fp64, -1, true},
                                  {"FP64, contig.", Precision::fp64, -1, false},
                                  {"mixed", Precision::mixed, -1, true},
                                  {"mixed, contig.", Precision::mixed, -1, false},
                                  {"mixed, reb. 1", Precision::mixed, 1, true},
                                  {"mixed, no reb.", Precision::mixed, 0, true},
                                  {"FP64, patch CG", Precision::fp64, -1, true, Patch::symmetric},
                                  {"mixed, patch CG", Precision::mixed, -1, true, Patch::symmetric},
                                  {"FP64, patch stat.", Precision::fp64, -1, true, Patch::forward},
                                  {"mixed, patch stat.", Precision::mixed, -1, true, Patch::forward}};
      for (int L = L_min; L <= L_max; ++L)
        for (const Variant &variant : variants)
          if (!all_rows && (variant.patch != Patch::none || !variant.blocked || variant.rebalance_every == 0))
            continue;
          else if (variant.blocked)
            run<CellBlocked<32>>(L, variant.name, variant.parameters(), n_runs, 0, !all_rows);
          else
            run<CellContiguous>(L, variant.name, variant.parameters(), n_runs);
      if (!all_rows)
        {
          breakdown(L_max, Variant{"", Precision::fp64, -1, true}.parameters(), "FP64", n_runs);
          breakdown(L_max, Variant{"", Precision::mixed, -1, true}.parameters(), "mixed", n_runs);
          return 0;
        }
      // local smoothing (FP64): the octant refined k times after L - 1 global
      // refinements; "cells" are the active cells, L the global refinements
      std::printf("\noctant refinements, local smoothing (FP64, blocked): L global refinements + k adaptive steps\n");
      for (const auto &[L, k] : {std::pair{std::min(L_max, 5) - 1, 2}, std::pair{std::min(L_max, 5), 1}, std::pair{std::min(L_max, 5), 2}})
        {
          run<CellBlocked<32>>(L, k == 1 ? "FP64, k = 1" : "FP64, k = 2", Variant{"", Precision::fp64, -1, true}.parameters(),
                               n_runs, k);
          run<CellBlocked<32>>(L, k == 1 ? "patch CG, k = 1" : "patch CG, k = 2",
                               Variant{"", Precision::fp64, -1, true, Patch::symmetric}.parameters(), n_runs, k);
        }
      breakdown(L_max, Variant{"", Precision::fp64, -1, true}.parameters(), "FP64", n_runs);
      breakdown(L_max, Variant{"", Precision::mixed, -1, true}.parameters(), "mixed", n_runs);
      breakdown(L_max, Variant{"", Precision::fp64, -1, true, Patch::symmetric}.parameters(), "FP64, patch CG", n_runs);
    }
  catch (const std::exception &e)
    {
      std::fprintf(stderr, "error: %s\n", e.what());
      return 1;
    }
  return 0;
}
