#pragma once
/**
 * @file
 * Builders of level hierarchies for axis-aligned boxes.
 */

#include <cellwise/mesh/level.h>

#include <array>
#include <functional>
#include <vector>

namespace cellwise
{
  /// A box [lower, upper] split into subdivisions[d] coarse cells per axis.
  /// Boundary ids are those of deal.II's colorized hyper_rectangle: the face
  /// x = lower_x has id 0, x = upper_x id 1, y id 2/3, z id 4/5.
  struct BoxDescription
  {
    std::array<double, 3>       lower        = {{0., 0., 0.}};
    std::array<double, 3>       upper        = {{1., 1., 1.}};
    std::array<unsigned int, 3> subdivisions = {{1, 1, 1}};
    /// Coarse cells (i, j, k) left out of the box: a domain made of the
    /// box's remaining coarse cells, such as deal.II's hyper_L (the cube in
    /// 2 × 2 × 2 cells without (1, 1, 1); make_lshape_description). The faces
    /// toward a left-out cell are boundary with id removed_boundary_id.
    std::vector<std::array<unsigned int, 3>> removed;
    /// The coarse cells' order (their lattice positions, each kept cell
    /// once): the order of the trees of a p4est forest that deal.II chose
    /// (Triangulation::get_p4est_tree_to_coarse_cell_permutation), so that
    /// a cell's forest index is its tree's place · 8^l + its Morton code as
    /// in p4est. Empty: lexicographic (x fastest).
    std::vector<std::array<unsigned int, 3>> tree_order;
  };

  /// Boundary id of the faces toward the left-out coarse cells of a box.
  constexpr unsigned int removed_boundary_id = 6;

  /// deal.II's GridGenerator::hyper_L in 3D: [left, right]^3 without the
  /// octant [(left+right)/2, right]^3, 7 coarse cells.
  BoxDescription
  make_lshape_description(double left = -1., double right = 1.);

  /// Order of the cells of a level > 0.
  enum class CellOrdering
  {
    /// children of one parent consecutive: index 8 e + c for the e-th refined
    /// parent
    cell_major,
    /// cells grouped by child slot: index c n_parents + e, so that a launch over
    /// one slot streams (003 §5)
    child_major
  };

  /// Level 0 of a box hierarchy (lexicographic cell order, x fastest, or
  /// box.tree_order; checked: each kept coarse cell exactly once, and the
  /// box by check_box_geometry).
  LevelHierarchy
  make_coarse_box(const BoxDescription &box);

  /// Appends a level holding the children of the cells of the current finest
  /// level for which @p refine(cell) is true (all cells when @p refine is
  /// empty), and marks them refined. The new level's cells are active.
  void
  refine_finest_level(LevelHierarchy                         &hierarchy,
                      CellOrdering                            ordering = CellOrdering::child_major,
                      const std::function<bool(unsigned int)> &refine   = {});

  /// Throws cellwise::Error unless @p box spans a box of doubles that can be
  /// refined @p n_refinements times: finite corners, lower < upper and a
  /// finite width upper − lower on each axis, and cells of the finest level
  /// wide enough against the magnitude M of the coordinates that their
  /// sizes, differences of rounded corners, stay accurate (width at least
  /// 2^20 ε M ≈ 2.3e-10 M: errors below 1e-6 of the size; narrower cells
  /// come out of uneven or zero size). Whether the operator's numbers stay
  /// in range (cells of width 1e-300 or 1e308) is checked where they are
  /// computed (checked_laplace_factors).
  void
  check_box_geometry(const BoxDescription &box, int n_refinements = 0);

  /// Throws cellwise::Error, before anything is allocated, unless a box
  /// hierarchy of @p box refined @p n_refinements times fits the index types
  /// of a level (max_cells_per_level cells, max_cells_per_axis per axis) and
  /// its cells are boxes of doubles (check_box_geometry).
  void
  check_box_hierarchy_size(const BoxDescription &box, int n_refinements);

  /// Box split into coarse cells and refined @p n_refinements times uniformly.
  LevelHierarchy
  make_box_hierarchy(const BoxDescription &box,
                     int                   n_refinements,
                     CellOrdering          ordering = CellOrdering::child_major);
} // namespace cellwise
