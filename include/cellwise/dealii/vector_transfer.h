#pragma once
/**
 * @file
 * Vectors between deal.II's numbering and cell-wise copies, through a DofMap
 * (a level numbering, or the active numbering on one level's active cells):
 *
 *   - gather (G):            u_CG  -> primal cell vector, every copy the DoF value;
 *   - gather_transpose_add:  dual cell vector -> deal.II vector, += sum of copies (G^T);
 *   - scatter_balanced:      deal.II residual r -> dual cell vector with each copy
 *                            r_i / valence_i, so that G^T of it is r again and all
 *                            copies are equal (the rebalanced representative Pi);
 *   - gather_mean_add:       primal cell vector -> deal.II vector, += mean of copies
 *                            (the value, for a continuous field; used by copy_from_mg).
 *
 * Copies of cells that the map does not cover are left unchanged; deal.II
 * entries not touched by the map are left unchanged. One MPI rank: global and
 * local indices coincide (the import refuses more ranks).
 */

#include <cellwise/base/exceptions.h>
#include <cellwise/base/parallel.h>
#include <cellwise/dealii/import.h>
#include <cellwise/storage/cell_vector.h>
#include <cellwise/storage/dof_numbering.h>

#include <deal.II/lac/la_parallel_vector.h>

namespace cellwise::dealii
{
  /// @p map as the core's DofNumbering (storage/numbered_vector_transfer.h:
  /// the conversions of a solve on deal.II's vectors, on either backend).
  /// Throws cellwise::Error naming @p caller if the map leaves a cell out
  /// (a level's active map on a locally refined mesh: use the active mesh's
  /// map) or refers to 2^32 - 1 DoFs or more.
  DofNumbering
  to_dof_numbering(const DofMap &map, const char *caller);

  /// Throws cellwise::Error naming @p caller unless @p vector holds the
  /// @p n_dofs entries of a numbering on this rank (one rank, no ghosts).
  void
  check_whole_vector(const ::dealii::LinearAlgebra::distributed::Vector<double> &vector,
                     std::size_t                                                 n_dofs,
                     const char                                                 *caller);

  namespace internal
  {
    template <typename Number, typename Layout, typename Number2>
    void
    check_sizes(const char                                          *what,
                const DofMap                                        &map,
                const CellVector<Number, MemorySpace::Host, Layout> &cells,
                const ::dealii::LinearAlgebra::distributed::Vector<Number2> &vector)
    {
      CELLWISE_CHECK(cells.n_cells() == map.n_cells && cells.degree() == map.degree,
                     what << ": the cell vector has " << cells.n_cells() << " cells of degree " << cells.degree()
                          << ", the DoF map " << map.n_cells << " cells of degree " << map.degree);
      CELLWISE_CHECK(vector.size() == map.n_dofs,
                     what << ": the deal.II vector has " << vector.size() << " entries, the DoF map refers to "
                          << map.n_dofs << " DoFs (level and active numberings differ in size)");
    }
  } // namespace internal

  /// G: copies of the covered cells of @p dst set to the entries of @p src.
  /// @p dst is resized (and zeroed) if its shape does not match @p map.
  template <typename Number, typename Layout, typename Number2>
  void
  gather(const DofMap                                                &map,
         const ::dealii::LinearAlgebra::distributed::Vector<Number2> &src,
         CellVector<Number, MemorySpace::Host, Layout>               &dst)
  {
    if (dst.n_cells() != map.n_cells || dst.degree() != map.degree)
      dst.reinit(map.n_cells, map.degree);
    internal::check_sizes("cellwise::dealii::gather", map, dst, src);
    const unsigned int n = map.dofs_per_cell();
    parallel_for(map.n_cells, cell_grain, [&](const std::size_t cell) {
      if (map.contains(cell))
        for (unsigned int i = 0; i < n; ++i)
          dst(cell, i) = static_cast<Number>(src(map(cell, i)));
    });
  }

  /// G^T: @p dst += the sum of the copies of @p src (a dual vector) per DoF.
  template <typename Number, typename Layout, typename Number2>
  void
  gather_transpose_add(const DofMap                                          &map,
                       const CellVector<Number, MemorySpace::Host, Layout>   &src,
                       ::dealii::LinearAlgebra::distributed::Vector<Number2> &dst)
  {
    internal::check_sizes("cellwise::dealii::gather_transpose_add", map, src, dst);
    const unsigned int n = map.dofs_per_cell();
    // Sequential: copies of one DoF live in different cells.
    for (unsigned int cell = 0; cell < map.n_cells; ++cell)
      if (map.contains(cell))
        for (unsigned int i = 0; i < n; ++i)
          dst(map(cell, i)) += static_cast<Number2>(src(cell, i));
  }

  /// The balanced dual of the deal.II residual @p src: every copy of DoF j
  /// gets src_j / valence_j. @p dst is resized if its shape does not match.
  template <typename Number, typename Layout, typename Number2>
  void
  scatter_balanced(const DofMap                                                &map,
                   const ::dealii::LinearAlgebra::distributed::Vector<Number2> &src,
                   CellVector<Number, MemorySpace::Host, Layout>               &dst)
  {
    if (dst.n_cells() != map.n_cells || dst.degree() != map.degree)
      dst.reinit(map.n_cells, map.degree);
    internal::check_sizes("cellwise::dealii::scatter_balanced", map, dst, src);
    const unsigned int               n       = map.dofs_per_cell();
    const std::vector<unsigned int> &valence = *map.valence;
    parallel_for(map.n_cells, cell_grain, [&](const std::size_t cell) {
      if (map.contains(cell))
        for (unsigned int i = 0; i < n; ++i)
          {
            const dof_index j = map(cell, i);
            dst(cell, i)      = static_cast<Number>(double(src(j)) / valence[j]);
          }
    });
  }

  /// @p dst += the mean of the copies of @p src per DoF: the DoF values of a
  /// primal (continuous) cell vector, added once per DoF.
  template <typename Number, typename Layout, typename Number2>
  void
  gather_mean_add(const DofMap                                          &map,
                  const CellVector<Number, MemorySpace::Host, Layout>   &src,
                  ::dealii::LinearAlgebra::distributed::Vector<Number2> &dst)
  {
    internal::check_sizes("cellwise::dealii::gather_mean_add", map, src, dst);
    const unsigned int               n       = map.dofs_per_cell();
    const std::vector<unsigned int> &valence = *map.valence;
    for (unsigned int cell = 0; cell < map.n_cells; ++cell)
      if (map.contains(cell))
        for (unsigned int i = 0; i < n; ++i)
          {
            const dof_index j = map(cell, i);
            dst(j) += static_cast<Number2>(double(src(cell, i)) / valence[j]);
          }
  }
} // namespace cellwise::dealii
