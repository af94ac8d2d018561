#pragma once
/**
 * @file
 * The partition of a level hierarchy over MPI ranks, and a rank's part of a
 * level: its locally owned cells and their ghosts (doc/mpi.md).
 *
 * The partition is p4est's, so that the core without deal.II (and without
 * p4est) cuts a box hierarchy as a parallel::distributed::Triangulation
 * would: the active cells of all levels in the Morton order of the forest
 * (coarse cells in their order, the Morton order of the refinement tree
 * inside each), cut into contiguous parts of ⌊N r / P⌋ … ⌊N (r+1) / P⌋
 * cells, then corrected as p4est partitions for coarsening (which deal.II
 * requests): a family of eight sibling leaves that a cut splits goes whole
 * to the rank holding most of it, the lowest such rank on a tie. A refined
 * cell belongs to the owner of its first child, as deal.II assigns level
 * subdomains. The multigrid levels are thus partitioned by
 * the active cells below them, which keeps a parent and its first child on
 * one rank.
 *
 * A local level has no family links (parent and children are −1 on it):
 * the transfers across ranks take them from the partitioned hierarchy
 * (mesh/partitioned_hierarchy.h), replicated or computed from a box.
 */

#include <cellwise/mesh/level.h>

#include <vector>

namespace cellwise
{
  /// owner[l][c]: the rank of cell c of level l, for @p n_ranks ranks.
  /// Throws cellwise::Error for fewer active cells than ranks (a rank with
  /// no cells) or a hierarchy with skeleton faces (not yet).
  std::vector<std::vector<int>>
  morton_partition(const LevelHierarchy &hierarchy, int n_ranks);

  /// Which cells of other ranks a local level holds as ghosts.
  enum class GhostLayer
  {
    /// The cells across a face of an owned cell: what DSS, the transfers and
    /// the point smoothers read.
    faces,
    /// The cells that share a vertex with an owned cell (up to 26 per
    /// cell): every cell of every vertex patch that touches an owned cell,
    /// what the vertex-patch smoother reads.
    vertices
  };

  /// A rank's part of a level: the locally owned cells (in their serial
  /// order) and then, flagged cell_flags::ghost, the cells owned elsewhere
  /// that its ghost layer takes (in serial order). Face neighbours are
  /// local indices; a ghost's neighbour that is not local is
  /// face_neighbor::none.
  struct LocalLevel
  {
    Level level;
    /// The ghost layer it was built with.
    GhostLayer ghost_layer = GhostLayer::faces;
    /// Per local cell: its index on the serial level.
    std::vector<unsigned int> serial_index;
    /// Per local cell: its owner rank.
    std::vector<int> owner;

    unsigned int
    n_owned_cells() const
    {
      return level.n_owned_cells;
    }
  };

  /// Sizes every per-cell array of @p local (the level's and the rank's)
  /// for @p count local cells, of which the first @p n_owned are owned,
  /// without writing them: the builders of local levels fill them.
  void
  resize_local_level(LocalLevel &local, unsigned int count, unsigned int n_owned);

  /// Per cell of the serial level (@p n_serial_cells): its index on
  /// @p local where this rank owns it, −1 elsewhere.
  std::vector<long>
  owned_local_indices(const LocalLevel &local, unsigned int n_serial_cells);

  /// The part of @p serial that rank @p rank owns, with the ghosts of
  /// @p ghost_layer and the cells @p extra_ghosts (serial indices; those
  /// owned here are ignored); @p owner from morton_partition (or deal.II's
  /// level subdomains).
  LocalLevel
  make_local_level(const Level                     &serial,
                   const std::vector<int>          &owner,
                   int                              rank,
                   GhostLayer                       ghost_layer  = GhostLayer::faces,
                   const std::vector<unsigned int> &extra_ghosts = {});
} // namespace cellwise
