#pragma once
/**
 * @file
 * Whole cells of a distributed level sent from their owners to the ranks
 * that hold them as ghosts (doc/mpi.md): the halo update of the
 * vertex-patch smoother, which reads every cell of a patch, where DSS and
 * the transfers exchange face layers and families. Each rank names the
 * ghost cells it receives at each update; the set-up sends these requests
 * to the owners, which check that they own what is asked and send exactly
 * that, in the order asked, at every apply(). Ghost-cell identities travel
 * as serial cell indices.
 *
 * On device vectors the values are packed and unpacked by device kernels
 * (storage/cuda_cell_entry_gather.h) and travel as device buffers where MPI
 * is CUDA-aware, through pinned host buffers otherwise
 * (source/storage/mpi_cuda_cell_halo_exchange.cc).
 *
 * Built only with MPI (library cellwise::mpi).
 */

#include <cellwise/base/mpi_check.h>
#include <cellwise/mesh/partition.h>
#include <cellwise/storage/cell_vector.h>

#include <cellwise/storage/cuda_cell_vector.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace cellwise
{
  class CellHaloExchange
  {
  public:
    CellHaloExchange() = default;
    /// Collective over @p comm. @p ghosts: local indices of ghost cells of
    /// @p local (kept by reference) whose values this rank receives from
    /// their owners at every apply(). @p tag tells the messages of
    /// different exchanges apart. A request for a cell that is not a ghost
    /// here, or not owned by the rank asked, is an error on every rank.
    CellHaloExchange(const LocalLevel &local, MPI_Comm comm, const std::vector<unsigned int> &ghosts, int tag);
    /// A temporary level would dangle.
    CellHaloExchange(const LocalLevel &&local, MPI_Comm comm, const std::vector<unsigned int> &ghosts, int tag) = delete;

    /// The same, sending of each cell only the nodes that a vertex patch of
    /// colour @p patch_colour can change: the p³ patch-interior nodes of the
    /// cell's lane in its patch of that colour (mesh/vertex_patches.h; the
    /// lane follows from the cell's integer coordinates), 27 of 64 values at
    /// Q3. The vertex-patch smoother's update after a colour step.
    CellHaloExchange(const LocalLevel &local, MPI_Comm comm, const std::vector<unsigned int> &ghosts, int tag, unsigned int patch_colour);
    CellHaloExchange(const LocalLevel &&local, MPI_Comm comm, const std::vector<unsigned int> &ghosts, int tag,
                     unsigned int patch_colour) = delete;

    /// The requested ghost cells of @p v get their owners' values.
    /// Collective over the ranks that exchange with this one.
    template <typename Number, typename Layout>
    void
    apply(CellVector<Number, MemorySpace::Host, Layout> &v) const;
    /// The same on a device vector (built with the CUDA backend).
    template <typename Number, typename Layout>
    void
    apply(CellVector<Number, MemorySpace::CUDA, Layout> &v) const;

    /// Cells this rank sends, and messages, per apply().
    std::size_t
    cells_sent() const;
    /// Values this rank sends per apply() for FE_Q(@p degree) cells.
    std::size_t
    values_sent(unsigned int degree) const;
    std::size_t
    messages() const
    {
      return sends_.size();
    }

  private:
    struct Exchange
    {
      int                       rank = 0;
      std::vector<unsigned int> cells; ///< local indices, in the order of the message
      std::size_t               offset = 0; ///< in cells, in the send or receive buffer
    };

    /// Values of one cell in a message: all, or the patch-interior ones.
    std::size_t
    values_per_cell(unsigned int degree) const;
    /// The values of @p cell in a message, in their order: @p visit(i)
    /// for each sent local DoF index i.
    template <typename Visit>
    void
    for_sent_dofs(unsigned int cell, unsigned int degree, const Visit &visit) const;
    /// The entries (cell · dofs_per_cell + i) sent and received, in buffer
    /// order, for FE_Q(@p degree) cells.
    void
    entry_lists(unsigned int degree, std::vector<std::uint64_t> &sent, std::vector<std::uint64_t> &received) const;
    /// Checks @p v's cells and the message sizes for @p bytes_per_value.
    void
    check_apply(unsigned int n_cells, unsigned int degree, std::size_t bytes_per_value) const;
    /// Posts the messages of packed buffers of @p n values per cell and
    /// waits for them (host or, CUDA-aware, device buffers).
    void
    post_and_wait(const void *send, void *receive, std::size_t n, std::size_t bytes_per_value) const;

    const LocalLevel     *local_ = nullptr;
    /// The patch colour whose interior nodes travel; n_colours: whole cells.
    unsigned int          patch_colour_ = 8;
    MPI_Comm              comm_  = MPI_COMM_NULL;
    int                   tag_   = 0;
    std::vector<Exchange> sends_, receives_;
    std::size_t           cells_received_ = 0;
    mutable std::vector<unsigned char> send_buffer_, receive_buffer_;
    /// The device's lists and buffers (CUDA backend), made by the first
    /// device apply() and again for another degree.
    struct DeviceState;
    mutable std::shared_ptr<DeviceState> device_;
  };
} // namespace cellwise
