#include <cellwise/base/degree_dispatch.h>
#include <cellwise/base/parallel.h>
#include <cellwise/multigrid/cell_transfer.h>
#include <cellwise/kernels/transfer_cell.h>
#include <cellwise/multigrid/mpi_distributed_cell_transfer.h>

#include <algorithm>
#include <climits>
#include <map>
#include <sstream>

namespace cellwise
{
  namespace
  {
    /// Per rank, the serial indices of the cells to receive, sorted and
    /// unique, as messages with offsets; @p position gives a received
    /// cell's index in the receive buffer.
    template <typename Message>
    std::vector<Message>
    make_receives(std::map<int, std::vector<unsigned int>> &by_rank)
    {
      std::vector<Message> messages;
      std::size_t          offset = 0;
      for (auto &[rank, cells] : by_rank)
        {
          std::sort(cells.begin(), cells.end());
          cells.erase(std::unique(cells.begin(), cells.end()), cells.end());
          Message message;
          message.rank   = rank;
          message.cells  = cells;
          message.offset = offset;
          offset += cells.size();
          messages.push_back(std::move(message));
        }
      return messages;
    }

    template <typename Message>
    long
    position(const std::vector<Message> &messages, const int rank, const unsigned int serial)
    {
      for (const Message &message : messages)
        if (message.rank == rank)
          {
            const auto it = std::lower_bound(message.cells.begin(), message.cells.end(), serial);
            CELLWISE_CHECK(it != message.cells.end() && *it == serial, "DistributedCellTransfer: internal list error");
            return static_cast<long>(message.offset + (it - message.cells.begin()));
          }
      CELLWISE_CHECK(false, "DistributedCellTransfer: internal list error (rank " << rank << ")");
      return 0;
    }

    /// Cells in all of @p messages.
    template <typename Message>
    std::size_t
    count_cells(const std::vector<Message> &messages)
    {
      std::size_t cells = 0;
      for (const Message &message : messages)
        cells += message.cells.size();
      return cells;
    }
  } // namespace

  template <typename Number, typename Layout>
  DistributedCellTransfer<Number, Layout>::DistributedCellTransfer(const PartitionedHierarchy &hierarchy,
                                                                   const unsigned int          fine_level,
                                                                   const LocalLevel           &coarse,
                                                                   const LocalLevel           &fine,
                                                                   const MPI_Comm              comm,
                                                                   const unsigned int          degree)
    : coarse_(coarse)
    , fine_(fine)
    , comm_(comm)
    , degree_(degree)
  {
    const int rank = mpi_rank(comm), size = mpi_size(comm);
    {
      std::ostringstream problem;
      bool               fits = fine_level >= 1 && fine_level < hierarchy.n_levels() && hierarchy.n_ranks() == size;
      if (!fits)
        problem << "DistributedCellTransfer: fine level " << fine_level << " of a hierarchy of " << hierarchy.n_levels()
                << " levels partitioned over " << hierarchy.n_ranks() << " ranks, on " << size;
      else
        {
          fits = coarse.serial_index.size() == coarse.level.n_cells() && fine.serial_index.size() == fine.level.n_cells();
          for (unsigned int k = 0; fits && k < coarse.n_owned_cells(); ++k)
            fits = coarse.serial_index[k] < hierarchy.n_cells(fine_level - 1) &&
                   hierarchy.owner(fine_level - 1, coarse.serial_index[k]) == rank;
          for (unsigned int k = 0; fits && k < fine.n_owned_cells(); ++k)
            fits = fine.serial_index[k] < hierarchy.n_cells(fine_level) && hierarchy.owner(fine_level, fine.serial_index[k]) == rank;
          if (!fits)
            problem << "DistributedCellTransfer: the local levels of rank " << rank
                    << " are not the parts of levels " << fine_level - 1 << " and " << fine_level
                    << " that the owners give it";
        }
      check_collectively(comm, fits, problem.str());
    }
    check_degree(degree);
    prolongation_      = packed_prolongation_matrices<Number>(degree);
    const unsigned int n = degree + 1;
    const unsigned int l = fine_level;
    // local indices by binary search over the local levels (owned cells, in
    // serial order): nothing per serial cell
    const auto coarse_local = [&](const std::uint64_t c) { return local_index_of(coarse, c, true); };
    const auto fine_local   = [&](const std::uint64_t c) { return local_index_of(fine, c, true); };

    // prolongation: owned parents to the other ranks of their children
    std::map<int, Message> parents_sent;
    for (unsigned int k = 0; k < coarse.n_owned_cells(); ++k)
      {
        const unsigned int c = coarse.serial_index[k];
        if (!hierarchy.is_refined(l - 1, c))
          continue;
        std::vector<int> ranks;
        for (const std::uint64_t child : hierarchy.children(l - 1, c))
          if (hierarchy.owner(l, child) != rank)
            ranks.push_back(hierarchy.owner(l, child));
        std::sort(ranks.begin(), ranks.end());
        ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
        for (const int r : ranks)
          parents_sent[r].cells.push_back(k);
      }
    std::vector<std::int64_t> parent_of(fine.n_owned_cells());
    std::vector<int>          parent_owner(fine.n_owned_cells());
    std::map<int, std::vector<unsigned int>> parents_needed;
    for (unsigned int k = 0; k < fine.n_owned_cells(); ++k)
      {
        parent_of[k] = hierarchy.parent(l, fine.serial_index[k]);
        CELLWISE_CHECK(parent_of[k] >= 0, "DistributedCellTransfer: cell " << fine.serial_index[k] << " of level " << l
                                                                          << " has no parent");
        parent_owner[k] = hierarchy.owner(l - 1, std::uint64_t(parent_of[k]));
        if (parent_owner[k] != rank)
          parents_needed[parent_owner[k]].push_back(static_cast<unsigned int>(parent_of[k]));
      }
    parents_received_ = make_receives<Message>(parents_needed);
    parent_of_fine_.resize(fine.n_owned_cells());
    for (unsigned int k = 0; k < fine.n_owned_cells(); ++k)
      parent_of_fine_[k] = parent_owner[k] == rank
                             ? coarse_local(std::uint64_t(parent_of[k]))
                             : -1 - position(parents_received_, parent_owner[k], static_cast<unsigned int>(parent_of[k]));

    // restriction: owned children's residuals to their parent's rank
    std::map<int, Message> children_sent;
    for (unsigned int k = 0; k < fine.n_owned_cells(); ++k)
      if (parent_owner[k] != rank)
        children_sent[parent_owner[k]].cells.push_back(k);
    std::map<int, std::vector<unsigned int>> children_needed;
    for (unsigned int k = 0; k < coarse.n_owned_cells(); ++k)
      {
        const unsigned int c = coarse.serial_index[k];
        if (hierarchy.is_refined(l - 1, c))
          for (const std::uint64_t child : hierarchy.children(l - 1, c))
            if (hierarchy.owner(l, child) != rank)
              children_needed[hierarchy.owner(l, child)].push_back(static_cast<unsigned int>(child));
      }
    children_received_ = make_receives<Message>(children_needed);
    children_of_coarse_.assign(coarse.n_owned_cells(), {{-1, -1, -1, -1, -1, -1, -1, -1}});
    for (unsigned int k = 0; k < coarse.n_owned_cells(); ++k)
      {
        const unsigned int c = coarse.serial_index[k];
        if (hierarchy.is_refined(l - 1, c))
          {
            const std::array<std::uint64_t, 8> children = hierarchy.children(l - 1, c);
            for (unsigned int slot = 0; slot < 8; ++slot)
              {
                const std::uint64_t child = children[slot];
                const int           owner = hierarchy.owner(l, child);
                children_of_coarse_[k][slot] =
                  owner == rank ? fine_local(child) : -1 - position(children_received_, owner, static_cast<unsigned int>(child));
              }
          }
      }

    for (auto &[r, message] : parents_sent)
      {
        message.rank = r;
        parents_sent_.push_back(std::move(message));
      }
    for (auto &[r, message] : children_sent)
      {
        message.rank = r;
        children_sent_.push_back(std::move(message));
      }

    // what travels fits MPI's int count, and both sides list the same cells
    const std::size_t cell_bytes = std::size_t(n) * n * n * sizeof(Number);
    bool              fits       = true;
    for (const auto *list : {&parents_sent_, &parents_received_, &children_sent_, &children_received_})
      for (const Message &message : *list)
        fits &= message.cells.size() * cell_bytes <= std::size_t(INT_MAX);
    check_collectively(comm, fits, "DistributedCellTransfer: a message exceeds MPI's int count of bytes; use more ranks");
    for (const bool prolongation : {true, false})
      {
        std::vector<std::vector<unsigned int>> outgoing(size), expected(size);
        for (const Message &message : prolongation ? parents_sent_ : children_sent_)
          for (const unsigned int k : message.cells)
            outgoing[message.rank].push_back((prolongation ? coarse : fine).serial_index[k]);
        for (const Message &message : prolongation ? parents_received_ : children_received_)
          expected[message.rank] = message.cells;
        check_matching_exchange(comm, outgoing, expected,
                                prolongation ? "DistributedCellTransfer (parents for the prolongation)"
                                             : "DistributedCellTransfer (children for the restriction)");
      }
  }

  template <typename Number, typename Layout>
  template <typename Pack>
  void
  DistributedCellTransfer<Number, Layout>::exchange(const std::vector<Message> &sends,
                                                    const std::vector<Message> &receives,
                                                    const Pack                 &pack,
                                                    std::vector<Number>        &received,
                                                    const int                   tag) const
  {
    const ExchangeTimer timer;
    const std::size_t   n3 = std::size_t(degree_ + 1) * (degree_ + 1) * (degree_ + 1);
    received.resize(receives.empty() ? 0 : (receives.back().offset + receives.back().cells.size()) * n3);
    std::vector<Number>      sent(count_cells(sends) * n3);
    std::vector<MPI_Request> requests;
    requests.reserve(sends.size() + receives.size());
    for (const Message &message : receives)
      {
        requests.emplace_back();
        CELLWISE_MPI_CHECK(MPI_Irecv(received.data() + message.offset * n3,
                                     static_cast<int>(message.cells.size() * n3 * sizeof(Number)), MPI_BYTE,
                                     message.rank, tag, comm_, &requests.back()));
      }
    Number *out = sent.data();
    for (const Message &message : sends)
      {
        Number *const begin = out;
        for (const unsigned int cell : message.cells)
          {
            pack(cell, out);
            out += n3;
          }
        requests.emplace_back();
        CELLWISE_MPI_CHECK(MPI_Isend(begin, static_cast<int>(message.cells.size() * n3 * sizeof(Number)), MPI_BYTE,
                                     message.rank, tag, comm_, &requests.back()));
      }
    CELLWISE_MPI_CHECK(MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE));
  }

  template <typename Number, typename Layout>
  void
  DistributedCellTransfer<Number, Layout>::check_vectors(const VectorType &fine, const VectorType &coarse) const
  {
    CELLWISE_CHECK(fine.n_cells() == fine_.level.n_cells() && coarse.n_cells() == coarse_.level.n_cells() &&
                     fine.degree() == degree_ && coarse.degree() == degree_,
                   "DistributedCellTransfer: vectors of " << fine.n_cells() << " and " << coarse.n_cells()
                                                          << " cells of degree " << fine.degree() << ", " << coarse.degree()
                                                          << " for local levels of " << fine_.level.n_cells() << " and "
                                                          << coarse_.level.n_cells() << " cells of degree " << degree_);
  }

  template <typename Number, typename Layout>
  void
  DistributedCellTransfer<Number, Layout>::prolongate_add(VectorType &fine, const VectorType &coarse) const
  {
    check_vectors(fine, coarse);
    std::vector<Number> received;
    exchange(parents_sent_, parents_received_, [&](const unsigned int cell, Number *out) { coarse.read_cell(cell, out); },
             received, 20);
    dispatch_degree(degree_, [&](auto degree) {
      constexpr int p  = decltype(degree)::value;
      constexpr int n3 = (p + 1) * (p + 1) * (p + 1);
      parallel_for_ranges(fine_.n_owned_cells(), cell_grain, [&](const std::size_t begin, const std::size_t end) {
        Number parent[n3], child[n3], scratch[n3];
        for (std::size_t cell = begin; cell < end; ++cell)
          {
            const long where = parent_of_fine_[cell];
            if (where >= 0)
              coarse.read_cell(static_cast<unsigned int>(where), parent);
            else
              std::copy(received.data() + (-1 - where) * n3, received.data() + (-1 - where + 1) * n3, parent);
            kernels::prolongate_to_child<p>(prolongation_.data(), fine_.level.child_slot[cell], parent, child, scratch);
            fine.add_cell(static_cast<unsigned int>(cell), child);
          }
      });
    });
  }

  template <typename Number, typename Layout>
  void
  DistributedCellTransfer<Number, Layout>::restrict_residual_add(VectorType       &coarse,
                                                                 const VectorType &fine_b,
                                                                 const VectorType &fine_Au) const
  {
    check_vectors(fine_b, coarse);
    check_vectors(fine_Au, coarse);
    const std::size_t   n3 = std::size_t(degree_ + 1) * (degree_ + 1) * (degree_ + 1);
    std::vector<Number> au(n3), received;
    exchange(children_sent_, children_received_,
             [&](const unsigned int cell, Number *out) {
               fine_b.read_cell(cell, out);
               fine_Au.read_cell(cell, au.data());
               for (std::size_t i = 0; i < n3; ++i)
                 out[i] -= au[i];
             },
             received, 21);
    dispatch_degree(degree_, [&](auto degree) {
      constexpr int p  = decltype(degree)::value;
      constexpr int n3 = (p + 1) * (p + 1) * (p + 1);
      parallel_for_ranges(coarse_.n_owned_cells(), cell_grain, [&](const std::size_t begin, const std::size_t end) {
        Number b[n3], a[n3], parent[n3], scratch[n3];
        for (std::size_t cell = begin; cell < end; ++cell)
          {
            if (!coarse_.level.is_refined(static_cast<unsigned int>(cell)))
              continue;
            for (int i = 0; i < n3; ++i)
              parent[i] = 0;
            for (unsigned int slot = 0; slot < 8; ++slot)
              {
                const long where = children_of_coarse_[cell][slot];
                if (where >= 0)
                  {
                    fine_b.read_cell(static_cast<unsigned int>(where), b);
                    fine_Au.read_cell(static_cast<unsigned int>(where), a);
                    for (int i = 0; i < n3; ++i)
                      b[i] -= a[i];
                  }
                else
                  std::copy(received.data() + (-1 - where) * n3, received.data() + (-1 - where + 1) * n3, b);
                kernels::restrict_from_child_add<p>(prolongation_.data(), slot, b, parent, scratch);
              }
            coarse.add_cell(static_cast<unsigned int>(cell), parent);
          }
      });
    });
  }

  template <typename Number, typename Layout>
  std::size_t
  DistributedCellTransfer<Number, Layout>::cells_sent_per_prolongation() const
  {
    return count_cells(parents_sent_);
  }

  template <typename Number, typename Layout>
  std::size_t
  DistributedCellTransfer<Number, Layout>::cells_sent_per_restriction() const
  {
    return count_cells(children_sent_);
  }

  CELLWISE_INSTANTIATE_NUMBERS_AND_LAYOUTS(DistributedCellTransfer)
} // namespace cellwise
