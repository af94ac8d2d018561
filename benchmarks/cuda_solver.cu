// Throughput of the device multigrid solver at Q3, FP64, on the unit cube:
// the transfer kernels (bytes, GB/s, fraction of a device copy measured in
// the same run), the V-cycle (unique DoFs / cycle time) and the CG solve to an
// η reduction of 1e-14 (as 003 Table 1), for 128^3 cells (L = 7) and for a
// size whose vectors fit in L2 (16^3 cells, L = 4).
//
// Bytes of a transfer are the minimum it must move: prolongation reads the
// coarse vector and reads and writes the fine one; the fused restriction
// reads b and A u of the fine level and reads and writes the coarse vector.
// Times: CUDA events, median after warm-up. Unique DoFs (3 2^L + 1)^3 include
// the Dirichlet boundary, as the papers count.
//
// Usage: cellwise-benchmark-solver [n_runs] [max L]

#include <cellwise/base/cuda_check.h>
#include <cellwise/multigrid/cuda_cell_transfer.h>
#include <cellwise/multigrid/cuda_multigrid_solver.h>
#include <cellwise/mesh/box_builder.h>
#include <cellwise/operators/function_tools.h>
#include <cellwise/storage/cuda_cell_vector.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "benchmark_timing.h"

using namespace cellwise;

namespace
{
  template <typename Layout>
  CellVector<double, MemorySpace::CUDA, Layout>
  random_device_vector(const unsigned int n_cells, const unsigned int degree, const unsigned int seed)
  {
    CellVector<double, MemorySpace::Host, Layout> host(n_cells, degree);
    std::mt19937                                  generator(seed);
    std::uniform_real_distribution<double>        distribution(-1., 1.);
    for (unsigned int cell = 0; cell < n_cells; ++cell)
      for (unsigned int i = 0; i < host.dofs_per_cell(); ++i)
        host(cell, i) = distribution(generator);
    CellVector<double, MemorySpace::CUDA, Layout> device;
    device.copy_from_host(host);
    return device;
  }

  struct Row
  {
    std::string name;
    double      bytes;
    double      seconds;
  };

  template <typename Layout>
  void
  transfer_rows(const LevelHierarchy &hierarchy, const unsigned int degree, const char *layout, const int n_runs, std::vector<Row> &rows)
  {
    const unsigned int L    = hierarchy.max_level();
    const Level       &fine = hierarchy.level(L), &coarse = hierarchy.level(L - 1);
    const cuda::CellTransfer<double, Layout> transfer(hierarchy, degree);
    auto         uf = random_device_vector<Layout>(fine.n_cells(), degree, 1);
    const auto   b  = random_device_vector<Layout>(fine.n_cells(), degree, 2);
    const auto   au = random_device_vector<Layout>(fine.n_cells(), degree, 3);
    auto         uc = random_device_vector<Layout>(coarse.n_cells(), degree, 4);
    const double fine_bytes   = static_cast<double>(uf.storage_size()) * sizeof(double);
    const double coarse_bytes = static_cast<double>(uc.storage_size()) * sizeof(double);
    rows.push_back({std::string("prolongate_add, ") + layout, coarse_bytes + 2 * fine_bytes,
                    median_time([&] { transfer.prolongate_add(L, uf, uc); }, n_runs)});
    rows.push_back({std::string("restrict_residual_add, ") + layout, 2 * fine_bytes + 2 * coarse_bytes,
                    median_time([&] { transfer.restrict_residual_add(L, uc, b, au); }, n_runs)});
  }

  /// V-cycle and CG solve of the default problem, default parameters of
  /// cellwise-poisson (CG, Cholesky coarse), Chebyshev(4) and Jacobi, with the
  /// vectors in @p Layout.
  template <typename Layout>
  void
  solver_rows(const LevelHierarchy     &hierarchy,
              const unsigned int        degree,
              const CellVector<double> &host_b,
              const double              unique_dofs,
              const int                 n_runs,
              const char               *layout)
  {
    using Vector      = CellVector<double, MemorySpace::CUDA, Layout>;
    const Level &fine = hierarchy.levels.back();
    CellVector<double, MemorySpace::CUDA, CellContiguous> staged;
    staged.copy_from_host(host_b);
    Vector b;
    b.copy_from(staged);
    std::printf("%-36s %12s %12s %10s\n", (std::string("solver (CG, symmetric V-cycle), ") + layout).c_str(), "iterations",
                "time [ms]", "GDoF/s");
    for (const SmootherType smoother : {SmootherType::chebyshev, SmootherType::jacobi})
      {
        MultigridParameters parameters;
        parameters.smoother = smoother;
        const auto                         setup_start = std::chrono::steady_clock::now();
        const cuda::MultigridSolver<Layout> solver(hierarchy, degree, parameters);
        const double setup_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - setup_start).count();
        Vector       r = random_device_vector<Layout>(fine.n_cells(), degree, 6), z(fine.n_cells(), degree);
        r.scale(solver.dirichlet_mask());
        const double cycle = median_time([&] { solver.preconditioner().vmult(z, r); }, std::max(5, n_runs / 3), 2);
        std::printf("%-36s %12s %12.3f %10.3f   (set-up %.2f s)\n", ("V-cycle, " + to_string(smoother)).c_str(), "-",
                    cycle * 1e3, unique_dofs / cycle * 1e-9, setup_seconds);

        std::vector<double> times;
        unsigned int        iterations = 0;
        double              reduction  = 0;
        for (int run = 0; run < 3; ++run)
          {
            Vector        u(fine.n_cells(), degree);
            MonitorControl control(200, 1e-14);
            CELLWISE_CUDA_CHECK(cudaDeviceSynchronize());
            const auto start = std::chrono::steady_clock::now();
            try
              {
                const SolveStatistics statistics = solver.solve(u, b, control);
                iterations                       = statistics.iterations();
                reduction                        = statistics.reduction();
              }
            catch (const NoConvergence &e)
              {
                std::printf("  CG did not reach 1e-14: %s\n", e.what());
              }
            CELLWISE_CUDA_CHECK(cudaDeviceSynchronize());
            times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
          }
        std::sort(times.begin(), times.end());
        std::printf("%-36s %12u %12.3f %10.3f   (η_n/η_0 = %.2e, %.3f ms per iteration)\n",
                    ("CG solve to 1e-14, " + to_string(smoother)).c_str(), iterations, times[1] * 1e3,
                    unique_dofs / times[1] * 1e-9, reduction, times[1] * 1e3 / std::max(1u, iterations));
      }
  }

  void
  run_size(const int L, const int n_runs)
  {
    constexpr unsigned int degree = 3;
    const LevelHierarchy   hierarchy   = make_box_hierarchy(BoxDescription{}, L, CellOrdering::child_major);
    const Level           &fine        = hierarchy.levels.back();
    const double           unique_dofs = std::pow(3. * (1 << L) + 1., 3);
    using Vector                       = CellVector<double, MemorySpace::CUDA, CellContiguous>;

    // the same-run copy of a fine-level vector
    Vector       x = random_device_vector<CellContiguous>(fine.n_cells(), degree, 5), y(fine.n_cells(), degree);
    const double vector_bytes = static_cast<double>(x.storage_size()) * sizeof(double);
    std::vector<Row> rows;
    rows.push_back({"copy cudaMemcpy D2D (fine vector)", 2 * vector_bytes, median_time([&] {
                      CELLWISE_CUDA_CHECK(cudaMemcpyAsync(y.data(), x.data(), vector_bytes, cudaMemcpyDeviceToDevice));
                    }, n_runs)});
    const double copy_bandwidth = rows.back().bytes / rows.back().seconds;
    transfer_rows<CellContiguous>(hierarchy, degree, "contiguous", n_runs, rows);
    transfer_rows<CellBlocked<32>>(hierarchy, degree, "blocked<32>", n_runs, rows);

    std::printf("\n%d^3 cells (L = %d), Q%u, FP64, %.4g unique DoFs, vector %.1f MB\n", 1 << L, L, degree, unique_dofs,
                vector_bytes * 1e-6);
    std::printf("%-36s %12s %12s %10s %8s\n", "kernel", "MB moved", "time [us]", "GB/s", "of copy");
    for (const Row &r : rows)
      std::printf("%-36s %12.2f %12.2f %10.1f %8.3f\n", r.name.c_str(), r.bytes * 1e-6, r.seconds * 1e6,
                  r.bytes / r.seconds * 1e-9, r.bytes / r.seconds / copy_bandwidth);

    // right-hand side of the default problem, assembled on the host
    CellVector<double> host_b;
    {
      constexpr double pi = 3.14159265358979323846;
      assemble_right_hand_side(fine, degree,
                               [](const Point &p) {
                                 return 3 * pi * pi * std::sin(pi * p[0]) * std::sin(pi * p[1]) * std::sin(pi * p[2]);
                               },
                               host_b);
    }
    solver_rows<CellContiguous>(hierarchy, degree, host_b, unique_dofs, n_runs, "contiguous");
    solver_rows<CellBlocked<32>>(hierarchy, degree, host_b, unique_dofs, n_runs, "blocked<32>");
  }
} // namespace

int
main(int argc, char **argv)
{
  line_buffered_stdout();
  try
    {
      const int n_runs    = argc > 1 ? std::max(10, std::atoi(argv[1])) : 30;
      const int max_level = argc > 2 ? std::atoi(argv[2]) : 7;
      char      date[64];
      const std::time_t now = std::time(nullptr);
      std::strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S %Z", std::localtime(&now));
      std::printf("cellwise solver benchmark, %s\ndevice: %s\nmedian of %d runs after warm-up (CG solve: median of 3)\n",
                  date, cuda::device_description().c_str(), n_runs);
      if (!cuda::device_available())
        return 0;
      run_size(4, n_runs); // vectors of 2.1 MB: the working set fits in L2
      if (max_level >= 5)
        run_size(max_level, n_runs);
    }
  catch (const std::exception &e)
    {
      std::fprintf(stderr, "error: %s\n", e.what());
      return 1;
    }
  return 0;
}
