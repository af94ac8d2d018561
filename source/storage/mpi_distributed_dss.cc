#include <cellwise/storage/cell_entry_gather.h>
#include <cellwise/storage/mpi_distributed_dss.h>

#include <algorithm>
#include <climits>
#include <map>
#include <sstream>

namespace cellwise
{
  namespace
  {
    /// The layer index along the normal of layer @p l of @p face.
    unsigned int
    layer_of_face(const TraceLayers &layers, const unsigned int face, const unsigned int l)
    {
      return face & 1 ? layers.at_upper_end[l] : layers.at_lower_end[l];
    }
  } // namespace

  DistributedDss::DistributedDss(const LocalLevel &local, const MPI_Comm comm, const TraceLayers &layers)
    : local_(local)
    , comm_(comm)
    , layers_(layers)
  {
    const int    rank    = mpi_rank(comm), size = mpi_size(comm);
    const Level &level   = local.level;
    const auto   n_cells = level.n_cells(), n_owned = local.n_owned_cells();

    bool               consistent = local.owner.size() == n_cells && local.serial_index.size() == n_cells &&
                      layers.n_layers >= 1 && layers.n_layers <= 2 && layers.n_1d >= 2 && !level.has_skeleton();
    std::ostringstream problem;
    if (!consistent)
      problem << "DistributedDss: the local level is not a LocalLevel of make_local_level (" << n_cells << " cells, "
              << local.owner.size() << " owners, " << local.serial_index.size() << " serial indices), has skeleton "
              << "faces, or the trace layers are not an element's";
    for (unsigned int k = 0; consistent && k < n_cells; ++k)
      if (local.owner[k] < 0 || local.owner[k] >= size || (k < n_owned) != (local.owner[k] == rank))
        {
          consistent = false;
          problem << "DistributedDss: local cell " << k << " (serial " << local.serial_index[k] << ") has owner "
                  << local.owner[k] << " on rank " << rank << " of " << size << ", but it is "
                  << (k < n_owned ? "owned" : "a ghost");
        }
    check_collectively(comm, consistent, problem.str());

    bool               fits = true;
    std::ostringstream too_large;
    for (unsigned int d = 0; d < 3; ++d)
      {
        std::map<int, Exchange> sends, receives;
        for (unsigned int k = 0; k < n_owned; ++k)
          for (const unsigned int face : {2 * d, 2 * d + 1})
            {
              const int neighbor = level.structured_neighbor(k, face);
              if (!face_neighbor::is_cell(neighbor) || static_cast<unsigned int>(neighbor) < n_owned)
                continue;
              const int owner = local.owner[neighbor];
              sends[owner].faces.emplace_back(k, face);
              receives[owner].faces.emplace_back(static_cast<unsigned int>(neighbor), face ^ 1u);
            }
        // both sides list a rank pair's faces by the sending cell's serial
        // index and face
        const auto by_serial_index = [&](const std::pair<unsigned int, unsigned int> &a,
                                         const std::pair<unsigned int, unsigned int> &b) {
          return std::make_pair(local.serial_index[a.first], a.second) <
                 std::make_pair(local.serial_index[b.first], b.second);
        };
        for (auto *lists : {&sends, &receives})
          {
            std::vector<Exchange> &out    = lists == &sends ? sends_[d] : receives_[d];
            std::size_t            offset = 0;
            for (auto &[owner, exchange] : *lists)
              {
                exchange.rank = owner;
                std::sort(exchange.faces.begin(), exchange.faces.end(), by_serial_index);
                exchange.offset = offset;
                offset += exchange.faces.size() * values_per_face();
                if (exchange.faces.size() * values_per_face() * sizeof(double) > std::size_t(INT_MAX) && fits)
                  {
                    fits = false;
                    too_large << "DistributedDss: a message of " << exchange.faces.size() << " faces to rank " << owner
                              << " exceeds MPI's int count of bytes; use more ranks";
                  }
                out.push_back(std::move(exchange));
              }
          }
        // the entries of the face layers in buffer order, as the pack reads
        // them and the unpack writes them
        const unsigned int n = layers.n_1d, dofs_per_cell = n * n * n;
        for (auto *lists : {&sends_[d], &receives_[d]})
          {
            std::vector<std::uint64_t> &entries = lists == &sends_[d] ? send_entries_[d] : receive_entries_[d];
            for (const Exchange &exchange : *lists)
              for (const auto &[cell, face] : exchange.faces)
                for (unsigned int l = 0; l < layers.n_layers; ++l)
                  for (unsigned int b = 0; b < n; ++b)
                    for (unsigned int a = 0; a < n; ++a)
                      entries.push_back(std::uint64_t(cell) * dofs_per_cell +
                                        face_layer_dof(n, d, layer_of_face(layers, face, l), a, b));
          }
      }
    check_collectively(comm, fits, too_large.str());
    check_matching_lists();
  }

  void
  DistributedDss::check_matching_lists() const
  {
    // per rank: (pass, serial index, face) of every face layer, in order
    const int                              size = mpi_size(comm_);
    std::vector<std::vector<unsigned int>> outgoing(size), expected(size);
    for (unsigned int d = 0; d < 3; ++d)
      {
        for (const Exchange &exchange : sends_[d])
          for (const auto &[cell, face] : exchange.faces)
            outgoing[exchange.rank].insert(outgoing[exchange.rank].end(), {d, local_.serial_index[cell], face});
        for (const Exchange &exchange : receives_[d])
          for (const auto &[cell, face] : exchange.faces)
            expected[exchange.rank].insert(expected[exchange.rank].end(), {d, local_.serial_index[cell], face});
      }
    check_matching_exchange(comm_, outgoing, expected, "DistributedDss (face layers of pass, cell, face)");
  }

  void
  DistributedDss::check_vector(const unsigned int n_cells, const unsigned int degree) const
  {
    CELLWISE_CHECK(n_cells == local_.level.n_cells() && degree + 1 == layers_.n_1d,
                   "DistributedDss::apply: a vector of " << n_cells << " cells of degree " << degree << " on a local level of "
                                                         << local_.level.n_cells() << " cells (owned and ghost) and "
                                                         << layers_.n_1d << " nodes per axis");
  }

  void
  DistributedDss::post_pass(const unsigned int        d,
                            const void               *send,
                            void                     *receive,
                            const std::size_t         bytes_per_value,
                            std::vector<MPI_Request> &requests) const
  {
    requests.clear();
    const auto bytes = [&](const Exchange &exchange) {
      return static_cast<int>(exchange.faces.size() * values_per_face() * bytes_per_value);
    };
    for (const Exchange &exchange : receives_[d])
      {
        requests.emplace_back();
        CELLWISE_MPI_CHECK(MPI_Irecv(static_cast<unsigned char *>(receive) + exchange.offset * bytes_per_value, bytes(exchange),
                                     MPI_BYTE, exchange.rank, static_cast<int>(d), comm_, &requests.back()));
      }
    for (const Exchange &exchange : sends_[d])
      {
        requests.emplace_back();
        CELLWISE_MPI_CHECK(MPI_Isend(static_cast<const unsigned char *>(send) + exchange.offset * bytes_per_value, bytes(exchange),
                                     MPI_BYTE, exchange.rank, static_cast<int>(d), comm_, &requests.back()));
      }
  }

  void
  DistributedDss::wait_pass(std::vector<MPI_Request> &requests)
  {
    CELLWISE_MPI_CHECK(MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE));
    requests.clear();
  }

  template <typename Number, typename Layout>
  void
  DistributedDss::apply(CellVector<Number, MemorySpace::Host, Layout> &v, const DssMode mode) const
  {
    check_vector(v.n_cells(), v.degree());
    std::vector<MPI_Request> requests;
    for (unsigned int d = 0; d < 3; ++d)
      {
        if (!exchanges_in_pass(d)) // nothing to overlap: the whole pass at once
          {
            dss_axis_pass(local_.level, v, mode, layers_, d);
            continue;
          }
        send_buffer_.resize(std::max(send_buffer_.size(), send_entries_[d].size() * sizeof(Number)));
        receive_buffer_.resize(std::max(receive_buffer_.size(), receive_entries_[d].size() * sizeof(Number)));
        Number *const send_values    = reinterpret_cast<Number *>(send_buffer_.data());
        Number *const receive_values = reinterpret_cast<Number *>(receive_buffer_.data());
        {
          const ExchangeTimer timer; // the exchange, not the pass
          gather_entries(v, send_entries_[d], send_values);
          post_pass(d, send_values, receive_values, sizeof(Number), requests);
        }
        // while the face layers travel
        dss_axis_pass(local_.level, v, mode, layers_, d, owned_pairs());
        {
          const ExchangeTimer timer;
          wait_pass(requests);
          scatter_entries(v, receive_entries_[d], receive_values);
        }
        dss_axis_pass(local_.level, v, mode, layers_, d, pairs_touching_ghosts());
      }
  }

  std::size_t
  DistributedDss::values_sent_per_apply() const
  {
    std::size_t values = 0;
    for (const auto &pass : sends_)
      for (const Exchange &exchange : pass)
        values += exchange.faces.size() * values_per_face();
    return values;
  }

  std::size_t
  DistributedDss::messages_per_apply() const
  {
    return sends_[0].size() + sends_[1].size() + sends_[2].size();
  }

#define CELLWISE_INSTANTIATE(Number, Layout) \
  template void DistributedDss::apply(CellVector<Number, MemorySpace::Host, Layout> &, DssMode) const;
  CELLWISE_INSTANTIATE(double, CellContiguous)
  CELLWISE_INSTANTIATE(float, CellContiguous)
  CELLWISE_INSTANTIATE(double, CellBlocked<32>)
  CELLWISE_INSTANTIATE(float, CellBlocked<32>)
#undef CELLWISE_INSTANTIATE
} // namespace cellwise
