#pragma once
/**
 * @file
 * The device twins of storage/cell_entry_gather.h: listed entries of a device
 * cell vector to and from a contiguous device buffer, one thread per entry,
 * for the exchanges of the distributed device solve. @p entries and
 * @p buffer are device pointers; entries are in the cell-contiguous
 * numbering cell · dofs_per_cell + i. Asynchronous on the default stream.
 * Compiles with a plain C++ compiler (kernels in
 * source/storage/cuda_cell_entry_gather.cu).
 */

#include <cellwise/storage/cuda_cell_vector.h>

#include <cstddef>
#include <cstdint>

namespace cellwise
{
  namespace cuda
  {
    /// buffer[j] = the value of @p v at entry entries[j], j < @p count.
    template <typename Number, typename Layout>
    void
    gather_entries(const CellVector<Number, MemorySpace::CUDA, Layout> &v,
                   const std::uint64_t                                 *entries,
                   std::size_t                                          count,
                   Number                                              *buffer);

    /// The value of @p v at entry entries[j] = buffer[j], j < @p count.
    template <typename Number, typename Layout>
    void
    scatter_entries(CellVector<Number, MemorySpace::CUDA, Layout> &v,
                    const std::uint64_t                           *entries,
                    std::size_t                                    count,
                    const Number                                  *buffer);
  } // namespace cuda
} // namespace cellwise
