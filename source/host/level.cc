#include <cellwise/mesh/level.h>

#include <algorithm>

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

  unsigned int
  LevelHierarchy::n_active_cells() const
  {
    unsigned int n = 0;
    for (const Level &level : levels)
      n += level.n_active_cells();
    return n;
  }
} // namespace cellwise
