#include <cellwise/base/parallel.h>
#include <cellwise/fe/hermite_element.h>
#include <cellwise/fe/hermite_matrices_1d.h>
#include <cellwise/kernels/transfer_cell.h>
#include <cellwise/multigrid/cell_transfer.h>
#include <cellwise/multigrid/hermite_cell_transfer.h>

#include <algorithm>

namespace cellwise
{
  namespace
  {
    using hermite::dofs_per_cell;
  }

  template <typename Number, typename Layout>
  HermiteCellTransfer<Number, Layout>::HermiteCellTransfer(const LevelHierarchy &hierarchy)
  {
    reinit(hierarchy);
  }

  template <typename Number, typename Layout>
  void
  HermiteCellTransfer<Number, Layout>::reinit(const LevelHierarchy &hierarchy)
  {
    hierarchy_                           = &hierarchy;
    const hermite::Matrices1D matrices = hermite::make_matrices_1d();
    for (unsigned int c = 0; c < 2; ++c)
      {
        const std::array<Number, 16> P = hermite::row_major<Number>(matrices.prolongation[c]);
        std::copy(P.begin(), P.end(), prolongation_.begin() + 16 * c);
      }
  }

  template <typename Number, typename Layout>
  void
  HermiteCellTransfer<Number, Layout>::prolongate_add(const unsigned int to_level, VectorType &fine, const VectorType &coarse) const
  {
    check_transfer_levels(hierarchy_, hermite::storage_degree, to_level, fine.n_cells(), fine.degree(), coarse.n_cells(),
                          coarse.degree());
    const Level &level   = hierarchy_->level(to_level);
    const Level &parents = hierarchy_->level(to_level - 1);
    parallel_for_ranges(level.n_cells(), cell_grain, [&](const std::size_t begin, const std::size_t end) {
      Number parent[dofs_per_cell], child[dofs_per_cell], scratch[dofs_per_cell];
      for (std::size_t cell = begin; cell < end; ++cell)
        {
          const int                               p        = level.parent[cell];
          const std::array<double, dofs_per_cell> s_parent = hermite::hermite_scaling(parents.boxes[p].size);
          const std::array<double, dofs_per_cell> s_child  = hermite::hermite_scaling(level.boxes[cell].size);
          coarse.read_cell(p, parent);
          for (unsigned int i = 0; i < dofs_per_cell; ++i)
            parent[i] *= static_cast<Number>(s_parent[i]);
          kernels::prolongate_to_child<3>(prolongation_.data(), level.child_slot[cell], parent, child, scratch);
          for (unsigned int i = 0; i < dofs_per_cell; ++i)
            child[i] /= static_cast<Number>(s_child[i]);
          fine.add_cell(static_cast<unsigned int>(cell), child);
        }
    });
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
    const Level &level   = hierarchy_->level(from_level);
    const Level &parents = hierarchy_->level(from_level - 1);
    parallel_for_ranges(parents.n_cells(), cell_grain, [&](const std::size_t begin, const std::size_t end) {
      Number b[dofs_per_cell], au[dofs_per_cell], parent[dofs_per_cell], scratch[dofs_per_cell];
      for (std::size_t cell = begin; cell < end; ++cell)
        {
          if (!parents.is_refined(static_cast<unsigned int>(cell)))
            continue;
          for (unsigned int i = 0; i < dofs_per_cell; ++i)
            parent[i] = 0;
          for (unsigned int slot = 0; slot < 8; ++slot)
            {
              const int                               child   = parents.children[cell][slot];
              const std::array<double, dofs_per_cell> s_child = hermite::hermite_scaling(level.boxes[child].size);
              fine_b.read_cell(child, b);
              fine_Au.read_cell(child, au);
              for (unsigned int i = 0; i < dofs_per_cell; ++i)
                b[i] = (b[i] - au[i]) / static_cast<Number>(s_child[i]);
              kernels::restrict_from_child_add<3>(prolongation_.data(), slot, b, parent, scratch);
            }
          const std::array<double, dofs_per_cell> s_parent = hermite::hermite_scaling(parents.boxes[cell].size);
          for (unsigned int i = 0; i < dofs_per_cell; ++i)
            parent[i] *= static_cast<Number>(s_parent[i]);
          coarse.add_cell(static_cast<unsigned int>(cell), parent);
        }
    });
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
} // namespace cellwise
