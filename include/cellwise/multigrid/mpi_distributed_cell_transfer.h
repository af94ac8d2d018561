#pragma once
/**
 * @file
 * The cell-wise transfers (multigrid/cell_transfer.h) between two levels
 * distributed over MPI ranks (doc/mpi.md). A refined cell lives on the rank
 * of its first child (mesh/partition.h), so a family is split only where the
 * Morton order cuts it: then the prolongation receives the parent's values
 * on each rank that owns one of its children, and the restriction sends each
 * such child's residual b − A u to the parent's rank, which restricts the
 * eight children in slot order as the serial transfer does. Owned cells get
 * exactly the serial transfer's values. One message per family-sharing rank
 * pair and transfer; none on one rank.
 *
 * Built only with MPI (library cellwise::mpi).
 */

#include <cellwise/base/mpi_check.h>
#include <cellwise/mesh/level.h>
#include <cellwise/mesh/partition.h>
#include <cellwise/mesh/partitioned_hierarchy.h>
#include <cellwise/multigrid/interfaces.h>
#include <cellwise/storage/cell_vector.h>
#include <cellwise/storage/mpi_distributed_cell_vector.h>

#include <array>
#include <cstddef>
#include <memory>
#include <vector>

namespace cellwise
{
  template <typename Number, typename Layout = CellContiguous>
  class DistributedCellTransfer
  {
  public:
    using VectorType = CellVector<Number, MemorySpace::Host, Layout>;

    /**
     * Collective over @p comm. The transfer between level @p fine_level − 1
     * (@p coarse, this rank's part) and level @p fine_level (@p fine) of
     * @p hierarchy, FE_Q(@p degree). Checks collectively that the ranks agree
     * on what travels. Keeps references to @p coarse and @p fine, none to
     * @p hierarchy; nothing per serial cell.
     */
    DistributedCellTransfer(const PartitionedHierarchy &hierarchy,
                            unsigned int                fine_level,
                            const LocalLevel           &coarse,
                            const LocalLevel           &fine,
                            MPI_Comm                    comm,
                            unsigned int                degree);
    /// @p coarse and @p fine are kept by reference: temporaries would dangle.
    DistributedCellTransfer(const PartitionedHierarchy &hierarchy, unsigned int fine_level, const LocalLevel &&coarse,
                            const LocalLevel &fine, MPI_Comm comm, unsigned int degree) = delete;
    DistributedCellTransfer(const PartitionedHierarchy &hierarchy, unsigned int fine_level, const LocalLevel &coarse,
                            const LocalLevel &&fine, MPI_Comm comm, unsigned int degree) = delete;

    /// The same for the serial hierarchy @p serial that every rank holds,
    /// partitioned by @p owner (morton_partition).
    DistributedCellTransfer(const LevelHierarchy                &serial,
                            const std::vector<std::vector<int>> &owner,
                            const unsigned int                   fine_level,
                            const LocalLevel                    &coarse,
                            const LocalLevel                    &fine,
                            const MPI_Comm                       comm,
                            const unsigned int                   degree)
      : DistributedCellTransfer(ReplicatedHierarchy(serial, owner, mpi_size(comm)), fine_level, coarse, fine, comm, degree)
    {}
    DistributedCellTransfer(const LevelHierarchy &serial, const std::vector<std::vector<int>> &owner, unsigned int fine_level,
                            const LocalLevel &&coarse, const LocalLevel &fine, MPI_Comm comm, unsigned int degree) = delete;
    DistributedCellTransfer(const LevelHierarchy &serial, const std::vector<std::vector<int>> &owner, unsigned int fine_level,
                            const LocalLevel &coarse, const LocalLevel &&fine, MPI_Comm comm, unsigned int degree) = delete;

    /// fine += P coarse on the owned fine cells. Collective.
    void
    prolongate_add(VectorType &fine, const VectorType &coarse) const;

    /// coarse += R (fine_b − fine_Au) on the owned coarse cells: the
    /// unassembled residual of the children restricted into their parent.
    /// Collective.
    void
    restrict_residual_add(VectorType &coarse, const VectorType &fine_b, const VectorType &fine_Au) const;

    /// Cells sent per prolongation and per restriction by this rank.
    std::size_t
    cells_sent_per_prolongation() const;
    std::size_t
    cells_sent_per_restriction() const;
    /// Messages sent per prolongation and per restriction by this rank.
    std::size_t
    messages_per_prolongation() const
    {
      return parents_sent_.size();
    }
    std::size_t
    messages_per_restriction() const
    {
      return children_sent_.size();
    }

  private:
    /// The cells whose values travel to or from one rank, in the serial
    /// order of the cells that travel: local cells in a message sent,
    /// serial indices in a message received.
    struct Message
    {
      int                       rank = 0;
      std::vector<unsigned int> cells;
      std::size_t               offset = 0; ///< in cells, into the receive buffer
    };

    const LocalLevel &coarse_, &fine_;
    MPI_Comm          comm_;
    unsigned int      degree_;
    std::vector<Number> prolongation_;

    /// Prolongation: owned parents sent to their children's ranks; parents
    /// received, and per owned fine cell where its parent is: a local coarse
    /// cell (>= 0) or −1 − (received cell).
    std::vector<Message> parents_sent_, parents_received_;
    std::vector<long>    parent_of_fine_;
    /// Restriction: owned children's residuals sent to their parent's rank;
    /// children received, and per owned refined coarse cell and slot where
    /// the child is: a local fine cell (>= 0) or −1 − (received cell).
    std::vector<Message>             children_sent_, children_received_;
    std::vector<std::array<long, 8>> children_of_coarse_;

    template <typename Pack>
    void
    exchange(const std::vector<Message> &sends,
             const std::vector<Message> &receives,
             const Pack                 &pack,
             std::vector<Number>        &received,
             int                         tag) const;
    void
    check_vectors(const VectorType &fine, const VectorType &coarse) const;
  };

  /// The transfers of a whole distributed hierarchy as the V-cycle sees them
  /// (LevelTransfer over distributed vectors): one DistributedCellTransfer
  /// per pair of consecutive levels.
  template <typename Number, typename Layout = CellContiguous>
  class DistributedLevelTransfer : public LevelTransfer<DistributedCellVector<Number, Layout>>
  {
  public:
    using VectorType = DistributedCellVector<Number, Layout>;

    /// Collective. @p local: this rank's part of every level of
    /// @p hierarchy (kept by reference).
    DistributedLevelTransfer(const PartitionedHierarchy    &hierarchy,
                             const std::vector<LocalLevel> &local,
                             const MPI_Comm                 comm,
                             const unsigned int             degree)
    {
      CELLWISE_CHECK(local.size() == hierarchy.n_levels(),
                     "DistributedLevelTransfer: " << local.size() << " local levels for " << hierarchy.n_levels());
      transfers_.resize(hierarchy.n_levels());
      for (unsigned int l = 1; l < hierarchy.n_levels(); ++l)
        transfers_[l] =
          std::make_unique<DistributedCellTransfer<Number, Layout>>(hierarchy, l, local[l - 1], local[l], comm, degree);
    }
    /// @p local is kept by reference: a temporary would dangle.
    DistributedLevelTransfer(const PartitionedHierarchy &hierarchy, const std::vector<LocalLevel> &&local, MPI_Comm comm,
                             unsigned int degree) = delete;
    /// The same for a serial hierarchy every rank holds, partitioned by
    /// @p owner.
    DistributedLevelTransfer(const LevelHierarchy                &serial,
                             const std::vector<std::vector<int>> &owner,
                             const std::vector<LocalLevel>       &local,
                             const MPI_Comm                       comm,
                             const unsigned int                   degree)
      : DistributedLevelTransfer(ReplicatedHierarchy(serial, owner, mpi_size(comm)), local, comm, degree)
    {}
    DistributedLevelTransfer(const LevelHierarchy &serial, const std::vector<std::vector<int>> &owner,
                             const std::vector<LocalLevel> &&local, MPI_Comm comm, unsigned int degree) = delete;

    void
    prolongate_add(const unsigned int to_level, VectorType &fine, const VectorType &coarse) const override
    {
      at(to_level).prolongate_add(fine.local(), coarse.local());
    }
    void
    restrict_residual_add(const unsigned int from_level,
                          VectorType        &coarse,
                          const VectorType  &fine_b,
                          const VectorType  &fine_Au) const override
    {
      at(from_level).restrict_residual_add(coarse.local(), fine_b.local(), fine_Au.local());
    }

    /// The transfer between levels @p fine_level − 1 and @p fine_level.
    const DistributedCellTransfer<Number, Layout> &
    at(const unsigned int fine_level) const
    {
      CELLWISE_CHECK(fine_level >= 1 && fine_level < transfers_.size(),
                     "DistributedLevelTransfer: level " << fine_level << " of 0.." << transfers_.size() - 1);
      return *transfers_[fine_level];
    }

  private:
    std::vector<std::unique_ptr<DistributedCellTransfer<Number, Layout>>> transfers_;
  };
} // namespace cellwise
