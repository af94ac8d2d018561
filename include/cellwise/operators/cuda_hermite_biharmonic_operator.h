#pragma once
/**
 * @file
 * The biharmonic operator of the C¹ cubic Hermite element on axis-aligned
 * box cells, CUDA backend: the device twin of
 * cellwise::HermiteBiharmonicOperator (operators/hermite_biharmonic_operator.h,
 * its oracle in the tests), 001 §4's sum-factorization realisation.
 *
 * (A u)_K = A_K u_K with A_K = S_K A_ref(c_K) S_K: the stored physical
 * derivative DoFs scaled to reference ones (S_K), the six Hessian terms as
 * Kronecker products of the 1D mass M, stiffness K and bending B matrices
 * with the cell's six metric factors c_K. Input primal, output dual
 * (unassembled); no boundary treatment here. Three realisations of 001 §4
 * (HermiteOperatorKernel):
 *
 * - sum factorization, any box cells: x (M, K, B), y (six pairs) and z
 *   (three sums) contractions, a thread per line of 4 values of a cell (16
 *   per cell), exchanging lines through shared memory;
 * - two-axis even–odd, levels of one cell size (mesh/cell_mapping.h,
 *   common_box_size): the one A_K of the level as four dense 16 × 16 sector
 *   products between the pair transforms of fe/hermite_even_odd.h; also
 *   levels of cells that are scaled copies of one box (common_box_shape: the
 *   active cells of a locally refined box), with the matrix of cell 0 and a
 *   scale per cell, A_K = t⁻¹ S_t A_0 S_t;
 * - dense, where even–odd applies: the 64 × 64 product.
 *
 * The automatic choice is even–odd where it applies (the fastest measured,
 * doc/performance.md), else sum factorization. The kernels of one cell
 * matrix live in source/operators/cuda_hermite_uniform_cell_kernels.h.
 *
 * Compiles with a plain C++ compiler; the kernels live in
 * source/operators/cuda_hermite_biharmonic_operator.cu.
 */

#include <cellwise/fe/face_dofs.h>
#include <cellwise/fe/hermite_element.h>
#include <cellwise/mesh/level.h>
#include <cellwise/operators/level_operator.h>
#include <cellwise/operators/smoother_step.h>
#include <cellwise/storage/cuda_cell_vector.h>

#include <array>
#include <cstdint>

namespace cellwise
{
  namespace cuda
  {
    /// How the device operator evaluates the cell products (see above).
    enum class HermiteOperatorKernel
    {
      automatic,
      sum_factorization,
      even_odd,
      dense
    };

    /// "automatic", "sum factorization", "even-odd", "dense".
    const char *
    to_string(HermiteOperatorKernel kernel);

    template <typename Number, typename Layout = CellContiguous>
    class HermiteBiharmonicOperator : public LevelOperator<CellVector<Number, MemorySpace::CUDA, Layout>>
    {
    public:
      using value_type = Number;
      using VectorType = CellVector<Number, MemorySpace::CUDA, Layout>;

      HermiteBiharmonicOperator() = default;
      /// Set up for all cells of @p level (box cells; their widths checked as
      /// the host operator checks them) and upload the per-cell widths and
      /// metric factors, and for the even–odd and dense kernels the level's
      /// one cell matrix (with a scale per cell where the cells are scaled
      /// copies of one box). Throws cellwise::Error when @p kernel is
      /// even_odd or dense and the cells are not copies of one box.
      explicit HermiteBiharmonicOperator(const Level &level, HermiteOperatorKernel kernel = HermiteOperatorKernel::automatic);
      HermiteBiharmonicOperator(const HermiteBiharmonicOperator &) = delete;
      HermiteBiharmonicOperator &
      operator=(const HermiteBiharmonicOperator &) = delete;
      HermiteBiharmonicOperator(HermiteBiharmonicOperator &&other) noexcept;
      HermiteBiharmonicOperator &
      operator=(HermiteBiharmonicOperator &&other) noexcept;
      ~HermiteBiharmonicOperator() override;

      unsigned int
      n_cells() const
      {
        return n_cells_;
      }
      /// The degree of the storage (a Hermite field is a CellVector of degree 3).
      unsigned int
      degree() const
      {
        return hermite::storage_degree;
      }

      /// The realisation in use (never automatic).
      HermiteOperatorKernel
      kernel() const
      {
        return kernel_;
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
      /// dst = b − A u, in one pass (b may be dst).
      void
      residual(VectorType &dst, const VectorType &b, const VectorType &u) const override;
      /// dst = mask ∘ (A src): in the operator's pass where @p mask is the
      /// vector registered with use_dirichlet_mask and the kernel is the
      /// even–odd or dense one (one cell matrix), else vmult and then
      /// dst.scale(mask). Bit for bit the same either way.
      void
      masked_vmult(VectorType &dst, const VectorType &src, const VectorType &mask) const override;
      /// masked_vmult and ⟨src, dst⟩ (CG's ⟨p, A p⟩): where masked_vmult
      /// folds the mask, the kernel also sums src_i dst_i (in double, a fixed
      /// order per block, then over the blocks), saving the two reads of
      /// src.dot(dst); else masked_vmult, then src.dot(dst).
      double
      masked_vmult_dot(VectorType &dst, const VectorType &src, const VectorType &mask) const override;
      /// dst = mask ∘ (b − A u), as masked_vmult.
      void
      masked_residual(VectorType &dst, const VectorType &b, const VectorType &u, const VectorType &mask) const override;
      /**
       * Registers @p mask (values 0 and 1 only; throws cellwise::Error
       * otherwise) as the Dirichlet mask of the outer iteration: masked_vmult
       * and masked_residual called with this very vector (same address, same
       * data) then read one bit per DoF in the operator's kernel instead of
       * a separate pass over the result and the mask (24 bytes per entry).
       * The vector must outlive its use here.
       */
      void
      use_dirichlet_mask(const VectorType &mask);
      /// The registered vector must outlive its use: a temporary would not.
      void
      use_dirichlet_mask(const VectorType &&mask) = delete;

      /// One point-smoother step (operators/smoother_step.h): the update
      /// (cuda::apply_smoother_update), then the residual with the new u —
      /// two passes, not fused into the operator's kernel as the Laplace
      /// operator's are. (An update formed in the load of the even–odd
      /// kernel, whose loads then wait for u, z, D^{-1} and d instead of
      /// being fetched during the previous group, made the FP64 V-cycle at
      /// 2.1 M cells slower: 22.9 ms against 21.0, H200, 2026-12-03.)
      void
      smoother_step(VectorType                 &u,
                    VectorType                 &r,
                    VectorType                 *update,
                    const VectorType           &b,
                    const VectorType           &inverse_diagonal,
                    const SmootherStep<Number> &step) const;
      /// Cell-wise (unassembled) diagonals of the A_K; the DSS of both trace
      /// layers gives the assembled diagonal.
      void
      compute_cell_diagonals(VectorType &diagonal) const;

    private:
      /// dst = A u (mode 0), dst += A u (1), dst = b − A u (2); with the
      /// registered mask's bits where @p masked; with @p pairing (mode 0, the
      /// even–odd or dense kernel) also ⟨u, dst⟩, returned (else 0).
      double
      apply(VectorType &dst, const VectorType *b, const VectorType &u, int mode, bool masked = false, bool pairing = false) const;
      /// Whether masked_vmult and masked_residual fold @p mask into the pass.
      bool
      folds_mask(const VectorType &mask) const;
      /// Checks the input @p u of @p function and sizes @p dst like it.
      void
      prepare_output(VectorType &dst, const VectorType &u, const char *function) const;

      unsigned int          n_cells_ = 0;
      HermiteOperatorKernel kernel_  = HermiteOperatorKernel::sum_factorization;
      /// Blocks of the persistent grid of the even–odd and dense kernels,
      /// without and with the pairing (a kernel of its own, more registers).
      unsigned int uniform_blocks_ = 0;
      unsigned int pairing_blocks_ = 0;
      /// The level's cell matrix in the order of the even–odd or dense
      /// kernel (device, Number); null for sum factorization.
      Number *cell_matrix_ = nullptr;
      /// Per cell the scale t of its box against cell 0's (device, Number),
      /// where the even–odd and dense kernels serve cells of several sizes;
      /// null on a level of one cell size and for sum factorization.
      Number *cell_scale_ = nullptr;
      /// The widths of the box of cell_matrix_ (cell 0's), in Number: the
      /// FP32 kernels form each cell's affine part with them
      /// (fe/hermite_affine_part.h).
      std::array<Number, 3> matrix_box_{};
      /// Device arrays: per cell the widths (h_x, h_y, h_z) and the six
      /// metric factors (hermite_biharmonic_factors), in Number.
      Number *widths_  = nullptr;
      Number *factors_ = nullptr;
      /// use_dirichlet_mask: the registered vector (compared by address and
      /// data) and its bits, one word per cell (DoF i: bit i).
      const VectorType *mask_vector_ = nullptr;
      const Number     *mask_data_   = nullptr;
      std::uint64_t    *mask_bits_   = nullptr;
      /// masked_vmult_dot: the blocks' partial sums of the pairing, then the
      /// sum (device, pairing_blocks_ + 1 doubles; made at the first call).
      mutable double *pairing_partials_ = nullptr;
    };
  } // namespace cuda
} // namespace cellwise
