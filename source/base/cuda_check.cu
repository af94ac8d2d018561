#include <cellwise/base/cuda_check.h>

#include <sstream>

namespace cellwise
{
  namespace cuda
  {
    bool
    device_available()
    {
      int             count = 0;
      const cudaError_t error = cudaGetDeviceCount(&count);
      if (error != cudaSuccess)
        {
          // Clear the sticky "no device / no driver" error so that later calls
          // do not report it as theirs.
          cudaGetLastError();
          return false;
        }
      return count > 0;
    }

    std::string
    device_description()
    {
      int               count = 0;
      const cudaError_t error = cudaGetDeviceCount(&count);
      if (error != cudaSuccess || count == 0)
        {
          cudaGetLastError();
          return std::string("no CUDA device (") + (error != cudaSuccess ? cudaGetErrorString(error) : "device count 0") +
                 ")";
        }
      int device = 0;
      CELLWISE_CUDA_CHECK(cudaGetDevice(&device));
      cudaDeviceProp prop;
      CELLWISE_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
      int sm_clock_khz = 0, memory_clock_khz = 0, bus_width = 0;
      cudaDeviceGetAttribute(&sm_clock_khz, cudaDevAttrClockRate, device);
      cudaDeviceGetAttribute(&memory_clock_khz, cudaDevAttrMemoryClockRate, device);
      cudaDeviceGetAttribute(&bus_width, cudaDevAttrGlobalMemoryBusWidth, device);
      std::ostringstream out;
      out << prop.name << " (sm_" << prop.major << prop.minor << ", " << prop.multiProcessorCount << " SMs, "
          << static_cast<double>(prop.totalGlobalMem) / (1 << 30) << " GiB, SM clock " << sm_clock_khz / 1000
          << " MHz, memory clock " << memory_clock_khz / 1000 << " MHz x " << bus_width << " bit, L2 "
          << prop.l2CacheSize / (1 << 20) << " MiB)";
      return out.str();
    }

    std::size_t
    free_device_memory()
    {
      std::size_t free = 0, total = 0;
      CELLWISE_CUDA_CHECK(cudaMemGetInfo(&free, &total));
      return free;
    }

    void *
    allocate_bytes(const std::size_t bytes, const char *what)
    {
      if (bytes == 0)
        return nullptr;
      void             *pointer = nullptr;
      const cudaError_t error   = cudaMalloc(&pointer, bytes);
      if (error == cudaErrorMemoryAllocation)
        {
          cudaGetLastError();
          std::size_t free_bytes = 0, total_bytes = 0;
          cudaMemGetInfo(&free_bytes, &total_bytes);
          CELLWISE_CHECK(false,
                         "device allocation of " << bytes << " bytes for " << what << " failed: the device has "
                                                 << free_bytes << " bytes free of " << total_bytes);
        }
      if (error != cudaSuccess)
        internal::throw_cuda_error(error, "cudaMalloc", __FILE__, __LINE__);
      return pointer;
    }

    void
    free_bytes(void *pointer) noexcept
    {
      if (pointer != nullptr)
        cudaFree(pointer);
    }
  } // namespace cuda
} // namespace cellwise
