#include <cellwise/base/parallel.h>
#include <cellwise/mesh/level.h>

#include <algorithm>
#include <atomic>

namespace cellwise
{
  unsigned int
  Level::n_refined_cells() const
  {
    return static_cast<unsigned int>(
      std::count_if(flags.begin(), flags.end(), [](const std::uint8_t f) { return f & cell_flags::refined; }));
  }

  unsigned int
  Level::n_active_cells() const
  {
    return static_cast<unsigned int>(
      std::count_if(flags.begin(), flags.end(), [](const std::uint8_t f) { return f & cell_flags::active; }));
  }

  bool
  Level::fills_box() const
  {
    const std::size_t n = n_cells();
    if (n == 0 || coordinates.size() != n || neighbors.size() != n || has_skeleton())
      return false;
    std::array<int, 3> lo = coordinates[0], hi = coordinates[0];
    for (const auto &c : coordinates)
      for (unsigned int d = 0; d < 3; ++d)
        {
          lo[d] = std::min(lo[d], c[d]);
          hi[d] = std::max(hi[d], c[d]);
        }
    std::uint64_t volume = 1;
    for (unsigned int d = 0; d < 3; ++d)
      volume *= static_cast<std::uint64_t>(hi[d] - lo[d] + 1);
    if (volume != n)
      return false;
    // With as many cells as positions, the neighbour checks below also rule
    // out two cells at one position: some position would then be empty, and
    // a cell next to it would name a neighbour at the wrong position. In
    // parallel: 10^8 dependent loads at L = 8, seconds on one thread.
    std::atomic<bool> fills{true};
    parallel_for_ranges(n, cell_grain, [&](const std::size_t begin, const std::size_t end) {
      for (std::size_t cell = begin; cell < end && fills.load(std::memory_order_relaxed); ++cell)
        for (unsigned int face = 0; face < 6; ++face)
          {
            const unsigned int d     = face / 2;
            std::array<int, 3> there = coordinates[cell];
            there[d] += face % 2 == 1 ? 1 : -1;
            const bool inside   = there[d] >= lo[d] && there[d] <= hi[d];
            const int  neighbor = neighbors[cell][face];
            if (inside != face_neighbor::is_cell(neighbor) ||
                (inside && (static_cast<std::size_t>(neighbor) >= n || coordinates[neighbor] != there)))
              {
                fills.store(false, std::memory_order_relaxed);
                return;
              }
          }
    });
    return fills.load();
  }

  unsigned int
  LevelHierarchy::n_active_cells() const
  {
    unsigned int n = 0;
    for (const Level &level : levels)
      n += level.n_active_cells();
    return n;
  }
} // namespace cellwise
