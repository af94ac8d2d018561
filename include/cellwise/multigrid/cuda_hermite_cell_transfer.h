#pragma once
/**
 * @file
 * Cell-wise transfers of the C¹ cubic Hermite element on the device: the twin
 * of cellwise::HermiteCellTransfer (multigrid/hermite_cell_transfer.h, its
 * oracle in the tests) on the kernels of cuda::CellTransfer. The derivative
 * scalings of parent and child are folded into the 1D matrices,
 *
 *   P'_{c,d} = S_child,d⁻¹ P_c S_parent,d   (per axis d: s = (1, h_d, 1, h_d)),
 *
 * which needs one width per axis and level: every cell of a level must have
 * the same size (true of the levels of a box and of its local refinements;
 * other meshes are refused at construction). The restriction is the
 * transpose, with b − A u formed inside.
 *
 * Compiles with a plain C++ compiler (source/multigrid/cuda_hermite_cell_transfer.cu).
 */

#include <cellwise/mesh/level.h>
#include <cellwise/multigrid/interfaces.h>
#include <cellwise/storage/cuda_cell_vector.h>

#include <vector>

namespace cellwise
{
  namespace cuda
  {
    template <typename Number, typename Layout = CellContiguous>
    class HermiteCellTransfer : public LevelTransfer<CellVector<Number, MemorySpace::CUDA, Layout>>
    {
    public:
      using VectorType = CellVector<Number, MemorySpace::CUDA, Layout>;

      HermiteCellTransfer() = default;
      /// The scaled matrices of every level and the children tables of
      /// @p hierarchy (kept by reference for the checks), uploaded once.
      explicit HermiteCellTransfer(const LevelHierarchy &hierarchy);
      /// A temporary hierarchy would dangle.
      explicit HermiteCellTransfer(const LevelHierarchy &&hierarchy) = delete;
      HermiteCellTransfer(const HermiteCellTransfer &) = delete;
      HermiteCellTransfer &
      operator=(const HermiteCellTransfer &) = delete;
      ~HermiteCellTransfer() override;

      void
      reinit(const LevelHierarchy &hierarchy);
      void
      reinit(const LevelHierarchy &&hierarchy) = delete;

      /// fine += P coarse (primal to primal), fine on level @p to_level.
      void
      prolongate_add(unsigned int to_level, VectorType &fine, const VectorType &coarse) const override;

      /// coarse += R (fine_b − fine_Au), the residual formed inside.
      void
      restrict_residual_add(unsigned int      from_level,
                            VectorType       &coarse,
                            const VectorType &fine_b,
                            const VectorType &fine_Au) const override;

      /// coarse += R fine (restriction of a dual vector without the residual).
      void
      restrict_add(unsigned int from_level, VectorType &coarse, const VectorType &fine) const;

    private:
      void
      release() noexcept;

      const LevelHierarchy *hierarchy_ = nullptr;
      /// matrices_[l − 1]: P'_0, P'_1 of x, y, z (4 × 4 row-major each) from
      /// level l − 1 to level l.
      std::vector<std::vector<double>> matrices_;
      /// children_[l]: device array of 8 n_cells(l) entries (-1: not refined).
      std::vector<int *> children_;
    };
  } // namespace cuda
} // namespace cellwise
