// The device Hermite biharmonic operator (001 Table 2 analogue): time of one
// application at n^3 cells (default 128^3 = 2.1 M cells) in each realisation
// (sum factorization, two-axis even–odd, dense), cells/s, and the bandwidth
// counting the minimum data (the 64 values of each cell read and written
// once; sum factorization also reads the 9 numbers of widths and metric
// factors per cell), against a float4 device copy of the same vector
// measured in the same run. Median of n_runs applications after 3 warm-up
// runs, CUDA events. Then the DSS of both trace layers (the axis passes and
// the one-pass vertex gather), counting each value read and written once.
// Then one sweep (8 colours) of the vertex-block patch smoother, counting per
// cell and colour the 64 values of u and the 8 of b~ at the patch vertex
// read and the 8 of u written (640 values per cell and sweep). Between
// them, the mixed-precision CG's residual update with its rebalancing and
// rounding, in three passes and fused (storage/cuda_rebalanced_rounding.h),
// and the update of a DSS-Jacobi step with its DSS, composed and fused
// (multigrid/cuda_hermite_dss_jacobi_step.h).
//
// Usage: cellwise-benchmark-hermite [n_runs] [cells per axis]

#include <cellwise/base/cuda_check.h>
#include <cellwise/fe/hermite_element.h>
#include <cellwise/mesh/box_builder.h>
#include <cellwise/multigrid/cuda_hermite_dss_jacobi_step.h>
#include <cellwise/multigrid/cuda_hermite_vertex_patch_smoother.h>
#include <cellwise/operators/cuda_smoother_update.h>
#include <cellwise/operators/cuda_hermite_biharmonic_operator.h>
#include <cellwise/storage/cuda_cell_vector.h>
#include <cellwise/storage/cuda_dss.h>
#include <cellwise/storage/cuda_rebalanced_rounding.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <tuple>

#include "benchmark_timing.h"

using namespace cellwise;

namespace
{
  template <typename Number, typename Layout>
  void
  run(const Level &level, const cuda::HermiteOperatorKernel kernel, const char *precision_and_layout, const int n_runs,
      const double copy_bandwidth)
  {
    using Vector = CellVector<Number, MemorySpace::CUDA, Layout>;
    const unsigned int                                    p = hermite::storage_degree;
    const cuda::HermiteBiharmonicOperator<Number, Layout> op(level, kernel);
    Vector                                                x(level.n_cells(), p), y(level.n_cells(), p);
    x.fill(Number(1.25));
    const double cells       = level.n_cells();
    const double per_cell    = kernel == cuda::HermiteOperatorKernel::sum_factorization ? 9. : 0.;
    const double bytes       = cells * (2. * hermite::dofs_per_cell + per_cell) * sizeof(Number);
    const double seconds     = median_time([&] { op.vmult(y, x); }, n_runs);
    const std::string name = std::string(cuda::to_string(kernel)) + ", " + precision_and_layout;
    std::printf("%-40s %10.1f %12.2f %10.1f %8.3f %12.1f\n", name.c_str(), bytes * 1e-6, seconds * 1e6,
                bytes / seconds * 1e-9, bytes / seconds / copy_bandwidth, cells / seconds * 1e-6);
  }

  template <typename Number, typename Layout>
  void
  run_dss(const cuda::LevelData &level_data, const cuda::DssSchedule schedule, const char *name, const int n_runs,
          const double copy_bandwidth)
  {
    CellVector<Number, MemorySpace::CUDA, Layout> x(level_data.n_cells(), hermite::storage_degree);
    x.fill(Number(1));
    const double cells   = level_data.n_cells();
    const double bytes   = cells * 2. * hermite::dofs_per_cell * sizeof(Number);
    // mean: the values stay bounded over the repetitions
    const double seconds = median_time([&] { cuda::apply_dss(level_data, x, DssMode::mean, hermite_trace_layers(), schedule); }, n_runs);
    std::printf("%-40s %10.1f %12.2f %10.1f %8.3f %12.1f\n", name, bytes * 1e-6, seconds * 1e6, bytes / seconds * 1e-9,
                bytes / seconds / copy_bandwidth, cells / seconds * 1e-6);
  }

  /// The mixed-precision CG's residual update with the rebalancing and the
  /// rounding (r ← Π(r + a q), r32 = fl32(r)): the three passes (r, q read
  /// and r written; r read and written; r read and r32 written: 48 bytes
  /// per entry) against the fused one (r, q read, r and r32 written: 28).
  template <typename Layout>
  void
  run_rebalanced_rounding(const cuda::LevelData &level_data, const char *layout, const int n_runs, const double copy_bandwidth)
  {
    const unsigned int                               p = hermite::storage_degree;
    CellVector<double, MemorySpace::CUDA, Layout>    r(level_data.n_cells(), p), q(level_data.n_cells(), p);
    CellVector<float, MemorySpace::CUDA, Layout>     rounded(level_data.n_cells(), p);
    r.fill(1.);
    q.fill(0.5);
    const double entries = double(level_data.n_cells()) * hermite::dofs_per_cell;
    // a = 0: the values stay bounded over the repetitions; the kernels do
    // the same work for any a
    const auto row = [&](const char *variant, const double bytes_per_entry, const auto &apply) {
      const double seconds = median_time(apply, n_runs);
      const double bytes   = entries * bytes_per_entry;
      const std::string name = std::string(variant) + ", " + layout;
      std::printf("%-40s %10.1f %12.2f %10.1f %8.3f %12.1f\n", name.c_str(), bytes * 1e-6, seconds * 1e6, bytes / seconds * 1e-9,
                  bytes / seconds / copy_bandwidth, level_data.n_cells() / seconds * 1e-6);
    };
    row("add, DSS, round (3 passes)", 48., [&] {
      r.add(0., q);
      cuda::apply_dss(level_data, r, DssMode::mean, hermite_trace_layers());
      rounded.copy_from(r);
    });
    row("add, DSS and round fused", 28., [&] { cuda::add_rebalance_and_round(level_data, r, 0., q, rounded); });
    row("DSS and round fused, r kept", 12., [&] { cuda::round_rebalanced(level_data, r, rounded); });
  }

  /// A Chebyshev step's update (α ≠ 0, d stored) of the DSS-Jacobi smoother:
  /// the composition apply_dss + apply_smoother_update (the DSS's values read
  /// and written, then r, D^{-1}, d, u read and u, d written: 8 values per
  /// entry) against the DSS inside the update (r read, u read and written,
  /// D^{-1} and d read and d written at one copy per DoF: 3 values per entry
  /// and 3 per DoF, 216 per cell in the interior). The composition's DSS
  /// takes the mean, in place, so that r stays bounded over the repetitions
  /// (the same traffic as the sum).
  template <typename Number, typename Layout>
  void
  run_dss_jacobi_update(const cuda::LevelData &level_data, const char *name, const int n_runs, const double copy_bandwidth)
  {
    using Vector = CellVector<Number, MemorySpace::CUDA, Layout>;
    const unsigned int p = hermite::storage_degree;
    Vector r(level_data.n_cells(), p), u(level_data.n_cells(), p), d(level_data.n_cells(), p), inverse(level_data.n_cells(), p);
    r.fill(Number(1));
    inverse.fill(Number(1e-3)); // |α| + β ≤ 1: u and d stay bounded over the repetitions
    SmootherStep<Number> step;
    step.alpha                  = Number(0.5);
    step.beta                   = Number(0.5);
    step.store_update           = true;
    const double cells          = level_data.n_cells();
    const double composed_bytes = cells * 8. * hermite::dofs_per_cell * sizeof(Number);
    const double fused_bytes    = cells * (3. * hermite::dofs_per_cell + 3. * hermite::dofs_per_vertex) * sizeof(Number);
    const double composed       = median_time(
      [&] {
        cuda::apply_dss(level_data, r, DssMode::mean, hermite_trace_layers());
        cuda::apply_smoother_update(u, r, &d, inverse, step);
      },
      n_runs);
    const double fused = median_time([&] { cuda::hermite_dss_jacobi_update(level_data, u, r, &d, inverse, step); }, n_runs);
    for (const auto &[what, bytes, seconds] : {std::tuple<const char *, double, double>{"DSS, then update", composed_bytes, composed},
                                               std::tuple<const char *, double, double>{"DSS inside the update", fused_bytes, fused}})
      {
        const std::string row = std::string(what) + ", " + name;
        std::printf("%-40s %10.1f %12.2f %10.1f %8.3f %12.1f\n", row.c_str(), bytes * 1e-6, seconds * 1e6, bytes / seconds * 1e-9,
                    bytes / seconds / copy_bandwidth, cells / seconds * 1e-6);
      }
  }

  template <typename Number, typename Layout>
  void
  run_patch_sweep(const Level &level, const char *name, const int n_runs, const double copy_bandwidth)
  {
    using Vector = CellVector<Number, MemorySpace::CUDA, Layout>;
    const cuda::HermiteVertexPatchSmoother<Number, Layout> smoother(level);
    Vector u(level.n_cells(), hermite::storage_degree), b(level.n_cells(), hermite::storage_degree);
    b.fill(Number(1)); // u converges towards A^{-1} b: bounded over the repetitions
    const double cells    = level.n_cells();
    const double per_cell = 8. * (hermite::dofs_per_cell + 2. * hermite::dofs_per_vertex) * sizeof(Number);
    const double bytes    = cells * per_cell;
    const double seconds  = median_time([&] { smoother.smooth(u, b, false, SweepDirection::forward); }, n_runs);
    std::printf("%-30s %9.0f %10.1f %12.2f %10.1f %8.3f %12.1f\n", name, per_cell, bytes * 1e-6, seconds * 1e6,
                bytes / seconds * 1e-9, bytes / seconds / copy_bandwidth, cells / seconds * 1e-6);
  }
} // namespace

int
main(int argc, char **argv)
{
  line_buffered_stdout();
  try
    {
      const int          n_runs = argc > 1 ? std::max(20, std::atoi(argv[1])) : 30;
      const unsigned int n      = argc > 2 ? static_cast<unsigned int>(std::atoi(argv[2])) : 128;
      char               date[64];
      const std::time_t  now = std::time(nullptr);
      std::strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S %Z", std::localtime(&now));
      std::printf("cellwise Hermite operator benchmark, %s\ndevice: %s\nmedian of %d runs after 3 warm-up runs\n", date,
                  cuda::device_description().c_str(), n_runs);
      if (!cuda::device_available())
        return 0;
      if (n < 8 || n % 8 != 0)
        {
          std::fprintf(stderr, "error: the cells per axis must be a multiple of 8, got %u\n", n);
          return 1;
        }
      BoxDescription box;
      box.subdivisions           = {{n / 8, n / 8, n / 8}};
      const LevelHierarchy h     = make_box_hierarchy(box, 3);
      const Level         &level = h.levels.back();

      // the same-run copy of an FP64 vector of this mesh
      CellVector<double, MemorySpace::CUDA> a(level.n_cells(), hermite::storage_degree), b(level.n_cells(), 3);
      a.fill(1.);
      const double copy_bandwidth = measure_copy_bandwidth(a.data(), b.data(), a.storage_size() * sizeof(double), n_runs);
      std::printf("\n%u^3 cells (%u), 64 values per cell; copy (float4 kernel, FP64 vector) %.1f GB/s\n", n, level.n_cells(),
                  copy_bandwidth * 1e-9);
      std::printf("%-40s %10s %12s %10s %8s %12s\n", "operator realisation", "MB moved", "time [us]", "GB/s", "of copy",
                  "Mcells/s");
      using Kernel = cuda::HermiteOperatorKernel;
      for (const Kernel kernel : {Kernel::even_odd, Kernel::dense, Kernel::sum_factorization})
        {
          run<double, CellContiguous>(level, kernel, "FP64, contiguous", n_runs, copy_bandwidth);
          run<double, CellBlocked<32>>(level, kernel, "FP64, blocked 32", n_runs, copy_bandwidth);
          run<float, CellContiguous>(level, kernel, "FP32, contiguous", n_runs, copy_bandwidth);
          run<float, CellBlocked<32>>(level, kernel, "FP32, blocked 32", n_runs, copy_bandwidth);
        }

      const cuda::LevelData level_data(level);
      std::printf("\nDSS of both trace layers (values and normal derivatives), mean\n");
      std::printf("%-40s %10s %12s %10s %8s %12s\n", "schedule", "MB moved", "time [us]", "GB/s", "of copy", "Mcells/s");
      using Schedule = cuda::DssSchedule;
      run_dss<double, CellContiguous>(level_data, Schedule::one_pass, "one pass, FP64, contiguous", n_runs, copy_bandwidth);
      run_dss<double, CellContiguous>(level_data, Schedule::axis_passes, "axis passes, FP64, contiguous", n_runs, copy_bandwidth);
      run_dss<double, CellBlocked<32>>(level_data, Schedule::one_pass, "one pass, FP64, blocked 32", n_runs, copy_bandwidth);
      run_dss<double, CellBlocked<32>>(level_data, Schedule::axis_passes, "axis passes, FP64, blocked 32", n_runs,
                                       copy_bandwidth);
      run_dss<float, CellContiguous>(level_data, Schedule::one_pass, "one pass, FP32, contiguous", n_runs, copy_bandwidth);
      run_dss<float, CellContiguous>(level_data, Schedule::axis_passes, "axis passes, FP32, contiguous", n_runs, copy_bandwidth);

      std::printf("\nMixed CG's residual update r <- Pi(r + a q), r32 = fl32(r) (FP64 -> FP32)\n");
      std::printf("%-40s %10s %12s %10s %8s %12s\n", "variant", "MB moved", "time [us]", "GB/s", "of copy", "Mcells/s");
      run_rebalanced_rounding<CellBlocked<32>>(level_data, "blocked 32", n_runs, copy_bandwidth);
      run_rebalanced_rounding<CellContiguous>(level_data, "contiguous", n_runs, copy_bandwidth);

      std::printf("\nDSS-Jacobi step: the update with z = S r (alpha != 0, d stored)\n");
      std::printf("%-40s %10s %12s %10s %8s %12s\n", "variant", "MB moved", "time [us]", "GB/s", "of copy", "Mcells/s");
      run_dss_jacobi_update<double, CellBlocked<32>>(level_data, "FP64, blocked 32", n_runs, copy_bandwidth);
      run_dss_jacobi_update<float, CellBlocked<32>>(level_data, "FP32, blocked 32", n_runs, copy_bandwidth);
      run_dss_jacobi_update<double, CellContiguous>(level_data, "FP64, contiguous", n_runs, copy_bandwidth);

      std::printf("\nvertex-block patch smoother, one sweep of 8 colours\n");
      std::printf("%-30s %9s %10s %12s %10s %8s %12s\n", "precision, layout", "B/cell", "MB moved", "time [us]", "GB/s",
                  "of copy", "Mcells/s");
      run_patch_sweep<double, CellContiguous>(level, "FP64, contiguous", n_runs, copy_bandwidth);
      run_patch_sweep<double, CellBlocked<32>>(level, "FP64, blocked 32", n_runs, copy_bandwidth);
      run_patch_sweep<float, CellContiguous>(level, "FP32, contiguous", n_runs, copy_bandwidth);
      run_patch_sweep<float, CellBlocked<32>>(level, "FP32, blocked 32", n_runs, copy_bandwidth);
    }
  catch (const std::exception &e)
    {
      std::fprintf(stderr, "error: %s\n", e.what());
      return 1;
    }
  return 0;
}
