#pragma once
/**
 * @file
 * A rank's part of a uniform box hierarchy built without the hierarchy:
 * the first step toward distributed runs that replicate only the coarse
 * mesh, as p4est does (doc/mpi.md, "Next steps").
 *
 * A cell of level l has a forest index, tree · 8^l + the Morton code of its
 * coordinates in its coarse cell (x lowest): the order of p4est's forest
 * (the trees are the coarse cells: lexicographic, or the box's tree_order,
 * p4est's order of them in deal.II). The finest level's cuts are computed
 * (below) or given (a partitioner's: dealii/mpi_box_partition.h).
 * make_box_hierarchy numbers the cells of a level in this order with
 * CellOrdering::cell_major, and slot by slot (the finest slot most
 * significant, the coarse cell least) with child_major, its default;
 * BoxPartition maps both ways. morton_partition cuts the finest level's
 * forest order evenly and moves every family of eight siblings that a cut
 * splits to the rank holding most of it (the lowest on a tie); a cell of a
 * coarser level belongs to the rank of its first descendant on the finest
 * level. BoxPartition computes these cuts from the counts alone, and a
 * cell's owner by a binary search over them; a rank's cells of every level
 * are one range of forest indices.
 * make_local_box_level builds the LocalLevel that make_local_level would
 * cut from the serial level — the same cells, order, boxes (by the same
 * halvings), neighbours, flags and owners — in work proportional to the
 * rank's cells and their ghosts.
 *
 * As a PartitionedHierarchy it gives the distributed solver everything it
 * reads of the hierarchy (owners, families, local levels), so that no rank
 * holds the whole hierarchy.
 *
 * Uniform box hierarchies (left-out coarse cells allowed), box cells.
 * Checked against make_local_level(make_box_hierarchy(...),
 * morton_partition(...)) in tests/unit/box_partition_test.cc.
 */

#include <cellwise/mesh/box_builder.h>
#include <cellwise/mesh/level.h>
#include <cellwise/mesh/partition.h>
#include <cellwise/mesh/partitioned_hierarchy.h>

#include <array>
#include <cstdint>
#include <vector>

namespace cellwise
{
  class BoxPartition : public PartitionedHierarchy
  {
  public:
    /// The partition of make_box_hierarchy(@p box, @p n_refinements,
    /// @p ordering) over @p n_ranks ranks, equal to morton_partition's.
    /// Throws cellwise::Error where morton_partition does (a rank without
    /// cells). Cells are named by their serial index (the hierarchy's)
    /// below.
    BoxPartition(const BoxDescription &box,
                 unsigned int          n_refinements,
                 int                   n_ranks,
                 CellOrdering          ordering = CellOrdering::child_major);
    /// The same hierarchy with the finest level cut where a partitioner cut
    /// it (p4est through deal.II: dealii/mpi_box_partition.h): rank r owns
    /// the finest cells of forest index [@p finest_cuts[r], @p finest_cuts[r + 1]);
    /// n_ranks + 1 non-decreasing entries from 0 to the level's cell count
    /// (checked). A rank may own no cell (p4est leaves ranks empty where a
    /// mesh has fewer families of leaves than ranks): it then owns none on
    /// any level. Coarser levels as above.
    BoxPartition(const BoxDescription      &box,
                 unsigned int               n_refinements,
                 std::vector<std::uint64_t> finest_cuts,
                 CellOrdering               ordering = CellOrdering::child_major);

    unsigned int
    n_levels() const override
    {
      return n_refinements_ + 1;
    }
    int
    n_ranks() const override
    {
      return n_ranks_;
    }
    /// The coarse level (replicated, as p4est replicates the coarse mesh).
    const Level &
    coarse() const
    {
      return coarse_.level(0);
    }
    const Level &
    coarse_level() const override
    {
      return coarse();
    }
    std::array<unsigned int, 3>
    coarse_subdivisions() const override
    {
      return subdivisions_;
    }
    /// Cells of level @p l (serial count).
    std::uint64_t
    n_cells(unsigned int l) const override;
    /// The owner of cell @p index of level @p l.
    int
    owner(unsigned int l, std::uint64_t index) const override;
    /// The cells of level @p l that @p rank owns, in increasing index.
    std::vector<std::uint64_t>
    owned_cells(unsigned int l, int rank) const override;
    /// The parent (the cell at half the coordinates; −1 on level 0).
    std::int64_t
    parent(unsigned int l, std::uint64_t index) const override;
    /// Every cell but those of the finest level is refined.
    bool
    is_refined(const unsigned int l, std::uint64_t) const override
    {
      return l < n_refinements_;
    }
    /// The children at twice the coordinates, slot x + 2 y + 4 z.
    std::array<std::uint64_t, 8>
    children(unsigned int l, std::uint64_t index) const override;
    /// The family ghosts from the forest ranges: only the families that the
    /// cuts split lie partly elsewhere (a few cells per rank and level).
    std::vector<unsigned int>
    family_ghosts(unsigned int l, int rank) const override;
    /// make_local_box_level(*this, l, rank, ghost_layer, extra_ghosts).
    LocalLevel
    local_level(unsigned int l, int rank, GhostLayer ghost_layer, const std::vector<unsigned int> &extra_ghosts = {}) const override;
    /// The index of the level-@p l cell at lattice @p coordinates, −1 where
    /// no cell is (outside the box or in a left-out coarse cell).
    std::int64_t
    index_of(unsigned int l, const std::array<int, 3> &coordinates) const;
    /// The lattice coordinates of cell @p index of level @p l.
    std::array<int, 3>
    coordinates_of(unsigned int l, std::uint64_t index) const;
    /// The box of cell @p index of level @p l, by the box builder's
    /// halvings from its coarse cell (bit for bit the builder's).
    CellBox
    box_of(unsigned int l, std::uint64_t index) const;
    /// The face neighbour across @p face of the level-@p l cell at lattice
    /// @p coordinates: its forest index (>= 0), or the builder's boundary
    /// value (face_neighbor::boundary of the face, or of removed_boundary_id
    /// toward a left-out coarse cell).
    std::int64_t
    forest_neighbor(unsigned int l, const std::array<int, 3> &coordinates, unsigned int face) const;

    /// The forest index of cell @p index of level @p l, and back.
    std::uint64_t
    forest_index(unsigned int l, std::uint64_t index) const;
    std::uint64_t
    serial_index(unsigned int l, std::uint64_t forest) const;

    /// The forest indices [first, last) of the cells of level @p l that
    /// @p rank owns (one range: the cuts follow the forest order).
    std::array<std::uint64_t, 2>
    forest_range(unsigned int l, int rank) const;
    /// The forest index of the level-@p l cell at lattice @p coordinates, −1
    /// where no cell is (index_of without the serial numbering).
    std::int64_t
    forest_at(unsigned int l, const std::array<int, 3> &coordinates) const;
    /// The lattice coordinates of the cell of forest index @p forest.
    std::array<int, 3>
    coordinates_of_forest(unsigned int l, std::uint64_t forest) const;

  private:
    LevelHierarchy              coarse_;
    unsigned int                n_refinements_ = 0;
    int                         n_ranks_       = 1;
    CellOrdering                ordering_      = CellOrdering::child_major;
    std::array<unsigned int, 3> subdivisions_{};
    /// Per coarse lattice position (x fastest): the coarse cell, −1 if left out.
    std::vector<int> coarse_index_;
    /// cuts_[r]: the first finest-level cell of rank r; cuts_[n_ranks] = n.
    std::vector<std::uint64_t> cuts_;

    /// The finest level's cell count (checked against 64-bit forest indices).
    std::uint64_t
    n_finest_cells() const;
  };

  /// The part of level @p l that @p rank owns, with the ghosts of
  /// @p ghost_layer and the cells @p extra_ghosts (serial indices; those
  /// owned here are ignored): make_local_level(serial level l, owners,
  /// rank, ghost_layer, extra_ghosts) without the serial level.
  LocalLevel
  make_local_box_level(const BoxPartition              &partition,
                       unsigned int                     l,
                       int                              rank,
                       GhostLayer                       ghost_layer  = GhostLayer::faces,
                       const std::vector<unsigned int> &extra_ghosts = {});
} // namespace cellwise
