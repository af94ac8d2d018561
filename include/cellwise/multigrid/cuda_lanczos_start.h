#pragma once
/**
 * @file
 * The start vector of the Lanczos estimate of λ_max (estimate_max_eigenvalue,
 * multigrid/point_smoother_steps.h) made on the device from a device mask:
 * lanczos_start_value of each entry's cell and index times the mask, the
 * host's lanczos_start_vector bit for bit (integer hash, one rounding to
 * Number, one product). It replaces a round trip through the host: at L = 6
 * of the ball the finest level's mask and start vector are 940 MB each way.
 *
 * Compiles with a plain C++ compiler (implemented in
 * source/multigrid/cuda_lanczos_start.cu).
 */

#include <cellwise/base/memory_space.h>
#include <cellwise/storage/cell_vector.h>

namespace cellwise
{
  namespace cuda
  {
    /// Padding entries of the last cell block are zero, as the mask's.
    template <typename Number, typename Layout>
    CellVector<Number, MemorySpace::CUDA, Layout>
    lanczos_start_vector(const CellVector<Number, MemorySpace::CUDA, Layout> &mask);
  } // namespace cuda
} // namespace cellwise
