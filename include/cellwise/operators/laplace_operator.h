#pragma once
/**
 * @file
 * The cell-wise Laplace operator on axis-aligned box cells (host backend).
 *
 * (A u)_K = A_K u_K for every cell of a level: input primal, output dual
 * (unassembled). An optional coefficient, constant per cell (its cell average),
 * scales A_K: −∇·(c ∇u) with c_K = |K|^{-1} ∫_K c. No Dirichlet treatment happens here: the entries of A u on
 * constrained DoFs are whatever the cell integrals give, and every consumer of
 * a dual vector (smoother diagonal, coarse solver, outer residual) masks them.
 */

#include <cellwise/base/dense_matrix.h>
#include <cellwise/base/function.h>
#include <cellwise/fe/face_dofs.h>
#include <cellwise/fe/matrices_1d.h>
#include <cellwise/mesh/level.h>
#include <cellwise/operators/level_operator.h>
#include <cellwise/operators/smoother_step.h>
#include <cellwise/storage/cell_vector.h>

#include <array>
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

  /// The coefficient averaged over every cell of @p level by the Gauss rule
  /// of p + 1 points per axis (what set_coefficient scales the cell's
  /// factors by, on either backend); throws cellwise::Error naming the cell
  /// where an average is not positive and finite.
  std::vector<double>
  cell_coefficient_averages(const Level &level, unsigned int degree, const ScalarFunction &coefficient);

  template <typename Number, typename Layout = CellContiguous>
  class LaplaceOperator : public LevelOperator<CellVector<Number, MemorySpace::Host, Layout>>
  {
  public:
    using value_type  = Number;
    using VectorType  = CellVector<Number, MemorySpace::Host, Layout>;

    LaplaceOperator() = default;
    LaplaceOperator(const Level &level, unsigned int degree);

    /// Set up for all cells of @p level with FE_Q(@p degree).
    void
    reinit(const Level &level, unsigned int degree);

    /// Scale each cell's operator by the cell average of @p coefficient
    /// (Gauss quadrature with p + 1 points per axis); the coefficient must be
    /// positive and finite. A multigrid preconditioner for step-37's variable
    /// coefficient uses it on every level.
    void
    set_coefficient(const Level &level, const ScalarFunction &coefficient);

    /// The per-cell coefficient (1 unless set_coefficient was called).
    const std::vector<double> &
    cell_coefficients() const
    {
      return coefficients_;
    }

    unsigned int
    degree() const
    {
      return degree_;
    }
    /// The layer a face shares (FE_Q(p): one; for DSS).
    TraceLayers
    trace_layers() const
    {
      return lagrange_trace_layers(degree_);
    }
    unsigned int
    n_cells() const
    {
      return static_cast<unsigned int>(factors_.size());
    }

    /// dst = A src
    void
    vmult(VectorType &dst, const VectorType &src) const override;
    /// dst += A src
    void
    vmult_add(VectorType &dst, const VectorType &src) const;
    /// dst = b - A u, in one pass over the cells.
    void
    residual(VectorType &dst, const VectorType &b, const VectorType &u) const override;
    /// One point-smoother step fused with the residual of the next
    /// (operators/smoother_step.h): the reference of the device's fused
    /// kernel, and the step loop of the point smoothers of both backends
    /// (multigrid/point_smoother_steps.h). @p update may be null unless
    /// α ≠ 0 or store_update; u, r, b and d must be distinct vectors.
    void
    smoother_step(VectorType                 &u,
                  VectorType                 &r,
                  VectorType                 *update,
                  const VectorType           &b,
                  const VectorType           &inverse_diagonal,
                  const SmootherStep<Number> &step) const;
    /// Cell-wise (unassembled) diagonals of the A_K; summing the copies (DSS)
    /// gives the assembled diagonal.
    void
    compute_cell_diagonals(VectorType &diagonal) const;
    /// Dense A_K of @p cell, from Kronecker products of the 1D matrices.
    DenseMatrix
    cell_matrix(unsigned int cell) const;
    /// Reference 1D matrices in double.
    const Matrices1D &
    matrices() const
    {
      return matrices_;
    }
    /// Metric factors (c_x, c_y, c_z) of @p cell.
    const std::array<Number, 3> &
    factors(const unsigned int cell) const
    {
      return factors_[cell];
    }

  private:
    template <int p>
    void
    apply(VectorType &dst, const VectorType *b, const VectorType &u, int mode) const;

    unsigned int                       degree_ = 0;
    Matrices1D                         matrices_;
    std::vector<Number>                mass_;
    std::vector<Number>                stiffness_;
    std::vector<std::array<Number, 3>> factors_;
    std::vector<double>                coefficients_;
  };
} // namespace cellwise
