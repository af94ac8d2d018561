#include <cellwise/base/degree_dispatch.h>
#include <cellwise/base/parallel.h>
#include <cellwise/fe/matrices_1d.h>
#include <cellwise/kernels/transfer_cell.h>
#include <cellwise/multigrid/cell_transfer.h>

namespace cellwise
{
  template <typename Number, typename Layout>
  CellTransfer<Number, Layout>::CellTransfer(const LevelHierarchy &hierarchy, const unsigned int degree)
  {
    reinit(hierarchy, degree);
  }

  template <typename Number, typename Layout>
  void
  CellTransfer<Number, Layout>::reinit(const LevelHierarchy &hierarchy, const unsigned int degree)
  {
    check_degree(degree);
    hierarchy_    = &hierarchy;
    degree_       = degree;
    prolongation_ = packed_prolongation_matrices<Number>(degree);
  }

  template <typename Number>
  std::vector<Number>
  packed_prolongation_matrices(const unsigned int degree)
  {
    const Matrices1D    matrices = make_matrices_1d(degree);
    const unsigned int  n        = degree + 1;
    std::vector<Number> packed(2 * n * n);
    for (unsigned int c = 0; c < 2; ++c)
      for (unsigned int i = 0; i < n; ++i)
        for (unsigned int j = 0; j < n; ++j)
          packed[c * n * n + i * n + j] = static_cast<Number>(matrices.prolongation[c](i, j));
    return packed;
  }
  template std::vector<double> packed_prolongation_matrices(unsigned int);
  template std::vector<float> packed_prolongation_matrices(unsigned int);

  void
  check_transfer_levels(const LevelHierarchy *hierarchy,
                        const unsigned int    degree,
                        const unsigned int    fine_level,
                        const unsigned int    fine_cells,
                        const unsigned int    fine_degree,
                        const unsigned int    coarse_cells,
                        const unsigned int    coarse_degree)
  {
    CELLWISE_CHECK(hierarchy != nullptr, "a cell transfer was used before reinit()");
    CELLWISE_CHECK(fine_level >= 1 && fine_level < hierarchy->n_levels(),
                   "transfer to/from level " << fine_level << " of a hierarchy with levels 0.." << hierarchy->max_level());
    CELLWISE_CHECK(fine_cells == hierarchy->level(fine_level).n_cells() && fine_degree == degree,
                   "transfer: fine vector of " << fine_cells << " cells of degree " << fine_degree << " for level " << fine_level
                                               << " with " << hierarchy->level(fine_level).n_cells() << " cells of degree " << degree);
    CELLWISE_CHECK(coarse_cells == hierarchy->level(fine_level - 1).n_cells() && coarse_degree == degree,
                   "transfer: coarse vector of " << coarse_cells << " cells of degree " << coarse_degree << " for level "
                                                 << fine_level - 1 << " with " << hierarchy->level(fine_level - 1).n_cells()
                                                 << " cells of degree " << degree);
  }

  template <typename Number, typename Layout>
  void
  CellTransfer<Number, Layout>::check_level(const unsigned int fine_level, const VectorType &fine, const VectorType &coarse) const
  {
    check_transfer_levels(hierarchy_, degree_, fine_level, fine.n_cells(), fine.degree(), coarse.n_cells(), coarse.degree());
  }

  template <typename Number, typename Layout>
  void
  CellTransfer<Number, Layout>::prolongate_add(const unsigned int to_level, VectorType &fine, const VectorType &coarse) const
  {
    check_level(to_level, fine, coarse);
    const Level &level = hierarchy_->level(to_level);
    dispatch_degree(degree_, [&](auto degree) {
      constexpr int p  = decltype(degree)::value;
      constexpr int n3 = (p + 1) * (p + 1) * (p + 1);
      parallel_for_ranges(level.n_cells(), cell_grain, [&](const std::size_t begin, const std::size_t end) {
        Number parent[n3], child[n3], scratch[n3];
        for (std::size_t cell = begin; cell < end; ++cell)
          {
            coarse.read_cell(level.parent[cell], parent);
            kernels::prolongate_to_child<p>(prolongation_.data(), level.child_slot[cell], parent, child, scratch);
            fine.add_cell(cell, child);
          }
      });
    });
  }

  template <typename Number, typename Layout>
  void
  CellTransfer<Number, Layout>::restrict_residual_add(const unsigned int from_level,
                                                      VectorType        &coarse,
                                                      const VectorType  &fine_b,
                                                      const VectorType  &fine_Au) const
  {
    check_level(from_level, fine_b, coarse);
    fine_b.check_compatible(fine_Au);
    const Level &parents = hierarchy_->level(from_level - 1);
    dispatch_degree(degree_, [&](auto degree) {
      constexpr int p  = decltype(degree)::value;
      constexpr int n3 = (p + 1) * (p + 1) * (p + 1);
      parallel_for_ranges(parents.n_cells(), cell_grain, [&](const std::size_t begin, const std::size_t end) {
        Number b[n3], au[n3], parent[n3], scratch[n3];
        for (std::size_t cell = begin; cell < end; ++cell)
          {
            if (!parents.is_refined(cell))
              continue;
            for (int i = 0; i < n3; ++i)
              parent[i] = 0;
            for (unsigned int slot = 0; slot < 8; ++slot)
              {
                const int child = parents.children[cell][slot];
                fine_b.read_cell(child, b);
                fine_Au.read_cell(child, au);
                for (int i = 0; i < n3; ++i)
                  b[i] -= au[i];
                kernels::restrict_from_child_add<p>(prolongation_.data(), slot, b, parent, scratch);
              }
            coarse.add_cell(cell, parent);
          }
      });
    });
  }

  template <typename Number, typename Layout>
  void
  CellTransfer<Number, Layout>::restrict_add(const unsigned int from_level, VectorType &coarse, const VectorType &fine) const
  {
    VectorType zero;
    zero.reinit(fine);
    restrict_residual_add(from_level, coarse, fine, zero);
  }

  CELLWISE_INSTANTIATE_NUMBERS_AND_LAYOUTS(CellTransfer)
} // namespace cellwise
