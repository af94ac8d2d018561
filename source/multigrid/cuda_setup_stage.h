#pragma once
// The set-up stage of a device solver, timed up to a device synchronization
// (base/setup_times.h), shared by cuda_multigrid_solver.cu and
// cuda_general_multigrid_solver.cu. Private: compiled by nvcc only.

#include <cellwise/base/cuda_check.h>
#include <cellwise/base/setup_times.h>

#include <cuda_runtime.h>

#include <string>
#include <utility>

namespace cellwise
{
  namespace cuda
  {
    /// Runs @p work and adds its seconds, up to a device synchronization, to
    /// @p stage of @p times.
    template <typename Work>
    void
    device_stage(SetupTimes &times, const std::string &stage, Work &&work)
    {
      times.measure(stage, std::forward<Work>(work), [] { CELLWISE_CUDA_CHECK(cudaDeviceSynchronize()); });
    }
  } // namespace cuda
} // namespace cellwise
