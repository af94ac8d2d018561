#include <cellwise/base/exceptions.h>
#include <cellwise/mesh/mapped_partitioned_hierarchy.h>

#include <utility>

namespace cellwise
{
  MappedPartitionedHierarchy::MappedPartitionedHierarchy(std::shared_ptr<const PartitionedHierarchy> base,
                                                         const unsigned int                          degree,
                                                         PointMap                                    map)
    : base_(std::move(base))
    , degree_(degree)
    , map_(std::move(map))
  {
    CELLWISE_CHECK(base_ != nullptr, "MappedPartitionedHierarchy: no hierarchy to map");
    coarse_ = base_->coarse_level();
    map_level(coarse_, degree_, map_); // checks the degree and the map
  }

  LocalLevel
  MappedPartitionedHierarchy::local_level(const unsigned int l, const int rank, const GhostLayer ghost_layer,
                                          const std::vector<unsigned int> &extra_ghosts) const
  {
    LocalLevel local = base_->local_level(l, rank, ghost_layer, extra_ghosts);
    map_level(local.level, degree_, map_);
    return local;
  }
} // namespace cellwise
