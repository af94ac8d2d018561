#pragma once
/**
 * @file
 * Locally refined box hierarchies: L global refinements, then k adaptive
 * steps, each refining the active cells of the finest level that a marker
 * selects (003 §3.2, §6.3). See doc/adaptive.md.
 *
 * Marker test: a cell is selected when its *closed* box intersects the *open*
 * region (cell–region intersection, not a cell-centre test), so the refined
 * zone always covers the region, including a thin shell that passes between
 * cell centres. For the octant and cells aligned with its planes the two tests
 * agree.
 *
 * No 2:1 balance is enforced. The cell-wise local-smoothing method does not
 * need it for correctness: the values on the refinement edge E_ℓ of level ℓ
 * are never smoothed on ℓ and are the exact polynomial prolongation of level
 * ℓ−1, whose own E_{ℓ−1} values come from ℓ−2, and so on, so across a face
 * with a jump of any number of levels the correction is the trace of the
 * coarse active cell (doc/adaptive.md, §Level jumps). The octant marker
 * therefore gives a jump of k levels across the octant's interior faces; the
 * test comparing with a direct solve with explicit hanging-node constraints
 * covers this case.
 */

#include <cellwise/mesh/box_builder.h>

#include <cellwise/base/function.h>

#include <functional>
#include <string>

namespace cellwise
{
  /// Selects cells by their box: true to refine.
  using CellMarker = std::function<bool(const CellBox &)>;

  /// Cells meeting the open octant {x_d < (lower_d + upper_d)/2, d = 0,1,2} of @p box.
  CellMarker
  make_octant_marker(const BoxDescription &box);

  /// Cells meeting the open ball |x − centre| < radius.
  CellMarker
  make_ball_marker(const Point &centre, double radius);

  /// Cells meeting the open shell inner < |x − centre| < outer.
  CellMarker
  make_shell_marker(const Point &centre, double inner_radius, double outer_radius);

  /// Marker by name for the command line: "octant", "ball" (centre of @p box,
  /// radius a quarter of the shortest edge), "shell" (centre of @p box, radii
  /// 0.3 and 0.35 of the shortest edge). Throws cellwise::Error naming the
  /// allowed names.
  CellMarker
  make_marker(const std::string &name, const BoxDescription &box);

  /// Box refined @p n_global times uniformly, then @p n_adaptive times the
  /// active cells of the finest level that @p marker selects
  /// (refine_finest_level). An adaptive step that selects no cell adds no
  /// level.
  LevelHierarchy
  make_adaptive_box_hierarchy(const BoxDescription &box,
                              int                   n_global,
                              int                   n_adaptive,
                              const CellMarker     &marker,
                              CellOrdering          ordering = CellOrdering::child_major);
} // namespace cellwise
