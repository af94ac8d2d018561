#pragma once
/**
 * @file
 * Listed entries of a cell vector to and from a contiguous buffer: what an
 * exchange between MPI ranks packs before it sends and unpacks after it
 * receives (the DSS's face layers, storage/mpi_distributed_dss.h). An entry
 * is named in the cell-contiguous numbering, cell · dofs_per_cell + i,
 * whatever the vector's layout, so that one list serves both layouts. The
 * device twins are in storage/cuda_cell_entry_gather.h.
 */

#include <cellwise/storage/cell_vector.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace cellwise
{
  /// buffer[j] = the value of @p v at entry entries[j].
  template <typename Number, typename Layout>
  void
  gather_entries(const CellVector<Number, MemorySpace::Host, Layout> &v,
                 const std::vector<std::uint64_t>                    &entries,
                 Number                                              *buffer)
  {
    const unsigned int n = v.dofs_per_cell();
    const Number      *values = v.data();
    for (std::size_t j = 0; j < entries.size(); ++j)
      buffer[j] = values[Layout::index(entries[j] / n, static_cast<unsigned int>(entries[j] % n), n)];
  }

  /// The value of @p v at entry entries[j] = buffer[j].
  template <typename Number, typename Layout>
  void
  scatter_entries(CellVector<Number, MemorySpace::Host, Layout> &v,
                  const std::vector<std::uint64_t>              &entries,
                  const Number                                  *buffer)
  {
    const unsigned int n      = v.dofs_per_cell();
    Number            *values = v.data();
    for (std::size_t j = 0; j < entries.size(); ++j)
      values[Layout::index(entries[j] / n, static_cast<unsigned int>(entries[j] % n), n)] = buffer[j];
  }
} // namespace cellwise
