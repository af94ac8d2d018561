#pragma once
/**
 * @file
 * The owned cells of a distributed level gathered into the serial level's
 * vector on every rank (one MPI_Allgatherv): what the gathered coarse solve
 * and the serial solution of the main program's distributed solver need
 * (doc/mpi.md). The ranks' cell counts and serial indices are exchanged once
 * at set-up.
 *
 * Built only with MPI (library cellwise::mpi).
 */

#include <cellwise/base/mpi_check.h>
#include <cellwise/mesh/partition.h>
#include <cellwise/storage/cell_vector.h>

#include <vector>

namespace cellwise
{
  class SerialGather
  {
  public:
    /// Collective. @p local: this rank's part of a serial level of
    /// @p serial_cells cells with (@p degree + 1)³ values per cell (kept by
    /// reference); every rank must own its share (the owned cells of all
    /// ranks cover the level), and the level must fit MPI's int counts.
    SerialGather(const LocalLevel &local, MPI_Comm comm, unsigned int serial_cells, unsigned int degree);
    /// A temporary level would dangle.
    SerialGather(const LocalLevel &&local, MPI_Comm comm, unsigned int serial_cells, unsigned int degree) = delete;

    /// @p serial (all cells of the serial level, on every rank) from the
    /// owned cells of @p local_vector on every rank. Collective.
    template <typename Number, typename Layout>
    void
    gather(const CellVector<Number, MemorySpace::Host, Layout> &local_vector,
           CellVector<Number, MemorySpace::Host, Layout>       &serial) const;

  private:
    const LocalLevel         &local_;
    MPI_Comm                  comm_;
    unsigned int              serial_cells_, degree_;
    std::vector<int>          cells_per_rank_, cell_offsets_;
    std::vector<unsigned int> serial_index_of_gathered_;
  };
} // namespace cellwise
