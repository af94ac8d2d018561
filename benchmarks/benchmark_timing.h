#pragma once
// Timing pieces shared by the CUDA benchmarks: median CUDA-event time of a
// callable, the float4 copy kernel measured next to every table as the
// same-run reference for bandwidth, chains of FMAs as the same-run
// reference for arithmetic, and a solve's GPU time per component. Each benchmark is its own executable, so
// the anonymous namespace keeps one copy per program.

#include <cellwise/base/cuda_check.h>
#include <cellwise/base/cuda_event_timer.h>

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace
{
  /// Line-buffered stdout: a run stopped by a time limit keeps the rows it
  /// printed (fully buffered output to a file would be lost).
  inline void
  line_buffered_stdout()
  {
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
  }

  /// Copy of n16 16-byte words, grid-stride, 16-byte loads and stores.
  __global__ void
  copy_float4_kernel(const float4 *__restrict__ in, float4 *__restrict__ out, const std::size_t n16)
  {
    for (std::size_t k = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < n16;
         k += static_cast<std::size_t>(gridDim.x) * blockDim.x)
      out[k] = in[k];
  }

  /// Median time in seconds of @p f over @p n_runs calls after @p n_warm
  /// warm-up calls, each timed by CUDA events on the default stream.
  double
  median_time(const std::function<void()> &f, const int n_runs, const int n_warm = 3)
  {
    for (int i = 0; i < n_warm; ++i)
      f();
    CELLWISE_CUDA_CHECK(cudaDeviceSynchronize());
    cudaEvent_t start, stop;
    CELLWISE_CUDA_CHECK(cudaEventCreate(&start));
    CELLWISE_CUDA_CHECK(cudaEventCreate(&stop));
    std::vector<double> times;
    for (int i = 0; i < n_runs; ++i)
      {
        CELLWISE_CUDA_CHECK(cudaEventRecord(start));
        f();
        CELLWISE_CUDA_CHECK(cudaEventRecord(stop));
        CELLWISE_CUDA_CHECK(cudaEventSynchronize(stop));
        float ms = 0;
        CELLWISE_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
        times.push_back(1e-3 * ms);
      }
    CELLWISE_CUDA_CHECK(cudaEventDestroy(start));
    CELLWISE_CUDA_CHECK(cudaEventDestroy(stop));
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
  }

  /// Bytes per second (read + written) of the float4 copy kernel over the
  /// @p bytes of @p in into @p out: the same-run reference of a table.
  double
  measure_copy_bandwidth(const void *in, void *out, const std::size_t bytes, const int n_runs)
  {
    const double seconds = median_time(
      [&] {
        copy_float4_kernel<<<132 * 16, 256>>>(static_cast<const float4 *>(in), static_cast<float4 *>(out), bytes / 16);
        CELLWISE_CUDA_CHECK_LAUNCH();
      },
      n_runs);
    return 2. * double(bytes) / seconds;
  }

  /// Independent chains of dependent FMAs in registers: 8 per thread, so
  /// that every cycle has an FMA ready; @p out keeps the compiler from
  /// dropping them (written where the sum is exactly 0, never in practice).
  template <typename Number>
  __global__ void
  fma_chains_kernel(const Number a, const Number b, const int iterations, Number *out)
  {
    Number x[8];
#pragma unroll
    for (int k = 0; k < 8; ++k)
      x[k] = Number(threadIdx.x + k);
    for (int i = 0; i < iterations; ++i)
#pragma unroll
      for (int k = 0; k < 8; ++k)
        x[k] = x[k] * a + b;
    Number sum = 0;
#pragma unroll
    for (int k = 0; k < 8; ++k)
      sum += x[k];
    if (sum == Number(0))
      out[threadIdx.x] = sum;
  }

  /// Flop/s (an FMA counted as two) of fma_chains_kernel in @p Number: the
  /// same-run arithmetic reference next to the copy, for the kernels that
  /// their arithmetic bounds rather than their bytes.
  template <typename Number>
  double
  measure_fma_throughput(const int n_runs)
  {
    int device = 0, sms = 0;
    CELLWISE_CUDA_CHECK(cudaGetDevice(&device));
    CELLWISE_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    Number *out = nullptr;
    CELLWISE_CUDA_CHECK(cudaMalloc(&out, 256 * sizeof(Number)));
    const int    blocks = 8 * sms, threads = 256, iterations = 4096;
    const double seconds = median_time(
      [&] {
        // a · x + b with a < 1: the chains stay finite
        fma_chains_kernel<Number><<<blocks, threads>>>(Number(0.999), Number(0.5), iterations, out);
        CELLWISE_CUDA_CHECK_LAUNCH();
      },
      n_runs);
    CELLWISE_CUDA_CHECK(cudaFree(out));
    return 2. * 8. * double(iterations) * blocks * threads / seconds;
  }

  /// @p solve once (warm-up), then @p n_runs times with @p timer cleared
  /// before, inside a part for what the solver's own parts leave out; prints
  /// @p title and the parts per solve (averages), longest first.
  inline void
  print_component_times(cellwise::cuda::EventTimer &timer, const std::function<void()> &solve, const int n_runs,
                        const std::string &title)
  {
    const auto timed_solve = [&] {
      cellwise::TimedScope scope(timer, "outer iteration: vector operations, monitor, host waits");
      solve();
    };
    timed_solve();
    timer.clear();
    for (int run = 0; run < n_runs; ++run)
      timed_solve();
    const double total = timer.span();
    std::printf("\n%s, average of %d solves\n", title.c_str(), n_runs);
    std::printf("%-58s %8s %10s %8s\n", "part", "calls", "time [ms]", "share");
    std::vector<cellwise::cuda::EventTimer::Part> parts = timer.parts();
    std::sort(parts.begin(), parts.end(), [](const auto &x, const auto &y) { return x.seconds > y.seconds; });
    for (const auto &part : parts)
      std::printf("%-58s %8.1f %10.3f %7.1f%%\n", part.name.c_str(), double(part.calls) / n_runs, part.seconds / n_runs * 1e3,
                  100. * part.seconds / total);
    std::printf("%-58s %8s %10.3f %7.1f%%\n", "total (first to last event)", "", total / n_runs * 1e3, 100.);
  }
} // namespace
