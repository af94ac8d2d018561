#pragma once
// The set-up stage of a device solver, timed up to a device synchronization
// (base/setup_times.h), shared by the device solvers' sources. Private:
// compiled by nvcc only.

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

    /// The stage() of the device's parts of the shared level loop
    /// (lagrange_levels.h): each stage timed up to a device synchronization.
    class DeviceStages
    {
    public:
      explicit DeviceStages(SetupTimes &times)
        : times_(times)
      {}

      template <typename Work>
      void
      stage(const std::string &name, Work &&work) const
      {
        device_stage(times_, name, std::forward<Work>(work));
      }

    private:
      SetupTimes &times_;
    };
  } // namespace cuda
} // namespace cellwise
