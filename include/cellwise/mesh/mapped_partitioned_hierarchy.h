#pragma once
/**
 * @file
 * A partitioned hierarchy (mesh/partitioned_hierarchy.h) whose levels are
 * deformed by a map, as map_hierarchy deforms a serial one: each local
 * level, and the coarse level, gets the mapping of the given degree that
 * interpolates the map on each cell's box. With a BoxPartition underneath
 * this is the Kershaw box (mesh/kershaw_map.h) on ranks without the serial
 * hierarchy; a rank's mapped cells equal those of the mapped serial
 * hierarchy bit for bit (the same boxes, the same map). The owners and
 * families are the underlying hierarchy's.
 */

#include <cellwise/mesh/cell_mapping.h>
#include <cellwise/mesh/partitioned_hierarchy.h>

#include <memory>

namespace cellwise
{
  class MappedPartitionedHierarchy : public PartitionedHierarchy
  {
  public:
    /// @p base (kept), deformed by @p map through mappings of @p degree.
    MappedPartitionedHierarchy(std::shared_ptr<const PartitionedHierarchy> base, unsigned int degree, PointMap map);

    unsigned int
    n_levels() const override
    {
      return base_->n_levels();
    }
    std::uint64_t
    n_cells(const unsigned int l) const override
    {
      return base_->n_cells(l);
    }
    int
    n_ranks() const override
    {
      return base_->n_ranks();
    }
    /// The underlying coarse level, mapped.
    const Level &
    coarse_level() const override
    {
      return coarse_;
    }
    std::array<unsigned int, 3>
    coarse_subdivisions() const override
    {
      return base_->coarse_subdivisions();
    }
    int
    owner(const unsigned int l, const std::uint64_t cell) const override
    {
      return base_->owner(l, cell);
    }
    std::int64_t
    parent(const unsigned int l, const std::uint64_t cell) const override
    {
      return base_->parent(l, cell);
    }
    bool
    is_refined(const unsigned int l, const std::uint64_t cell) const override
    {
      return base_->is_refined(l, cell);
    }
    std::array<std::uint64_t, 8>
    children(const unsigned int l, const std::uint64_t cell) const override
    {
      return base_->children(l, cell);
    }
    std::vector<std::uint64_t>
    owned_cells(const unsigned int l, const int rank) const override
    {
      return base_->owned_cells(l, rank);
    }
    /// The underlying local level, mapped.
    LocalLevel
    local_level(unsigned int l, int rank, GhostLayer ghost_layer, const std::vector<unsigned int> &extra_ghosts = {}) const override;
    // serial(): none; the underlying serial hierarchy is not mapped

  private:
    std::shared_ptr<const PartitionedHierarchy> base_;
    unsigned int                                degree_;
    PointMap                                    map_;
    Level                                       coarse_;
  };
} // namespace cellwise
