#pragma once
/**
 * @file
 * Cell-wise transfers between consecutive levels, CUDA backend: the device
 * twin of cellwise::CellTransfer (multigrid/cell_transfer.h) with the same
 * arithmetic (kernels/transfer_cell.h: x, y, z passes in this order), so the
 * results agree to rounding.
 *
 * Both kernels run over the *parents* (the cells of level l − 1): one group of
 * threads per parent handles all its 8 children (sharing the x and y passes
 * between children), so that the parent is read or written once and no two
 * groups touch the same entry — no atomics.
 * With the child-major ordering (CellOrdering::child_major, the default of
 * make_box_hierarchy) the children in one slot of consecutive parents are
 * consecutive cells, so each slot step of a block streams through one
 * contiguous range of the fine vector.
 *
 * The family links (children of every parent, -1 where not refined) are
 * uploaded once at construction. Compiles with a plain C++ compiler; the
 * kernels live in source/multigrid/cuda_cell_transfer.cu, compiled for degrees 1..8.
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
    class CellTransfer : public LevelTransfer<CellVector<Number, MemorySpace::CUDA, Layout>>
    {
    public:
      using VectorType = CellVector<Number, MemorySpace::CUDA, Layout>;

      CellTransfer() = default;
      /// Upload the children tables of all levels 0..L−1 of @p hierarchy (kept
      /// by reference for the checks) for FE_Q(@p degree).
      CellTransfer(const LevelHierarchy &hierarchy, unsigned int degree);
      /// A temporary hierarchy would dangle.
      CellTransfer(const LevelHierarchy &&hierarchy, unsigned int degree) = delete;
      CellTransfer(const CellTransfer &) = delete;
      CellTransfer &
      operator=(const CellTransfer &) = delete;
      ~CellTransfer() override;

      void
      reinit(const LevelHierarchy &hierarchy, unsigned int degree);
      void
      reinit(const LevelHierarchy &&hierarchy, unsigned int degree) = delete;

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

      /// For kernels that restrict with these tables (the fused residual
      /// restriction, multigrid/cuda_laplace_residual_restriction.h): the
      /// device children table of level @p fine_level − 1, and P_0, P_1.
      const int *
      device_children(unsigned int fine_level) const;
      const std::vector<double> &
      prolongation_matrices() const
      {
        return prolongation_;
      }
      unsigned int
      degree() const
      {
        return degree_;
      }
      /// The hierarchy the tables belong to (null before reinit).
      const LevelHierarchy *
      hierarchy() const
      {
        return hierarchy_;
      }

    private:
      void
      check_level(unsigned int fine_level, const VectorType &fine, const VectorType &coarse) const;
      void
      release() noexcept;

      const LevelHierarchy *hierarchy_ = nullptr;
      unsigned int          degree_    = 0;
      /// P_0 then P_1, (p+1) x (p+1) row-major each, in double.
      std::vector<double> prolongation_;
      /// children_[l]: device array of 8 n_cells(l) entries, children of the
      /// cells of level l by slot (-1 where not refined); l = 0..L−1.
      std::vector<int *> children_;
    };
  } // namespace cuda
} // namespace cellwise
