#pragma once
/**
 * @file
 * Copies between host and device memory at the speed of pinned memory, for
 * host memory that is not pinned (the user's vectors, the set-up's tables).
 *
 * A cudaMemcpy from pageable memory ran at 6.7 GB/s on the H200 machine
 * (2026-12-01): the three transfers of a host-vector solve at 455 M DoFs
 * (b and u up, u down, 8.6 GB each) took 3.9 s against a solve of 0.46 s.
 * Here the copy goes through two pinned staging buffers: the host threads
 * copy one chunk into a buffer (parallel_for) while the DMA engine moves the
 * other. Small copies take one plain cudaMemcpy.
 *
 * Both functions block like cudaMemcpy and are ordered with the work on the
 * legacy default stream, which every kernel of the CUDA backend uses. They
 * are safe to call from several threads (the buffers are taken in turn).
 *
 * Compiles with a plain C++ compiler.
 */

#include <cstddef>

namespace cellwise
{
  namespace cuda
  {
    /// @p bytes from host memory @p host to device memory @p device.
    void
    copy_host_to_device(void *device, const void *host, std::size_t bytes);

    /// @p bytes from device memory @p device to host memory @p host.
    void
    copy_device_to_host(void *host, const void *device, std::size_t bytes);
  } // namespace cuda
} // namespace cellwise
