#pragma once
/**
 * @file
 * The general cell-wise Laplacian −∇·(c∇u) on any cells (curved, affine,
 * boxes; the coefficient at the quadrature points or averaged), CUDA
 * backend: the device twin of cellwise::LaplaceOperator
 * (operators/laplace_operator.h, its oracle in the tests) on mapped levels
 * and with a coefficient at the points, which cuda::LaplaceOperator (boxes,
 * a coefficient per cell) refuses.
 *
 * The geometry and the coefficient are the host's LaplaceMetric
 * (operators/laplace_metric.h, make_laplace_metric), uploaded as they are:
 * per cell its form (cartesian, cartesian_coefficient, affine, general), its
 * three factors and, for the last three forms, its values. One kernel
 * applies every form, as kernels/general_laplace_cell.h does on the host:
 * the reference gradients interpolated to the (p+1)³ Gauss points by 8
 * one-dimensional contractions, the symmetric metric G(q) of the cell's
 * form applied, and 8 contractions back. A thread holds one 1D line of a
 * cell in registers per stage; shared memory turns the lines between the
 * directions (source/operators/cuda_general_laplace_operator.cu).
 * Cartesian cells go through the same quadrature (exact for them: the same
 * operator as the host's Kronecker kernel up to rounding).
 *
 * Input primal, output dual; no Dirichlet treatment here. Degrees 1..8.
 * Compiles with a plain C++ compiler.
 */

#include <cellwise/base/function.h>
#include <cellwise/fe/face_dofs.h>
#include <cellwise/mesh/level.h>
#include <cellwise/operators/laplace_metric.h>
#include <cellwise/operators/level_operator.h>
#include <cellwise/operators/smoother_step.h>
#include <cellwise/storage/cuda_cell_vector.h>

#include <array>
#include <cstddef>

namespace cellwise
{
  namespace cuda
  {
    template <typename Number, typename Layout = CellContiguous>
    class GeneralLaplaceOperator : public LevelOperator<CellVector<Number, MemorySpace::CUDA, Layout>>
    {
    public:
      using value_type = Number;
      using VectorType = CellVector<Number, MemorySpace::CUDA, Layout>;

      GeneralLaplaceOperator() = default;
      /// The metric of every cell of @p level for FE_Q(@p degree) with the
      /// coefficient @p coefficient (none: c = 1) evaluated as @p evaluation
      /// (make_laplace_metric, which refuses inverted cells and coefficients
      /// that are not positive and finite), computed on the host and
      /// uploaded.
      GeneralLaplaceOperator(const Level           &level,
                             unsigned int           degree,
                             const ScalarFunction  &coefficient = {},
                             CoefficientEvaluation  evaluation  = CoefficientEvaluation::quadrature_points);
      GeneralLaplaceOperator(const GeneralLaplaceOperator &) = delete;
      GeneralLaplaceOperator &
      operator=(const GeneralLaplaceOperator &) = delete;
      ~GeneralLaplaceOperator() override;

      unsigned int
      degree() const
      {
        return degree_;
      }
      unsigned int
      n_cells() const
      {
        return n_cells_;
      }
      /// The layer a face shares (FE_Q(p): one; for DSS).
      TraceLayers
      trace_layers() const
      {
        return lagrange_trace_layers(degree_);
      }
      /// Cells per form, in the order of MetricForm.
      const std::array<std::size_t, 4> &
      form_counts() const
      {
        return form_counts_;
      }
      /// Bytes of geometry and coefficient on the device (forms, offsets,
      /// factors, values), which every application reads.
      std::size_t
      metric_bytes() const
      {
        return metric_bytes_;
      }

      /// dst = A src
      void
      vmult(VectorType &dst, const VectorType &src) const override;
      /// dst += A src
      void
      vmult_add(VectorType &dst, const VectorType &src) const;
      /// dst = b − A u, in one pass (b may be dst).
      void
      residual(VectorType &dst, const VectorType &b, const VectorType &u) const override;
      /// One point-smoother step (operators/smoother_step.h): the update
      /// (cuda::apply_smoother_update), then the residual with the new u —
      /// two passes, as the Hermite operator's (the box operator fuses them
      /// into its kernel).
      void
      smoother_step(VectorType                 &u,
                    VectorType                 &r,
                    VectorType                 *update,
                    const VectorType           &b,
                    const VectorType           &inverse_diagonal,
                    const SmootherStep<Number> &step) const;
      /// Cell-wise (unassembled) diagonals of the A_K (the host's six
      /// transposed contractions, kernels::general_laplace_cell_diagonal; a
      /// thread per cell, for the set-up of a smoother).
      void
      compute_cell_diagonals(VectorType &diagonal) const;

    private:
      /// dst = A u (mode 0), dst += A u (1), dst = b − A u (2).
      void
      apply(VectorType &dst, const VectorType *b, const VectorType &u, int mode) const;
      void
      release() noexcept;

      unsigned int               degree_  = 0;
      unsigned int               n_cells_ = 0;
      std::array<std::size_t, 4> form_counts_{};
      std::size_t                metric_bytes_ = 0;
      // device arrays
      unsigned char *forms_   = nullptr; ///< MetricForm per cell
      std::size_t   *offsets_ = nullptr; ///< where a cell's values start in values_
      Number        *factors_ = nullptr; ///< 3 per cell
      Number        *values_  = nullptr; ///< the metric data of the non-Cartesian forms
      /// The 1D tables at the Gauss points, S(q, i) and D(q, i) (n × n
      /// row-major each), then the (p+1)³ tensor weights w_q.
      Number *tables_ = nullptr;
    };
  } // namespace cuda
} // namespace cellwise
