#pragma once
/**
 * @file
 * The biharmonic operator of the C¹ cubic Hermite element on axis-aligned
 * box cells, CUDA backend: the device twin of
 * cellwise::HermiteBiharmonicOperator (operators/hermite_biharmonic_operator.h,
 * its oracle in the tests), 001 §4's sum-factorization realisation.
 *
 * (A u)_K = S_K A_ref(c_K) S_K u_K: the stored physical derivative DoFs
 * scaled to reference ones (S_K), the six Hessian terms as Kronecker products
 * of the 1D mass M, stiffness K and bending B matrices with the cell's six
 * metric factors, contracted along x (M, K, B), y (six pairs) and z (three
 * sums), and scaled back. A thread takes a line of 4 values of a cell (16
 * threads per cell, 8 cells per block): an x-line from memory, contracted in
 * registers; then a y-line and a z-line of the previous stage's results
 * through shared memory. Input primal, output dual (unassembled); no
 * boundary treatment here.
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

namespace cellwise
{
  namespace cuda
  {
    template <typename Number, typename Layout = CellContiguous>
    class HermiteBiharmonicOperator : public LevelOperator<CellVector<Number, MemorySpace::CUDA, Layout>>
    {
    public:
      using value_type = Number;
      using VectorType = CellVector<Number, MemorySpace::CUDA, Layout>;

      HermiteBiharmonicOperator() = default;
      /// Set up for all cells of @p level (box cells; their widths checked as
      /// the host operator checks them) and upload the per-cell widths and
      /// metric factors.
      explicit HermiteBiharmonicOperator(const Level &level);
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

      /// One point-smoother step (operators/smoother_step.h): the update
      /// (cuda::apply_smoother_update), then the residual with the new u —
      /// two passes, not fused into the operator's kernel as the Laplace
      /// operator's are.
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
      /// dst = A u (mode 0), dst += A u (1), dst = b − A u (2).
      void
      apply(VectorType &dst, const VectorType *b, const VectorType &u, int mode) const;
      /// Checks the input @p u of @p function and sizes @p dst like it.
      void
      prepare_output(VectorType &dst, const VectorType &u, const char *function) const;

      unsigned int n_cells_ = 0;
      /// Device arrays: per cell the widths (h_x, h_y, h_z) and the six
      /// metric factors (hermite_biharmonic_factors), in Number.
      Number *widths_  = nullptr;
      Number *factors_ = nullptr;
    };
  } // namespace cuda
} // namespace cellwise
