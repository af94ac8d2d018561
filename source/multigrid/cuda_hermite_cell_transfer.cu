// cuda::HermiteCellTransfer (multigrid/cuda_hermite_cell_transfer.h): the
// kernels of cuda::CellTransfer at degree 3 with one pair of 1D matrices per
// axis, the Hermite derivative scalings of the level widths folded in.

#include <cellwise/base/cuda_check.h>
#include <cellwise/fe/hermite_element.h>
#include <cellwise/fe/hermite_matrices_1d.h>
#include <cellwise/multigrid/cell_transfer.h>
#include <cellwise/multigrid/cuda_hermite_cell_transfer.h>

#include <array>
#include <cmath>

#include "cuda_cell_transfer_kernels.h"

namespace cellwise
{
  namespace cuda
  {
    using namespace transfer_kernels;

    namespace
    {
      constexpr int p = hermite::storage_degree;

      /// The widths of the cells of level @p l, which must all be equal (to a
      /// relative 1e-12).
      std::array<double, 3>
      uniform_width(const LevelHierarchy &hierarchy, const unsigned int l)
      {
        const Level &level = hierarchy.level(l);
        CELLWISE_CHECK(level.n_cells() > 0, "cuda::HermiteCellTransfer: level " << l << " has no cells");
        const std::array<double, 3> h = level.boxes[0].size;
        for (unsigned int cell = 0; cell < level.n_cells(); ++cell)
          for (unsigned int d = 0; d < 3; ++d)
            CELLWISE_CHECK(std::abs(level.boxes[cell].size[d] - h[d]) <= 1e-12 * h[d],
                           "cuda::HermiteCellTransfer: the cells of level "
                             << l << " differ in size (cell " << cell << " is " << level.boxes[cell].size[d] << " wide along axis "
                             << d << ", cell 0 " << h[d] << "); the device transfer needs one width per axis and level");
        return h;
      }
    } // namespace

    template <typename Number, typename Layout>
    HermiteCellTransfer<Number, Layout>::HermiteCellTransfer(const LevelHierarchy &hierarchy)
    {
      reinit(hierarchy);
    }

    template <typename Number, typename Layout>
    HermiteCellTransfer<Number, Layout>::~HermiteCellTransfer()
    {
      release();
    }

    template <typename Number, typename Layout>
    void
    HermiteCellTransfer<Number, Layout>::release() noexcept
    {
      for (int *pointer : children_)
        free_bytes(pointer);
      children_.clear();
    }

    template <typename Number, typename Layout>
    void
    HermiteCellTransfer<Number, Layout>::reinit(const LevelHierarchy &hierarchy)
    {
      release();
      matrices_.clear();
      hierarchy_                         = &hierarchy;
      const hermite::Matrices1D matrices = hermite::make_matrices_1d();
      for (unsigned int l = 1; l < hierarchy.n_levels(); ++l)
        {
          const std::array<double, 3> H = uniform_width(hierarchy, l - 1), h = uniform_width(hierarchy, l);
          std::vector<double>         scaled(3 * 2 * 16);
          for (unsigned int d = 0; d < 3; ++d)
            for (unsigned int c = 0; c < 2; ++c)
              for (unsigned int i = 0; i < 4; ++i)
                for (unsigned int j = 0; j < 4; ++j)
                  scaled[32 * d + 16 * c + 4 * i + j] = matrices.prolongation[c](i, j) * hermite::derivative_scaling(j, H[d]) /
                                                        hermite::derivative_scaling(i, h[d]);
          matrices_.push_back(std::move(scaled));
        }
      for (unsigned int l = 0; l + 1 < hierarchy.n_levels(); ++l)
        {
          children_.push_back(nullptr);
          children_.back() = upload(children_table(hierarchy, l, "cuda::HermiteCellTransfer"), "the children table of a level");
        }
    }

    template <typename Number, typename Layout>
    void
    HermiteCellTransfer<Number, Layout>::prolongate_add(const unsigned int to_level, VectorType &fine, const VectorType &coarse) const
    {
      check_transfer_levels(hierarchy_, hermite::storage_degree, to_level, fine.n_cells(), fine.degree(), coarse.n_cells(),
                            coarse.degree());
      CELLWISE_CHECK(&fine != &coarse, "cuda::HermiteCellTransfer::prolongate_add: fine and coarse are the same vector");
      const unsigned int n_parents = coarse.n_cells();
      if (n_parents == 0)
        return;
      using Shape = ShapeOf<p, Number, Layout>;
      prolongate_kernel<p, Number, Layout, 3><<<n_blocks(n_parents, Shape::cells), Shape::threads>>>(
        make_matrices<p, Number, 3>(matrices_[to_level - 1]), children_[to_level - 1], coarse.data(), fine.data(), n_parents);
      CELLWISE_CUDA_CHECK_LAUNCH();
    }

    template <typename Number, typename Layout>
    void
    HermiteCellTransfer<Number, Layout>::restrict_residual_add(const unsigned int from_level,
                                                               VectorType        &coarse,
                                                               const VectorType  &fine_b,
                                                               const VectorType  &fine_Au) const
    {
      check_transfer_levels(hierarchy_, hermite::storage_degree, from_level, fine_b.n_cells(), fine_b.degree(),
                            coarse.n_cells(), coarse.degree());
      fine_b.check_compatible(fine_Au);
      CELLWISE_CHECK(&coarse != &fine_b && &coarse != &fine_Au,
                     "cuda::HermiteCellTransfer::restrict_residual_add: the coarse vector is also a fine input");
      const unsigned int n_parents = coarse.n_cells();
      if (n_parents == 0)
        return;
      using Shape = ShapeOf<p, Number, Layout>;
      restrict_kernel<p, Number, Layout, 3><<<n_blocks(n_parents, Shape::cells), Shape::threads>>>(
        make_matrices<p, Number, 3>(matrices_[from_level - 1]), children_[from_level - 1], fine_b.data(), fine_Au.data(),
        coarse.data(), n_parents);
      CELLWISE_CUDA_CHECK_LAUNCH();
    }

    template <typename Number, typename Layout>
    void
    HermiteCellTransfer<Number, Layout>::restrict_add(const unsigned int from_level, VectorType &coarse, const VectorType &fine) const
    {
      VectorType zero;
      zero.reinit(fine);
      restrict_residual_add(from_level, coarse, fine, zero);
    }

    CELLWISE_INSTANTIATE_NUMBERS_AND_LAYOUTS(HermiteCellTransfer)
  } // namespace cuda
} // namespace cellwise
