// Vertex-patch smoother on the device (000 Table 9): one colour step at 2^20
// and 2^23 cells and a full 8-colour sweep at 128^3 cells, FP32 Q3,
// cell-contiguous, against a device copy measured in the same run.
//
// Bytes per cell visit: u and b~ read, u written, the cell index:
// 64*4*3 + 4 = 772 (000 Table 9) for register_q3 and the generic kernel; the
// cp.async kernels (register_async, register_symmetric) neither read b~ nor
// write u on the plane of the cell on the patch's rim along z (two of its
// eight 32-byte sectors; the local solve does not use b~ there and leaves u
// unchanged): 256 + 192 + 192 + 4 = 644. A colour step visits 8 cells per
// patch. Time
// is the median of n_runs launches after warm-up (CUDA events). The traffic
// stub does the loads and stores of the register kernel without arithmetic
// (000 Table 8, reference row). Register kernels: register_q3
// (register-staged loads), register_q3_async (cp.async staging, the default)
// and register_q3_symmetric (cp.async staging, reflection symmetry of 000
// §6.4), each with its stub. The generic kernel (one block per patch) is
// timed on the same colour for comparison.
//
// Usage: cellwise-benchmark-patch [n_runs]

#include <cellwise/base/cuda_check.h>
#include <cellwise/multigrid/cuda_vertex_patch_smoother.h>
#include <cellwise/mesh/box_builder.h>
#include <cellwise/storage/cuda_cell_vector.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <functional>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "benchmark_timing.h"

using namespace cellwise;

namespace
{
  /// Uniform box of nx x ny x nz cubes of side 1/64.
  LevelHierarchy
  box(const int nx, const int ny, const int nz)
  {
    BoxDescription description;
    description.upper        = {{nx / 64., ny / 64., nz / 64.}};
    description.subdivisions = {{static_cast<unsigned int>(nx), static_cast<unsigned int>(ny), static_cast<unsigned int>(nz)}};
    return make_box_hierarchy(description, 0);
  }

  void
  fill(CellVector<float, MemorySpace::CUDA> &v, const unsigned int seed)
  {
    CellVector<float, MemorySpace::Host> host(v.n_cells(), v.degree());
    std::mt19937                         generator(seed);
    std::uniform_real_distribution<float> uniform(-1.f, 1.f);
    for (unsigned int cell = 0; cell < host.n_cells(); ++cell)
      for (unsigned int i = 0; i < host.dofs_per_cell(); ++i)
        host(cell, i) = uniform(generator);
    v.copy_from_host(host);
  }

  void
  row(const char *what, const double seconds, const double bytes, const double copy_rate)
  {
    const double rate = bytes / seconds;
    std::printf("| %-44s | %9.3f | %8.0f | %6.2f |\n", what, 1e3 * seconds, 1e-9 * rate, rate / copy_rate);
  }
} // namespace

int
main(int argc, char **argv)
{
  line_buffered_stdout();
  const int n_runs = argc > 1 ? std::atoi(argv[1]) : 20;
  if (!cuda::device_available())
    {
      std::printf("no CUDA device: %s\n", cuda::device_description().c_str());
      return 0;
    }
  const std::time_t now = std::time(nullptr);
  std::printf("# cellwise-benchmark-patch, %s", std::ctime(&now));
  std::printf("# %s\n", cuda::device_description().c_str());
  std::printf("# FP32 Q3 cell-contiguous; bytes per cell visit 772 (register, generic), 644 (register_async, "
              "register_symmetric: no b~ read, no u written on the rim plane); median of %d runs\n\n",
              n_runs);
  std::printf("| %-44s | %9s | %8s | %6s |\n", "kernel", "time [ms]", "GB/s", "copy");
  std::printf("|%s|%s|%s|%s|\n", std::string(46, '-').c_str(), std::string(11, '-').c_str(),
              std::string(10, '-').c_str(), std::string(8, '-').c_str());

  struct Case
  {
    int  nx, ny, nz;
    bool sweep;
  };
  const Case cases[] = {{128, 128, 64, false}, {256, 256, 128, false}, {128, 128, 128, true}};
  for (const Case &c : cases)
    {
      const auto   t0   = std::chrono::steady_clock::now();
      const auto   mesh = box(c.nx, c.ny, c.nz);
      const Level &level = mesh.levels.back();
      cuda::VertexPatchSmoother<float> smoother(level, 3);
      const double setup = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (!smoother.register_kernel_available())
        {
          std::printf("register kernel not available on %dx%dx%d\n", c.nx, c.ny, c.nz);
          return 1;
        }
      CellVector<float, MemorySpace::CUDA> u(level.n_cells(), 3), b(level.n_cells(), 3), copy(level.n_cells(), 3);
      fill(u, 1);
      fill(b, 2);

      // the copies of this size
      const double vector_bytes = double(u.storage_size()) * sizeof(float);
      const double t_memcpy     = median_time(
        [&] {
          CELLWISE_CUDA_CHECK(cudaMemcpyAsync(copy.data(), u.data(), vector_bytes, cudaMemcpyDeviceToDevice));
        },
        n_runs);
      const double t_copy4 = median_time(
        [&] {
          copy_float4_kernel<<<132 * 16, 256>>>(reinterpret_cast<const float4 *>(u.data()),
                                                 reinterpret_cast<float4 *>(copy.data()), u.storage_size() / 4);
        },
        n_runs);
      const double copy_rate = 2 * vector_bytes / t_memcpy;

      char title[128];
      std::printf("| %-44s | %9s | %8s | %6s |\n", "", "", "", "");
      std::snprintf(title, sizeof(title), "%dx%dx%d = %u cells (set-up %.1f s)", c.nx, c.ny, c.nz, level.n_cells(), setup);
      std::printf("| **%-40s** | %9s | %8s | %6s |\n", title, "", "", "");
      row("cudaMemcpy device to device", t_memcpy, 2 * vector_bytes, copy_rate);
      row("float4 copy kernel", t_copy4, 2 * vector_bytes, copy_rate);

      unsigned int visits = 0;
      for (unsigned int colour = 0; colour < 8; ++colour)
        visits += 8 * smoother.n_patches(colour);
      if (!c.sweep)
        {
          const unsigned int colour     = 7;
          const double       bytes      = 772. * 8 * smoother.n_patches(colour);
          const double       bytes_rim  = 644. * 8 * smoother.n_patches(colour);
          smoother.use_kernel(cuda::PatchKernel::register_q3);
          const double t_register = median_time([&] { smoother.apply_colour(u, b, colour); }, n_runs);
          const double t_stub     = median_time([&] { smoother.apply_traffic_stub(u, b, colour); }, n_runs);
          smoother.use_kernel(cuda::PatchKernel::register_q3_async);
          const double t_async      = median_time([&] { smoother.apply_colour(u, b, colour); }, n_runs);
          const double t_async_stub = median_time([&] { smoother.apply_traffic_stub(u, b, colour); }, n_runs);
          const bool symmetric = smoother.symmetric_kernel_available();
          double     t_symmetric = 0, t_symmetric_stub = 0;
          if (symmetric)
            {
              smoother.use_kernel(cuda::PatchKernel::register_q3_symmetric);
              t_symmetric      = median_time([&] { smoother.apply_colour(u, b, colour); }, n_runs);
              t_symmetric_stub = median_time([&] { smoother.apply_traffic_stub(u, b, colour); }, n_runs);
            }
          smoother.use_kernel(cuda::PatchKernel::generic);
          const double t_generic = median_time([&] { smoother.apply_colour(u, b, colour); }, n_runs);
          std::snprintf(title, sizeof(title), "colour step, register (%u patches)", smoother.n_patches(colour));
          row(title, t_register, bytes, copy_rate);
          row("colour step, register: traffic stub", t_stub, bytes, copy_rate);
          row("colour step, register_async", t_async, bytes_rim, copy_rate);
          row("colour step, register_async: traffic stub", t_async_stub, bytes_rim, copy_rate);
          if (symmetric)
            {
              row("colour step, register_symmetric", t_symmetric, bytes_rim, copy_rate);
              row("colour step, register_symmetric: traffic stub", t_symmetric_stub, bytes_rim, copy_rate);
            }
          else
            std::printf("| %-44s | %9s | %8s | %6s |\n", "register_symmetric not available", "", "", "");
          row("colour step, generic (block per patch)", t_generic, bytes, copy_rate);
        }
      else
        {
          // the cp.async kernels skip the rim plane (header)
          auto bytes_of = [&](const cuda::PatchKernel kernel) {
            return (kernel == cuda::PatchKernel::register_q3 ? 772. : 644.) * visits;
          };
          for (const cuda::PatchKernel kernel : {cuda::PatchKernel::register_q3, cuda::PatchKernel::register_q3_async,
                                                 cuda::PatchKernel::register_q3_symmetric})
            {
              const char *name = kernel == cuda::PatchKernel::register_q3 ?
                                   "register" :
                                   (kernel == cuda::PatchKernel::register_q3_async ? "register_async" : "register_symmetric");
              if (kernel == cuda::PatchKernel::register_q3_symmetric && !smoother.symmetric_kernel_available())
                {
                  std::printf("| %-44s | %9s | %8s | %6s |\n", "register_symmetric not available", "", "", "");
                  continue;
                }
              smoother.use_kernel(kernel);
              const double t_register =
                median_time([&] { smoother.smooth(u, b, false, SweepDirection::forward); }, n_runs);
              const double t_stub = median_time(
                [&] {
                  for (unsigned int colour = 0; colour < 8; ++colour)
                    smoother.apply_traffic_stub(u, b, colour);
                },
                n_runs);
              std::snprintf(title, sizeof(title), "full sweep, %s (%u cell visits)", name, visits);
              row(title, t_register, bytes_of(kernel), copy_rate);
              std::snprintf(title, sizeof(title), "full sweep, %s: traffic stub", name);
              row(title, t_stub, bytes_of(kernel), copy_rate);
            }
        }
    }
  return 0;
}
