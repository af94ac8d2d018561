#pragma once
/**
 * @file
 * DSS on a level distributed over MPI ranks (doc/mpi.md). DSS is the only
 * inter-cell exchange of the method, so it is also the only halo exchange:
 * before each axis pass of the cascade (dss_axis_pass), every rank sends the
 * face layers of its owned cells that lie across a face normal to that axis
 * from a cell of another rank, and receives the matching layers into its
 * ghost cells. While they travel the pass sums the face pairs between two
 * owned cells (which need no ghost layer; the layers sent are on faces to
 * ghosts, which these pairs do not touch), and once they have arrived the
 * pairs that touch a ghost: every face pair summed as on one rank; edges and
 * vertices follow from the cascade, as locally, because each pass sends what
 * the previous passes made of the layer. A pair is summed by its lower cell
 * on whichever rank holds it, from the same two values as in the serial
 * cascade, so the owned cells' values equal the serial DSS's bit for bit.
 * Three exchanges per DSS, at most one message per neighbouring rank and
 * axis.
 *
 * The same on device vectors (source/storage/mpi_cuda_distributed_dss.cc):
 * the face layers are packed and unpacked by device kernels
 * (storage/cuda_cell_entry_gather.h) and travel as device buffers where
 * the MPI library is CUDA-aware (mpi_cuda_aware()), through pinned host
 * buffers otherwise; the axis passes are the device's.
 *
 * Built only with MPI (library cellwise::mpi). Ghost values after apply()
 * are not meaningful; owned values are complete.
 */

#include <cellwise/base/mpi_check.h>
#include <cellwise/fe/face_dofs.h>
#include <cellwise/mesh/partition.h>
#include <cellwise/storage/cell_vector.h>
#include <cellwise/storage/dss.h>

#include <cellwise/storage/cuda_cell_vector.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

namespace cellwise
{
  class DistributedDss
  {
  public:
    /**
     * Collective over @p comm. @p local is this rank's part of the level
     * (make_local_level); @p layers the element's trace layers. Checks,
     * collectively, that the ranks' partitions agree: every face layer a
     * rank expects arrives from the rank that owns it, and nothing else
     * arrives; otherwise every rank throws cellwise::Error. Keeps a reference
     * to @p local.
     */
    DistributedDss(const LocalLevel &local, MPI_Comm comm, const TraceLayers &layers);
    /// A temporary level would dangle.
    DistributedDss(const LocalLevel &&local, MPI_Comm comm, const TraceLayers &layers) = delete;

    /// In-place DSS of the owned cells' values of @p v (sized for the owned
    /// and ghost cells of the local level). Collective.
    template <typename Number, typename Layout>
    void
    apply(CellVector<Number, MemorySpace::Host, Layout> &v, DssMode mode = DssMode::sum) const;

    /// The same on a device vector (built with the CUDA backend). The first
    /// call uploads the local level's neighbours and the exchange lists.
    template <typename Number, typename Layout>
    void
    apply(CellVector<Number, MemorySpace::CUDA, Layout> &v, DssMode mode = DssMode::sum) const;

    /// Values this rank sends per apply() (all three passes).
    std::size_t
    values_sent_per_apply() const;
    /// Messages this rank sends per apply().
    std::size_t
    messages_per_apply() const;

  private:
    /// The face layers exchanged with one rank in one pass: (local cell,
    /// its face whose layers travel), in the order of the sending cell's
    /// serial index and face, so that both sides list them alike.
    struct Exchange
    {
      int                                                rank = 0;
      std::vector<std::pair<unsigned int, unsigned int>> faces;
      std::size_t                                        offset = 0; ///< in values, into the pass's buffer
    };

    const LocalLevel                    &local_;
    MPI_Comm                             comm_;
    TraceLayers                          layers_;
    std::array<std::vector<Exchange>, 3> sends_, receives_;
    /// Per pass, the entries (cell · dofs_per_cell + i) of every face layer
    /// sent and received, in buffer order.
    std::array<std::vector<std::uint64_t>, 3> send_entries_, receive_entries_;
    mutable std::vector<unsigned char>        send_buffer_, receive_buffer_;
    /// The device's copy of the level and the lists, and its buffers
    /// (defined with the CUDA backend), made by the first device apply().
    struct DeviceState;
    mutable std::shared_ptr<DeviceState> device_;

    std::size_t
    values_per_face() const
    {
      return std::size_t(layers_.n_layers) * layers_.n_1d * layers_.n_1d;
    }
    /// Posts the receives and sends of pass @p d (values already packed
    /// into @p send) into @p requests: host or, CUDA-aware, device
    /// buffers. wait_pass completes them.
    void
    post_pass(unsigned int d, const void *send, void *receive, std::size_t bytes_per_value, std::vector<MPI_Request> &requests) const;
    static void
    wait_pass(std::vector<MPI_Request> &requests);
    /// Whether this rank sends or receives in pass @p d.
    bool
    exchanges_in_pass(const unsigned int d) const
    {
      return !sends_[d].empty() || !receives_[d].empty();
    }
    /// The pairs of an axis pass between two owned cells, summed while the
    /// face layers travel, and the others, summed after.
    DssPairs
    owned_pairs() const
    {
      return {DssPairs::Kind::owned, local_.n_owned_cells()};
    }
    DssPairs
    pairs_touching_ghosts() const
    {
      return {DssPairs::Kind::touching_ghosts, local_.n_owned_cells()};
    }
    /// Checks the shape of @p n_cells cells of degree @p degree against the
    /// local level.
    void
    check_vector(unsigned int n_cells, unsigned int degree) const;
    /// Collective: each rank sends the serial identities of the faces it
    /// sends and compares what arrives with what it expects to receive.
    void
    check_matching_lists() const;
  };
} // namespace cellwise
