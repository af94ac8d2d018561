#pragma once
/**
 * @file
 * The box Laplace operator of one level fused into its residual restriction,
 * CUDA backend: coarse += R (b − A u) in one pass that reads u and b of the
 * fine level once and never stores A u. The V-cycle's unfused path
 * (cuda::LaplaceOperator::vmult into a work vector, then
 * cuda::CellTransfer::restrict_residual_add reading it back) moves the fine
 * vector four times more; at Q3 in FP32 this saves 2 of 4.25 fine-vector
 * passes per level and cycle.
 *
 * The same arithmetic as the unfused pair up to the order of the
 * contractions: the level operator of kernels/laplace_cell.h (factors per
 * cell from the cuda::LaplaceOperator, its coefficient folded in) and the
 * transposed prolongation of cuda::CellTransfer (its children table and 1D
 * matrices, used in place, not copied). The host oracle is
 * cellwise::LaplaceOperator::vmult followed by
 * cellwise::CellTransfer::restrict_residual_add.
 *
 * Compiles with a plain C++ compiler; the kernel lives in
 * source/multigrid/cuda_laplace_residual_restriction.cu, compiled for the
 * degrees whose shared buffers fit (supports()).
 */

#include <cellwise/multigrid/cuda_cell_transfer.h>
#include <cellwise/multigrid/interfaces.h>
#include <cellwise/operators/cuda_laplace_operator.h>
#include <cellwise/storage/cuda_cell_vector.h>

#include <memory>

namespace cellwise
{
  namespace cuda
  {
    template <typename Number, typename Layout = CellContiguous>
    class LaplaceResidualRestriction : public ResidualRestriction<CellVector<Number, MemorySpace::CUDA, Layout>>
    {
    public:
      using VectorType = CellVector<Number, MemorySpace::CUDA, Layout>;

      /// Whether the fused kernel exists for @p degree in this precision and
      /// layout (its six shared buffers of a block must fit in 48 KB); where
      /// not, a cycle keeps the unfused pair.
      static bool
      supports(unsigned int degree);

      /// Restriction from level @p fine_level (≥ 1) of @p transfer's
      /// hierarchy with the operator @p fine_operator of that level; both are
      /// kept by shared pointer and used as they are when this is called.
      LaplaceResidualRestriction(std::shared_ptr<const CellTransfer<Number, Layout>>    transfer,
                                 unsigned int                                           fine_level,
                                 std::shared_ptr<const LaplaceOperator<Number, Layout>> fine_operator);

      /// coarse += R (fine_b − A fine_u); @p coarse must not be a fine input.
      void
      restrict_residual_add(VectorType &coarse, const VectorType &fine_b, const VectorType &fine_u) const override;

    private:
      std::shared_ptr<const CellTransfer<Number, Layout>>    transfer_;
      unsigned int                                           fine_level_;
      std::shared_ptr<const LaplaceOperator<Number, Layout>> operator_;
    };
  } // namespace cuda
} // namespace cellwise
