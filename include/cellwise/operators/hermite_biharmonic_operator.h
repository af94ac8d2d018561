#pragma once
/**
 * @file
 * The cell-wise biharmonic operator of the C¹ cubic Hermite element on
 * axis-aligned box cells (001 §4.1, host backend; derivation in
 * doc/hermite.md).
 *
 * (A u)_K = A_K u_K with A_K = S_K A_ref S_K: S_K the scaling of the stored
 * physical derivative DoFs to reference ones (fe/hermite_element.h), A_ref the
 * six Hessian terms ∫ D²u : D²v as Kronecker products of the 1D matrices
 * (fe/hermite_matrices_1d.h) with the cell's metric factors, applied by sum
 * factorization: three contractions along x, six along y, three along z.
 * Input primal, output dual (unassembled); no boundary treatment here, every
 * consumer of a dual vector masks it (as for the Laplace operator).
 * In FP32 each cell's affine part is subtracted first (A_K annihilates it;
 * fe/hermite_affine_part.h says why the FP32 cycle needs that).
 */

#include <cellwise/base/dense_matrix.h>
#include <cellwise/fe/face_dofs.h>
#include <cellwise/fe/hermite_element.h>
#include <cellwise/fe/hermite_matrices_1d.h>
#include <cellwise/mesh/level.h>
#include <cellwise/operators/level_operator.h>
#include <cellwise/operators/smoother_step.h>
#include <cellwise/storage/cell_vector.h>

#include <array>

namespace cellwise
{
  /// The six metric factors of a cell of widths @p h in the order xx, yy,
  /// zz, xy, xz, yz: h_y h_z / h_x³, …, 2 h_z / (h_x h_y), … (the factor 2 of
  /// the mixed terms included). Throws cellwise::Error naming @p cell unless
  /// the widths are positive and finite and the factors normal numbers.
  std::array<double, 6>
  hermite_biharmonic_factors(const std::array<double, 3> &h, unsigned int cell);

  /// The dense A_K (64 × 64) of a cell of widths @p h in the stored physical
  /// DoFs: the six Kronecker terms with the factors above, between the
  /// derivative scalings. Checks as hermite_biharmonic_factors.
  DenseMatrix
  hermite_biharmonic_cell_matrix(const std::array<double, 3> &h, unsigned int cell);

  template <typename Number, typename Layout = CellContiguous>
  class HermiteBiharmonicOperator : public LevelOperator<CellVector<Number, MemorySpace::Host, Layout>>
  {
  public:
    using value_type = Number;
    using VectorType = CellVector<Number, MemorySpace::Host, Layout>;

    HermiteBiharmonicOperator() = default;
    explicit HermiteBiharmonicOperator(const Level &level);

    /// Set up for all cells of @p level.
    void
    reinit(const Level &level);

    unsigned int
    n_cells() const
    {
      return static_cast<unsigned int>(widths_.size());
    }
    /// The degree of the storage (a Hermite field is a CellVector of degree 3).
    unsigned int
    degree() const
    {
      return hermite::storage_degree;
    }
    /// The layers a face shares: values and normal derivatives (for DSS).
    TraceLayers
    trace_layers() const
    {
      return hermite_trace_layers();
    }

    /// dst = A src
    void
    vmult(VectorType &dst, const VectorType &src) const override;
    /// dst += A src
    void
    vmult_add(VectorType &dst, const VectorType &src) const;
    /// dst = b − A u, in one pass over the cells.
    void
    residual(VectorType &dst, const VectorType &b, const VectorType &u) const override;
    /// One point-smoother step fused with the residual of the next
    /// (operators/smoother_step.h), as LaplaceOperator::smoother_step.
    void
    smoother_step(VectorType                 &u,
                  VectorType                 &r,
                  VectorType                 *update,
                  const VectorType           &b,
                  const VectorType           &inverse_diagonal,
                  const SmootherStep<Number> &step) const;
    /// Cell-wise (unassembled) diagonals of the A_K; DSS of both trace layers
    /// gives the assembled diagonal.
    void
    compute_cell_diagonals(VectorType &diagonal) const;
    /// Dense A_K of @p cell (64 × 64), from Kronecker products of the 1D
    /// matrices and the scaling.
    DenseMatrix
    cell_matrix(unsigned int cell) const;
    /// y = A_K x for the 64 values of one cell (physical DoFs in, dual out).
    void
    apply_cell(unsigned int cell, const Number *x, Number *y) const;
    /// The reference 1D matrices.
    const hermite::Matrices1D &
    matrices() const
    {
      return matrices_;
    }

  private:
    void
    check_vector(const VectorType &v, const char *name) const;

    hermite::Matrices1D matrices_;
    /// 4 × 4 row-major M, K, B in Number.
    std::array<Number, 16> mass_{}, stiffness_{}, bending_{};
    UninitializedVector<std::array<double, 3>> widths_;
    UninitializedVector<std::array<Number, 6>> factors_;
    /// The widths in Number: the derivative scaling of apply_cell without a
    /// 64-entry table per call.
    UninitializedVector<std::array<Number, 3>> number_widths_;
  };
} // namespace cellwise
