// Achieved memory bandwidth of the CUDA kernels at Q3 (FP64 unless marked),
// against a device-to-device copy measured in the same run.
//
// Bytes moved are the minimum the operation needs: each input read once, each
// output written once (metric factors included for the Laplace operator; for
// DSS the face-DoF copies each pass reads and writes). Time is the median of
// n_runs launches after warm-up, by CUDA events. MDoF/s counts unique DoFs
// (2^L 3 + 1)^3 of the level, the Dirichlet boundary included.
//
// Usage: cellwise-benchmark-kernels [n_runs] [cells per axis of a third size]

#include <cellwise/base/cuda_check.h>
#include <cellwise/storage/cuda_dss.h>
#include <cellwise/operators/cuda_laplace_operator.h>
#include <cellwise/mesh/box_builder.h>
#include <cellwise/storage/cuda_cell_vector.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <functional>
#include <string>
#include <vector>

#include "benchmark_timing.h"

using namespace cellwise;

namespace
{
  struct Row
  {
    std::string name;
    double      bytes;
    double      seconds;
  };

  /// Face-pair DoF copies read and written by the three DSS passes.
  double
  dss_bytes(const Level &level, const unsigned int degree, const std::size_t number_size)
  {
    const double n     = degree + 1;
    double       pairs = 0;
    for (unsigned int c = 0; c < level.n_cells(); ++c)
      for (unsigned int d = 0; d < 3; ++d)
        if (face_neighbor::is_cell(level.neighbors[c][2 * d + 1]))
          pairs += 1;
    // each pair: n^2 DoFs, two copies, each read and written
    return pairs * n * n * 2 * 2 * number_size;
  }

  /// Bytes of the one-pass DSS: every entry with another copy read and written once.
  double
  dss_one_pass_bytes(const Level &level, const unsigned int degree, const std::size_t number_size)
  {
    const unsigned int p       = degree;
    double             entries = 0;
    for (unsigned int c = 0; c < level.n_cells(); ++c)
      for (unsigned int k = 0; k <= p; ++k)
        for (unsigned int j = 0; j <= p; ++j)
          for (unsigned int i = 0; i <= p; ++i)
            {
              const unsigned int index[3] = {i, j, k};
              bool               shared   = false;
              for (unsigned int d = 0; d < 3; ++d)
                shared = shared || (index[d] == 0 && face_neighbor::is_cell(level.neighbors[c][2 * d])) ||
                         (index[d] == p && face_neighbor::is_cell(level.neighbors[c][2 * d + 1]));
              entries += shared;
            }
    return entries * 2 * number_size;
  }

  void
  run_size(const unsigned int cells_per_axis, const int n_runs)
  {
    constexpr unsigned int degree     = 3;
    const unsigned int     n_refine   = 3;
    BoxDescription         box;
    const unsigned int     coarse     = cells_per_axis >> n_refine;
    box.subdivisions                  = {{coarse, coarse, coarse}};
    const LevelHierarchy   hierarchy  = make_box_hierarchy(box, n_refine);
    const Level           &level      = hierarchy.levels.back();
    const double           unique_dofs = std::pow(3. * cells_per_axis + 1., 3);

    using VectorC = CellVector<double, MemorySpace::CUDA, CellContiguous>;
    using VectorB = CellVector<double, MemorySpace::CUDA, CellBlocked<32>>;
    using VectorF = CellVector<float, MemorySpace::CUDA, CellContiguous>;
    VectorC x(level.n_cells(), degree), y(level.n_cells(), degree), z(level.n_cells(), degree);
    x.fill(1.25);
    y.fill(-0.5);
    const double vector_bytes = static_cast<double>(x.storage_size()) * sizeof(double);

    std::vector<Row> rows;
    rows.push_back({"copy cudaMemcpy D2D", 2 * vector_bytes, median_time([&] {
                      CELLWISE_CUDA_CHECK(cudaMemcpyAsync(z.data(), x.data(), vector_bytes, cudaMemcpyDeviceToDevice));
                    }, n_runs)});
    const double copy_bandwidth = rows.back().bytes / rows.back().seconds;
    rows.push_back({"copy float4 kernel", 2 * vector_bytes, median_time([&] {
                      const std::size_t n16 = static_cast<std::size_t>(vector_bytes) / 16;
                      copy_float4_kernel<<<132 * 16, 256>>>(reinterpret_cast<const float4 *>(x.data()),
                                                            reinterpret_cast<float4 *>(z.data()), n16);
                      CELLWISE_CUDA_CHECK_LAUNCH();
                    }, n_runs)});
    rows.push_back({"vector add", 3 * vector_bytes, median_time([&] { z.add(1e-3, x); }, n_runs)});
    rows.push_back({"vector sadd", 3 * vector_bytes, median_time([&] { z.sadd(0.5, 1e-3, x); }, n_runs)});
    rows.push_back({"vector dot (+ result to host)", 2 * vector_bytes, median_time([&] { (void)x.dot(y); }, n_runs)});
    {
      VectorF f(level.n_cells(), degree);
      rows.push_back({"copy_from FP64 -> FP32", 1.5 * vector_bytes, median_time([&] { f.copy_from(x); }, n_runs)});
    }

    const double          factor_bytes = 3. * level.n_cells() * sizeof(double);
    const cuda::LevelData level_data(level);
    // DSS bytes: the axis passes move each face pair's copies once per pass,
    // the one pass each shared entry once
    const double passes   = dss_bytes(level, degree, sizeof(double));
    const double one_pass = dss_one_pass_bytes(level, degree, sizeof(double));
    {
      const cuda::LaplaceOperator<double, CellContiguous> op(level, degree);
      rows.push_back({"Laplace vmult, contiguous", 2 * vector_bytes + factor_bytes,
                      median_time([&] { op.vmult(z, x); }, n_runs)});
      rows.push_back({"Laplace residual, contiguous", 3 * vector_bytes + factor_bytes,
                      median_time([&] { op.residual(z, y, x); }, n_runs)});
    }
    {
      const cuda::LaplaceOperator<double, CellBlocked<32>> op(level, degree);
      VectorB xb(level.n_cells(), degree), yb(level.n_cells(), degree), zb(level.n_cells(), degree);
      xb.fill(1.25);
      yb.fill(-0.5);
      rows.push_back({"Laplace vmult, blocked<32>", 2 * vector_bytes + factor_bytes,
                      median_time([&] { op.vmult(zb, xb); }, n_runs)});
      rows.push_back({"Laplace residual, blocked<32>", 3 * vector_bytes + factor_bytes,
                      median_time([&] { op.residual(zb, yb, xb); }, n_runs)});
      {
        // the outer step of the mixed solve: u += widen(z32) and the next
        // masked residual (mask as bits: n^3 bits per cell), separate and fused
        cuda::LaplaceOperator<double, CellBlocked<32>> masked(level, degree);
        VectorB mask(level.n_cells(), degree);
        mask.fill(1.);
        masked.use_dirichlet_mask(mask);
        VectorF z32(level.n_cells(), degree);
        z32.fill(1e-3f);
        const double bits = level.n_cells() * std::ceil(x.dofs_per_cell() / 64.) * 8.;
        rows.push_back({"u += widen(z32), blocked<32>", 2.5 * vector_bytes,
                        median_time([&] { xb.add(1., z32); }, n_runs)});
        rows.push_back({"masked residual, blocked<32>", 3 * vector_bytes + factor_bytes + bits,
                        median_time([&] { masked.masked_residual(zb, yb, xb, mask); }, n_runs)});
        rows.push_back({"u += widen(z32) + masked residual", 4.5 * vector_bytes + factor_bytes + bits,
                        median_time([&] { masked.add_and_masked_residual(zb, yb, xb, mask, z32); }, n_runs)});
      }
      rows.push_back({"DSS sum, blocked<32>, one pass", one_pass, median_time([&] { cuda::apply_dss(level_data, zb, DssMode::sum); }, n_runs)});
      rows.push_back({"DSS mean, blocked<32>, one pass", one_pass, median_time([&] { cuda::apply_dss(level_data, zb, DssMode::mean); }, n_runs)});
      {
        // the rebalancing and rounding of the mixed solve's residual: the
        // mean DSS in place and the rounding relayout (doc/performance-log.md:
        // a one-pass gather of the two ran slower)
        VectorF r32(level.n_cells(), degree);
        rows.push_back({"mean DSS + round to FP32 (2 passes)", one_pass + 1.5 * vector_bytes, median_time([&] {
                          cuda::apply_dss(level_data, zb, DssMode::mean);
                          r32.copy_from(zb);
                        }, n_runs)});
      }
      rows.push_back({"DSS sum, blocked<32>, axis passes", passes, median_time([&] {
                        cuda::apply_dss(level_data, zb, DssMode::sum, cuda::DssSchedule::axis_passes);
                      }, n_runs)});
    }
    {
      rows.push_back({"DSS sum, contiguous, axis passes", passes, median_time([&] { cuda::apply_dss(level_data, z, DssMode::sum); }, n_runs)});
      rows.push_back({"DSS sum, contiguous, one pass", one_pass, median_time([&] {
                        cuda::apply_dss(level_data, z, DssMode::sum, cuda::DssSchedule::one_pass);
                      }, n_runs)});
    }
    {
      VectorF fx(level.n_cells(), degree), fz(level.n_cells(), degree);
      fx.fill(1.25f);
      const cuda::LaplaceOperator<float, CellContiguous> op(level, degree);
      rows.push_back({"Laplace vmult FP32, contiguous", vector_bytes + 0.5 * factor_bytes,
                      median_time([&] { op.vmult(fz, fx); }, n_runs)});
    }

    std::printf("\n%u^3 cells, Q%u, %.3g unique DoFs, %u cells x %u values, vector %.1f MB\n", cells_per_axis, degree,
                unique_dofs, level.n_cells(), x.dofs_per_cell(), vector_bytes * 1e-6);
    std::printf("%-34s %12s %12s %10s %8s %10s\n", "kernel", "MB moved", "time [us]", "GB/s", "of copy", "MDoF/s");
    for (const Row &r : rows)
      std::printf("%-34s %12.2f %12.2f %10.1f %8.3f %10.0f\n", r.name.c_str(), r.bytes * 1e-6, r.seconds * 1e6,
                  r.bytes / r.seconds * 1e-9, r.bytes / r.seconds / copy_bandwidth, unique_dofs / r.seconds * 1e-6);
  }
} // namespace

int
main(int argc, char **argv)
{
  line_buffered_stdout();
  try
    {
      const int n_runs = argc > 1 ? std::max(20, std::atoi(argv[1])) : 30;
      char      date[64];
      const std::time_t now = std::time(nullptr);
      std::strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S %Z", std::localtime(&now));
      std::printf("cellwise kernel benchmark, %s\ndevice: %s\nmedian of %d runs after 3 warm-up runs\n", date,
                  cuda::device_description().c_str(), n_runs);
      if (!cuda::device_available())
        return 0;
      run_size(16, n_runs);
      run_size(128, n_runs);
      if (argc > 2) // a third size, e.g. 256 (16.8 M cells, 8.6 GB per FP64 vector)
        run_size(static_cast<unsigned int>(std::atoi(argv[2])), n_runs);
    }
  catch (const std::exception &e)
    {
      std::fprintf(stderr, "error: %s\n", e.what());
      return 1;
    }
  return 0;
}
