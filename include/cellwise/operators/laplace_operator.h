#pragma once
/**
 * @file
 * The cell-wise Laplace operator −∇·(c∇u) (host backend).
 *
 * (A u)_K = A_K u_K for every cell of a level: input primal, output dual
 * (unassembled). The cell's geometry and the coefficient c (none: 1) are held
 * in the most compact form the cell allows (operators/laplace_metric.h): box
 * cells with a constant coefficient by three metric factors and the Kronecker
 * kernel of kernels/laplace_cell.h, anything else (a coefficient at the
 * quadrature points, affine or curved cells) by the general kernel of
 * kernels/general_laplace_cell.h. No Dirichlet treatment happens here: the
 * entries of A u on constrained DoFs are whatever the cell integrals give, and
 * every consumer of a dual vector (smoother diagonal, coarse solver, outer
 * residual) masks them.
 */

#include <cellwise/base/dense_matrix.h>
#include <cellwise/base/function.h>
#include <cellwise/fe/face_dofs.h>
#include <cellwise/fe/matrices_1d.h>
#include <cellwise/mesh/level.h>
#include <cellwise/operators/laplace_metric.h>
#include <cellwise/operators/level_operator.h>
#include <cellwise/operators/smoother_step.h>
#include <cellwise/storage/cell_vector.h>

#include <array>
#include <vector>

namespace cellwise
{
  /// The coefficient averaged over every cell of @p level by the Gauss rule
  /// of p + 1 points per axis (what set_coefficient scales the cell's
  /// factors by with CoefficientEvaluation::cell_average, on either
  /// backend); throws cellwise::Error naming the cell and point where the
  /// coefficient is not positive and finite.
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
    /// With the coefficient @p coefficient (empty: none) evaluated as
    /// @p evaluation from the start: what set_coefficient after the
    /// constructor above gives, the metric made once instead of twice (on a
    /// curved level, evaluating the mapping at every point is most of an
    /// operator's set-up).
    LaplaceOperator(const Level &level, unsigned int degree, const ScalarFunction &coefficient,
                    CoefficientEvaluation evaluation = CoefficientEvaluation::quadrature_points);
    /// With the metric @p metric of @p level made elsewhere (a mixed
    /// solve's FP32 operator takes the FP64 one's metric rounded,
    /// rounded_to_float, instead of evaluating the mapping again); throws
    /// cellwise::Error if it is not a metric of @p level for @p degree with
    /// the stored values of its general cells.
    LaplaceOperator(const Level &level, unsigned int degree, LaplaceMetric<Number> metric);

    /// Set up for all cells of @p level with FE_Q(@p degree), and the
    /// coefficient as set_coefficient takes it (empty: none).
    void
    reinit(const Level           &level,
           unsigned int           degree,
           const ScalarFunction  &coefficient = {},
           CoefficientEvaluation  evaluation  = CoefficientEvaluation::quadrature_points);

    /// The coefficient c of −∇·(c∇u), at the quadrature points (the operator
    /// of deal.II's MatrixFree with the same coefficient, step-37) or
    /// averaged per cell (@p evaluation); it must be positive and finite. A
    /// multigrid preconditioner for step-37's variable coefficient uses it on
    /// every level.
    void
    set_coefficient(const Level           &level,
                    const ScalarFunction  &coefficient,
                    CoefficientEvaluation  evaluation = CoefficientEvaluation::quadrature_points);

    /// The per-cell average of the coefficient (1 without one).
    const std::vector<double> &
    cell_coefficients() const
    {
      return metric_.coefficient_averages;
    }
    /// The geometry and coefficient per cell.
    const LaplaceMetric<Number> &
    metric() const
    {
      return metric_;
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
      return metric_.n_cells();
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
    /// Dense A_K of @p cell: Kronecker products of the 1D matrices for a
    /// Cartesian cell, the quadrature of ∇φ_i · G ∇φ_j otherwise.
    DenseMatrix
    cell_matrix(unsigned int cell) const;
    /// out = A_K u of one cell (the cell-contiguous (p+1)^3 values), for a
    /// smoother that forms cell residuals itself.
    void
    cell_vmult(unsigned int cell, const Number *u, Number *out) const;
    /// Reference 1D matrices in double.
    const Matrices1D &
    matrices() const
    {
      return matrices_;
    }
  private:
    /// The 1D matrices and the general kernel's tables of FE_Q(@p degree).
    void
    make_tables(unsigned int degree);
    template <int p>
    void
    apply(VectorType &dst, const VectorType *b, const VectorType &u, int mode) const;
    template <int p>
    void
    apply_cell(unsigned int cell, const Number *u, Number *out, Number *scratch) const;
    /// The six metric entries of @p cell at point @p q, as the kernels use them.
    void
    metric_at(unsigned int cell, unsigned int q, Number *G) const;

    unsigned int          degree_ = 0;
    Matrices1D            matrices_;
    std::vector<Number>   mass_;
    std::vector<Number>   stiffness_;
    /// φ_i and φ_i' at the n_q Gauss points (n_q × n, row-major) and the
    /// tensor Gauss weights, for the general kernel.
    std::vector<Number>   values_, derivatives_, weights_;
    LaplaceMetric<Number> metric_;
  };
} // namespace cellwise
