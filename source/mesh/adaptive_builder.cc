#include <cellwise/base/exceptions.h>
#include <cellwise/mesh/adaptive_builder.h>

#include <algorithm>
#include <cmath>

namespace cellwise
{
  namespace
  {
    /// Squared distances from @p c to the nearest and farthest point of the box.
    void
    distance_range(const CellBox &cell, const Point &c, double &min_sq, double &max_sq)
    {
      min_sq = 0;
      max_sq = 0;
      for (unsigned int d = 0; d < 3; ++d)
        {
          const double lo   = cell.lower[d];
          const double hi   = cell.lower[d] + cell.size[d];
          const double near = std::clamp(c[d], lo, hi) - c[d];
          const double far  = std::max(std::abs(lo - c[d]), std::abs(hi - c[d]));
          min_sq += near * near;
          max_sq += far * far;
        }
    }
  } // namespace

  CellMarker
  make_octant_marker(const BoxDescription &box)
  {
    Point mid;
    for (unsigned int d = 0; d < 3; ++d)
      mid[d] = 0.5 * (box.lower[d] + box.upper[d]);
    return [mid](const CellBox &cell) {
      for (unsigned int d = 0; d < 3; ++d)
        if (!(cell.lower[d] < mid[d]))
          return false;
      return true;
    };
  }

  CellMarker
  make_ball_marker(const Point &centre, const double radius)
  {
    CELLWISE_CHECK(radius > 0, "ball marker: radius " << radius << " is not positive");
    return [centre, radius](const CellBox &cell) {
      double min_sq, max_sq;
      distance_range(cell, centre, min_sq, max_sq);
      return min_sq < radius * radius;
    };
  }

  CellMarker
  make_shell_marker(const Point &centre, const double inner_radius, const double outer_radius)
  {
    CELLWISE_CHECK(inner_radius >= 0 && outer_radius > inner_radius,
                   "shell marker: radii " << inner_radius << ", " << outer_radius << " need 0 <= inner < outer");
    return [centre, inner_radius, outer_radius](const CellBox &cell) {
      double min_sq, max_sq;
      distance_range(cell, centre, min_sq, max_sq);
      return min_sq < outer_radius * outer_radius && max_sq > inner_radius * inner_radius;
    };
  }

  CellMarker
  make_marker(const std::string &name, const BoxDescription &box)
  {
    Point  centre;
    double shortest = 1e300;
    for (unsigned int d = 0; d < 3; ++d)
      {
        centre[d] = 0.5 * (box.lower[d] + box.upper[d]);
        shortest  = std::min(shortest, box.upper[d] - box.lower[d]);
      }
    if (name == "octant")
      return make_octant_marker(box);
    if (name == "ball")
      return make_ball_marker(centre, 0.25 * shortest);
    if (name == "shell")
      return make_shell_marker(centre, 0.3 * shortest, 0.35 * shortest);
    CELLWISE_CHECK(false, "unknown refinement marker '" << name << "': use octant, ball or shell");
    return {};
  }

  LevelHierarchy
  make_adaptive_box_hierarchy(const BoxDescription &box,
                              const int             n_global,
                              const int             n_adaptive,
                              const CellMarker     &marker,
                              const CellOrdering    ordering)
  {
    CELLWISE_CHECK(n_adaptive >= 0 && n_adaptive <= 20, "number of adaptive steps " << n_adaptive << " is not allowed: use 0..20");
    CELLWISE_CHECK(marker || n_adaptive == 0, "adaptive refinement needs a marker");
    LevelHierarchy hierarchy = make_box_hierarchy(box, n_global, ordering);
    for (int step = 0; step < n_adaptive; ++step)
      {
        const Level &finest = hierarchy.levels.back();
        bool         any    = false;
        for (unsigned int c = 0; c < finest.n_owned_cells && !any; ++c)
          any = finest.is_active(c) && marker(finest.boxes[c]);
        if (!any)
          break;
        refine_finest_level(hierarchy, ordering, [&hierarchy, &marker](const unsigned int c) {
          return marker(hierarchy.levels.back().boxes[c]);
        });
      }
    return hierarchy;
  }
} // namespace cellwise
