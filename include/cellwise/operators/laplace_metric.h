#pragma once
/**
 * @file
 * The geometry and the coefficient of the cell-wise Laplacian −∇·(c∇u), per
 * cell in the most compact form the cell allows (003 §6: on curved meshes the
 * geometry data, not the DoF data, sets the operator's traffic), chosen per
 * cell by make_laplace_metric:
 *
 *   form                  | stored per cell                 | the cell
 *   ----------------------+---------------------------------+------------------------------------
 *   cartesian             | 3 factors c (h_y h_z / h_x, ...) | a box, c constant on it (or averaged)
 *   cartesian_coefficient | 3 factors, n_q^3 values w_q c_q  | a box, c at the quadrature points
 *   affine                | 6: c det J J^-1 J^-T            | a parallelepiped (J constant), c constant
 *   general               | 6 n_q^3: G(q) = w_q c_q det J J^-1 J^-T | anything else
 *
 * with the n_q = p + 1 Gauss points per axis of deal.II's QGauss(p+1) and
 * their weights w_q (products of the 1D weights on [0,1]); symmetric metrics
 * as (xx, yy, zz, xy, xz, yz). A box is a level without a mapping, or a
 * mapped cell whose Jacobian is constant and diagonal. The kernels:
 * kernels/laplace_cell.h (cartesian) and kernels/general_laplace_cell.h.
 */

#include <cellwise/base/function.h>
#include <cellwise/base/host_device.h>
#include <cellwise/base/uninitialized_vector.h>
#include <cellwise/kernels/general_laplace_cell.h>
#include <cellwise/mesh/level.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace cellwise
{
  /**
   * The metric factors (h_y h_z / h_x, h_x h_z / h_y, h_x h_y / h_z) of cell
   * @p cell, computed in double and rounded once to Number, as both backends
   * store them. Throws cellwise::Error naming the cell unless its sizes are
   * positive and finite and its volume and the rounded factors are normal
   * finite numbers: a box of width 1e-300 or 1e308, or cells too small or
   * large for the FP32 levels of mixed precision, would otherwise surface as
   * a NaN in the right-hand side, an infinite Cholesky pivot or a matrix that
   * is "not SPD".
   */
  template <typename Number>
  std::array<Number, 3>
  checked_laplace_factors(const CellBox &box, unsigned int cell);

  enum class MetricForm : std::uint8_t
  {
    cartesian,
    cartesian_coefficient,
    affine,
    general
  };

  /// Where a variable coefficient enters the operator.
  enum class CoefficientEvaluation
  {
    /// c(x_q) at the operator's quadrature points, as deal.II's MatrixFree
    /// operators (step-37): the operator of the discretization itself
    quadrature_points,
    /// the cell average of c by the same quadrature, one number per cell (a
    /// cheaper operator of a different discretization; what the CUDA backend
    /// takes)
    cell_average
  };

  CoefficientEvaluation
  parse_coefficient_evaluation(const std::string &name);
  std::string
  to_string(CoefficientEvaluation evaluation);

  /**
   * The six entries of G (xx, yy, zz, xy, xz, yz) at point @p q = q_x + n_q
   * (q_y + n_q q_z) of a cell stored in @p form, from its three @p factors,
   * its @p values (where its data start; unused for cartesian) and the
   * point's tensor Gauss weight @p w_q: diag(w_q f), diag(f v_q), w_q v_e or
   * v_{6q+e}. The metric both backends' general kernels apply
   * (LaplaceOperator, cuda::GeneralLaplaceOperator).
   */
  template <typename Number>
  CELLWISE_HOST_DEVICE inline void
  metric_at_point(const MetricForm form, const Number *factors, const Number *values, const Number w_q, const int q, Number *G)
  {
    switch (form)
      {
        case MetricForm::cartesian:
          G[0] = factors[0] * w_q;
          G[1] = factors[1] * w_q;
          G[2] = factors[2] * w_q;
          G[3] = G[4] = G[5] = Number(0);
          return;
        case MetricForm::cartesian_coefficient:
          G[0] = factors[0] * values[q];
          G[1] = factors[1] * values[q];
          G[2] = factors[2] * values[q];
          G[3] = G[4] = G[5] = Number(0);
          return;
        case MetricForm::affine:
          for (int e = 0; e < kernels::metric_entries; ++e)
            G[e] = w_q * values[e];
          return;
        default:
          for (int e = 0; e < kernels::metric_entries; ++e)
            G[e] = values[kernels::metric_entries * q + e];
      }
  }

  template <typename Number>
  struct LaplaceMetric
  {
    unsigned int degree = 0;
    /// Gauss points per axis (p + 1).
    unsigned int n_q = 0;
    std::vector<MetricForm> form;
    /// Where a cell's values start in data (cartesian: nothing stored there).
    std::vector<std::size_t>    offset;
    UninitializedVector<Number> data;
    /**
     * Per cell: the metric factors of the cartesian forms (the coefficient's
     * average scaled in for cartesian, not for cartesian_coefficient), and for
     * the others the diagonal sums Σ_q G_dd(q): the factors of the box that
     * best stands in for the cell (the Cartesian surrogate of the
     * vertex-patch smoother's local solve).
     */
    std::vector<std::array<Number, 3>> factors;
    /// Per cell: the average of the coefficient (1 without one).
    std::vector<double> coefficient_averages;

    unsigned int
    n_cells() const
    {
      return static_cast<unsigned int>(form.size());
    }
    /// Factors of the surrogate box, the coefficient average scaled in (the
    /// patch smoother's fast diagonalization; exact for a box with a
    /// constant coefficient).
    std::array<double, 3>
    surrogate_factors(unsigned int cell) const;
    /// Bytes stored for the geometry and the coefficient (form, factors, data).
    std::size_t
    bytes() const;
    /// Cells per form, in the order of MetricForm.
    std::array<std::size_t, 4>
    count() const;
    /// One line: cells per form and the bytes per cell-wise value.
    std::string
    describe() const;
  };

  /// The basis of a mapping of degree k (CellMapping: Lagrange on the
  /// Gauss–Lobatto nodes) at the @p n_q Gauss points per axis of
  /// QGauss(n_q): values ψ_i(ξ_q) and derivatives ψ_i'(ξ_q), n_q × (k+1)
  /// row-major each; the tables of kernels::metric_from_nodes
  /// (kernels/mapped_laplace_cell.h).
  struct MappingTables
  {
    unsigned int        mapping_degree = 0;
    unsigned int        n_q            = 0;
    std::vector<double> values, derivatives;
  };

  MappingTables
  make_mapping_tables(unsigned int mapping_degree, unsigned int n_q);

  /// Whether make_laplace_metric writes the values of general cells.
  enum class GeneralCellValues
  {
    /// the 6 n_q³ values of G at the points: what LaplaceOperator applies
    stored,
    /// none (form, factors and coefficient average only): for a caller that
    /// recomputes their metric from the mapping nodes
    /// (cuda::GeneralLaplaceOperator), which saves the set-up most of its
    /// time and memory on curved meshes (3 KB per cell at p = 3)
    omitted
  };

  /**
   * The metric of every cell of @p level for FE_Q(@p degree): boxes from
   * Level::boxes, mapped cells from Level::mapping; the coefficient (if any)
   * at the quadrature points or averaged per cell; the values of general
   * cells as @p general_values says (omitted: their data are empty). Throws
   * cellwise::Error naming the cell and point where det J is not positive
   * (an inverted or degenerate cell) or the coefficient is not positive and
   * finite, or its cell averages span more than max_coefficient_contrast
   * (check_coefficient_contrast). Runs in parallel over the cells; @p coefficient is called
   * concurrently.
   */
  /// The largest ratio of two cells' coefficient averages on a level that
  /// make_laplace_metric accepts. With a larger one the operator's rows of
  /// the small values are below the rounding of the large ones' in FP64:
  /// the solve "converges" with an answer there that is rounding error
  /// (a problem file with one cell's coefficient at 1e-300 was solved with
  /// exit 0 and errors of 1e297).
  constexpr double max_coefficient_contrast = 1e12;

  /// Throws cellwise::Error naming the two cells if the largest of
  /// @p averages exceeds max_coefficient_contrast times the smallest.
  void
  check_coefficient_contrast(const std::vector<double> &averages);

  template <typename Number>
  LaplaceMetric<Number>
  make_laplace_metric(const Level           &level,
                      unsigned int           degree,
                      const ScalarFunction  &coefficient    = {},
                      CoefficientEvaluation  evaluation     = CoefficientEvaluation::quadrature_points,
                      GeneralCellValues      general_values = GeneralCellValues::stored);

  /// How many values make_laplace_metric writes for the forms of @p metric
  /// with @p general_values: none per cartesian cell, n_q³ per
  /// cartesian_coefficient cell, 6 per affine cell, and 6 n_q³ (stored) or
  /// none (omitted) per general cell. A caller handed a metric checks by it
  /// that the metric has the values it reads.
  template <typename Number>
  std::size_t
  n_metric_values(const LaplaceMetric<Number> &metric, GeneralCellValues general_values);

  /// The check of an operator handed a metric: throws cellwise::Error,
  /// naming @p who, unless @p metric is one of a level of @p n_cells cells for
  /// FE_Q(@p degree), with per-cell arrays of that size and the values that
  /// @p general_values says (n_metric_values).
  template <typename Number>
  void
  check_given_metric(const LaplaceMetric<Number> &metric,
                     unsigned int                 n_cells,
                     unsigned int                 degree,
                     GeneralCellValues            general_values,
                     const char                  *who);

  /**
   * The FP32 metric of the FP64 @p metric made without a coefficient: every
   * factor and value rounded once to float. That is, bit for bit,
   * make_laplace_metric<float> of the same level, degree and general values,
   * which rounds the same double numbers once; a mixed-precision solve takes
   * its FP32 finest level from the FP64 one instead of computing the metric
   * twice (1.7 s of the ball's set-up at L = 6, Q3). With a coefficient the
   * FP32 factors of box cells are rounded twice (the factors, then their
   * product with the average), so such a caller makes the FP32 metric itself.
   * Throws cellwise::Error naming the cell where a box cell's factor is not
   * a normal FP32 number, as make_laplace_metric<float> does.
   */
  LaplaceMetric<float>
  rounded_to_float(const LaplaceMetric<double> &metric);

} // namespace cellwise
