#pragma once
/**
 * @file
 * deal.II's partition of a globally refined
 * parallel::distributed::Triangulation<3> as a BoxPartition
 * (mesh/box_partition.h), so that no rank builds the serial hierarchy
 * (doc/mpi.md, "deal.II on ranks").
 *
 * Taken where the coarse mesh is a lattice of equal, axis-aligned boxes in
 * deal.II's standard orientation (subdivided_hyper_rectangle, hyper_cube,
 * hyper_L and the like), flat manifolds, each face of the lattice carrying
 * one boundary id. Then p4est's forest is the box's: its trees are the
 * coarse cells in deal.II's tree order (BoxDescription::tree_order, from
 * get_p4est_tree_to_coarse_cell_permutation), a cell's children are in
 * slots x + 2 y + 4 z, and a rank's active cells are one range of the
 * finest level's forest order. The BoxPartition takes those ranges as its
 * cuts, and the set-up checks that every level cell deal.II gives a rank
 * (level_subdomain_id) is one the BoxPartition gives it, and no other:
 * where anything differs the partition is not taken, with the reason, the
 * same on every rank.
 *
 * A locally refined mesh on such a lattice is taken as a replicated
 * hierarchy (ReplicatedHierarchy, mesh/partitioned_hierarchy.h): every rank
 * rebuilds the serial hierarchy from the coarse lattice and the level cells
 * that some rank's level subdomain has refined (gathered per level), and
 * takes deal.II's level subdomains as the owners (gathered). Each rank then
 * holds the whole mesh (what the distributed local smoothing of locally
 * refined boxes needs so far; doc/mpi.md).
 *
 * Built where deal.II and cellwise::mpi are (library cellwise::dealii).
 */

#include <cellwise/mesh/box_builder.h>
#include <cellwise/mesh/box_partition.h>
#include <cellwise/mesh/partitioned_hierarchy.h>

#include <deal.II/distributed/tria.h>

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace cellwise::dealii
{
  class DealiiBoxPartition
  {
  public:
    /// Collective over @p tria's communicator: every rank takes it or every
    /// rank does not (taken(), why_not()).
    explicit DealiiBoxPartition(const ::dealii::parallel::distributed::Triangulation<3, 3> &tria);

    bool
    taken() const
    {
      return hierarchy_ != nullptr;
    }
    /// Whether the mesh is locally refined (then the hierarchy is
    /// replicated and partition() is nullptr).
    bool
    locally_refined() const
    {
      return serial_ != nullptr;
    }
    /// The partitioned hierarchy the solver takes: partition(), or the
    /// replicated hierarchy of a locally refined mesh (nullptr where not
    /// taken).
    const std::shared_ptr<const PartitionedHierarchy> &
    hierarchy() const
    {
      return hierarchy_;
    }
    /// Why the partition was not taken (empty where it was).
    const std::string &
    why_not() const
    {
      return why_not_;
    }
    /// The partition of a globally refined mesh (nullptr where not taken
    /// or locally refined).
    const std::shared_ptr<const BoxPartition> &
    partition() const
    {
      return partition_;
    }
    /// The box of the lattice, with deal.II's tree order.
    const BoxDescription &
    box() const
    {
      return box_;
    }
    /// The serial index of @p cell (a cell of the triangulation on its
    /// level), −1 where it is not in the box.
    std::int64_t
    serial_index(const ::dealii::CellAccessor<3, 3> &cell) const;
    /// The box's boundary ids (0..5 for its faces, removed_boundary_id
    /// toward a left-out coarse cell) that carry one of deal.II's
    /// @p dirichlet_ids (all if empty). Throws cellwise::Error, on every
    /// rank alike, for an id that no face carries.
    std::vector<unsigned int>
    box_dirichlet_ids(const std::vector<unsigned int> &dirichlet_ids) const;
    /// deal.II's boundary ids of the faces that are not among
    /// @p dirichlet_ids (none if it is empty: all Dirichlet).
    std::vector<unsigned int>
    neumann_ids(const std::vector<unsigned int> &dirichlet_ids) const;

  private:
    /// The steps of the constructor, each returning why the partition is
    /// not taken (empty: go on). The lattice, tree order and face ids from
    /// the coarse mesh (the same on every rank).
    std::string
    read_coarse_mesh(const ::dealii::parallel::distributed::Triangulation<3, 3> &tria);
    /// The finest level's cuts from the ranks' first active cells.
    /// Collective; the reason is this rank's.
    std::string
    finest_cuts(const ::dealii::parallel::distributed::Triangulation<3, 3> &tria, std::vector<std::uint64_t> &cuts) const;
    /// This rank's level subdomains against partition_'s ranges.
    std::string
    check_level_subdomains(const ::dealii::parallel::distributed::Triangulation<3, 3> &tria) const;
    /// A locally refined mesh: the serial hierarchy and its owners from the
    /// ranks' level subdomains. Collective; the reason is this rank's.
    std::string
    replicate_refined_mesh(const ::dealii::parallel::distributed::Triangulation<3, 3> &tria);
    /// Whether the boundary faces of @p cell (at lattice place @p x of its
    /// level) carry the ids of the box faces they lie on.
    bool
    boundary_ids_match(const ::dealii::CellAccessor<3, 3> &cell, const std::array<int, 3> &x) const;
    /// The key of lattice place @p x of level @p l (unique on the level).
    std::uint64_t
    lattice_key(unsigned int l, const std::array<int, 3> &x) const;
    /// The lattice coordinates on its level of @p cell, from its centre;
    /// false where the centre is not a lattice cell's centre (a moved
    /// vertex).
    bool
    lattice_coordinates(const ::dealii::CellAccessor<3, 3> &cell, std::array<int, 3> &x) const;

    std::shared_ptr<const BoxPartition>         partition_;
    std::shared_ptr<const PartitionedHierarchy> hierarchy_;
    /// A locally refined mesh: the serial hierarchy every rank holds, its
    /// owners, and per level the serial index of each lattice key.
    std::unique_ptr<LevelHierarchy>                          serial_;
    std::vector<std::vector<int>>                            owners_;
    std::vector<std::unordered_map<std::uint64_t, unsigned>> index_of_key_;
    std::string                                              why_not_;
    BoxDescription                      box_;
    /// The size of a coarse cell.
    std::array<double, 3> coarse_size_{};
    /// deal.II's boundary id of each box face (0..5, 6: toward a left-out
    /// coarse cell), −1 where the box has no such face.
    std::array<int, 7> face_ids_{{-1, -1, -1, -1, -1, -1, -1}};
  };
} // namespace cellwise::dealii
