#pragma once
/**
 * @file
 * The map of a level's cells from the reference cube [0,1]^3 where they are
 * not the axis-aligned boxes of Level::boxes (curved or deformed cells): per
 * cell the positions X_i of the (k+1)^3 Gauss–Lobatto nodes of degree k,
 * lexicographic with x fastest, and
 *
 *   x(ξ) = Σ_i X_i ψ_i(ξ)
 *
 * with the tensor-product Lagrange basis ψ of degree k on those nodes: the
 * isoparametric description of deal.II's MappingQ(k) by its support points.
 * A level without a mapping (degree 0) has the cells of its boxes; a level
 * with one keeps in Level::boxes the cells' reference boxes (the position of
 * the cell in its coarse cell's lattice), which only lattice bookkeeping
 * (coordinates, patch colours) may use. Code that takes the boxes as the
 * geometry refuses mapped levels (check_box_cells).
 */

#include <cellwise/base/function.h>
#include <cellwise/base/uninitialized_vector.h>

#include <array>
#include <cstddef>
#include <functional>
#include <optional>
#include <vector>

namespace cellwise
{
  struct Level;
  class LevelHierarchy;

  struct CellMapping
  {
    /// Polynomial degree k of the mapping; 0: none (the cells are their boxes).
    unsigned int degree = 0;
    /// (k+1)^3 nodes per cell, cell by cell.
    UninitializedVector<Point> nodes;

    bool
    empty() const
    {
      return degree == 0;
    }
    unsigned int
    nodes_per_cell() const
    {
      return (degree + 1) * (degree + 1) * (degree + 1);
    }
    /// The nodes of @p cell.
    const Point *
    cell_nodes(const unsigned int cell) const
    {
      return nodes.data() + static_cast<std::size_t>(cell) * nodes_per_cell();
    }
  };

  /// A map of space, x = map(ξ) (a deformation of a box, or a coarse cell's
  /// curved shape); called concurrently.
  using PointMap = std::function<Point(const Point &)>;

  /// Gives every level of @p hierarchy the mapping of degree @p degree that
  /// interpolates @p map at the Gauss–Lobatto nodes of each cell's box: the
  /// cells of a box hierarchy deformed by @p map, each level interpolating
  /// the same map (so the geometry of a coarse cell and of its children
  /// agree only up to the interpolation error, as in deal.II with a manifold).
  void
  map_hierarchy(LevelHierarchy &hierarchy, unsigned int degree, const PointMap &map);

  /// The same for one level (a serial level, or a rank's part of one):
  /// what map_hierarchy does on each of its levels.
  void
  map_level(Level &level, unsigned int degree, const PointMap &map);

  /// Positions x(ξ_q) and Jacobians J(ξ_q) = ∂x/∂ξ (row-major, row a:
  /// ∂x_a/∂ξ) of mapped @p cell at the tensor points ξ_q of the 1D points
  /// @p points_1d on [0,1], point index q_x + n (q_y + n q_z).
  void
  evaluate_mapping(const CellMapping                  &mapping,
                   unsigned int                        cell,
                   const std::vector<double>          &points_1d,
                   std::vector<Point>                 &points,
                   std::vector<std::array<double, 9>> &jacobians);

  /**
   * evaluate_mapping for many cells of one mapping at the same points: the
   * 1D tables of the mapping basis are made once, the work arrays are kept
   * between cells, and the positions and the three derivatives share their
   * contractions along x and y (9 one-dimensional passes per component
   * instead of 12). Not thread-safe: one evaluator per thread or range.
   */
  class MappingEvaluator
  {
  public:
    MappingEvaluator(const CellMapping &mapping, const std::vector<double> &points_1d);
    /// @p mapping is kept by reference: a temporary would dangle.
    MappingEvaluator(const CellMapping &&mapping, const std::vector<double> &points_1d) = delete;

    /// What evaluate_mapping(mapping, cell, points_1d, points, jacobians)
    /// gives, the same sums in the same order.
    void
    evaluate(unsigned int cell, std::vector<Point> &points, std::vector<std::array<double, 9>> &jacobians);

  private:
    const CellMapping  &mapping_;
    unsigned int        n_q_ = 0, n_ = 0;
    /// values and derivatives of the basis at the points, n_q × n row-major
    std::vector<double> values_, derivatives_;
    std::vector<double> component_, x_[2], xy_[3], out_;
  };

  /// det J of a row-major 3 × 3 Jacobian.
  double
  determinant(const std::array<double, 9> &J);

  /// Refuses a level with a mapping, for code that takes Level::boxes as the
  /// geometry: "@p who takes axis-aligned box cells only; ...".
  void
  check_box_cells(const Level &level, const char *who);

  /// The size of the box cells of @p level when all of them have the same
  /// size, to a relative 1e-12 per axis (the rounding of cell corners: the
  /// tolerance of the host Hermite patch smoother's block keys); nothing
  /// for a level of several sizes, a mapped level or one without cells.
  std::optional<std::array<double, 3>>
  common_box_size(const Level &level);

  /// Box cells that are scaled copies of one box: cell c has the size
  /// scale[c] · size, one scale for the three axes (the active cells of a
  /// locally refined box whose coarse cells have one size: scales 2^-k).
  struct BoxShape
  {
    /// The size of cell 0, whose scale is 1.
    std::array<double, 3> size{};
    std::vector<double>   scale;
  };

  /// The shape of the box cells of @p level when every cell is a scaled copy
  /// of cell 0, to a relative 1e-12 per axis (as common_box_size); nothing
  /// otherwise, for a mapped level or one without cells.
  std::optional<BoxShape>
  common_box_shape(const Level &level);
} // namespace cellwise
