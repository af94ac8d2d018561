#include <cellwise/mesh/vertex_patches.h>
#include <cellwise/storage/mpi_cell_halo_exchange.h>

#include <algorithm>
#include <array>
#include <climits>
#include <map>
#include <sstream>

namespace cellwise
{
  CellHaloExchange::CellHaloExchange(const LocalLevel                &local,
                                     const MPI_Comm                   comm,
                                     const std::vector<unsigned int> &ghosts,
                                     const int                        tag,
                                     const unsigned int               patch_colour)
    : CellHaloExchange(local, comm, ghosts, tag)
  {
    CELLWISE_CHECK(patch_colour < 8, "CellHaloExchange: patch colour " << patch_colour << " is not in 0..7");
    patch_colour_ = patch_colour;
  }

  CellHaloExchange::CellHaloExchange(const LocalLevel &local, const MPI_Comm comm, const std::vector<unsigned int> &ghosts, const int tag)
    : local_(&local)
    , comm_(comm)
    , tag_(tag)
  {
    const int          size    = mpi_size(comm), rank = mpi_rank(comm);
    const unsigned int n_cells = local.level.n_cells(), n_owned = local.n_owned_cells();

    // the requests, per owner in serial order
    std::ostringstream problem;
    bool               valid = local.owner.size() == n_cells && local.serial_index.size() == n_cells;
    if (!valid)
      problem << "CellHaloExchange: the local level is not a LocalLevel of make_local_level";
    std::map<int, std::vector<unsigned int>> by_owner;
    for (const unsigned int g : ghosts)
      {
        if (!valid)
          break;
        if (g < n_owned || g >= n_cells || local.owner[g] < 0 || local.owner[g] >= size || local.owner[g] == rank)
          {
            valid = false;
            problem << "CellHaloExchange: local cell " << g << " is not a ghost of rank " << rank << " (" << n_owned
                    << " owned and " << n_cells - n_owned << " ghost cells)";
            break;
          }
        by_owner[local.owner[g]].push_back(g);
      }
    check_collectively(comm, valid, problem.str());

    std::vector<std::vector<unsigned int>> requests(size);
    for (auto &[owner, cells] : by_owner)
      {
        std::sort(cells.begin(), cells.end(),
                  [&](const unsigned int a, const unsigned int b) { return local.serial_index[a] < local.serial_index[b]; });
        cells.erase(std::unique(cells.begin(), cells.end()), cells.end());
        for (const unsigned int g : cells)
          requests[owner].push_back(local.serial_index[g]);
        receives_.push_back({owner, std::move(cells), cells_received_});
        cells_received_ += receives_.back().cells.size();
      }
    const std::vector<std::vector<unsigned int>> asked = exchange_lists(comm, requests, "CellHaloExchange");

    // the owned cells are in serial order: a request is found by bisection
    const auto owned_begin = local.serial_index.begin(), owned_end = local.serial_index.begin() + n_owned;
    valid                  = std::is_sorted(owned_begin, owned_end);
    if (!valid)
      problem << "CellHaloExchange: the owned cells of rank " << rank << " are not in serial order";
    std::size_t offset = 0;
    for (int r = 0; r < size && valid; ++r)
      {
        if (asked[r].empty())
          continue;
        Exchange exchange{r, {}, offset};
        for (const unsigned int serial : asked[r])
          {
            const auto found = std::lower_bound(owned_begin, owned_end, serial);
            if (found == owned_end || *found != serial)
              {
                valid = false;
                problem << "CellHaloExchange: rank " << r << " asks rank " << rank << " for serial cell " << serial
                        << ", which rank " << rank << " does not own (the ranks' partitions disagree)";
                break;
              }
            exchange.cells.push_back(static_cast<unsigned int>(found - owned_begin));
          }
        offset += exchange.cells.size();
        sends_.push_back(std::move(exchange));
      }
    check_collectively(comm, valid, problem.str());
  }

  std::size_t
  CellHaloExchange::values_per_cell(const unsigned int degree) const
  {
    const std::size_t n = patch_colour_ < 8 ? degree : degree + 1;
    return n * n * n;
  }

  std::size_t
  CellHaloExchange::values_sent(const unsigned int degree) const
  {
    return cells_sent() * values_per_cell(degree);
  }

  template <typename Visit>
  void
  CellHaloExchange::for_sent_dofs(const unsigned int cell, const unsigned int degree, const Visit &visit) const
  {
    const unsigned int n = degree + 1;
    if (patch_colour_ >= 8)
      {
        for (unsigned int i = 0; i < n * n * n; ++i)
          visit(i);
        return;
      }
    // the cell's lane in its patch of this colour, and the patch-interior
    // nodes of that lane (mesh/vertex_patches.h): what the colour step wrote
    std::array<unsigned int, 3> first;
    for (unsigned int d = 0; d < 3; ++d)
      first[d] = static_cast<unsigned int>(
        first_patch_interior_node(patch_lane_bit(local_->level.coordinates[cell][d], (patch_colour_ >> d) & 1u)));
    for (unsigned int z = first[2]; z < first[2] + degree; ++z)
      for (unsigned int y = first[1]; y < first[1] + degree; ++y)
        for (unsigned int x = first[0]; x < first[0] + degree; ++x)
          visit((z * n + y) * n + x);
  }

  std::size_t
  CellHaloExchange::cells_sent() const
  {
    std::size_t cells = 0;
    for (const Exchange &exchange : sends_)
      cells += exchange.cells.size();
    return cells;
  }

  void
  CellHaloExchange::entry_lists(const unsigned int          degree,
                                std::vector<std::uint64_t> &sent,
                                std::vector<std::uint64_t> &received) const
  {
    const std::uint64_t dofs_per_cell = std::uint64_t(degree + 1) * (degree + 1) * (degree + 1);
    sent.clear();
    received.clear();
    for (auto *list : {&sends_, &receives_})
      for (const Exchange &exchange : *list)
        for (const unsigned int cell : exchange.cells)
          for_sent_dofs(cell, degree, [&](const unsigned int i) {
            (list == &sends_ ? sent : received).push_back(cell * dofs_per_cell + i);
          });
  }

  void
  CellHaloExchange::check_apply(const unsigned int n_cells, const unsigned int degree, const std::size_t bytes_per_value) const
  {
    CELLWISE_CHECK(local_ && n_cells == local_->level.n_cells(),
                   "CellHaloExchange::apply: a vector of " << n_cells << " cells on a local level of "
                                                           << (local_ ? local_->level.n_cells() : 0) << " cells");
    CELLWISE_CHECK(values_per_cell(degree) * bytes_per_value * std::max(cells_sent(), cells_received_) <= std::size_t(INT_MAX),
                   "CellHaloExchange: a message exceeds MPI's int count of bytes; use more ranks");
  }

  void
  CellHaloExchange::post_and_wait(const void *send, void *receive, const std::size_t n, const std::size_t bytes_per_value) const
  {
    std::vector<MPI_Request> requests;
    requests.reserve(sends_.size() + receives_.size());
    for (const Exchange &exchange : receives_)
      {
        requests.emplace_back();
        CELLWISE_MPI_CHECK(MPI_Irecv(static_cast<unsigned char *>(receive) + exchange.offset * n * bytes_per_value,
                                     static_cast<int>(exchange.cells.size() * n * bytes_per_value), MPI_BYTE, exchange.rank,
                                     tag_, comm_, &requests.back()));
      }
    for (const Exchange &exchange : sends_)
      {
        requests.emplace_back();
        CELLWISE_MPI_CHECK(MPI_Isend(static_cast<const unsigned char *>(send) + exchange.offset * n * bytes_per_value,
                                     static_cast<int>(exchange.cells.size() * n * bytes_per_value), MPI_BYTE, exchange.rank,
                                     tag_, comm_, &requests.back()));
      }
    CELLWISE_MPI_CHECK(MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE));
  }

  template <typename Number, typename Layout>
  void
  CellHaloExchange::apply(CellVector<Number, MemorySpace::Host, Layout> &v) const
  {
    const ExchangeTimer timer;
    check_apply(v.n_cells(), v.degree(), sizeof(Number));
    const unsigned int degree = v.degree();
    const std::size_t  n      = values_per_cell(degree);
    send_buffer_.resize(std::max(send_buffer_.size(), cells_sent() * n * sizeof(Number)));
    receive_buffer_.resize(std::max(receive_buffer_.size(), cells_received_ * n * sizeof(Number)));
    Number *const send_values    = reinterpret_cast<Number *>(send_buffer_.data());
    Number *const receive_values = reinterpret_cast<Number *>(receive_buffer_.data());
    for (const Exchange &exchange : sends_)
      {
        Number *out = send_values + exchange.offset * n;
        for (const unsigned int cell : exchange.cells)
          for_sent_dofs(cell, degree, [&](const unsigned int i) { *out++ = v(cell, i); });
      }
    post_and_wait(send_values, receive_values, n, sizeof(Number));
    for (const Exchange &exchange : receives_)
      {
        const Number *in = receive_values + exchange.offset * n;
        for (const unsigned int cell : exchange.cells)
          for_sent_dofs(cell, degree, [&](const unsigned int i) { v(cell, i) = *in++; });
      }
  }

#define CELLWISE_INSTANTIATE(Number, Layout) \
  template void CellHaloExchange::apply(CellVector<Number, MemorySpace::Host, Layout> &) const;
  CELLWISE_INSTANTIATE(double, CellContiguous)
  CELLWISE_INSTANTIATE(float, CellContiguous)
  CELLWISE_INSTANTIATE(double, CellBlocked<32>)
  CELLWISE_INSTANTIATE(float, CellBlocked<32>)
#undef CELLWISE_INSTANTIATE
} // namespace cellwise
