#include <cellwise/base/exceptions.h>
#include <cellwise/mesh/partitioned_hierarchy.h>

#include <algorithm>

namespace cellwise
{
  ReplicatedHierarchy::ReplicatedHierarchy(const LevelHierarchy &serial, const std::vector<std::vector<int>> &owner, const int n_ranks)
    : serial_(serial)
    , owner_(owner)
    , n_ranks_(n_ranks)
  {
    bool valid = n_ranks >= 1 && owner.size() == serial.n_levels();
    for (unsigned int l = 0; l < serial.n_levels() && valid; ++l)
      {
        valid = owner[l].size() == serial.level(l).n_cells();
        for (std::size_t c = 0; c < owner[l].size() && valid; ++c)
          valid = owner[l][c] >= 0 && owner[l][c] < n_ranks;
      }
    CELLWISE_CHECK(valid, "ReplicatedHierarchy: the partition does not give every cell of every level of the hierarchy an owner "
                          "among the "
                            << n_ranks << " ranks");
  }

  int
  ReplicatedHierarchy::owner(const unsigned int l, const std::uint64_t cell) const
  {
    return owner_.at(l).at(cell);
  }

  std::int64_t
  ReplicatedHierarchy::parent(const unsigned int l, const std::uint64_t cell) const
  {
    return serial_.level(l).parent.at(cell);
  }

  bool
  ReplicatedHierarchy::is_refined(const unsigned int l, const std::uint64_t cell) const
  {
    return serial_.level(l).is_refined(static_cast<unsigned int>(cell));
  }

  std::array<std::uint64_t, 8>
  ReplicatedHierarchy::children(const unsigned int l, const std::uint64_t cell) const
  {
    const Level &level = serial_.level(l);
    CELLWISE_CHECK(level.is_refined(static_cast<unsigned int>(cell)),
                   "ReplicatedHierarchy::children: cell " << cell << " of level " << l << " is not refined");
    std::array<std::uint64_t, 8> children;
    for (unsigned int slot = 0; slot < 8; ++slot)
      children[slot] = static_cast<std::uint64_t>(level.children[cell][slot]);
    return children;
  }

  std::vector<std::uint64_t>
  ReplicatedHierarchy::owned_cells(const unsigned int l, const int rank) const
  {
    std::vector<std::uint64_t> cells;
    const std::vector<int>    &owner = owner_.at(l);
    for (std::size_t c = 0; c < owner.size(); ++c)
      if (owner[c] == rank)
        cells.push_back(c);
    return cells;
  }

  LocalLevel
  ReplicatedHierarchy::local_level(const unsigned int l, const int rank, const GhostLayer ghost_layer,
                                   const std::vector<unsigned int> &extra_ghosts) const
  {
    return make_local_level(serial_.level(l), owner_.at(l), rank, ghost_layer, extra_ghosts);
  }

  std::vector<unsigned int>
  PartitionedHierarchy::family_ghosts(const unsigned int l, const int rank) const
  {
    return cellwise::family_ghosts(*this, l, rank);
  }

  long
  local_index_of(const LocalLevel &local, const std::uint64_t serial, const bool owned_only)
  {
    const auto         begin   = local.serial_index.begin();
    const unsigned int n_owned = local.n_owned_cells();
    const auto         owned   = std::lower_bound(begin, begin + n_owned, serial);
    if (owned != begin + n_owned && *owned == serial)
      return static_cast<long>(owned - begin);
    if (owned_only)
      return -1;
    const auto ghost = std::lower_bound(begin + n_owned, local.serial_index.end(), serial);
    return ghost != local.serial_index.end() && *ghost == serial ? static_cast<long>(ghost - begin) : -1;
  }

  std::vector<unsigned int>
  family_ghosts(const PartitionedHierarchy &hierarchy, const unsigned int l, const int rank)
  {
    CELLWISE_CHECK(l < hierarchy.n_levels(), "family_ghosts: level " << l << " of " << hierarchy.n_levels());
    std::vector<unsigned int> cells;
    const auto add_children = [&](const std::uint64_t parent) {
      if (hierarchy.is_refined(l - 1, parent))
        for (const std::uint64_t child : hierarchy.children(l - 1, parent))
          if (hierarchy.owner(l, child) != rank)
            cells.push_back(static_cast<unsigned int>(child));
    };
    if (l > 0)
      {
        // siblings of owned cells: their parent's family, whole
        for (const std::uint64_t c : hierarchy.owned_cells(l, rank))
          {
            const std::int64_t parent = hierarchy.parent(l, c);
            if (parent >= 0)
              add_children(static_cast<std::uint64_t>(parent));
          }
        // children of owned refined cells of the level below
        for (const std::uint64_t c : hierarchy.owned_cells(l - 1, rank))
          add_children(c);
      }
    if (l + 1 < hierarchy.n_levels())
      // parents of owned cells of the level above
      for (const std::uint64_t c : hierarchy.owned_cells(l + 1, rank))
        {
          const std::int64_t parent = hierarchy.parent(l + 1, c);
          if (parent >= 0 && hierarchy.owner(l, static_cast<std::uint64_t>(parent)) != rank)
            cells.push_back(static_cast<unsigned int>(parent));
        }
    std::sort(cells.begin(), cells.end());
    cells.erase(std::unique(cells.begin(), cells.end()), cells.end());
    return cells;
  }

  std::vector<unsigned int>
  family_ghosts(const LevelHierarchy &serial, const std::vector<std::vector<int>> &owner, const unsigned int l, const int rank)
  {
    int n_ranks = rank + 1;
    for (const std::vector<int> &level : owner)
      for (const int r : level)
        n_ranks = std::max(n_ranks, r + 1);
    return family_ghosts(ReplicatedHierarchy(serial, owner, n_ranks), l, rank);
  }
} // namespace cellwise
