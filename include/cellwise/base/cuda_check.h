#pragma once
/**
 * @file
 * Error checking of the CUDA runtime and the device queries of the CUDA
 * backend. Every runtime call goes through CELLWISE_CUDA_CHECK and every
 * kernel launch is followed by CELLWISE_CUDA_CHECK_LAUNCH(), so that an error
 * surfaces as a cellwise::Error naming the call and the place where it
 * happened rather than as a wrong number later.
 *
 * This header compiles with a plain C++ compiler (it needs only the runtime
 * API header), so that host code and tests can query the device.
 */

#include <cellwise/base/cuda_host_transfer.h>
#include <cellwise/base/exceptions.h>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>
#include <vector>

namespace cellwise
{
  namespace cuda
  {
    namespace internal
    {
      [[noreturn]] inline void
      throw_cuda_error(const cudaError_t error, const char *call, const char *file, const int line)
      {
        std::ostringstream out;
        out << "CUDA call '" << call << "' failed with " << cudaGetErrorName(error) << ": " << cudaGetErrorString(error);
        ::cellwise::internal::throw_error(file, line, out.str());
      }
    } // namespace internal

    /// True where a CUDA device and a working driver are present; never throws.
    bool
    device_available();

    /// One line naming the current device: name, compute capability, SMs,
    /// memory, clocks, L2. "no CUDA device (...)" where there is none.
    std::string
    device_description();

    /**
     * cudaMalloc of @p bytes; on failure throws cellwise::Error naming @p what,
     * the bytes asked and the device's free and total memory. Returns nullptr
     * for zero bytes.
     */
    void *
    allocate_bytes(std::size_t bytes, const char *what);

    /// Free bytes of the current device's memory now (cudaMemGetInfo).
    std::size_t
    free_device_memory();

    /// cudaFree that never throws (for destructors); nullptr is fine.
    void
    free_bytes(void *pointer) noexcept;

    /// Typed allocate_bytes of @p n entries.
    template <typename T>
    T *
    allocate(const std::size_t n, const char *what)
    {
      return static_cast<T *>(allocate_bytes(n * sizeof(T), what));
    }
  } // namespace cuda
} // namespace cellwise

/// Throw cellwise::Error naming the call, file and line unless @p call returns cudaSuccess.
#define CELLWISE_CUDA_CHECK(call)                                                          \
  do                                                                                       \
    {                                                                                      \
      const cudaError_t cellwise_cuda_error_ = (call);                                     \
      if (cellwise_cuda_error_ != cudaSuccess)                                             \
        ::cellwise::cuda::internal::throw_cuda_error(cellwise_cuda_error_, #call, __FILE__, __LINE__); \
    }                                                                                      \
  while (false)

/// After a kernel launch: the launch error, and in debug builds (NDEBUG unset)
/// also the execution error, by a device synchronization.
#ifdef NDEBUG
#  define CELLWISE_CUDA_CHECK_LAUNCH() CELLWISE_CUDA_CHECK(cudaGetLastError())
#else
#  define CELLWISE_CUDA_CHECK_LAUNCH()                                                     \
    do                                                                                     \
      {                                                                                    \
        CELLWISE_CUDA_CHECK(cudaGetLastError());                                           \
        CELLWISE_CUDA_CHECK(cudaDeviceSynchronize());                                      \
      }                                                                                    \
    while (false)
#endif

namespace cellwise
{
  namespace cuda
  {
    /// A device copy of the @p n entries at @p host (allocate, then
    /// copy_host_to_device); nullptr for n = 0. Errors name @p what.
    template <typename T>
    T *
    upload(const T *host, const std::size_t n, const char *what)
    {
      T *device = allocate<T>(n, what);
      try
        {
          copy_host_to_device(device, host, n * sizeof(T));
        }
      catch (...)
        {
          free_bytes(device);
          throw;
        }
      return device;
    }

    /// A device copy of @p host (any allocator).
    template <typename T, typename Allocator>
    T *
    upload(const std::vector<T, Allocator> &host, const char *what)
    {
      return upload(host.data(), host.size(), what);
    }
  } // namespace cuda
} // namespace cellwise
