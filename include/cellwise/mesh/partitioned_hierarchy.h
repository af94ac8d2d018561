#pragma once
/**
 * @file
 * A level hierarchy partitioned over MPI ranks, as the distributed
 * components read it (doc/mpi.md): per level the number of cells, and for a
 * cell named by its serial index its owner, parent and children; a rank's
 * owned cells and its local levels. Two kinds:
 *
 * - ReplicatedHierarchy: a serial LevelHierarchy that every rank holds, with
 *   the owners of its cells (morton_partition's; locally refined meshes).
 *   Memory per rank: the whole hierarchy.
 * - BoxPartition (mesh/box_partition.h): a uniform box hierarchy computed
 *   from the box and the lattice; nothing is stored per cell, so a rank's
 *   memory is that of its own cells and their ghosts.
 *
 * The queries are what the set-up of the transfers, the family ghosts and
 * the solver need; none of them is on a solve's path.
 */

#include <cellwise/mesh/level.h>
#include <cellwise/mesh/partition.h>

#include <array>
#include <cstdint>
#include <vector>

namespace cellwise
{
  class PartitionedHierarchy
  {
  public:
    virtual ~PartitionedHierarchy() = default;

    virtual unsigned int
    n_levels() const = 0;
    /// Cells of level @p l (all ranks together).
    virtual std::uint64_t
    n_cells(unsigned int l) const = 0;
    virtual int
    n_ranks() const = 0;
    /// Level 0, held by every rank (as p4est replicates the coarse mesh):
    /// the coarse solve's level.
    virtual const Level &
    coarse_level() const = 0;
    /// Coarse cells per axis (LevelHierarchy::coarse_subdivisions).
    virtual std::array<unsigned int, 3>
    coarse_subdivisions() const = 0;

    /// The rank that owns cell @p cell of level @p l.
    virtual int
    owner(unsigned int l, std::uint64_t cell) const = 0;
    /// The parent of cell @p cell of level @p l on level l − 1 (−1 on level 0).
    virtual std::int64_t
    parent(unsigned int l, std::uint64_t cell) const = 0;
    /// Whether cell @p cell of level @p l has children on level l + 1.
    virtual bool
    is_refined(unsigned int l, std::uint64_t cell) const = 0;
    /// The children of a refined cell on level l + 1, in slot order.
    virtual std::array<std::uint64_t, 8>
    children(unsigned int l, std::uint64_t cell) const = 0;
    /// The cells of level @p l that @p rank owns, in increasing index.
    virtual std::vector<std::uint64_t>
    owned_cells(unsigned int l, int rank) const = 0;
    /// The part of level @p l that @p rank owns, with the ghosts of
    /// @p ghost_layer and the cells @p extra_ghosts (make_local_level).
    virtual LocalLevel
    local_level(unsigned int l, int rank, GhostLayer ghost_layer, const std::vector<unsigned int> &extra_ghosts = {}) const = 0;

    /// family_ghosts(*this, l, rank) (below); a hierarchy that knows its
    /// split families faster says so.
    virtual std::vector<unsigned int>
    family_ghosts(unsigned int l, int rank) const;

    /// The serial hierarchy where every rank holds one (nullptr where not):
    /// local smoothing's active mesh is still built from it.
    virtual const LevelHierarchy *
    serial() const
    {
      return nullptr;
    }
  };

  /// A serial hierarchy held by every rank with the owners of its cells.
  /// Keeps references to both.
  class ReplicatedHierarchy : public PartitionedHierarchy
  {
  public:
    /// @p owner[l][c]: the rank of cell c of level l, each in 0..n_ranks − 1
    /// (checked: cellwise::Error otherwise).
    ReplicatedHierarchy(const LevelHierarchy &serial, const std::vector<std::vector<int>> &owner, int n_ranks);
    /// Both are kept by reference: temporaries would dangle.
    ReplicatedHierarchy(const LevelHierarchy &&serial, const std::vector<std::vector<int>> &owner, int n_ranks) = delete;
    ReplicatedHierarchy(const LevelHierarchy &serial, const std::vector<std::vector<int>> &&owner, int n_ranks) = delete;

    unsigned int
    n_levels() const override
    {
      return serial_.n_levels();
    }
    std::uint64_t
    n_cells(const unsigned int l) const override
    {
      return serial_.level(l).n_cells();
    }
    int
    n_ranks() const override
    {
      return n_ranks_;
    }
    const Level &
    coarse_level() const override
    {
      return serial_.level(0);
    }
    std::array<unsigned int, 3>
    coarse_subdivisions() const override
    {
      return serial_.coarse_subdivisions;
    }
    int
    owner(unsigned int l, std::uint64_t cell) const override;
    std::int64_t
    parent(unsigned int l, std::uint64_t cell) const override;
    bool
    is_refined(unsigned int l, std::uint64_t cell) const override;
    std::array<std::uint64_t, 8>
    children(unsigned int l, std::uint64_t cell) const override;
    std::vector<std::uint64_t>
    owned_cells(unsigned int l, int rank) const override;
    LocalLevel
    local_level(unsigned int l, int rank, GhostLayer ghost_layer, const std::vector<unsigned int> &extra_ghosts = {}) const override;
    const LevelHierarchy *
    serial() const override
    {
      return &serial_;
    }

  private:
    const LevelHierarchy                &serial_;
    const std::vector<std::vector<int>> &owner_;
    int                                  n_ranks_;
  };

  /// The index on @p local of its cell with serial index @p serial: owned
  /// cells first, then ghosts, each range in increasing serial index (as
  /// make_local_level and make_local_box_level build them); −1 where the
  /// cell is not local (or, with @p owned_only, not owned).
  long
  local_index_of(const LocalLevel &local, std::uint64_t serial, bool owned_only = false);

  /**
   * The cells of level @p l of @p hierarchy that the device transfers of
   * rank @p rank read besides its own (serial indices, sorted): the siblings
   * of its cells and the children of its refined cells of level l − 1 (every
   * family it restricts into, or prolongates to, whole) and the parents of
   * its cells of level l + 1. Held as ghosts, they let the device kernels of
   * the serial transfer run on a rank's part of two levels unchanged
   * (multigrid/mpi_cuda_distributed_cell_transfer.h). Work proportional to
   * the rank's cells (and the owned-cell queries of @p hierarchy); this is
   * the generic answer of PartitionedHierarchy::family_ghosts.
   */
  std::vector<unsigned int>
  family_ghosts(const PartitionedHierarchy &hierarchy, unsigned int l, int rank);

  /// The same for the serial hierarchy @p serial partitioned by @p owner.
  std::vector<unsigned int>
  family_ghosts(const LevelHierarchy &serial, const std::vector<std::vector<int>> &owner, unsigned int l, int rank);
} // namespace cellwise
