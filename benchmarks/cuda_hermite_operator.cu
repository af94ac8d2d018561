// The device Hermite biharmonic operator (001 Table 2 analogue): time of one
// application at n^3 cells (default 128^3 = 2.1 M cells), cells/s, and the
// bandwidth counting the minimum data (the 64 values of each cell read and
// written once, and the 9 numbers of widths and metric factors per cell),
// against a float4 device copy of the same vector measured in the same run.
// Median of n_runs applications after 3 warm-up runs, CUDA events.
//
// Usage: cellwise-benchmark-hermite [n_runs] [cells per axis]

#include <cellwise/base/cuda_check.h>
#include <cellwise/fe/hermite_element.h>
#include <cellwise/mesh/box_builder.h>
#include <cellwise/operators/cuda_hermite_biharmonic_operator.h>
#include <cellwise/storage/cuda_cell_vector.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>

#include "benchmark_timing.h"

using namespace cellwise;

namespace
{
  template <typename Number, typename Layout>
  void
  run(const Level &level, const char *name, const int n_runs, const double copy_bandwidth)
  {
    using Vector = CellVector<Number, MemorySpace::CUDA, Layout>;
    const unsigned int                                    p = hermite::storage_degree;
    const cuda::HermiteBiharmonicOperator<Number, Layout> op(level);
    Vector                                                x(level.n_cells(), p), y(level.n_cells(), p);
    x.fill(Number(1.25));
    const double cells   = level.n_cells();
    const double bytes   = cells * (2. * hermite::dofs_per_cell + 9.) * sizeof(Number);
    const double seconds = median_time([&] { op.vmult(y, x); }, n_runs);
    std::printf("%-36s %10.1f %12.2f %10.1f %8.3f %12.1f\n", name, bytes * 1e-6, seconds * 1e6, bytes / seconds * 1e-9,
                bytes / seconds / copy_bandwidth, cells / seconds * 1e-6);
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
      std::printf("%-36s %10s %12s %10s %8s %12s\n", "operator realisation", "MB moved", "time [us]", "GB/s", "of copy",
                  "Mcells/s");
      run<double, CellContiguous>(level, "sum factorization, FP64, contiguous", n_runs, copy_bandwidth);
      run<double, CellBlocked<32>>(level, "sum factorization, FP64, blocked 32", n_runs, copy_bandwidth);
      run<float, CellContiguous>(level, "sum factorization, FP32, contiguous", n_runs, copy_bandwidth);
      run<float, CellBlocked<32>>(level, "sum factorization, FP32, blocked 32", n_runs, copy_bandwidth);
    }
  catch (const std::exception &e)
    {
      std::fprintf(stderr, "error: %s\n", e.what());
      return 1;
    }
  return 0;
}
