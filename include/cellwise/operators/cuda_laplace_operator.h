#pragma once
/**
 * @file
 * The cell-wise Laplace operator on axis-aligned box cells, CUDA backend; the
 * device twin of cellwise::LaplaceOperator (operators/laplace_operator.h) with
 * the same arithmetic (kernels/laplace_cell.h, up to the order of the
 * contractions). Input primal, output dual; no Dirichlet treatment here.
 *
 * Compiles with a plain C++ compiler; the kernels live in
 * source/operators/cuda_laplace_operator.cu, compiled for degrees 1..8.
 */

#include <cellwise/base/function.h>
#include <cellwise/fe/face_dofs.h>
#include <cellwise/fe/matrices_1d.h>
#include <cellwise/mesh/level.h>
#include <cellwise/operators/laplace_metric.h>
#include <cellwise/operators/level_operator.h>
#include <cellwise/operators/smoother_step.h>
#include <cellwise/storage/cuda_cell_vector.h>

#include <cstdint>
#include <vector>

namespace cellwise
{
  namespace cuda
  {
    template <typename Number, typename Layout = CellContiguous>
    class LaplaceOperator : public LevelOperator<CellVector<Number, MemorySpace::CUDA, Layout>>
    {
    public:
      using value_type = Number;
      using VectorType = CellVector<Number, MemorySpace::CUDA, Layout>;

      LaplaceOperator() = default;
      /// Set up for all cells of @p level with FE_Q(@p degree); uploads the
      /// metric factors (c_x, c_y, c_z) of every cell.
      LaplaceOperator(const Level &level, unsigned int degree);
      /// The same with the coefficient @p coefficient (empty: none), the
      /// host operator's arguments: the box kernels take one coefficient per
      /// cell, so @p evaluation must be CoefficientEvaluation::cell_average
      /// (the quadrature points: cuda::GeneralLaplaceOperator).
      LaplaceOperator(const Level &level, unsigned int degree, const ScalarFunction &coefficient,
                      CoefficientEvaluation evaluation = CoefficientEvaluation::cell_average);
      LaplaceOperator(const LaplaceOperator &) = delete;
      LaplaceOperator &
      operator=(const LaplaceOperator &) = delete;
      LaplaceOperator(LaplaceOperator &&other) noexcept;
      LaplaceOperator &
      operator=(LaplaceOperator &&other) noexcept;
      ~LaplaceOperator() override;

      void
      reinit(const Level &level, unsigned int degree);

      /// Scale every cell's factors by the cell average of @p coefficient
      /// (cell_coefficient_averages, as the host operator's set_coefficient):
      /// the operator of −∇·(c∇u) with c constant per cell.
      void
      set_coefficient(const Level &level, const ScalarFunction &coefficient);

      unsigned int
      degree() const
      {
        return degree_;
      }
      /// The coefficient the factors are scaled by (empty: none), and how it
      /// is evaluated: what a host operator of the same level needs to be
      /// this one (the exact coarse solver's cell matrices).
      const ScalarFunction &
      coefficient() const
      {
        return coefficient_;
      }
      CoefficientEvaluation
      coefficient_evaluation() const
      {
        return CoefficientEvaluation::cell_average;
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
        return n_cells_;
      }

      /// dst = A src
      void
      vmult(VectorType &dst, const VectorType &src) const override;
      /// dst += A src
      void
      vmult_add(VectorType &dst, const VectorType &src) const;
      /// dst = b - A u, in one pass (b may be dst).
      void
      residual(VectorType &dst, const VectorType &b, const VectorType &u) const override;
      /// dst = mask ∘ (A src), the mask applied in the store of the same pass.
      void
      masked_vmult(VectorType &dst, const VectorType &src, const VectorType &mask) const override;
      /// dst = mask ∘ (b − A u), one pass.
      void
      masked_residual(VectorType &dst, const VectorType &b, const VectorType &u, const VectorType &mask) const override;

      /**
       * u ← u + widen(z), then dst = mask ∘ (b − A u) with the new u, in one
       * pass: the correction update of the mixed-precision stationary
       * iteration and the FP64 residual of its next step (000 §7), bit for
       * bit u.add(1, z) followed by masked_residual(dst, b, u, mask). It reads
       * u, z, b (and the mask) and writes u, dst: 36 instead of 44 bytes per
       * entry in FP64 with the mask as bits. @p z is the FP32 correction of
       * the cell-contiguous levels; dst, u, b and the mask must be distinct.
       */
      void
      add_and_masked_residual(VectorType                                                 &dst,
                              const VectorType                                           &b,
                              VectorType                                                 &u,
                              const VectorType                                           &mask,
                              const CellVector<float, MemorySpace::CUDA, CellContiguous> &z) const;

      /**
       * Keep a compact copy of @p mask, one bit per DoF of each cell:
       * masked_vmult and masked_residual called with this very vector then
       * read the bits instead of the vector (8 of the 32 bytes per entry of
       * the FP64 residual), with the same result bit for bit. The values of
       * @p mask must be 0 or 1 (checked); the vector must outlive its use
       * here and must not change while it is the registered mask (another
       * mask vector is read as before). A second call replaces the first.
       */
      void
      use_dirichlet_mask(const VectorType &mask);
      /// The registered vector must outlive its use: a temporary would not.
      void
      use_dirichlet_mask(const VectorType &&mask) = delete;
      /// Cell-wise (unassembled) diagonals of the A_K.
      void
      compute_cell_diagonals(VectorType &diagonal) const;

      /// Scalars and switches of smoother_step() (operators/smoother_step.h).
      using SmootherStep = ::cellwise::SmootherStep<Number>;

      /**
       * One point-smoother step fused with the residual of the next (003 §5,
       * operators/smoother_step.h): one pass reads u, z, D^{-1}, b (and d)
       * and writes u, r (and d), where scale, vector updates and the residual
       * kernel took four; z is read in the load stage of the cell and r
       * written in its output stage, so r may hold both. The twin of the
       * host LaplaceOperator::smoother_step (same arithmetic per copy).
       * @p update may be null unless α ≠ 0 or store_update; u, r, b and d
       * must be distinct vectors.
       */
      void
      smoother_step(VectorType       &u,
                    VectorType       &r,
                    VectorType       *update,
                    const VectorType &b,
                    const VectorType &inverse_diagonal,
                    const SmootherStep &step) const;

      /// For kernels that apply this operator inside another pass (the
      /// fused residual restriction, multigrid/cuda_laplace_residual_restriction.h):
      /// the device array of 3 factors (c_x, c_y, c_z) per cell, with the
      /// coefficient folded in, and the reference 1D mass and stiffness
      /// (row-major, double): A_K = c_x M_z⊗M_y⊗K_x + c_y M_z⊗K_y⊗M_x +
      /// c_z K_z⊗M_y⊗M_x (kernels/laplace_cell.h).
      const Number *
      device_factors() const
      {
        return factors_;
      }
      const std::vector<double> &
      mass_1d() const
      {
        return mass_;
      }
      const std::vector<double> &
      stiffness_1d() const
      {
        return stiffness_;
      }

    private:
      void
      apply(VectorType &dst, const VectorType *b, const VectorType &u, int mode, const VectorType *mask = nullptr) const;
      /// Checks the input @p u of @p function and sizes @p dst like it.
      void
      prepare_output(VectorType &dst, const VectorType &u, const char *function) const;

      unsigned int        degree_  = 0;
      unsigned int        n_cells_ = 0;
      /// Reference 1D mass and stiffness, row-major, in double (rounded to
      /// Number when passed to the kernels).
      std::vector<double> mass_;
      std::vector<double> stiffness_;
      /// Device array of 3 n_cells entries (c_x, c_y, c_z) per cell.
      Number             *factors_ = nullptr;
      /// set_coefficient's (empty: none).
      ScalarFunction      coefficient_;
      /// use_dirichlet_mask: the registered vector (compared by address and
      /// data), and per cell mask_words_ words of its bits (DoF d: bit d % 64
      /// of word d / 64).
      const VectorType   *mask_vector_ = nullptr;
      const Number       *mask_data_   = nullptr;
      std::uint64_t      *mask_bits_   = nullptr;
      unsigned int        mask_words_  = 0;
    };
  } // namespace cuda
} // namespace cellwise
