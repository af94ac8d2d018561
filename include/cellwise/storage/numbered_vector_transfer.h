#pragma once
/**
 * @file
 * Vectors in a global numbering of the unique DoFs (a DofNumbering: a
 * level's own, or deal.II's imported by cellwise::dealii) to and from cell
 * vectors, on plain arrays of the numbering's n_unique entries:
 *
 *   - scatter_balanced: a dual global vector r (a residual, a load vector) to
 *     a dual cell vector whose copies of DoF j are r_j / valence_j, so that
 *     G^T of it is r again (the rebalanced representative of 000 §4);
 *   - gather (G, storage/dof_numbering.h): a primal global vector u to a
 *     primal cell vector, every copy the DoF's value;
 *   - gather_first_copies: a primal (conforming) cell vector to its global
 *     DoF values, each read from the DoF's first copy (in cell order). The
 *     copies of a conforming vector are equal, so any copy is its value; the
 *     first is the one both backends read (no summation order to agree on).
 *
 * The device twins are storage/cuda_numbered_vector_transfer.h: with them a
 * solve moves the global vectors over the bus (n_unique entries) instead of
 * the cell vectors ((p+1)^3 per cell, 2-3.4 times as many for p = 2..4).
 */

#include <cellwise/base/exceptions.h>
#include <cellwise/base/parallel.h>
#include <cellwise/storage/cell_vector.h>
#include <cellwise/storage/dof_numbering.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace cellwise
{
  /// What the transfers need beside the numbering: how many copies each
  /// unique DoF has, and where its first copy is.
  struct DofCopies
  {
    /// Copies of unique DoF j (at least 1).
    std::vector<std::uint16_t> valence;
    /// The first copy of unique DoF j (in cell order), as the entry
    /// cell · dofs_per_cell + i of the cell-contiguous numbering.
    std::vector<std::uint64_t> first_copy;
  };

  /// The copies of every unique DoF of @p numbering. Throws cellwise::Error
  /// (naming @p caller) if a unique DoF has no copy (the numbering does not
  /// cover the global vector) or more than 65535.
  DofCopies
  make_dof_copies(const DofNumbering &numbering, const char *caller);

  /// dst = the balanced dual of @p global (numbering.n_unique entries): every
  /// copy of DoF j holds global[j] / valence_j. @p dst is resized to the
  /// numbering's cells.
  template <typename Number, typename Layout>
  void
  scatter_balanced(const DofNumbering                            &numbering,
                   const DofCopies                               &copies,
                   const double                                  *global,
                   CellVector<Number, MemorySpace::Host, Layout> &dst)
  {
    const unsigned int n       = numbering.dofs_per_cell();
    const unsigned int n_cells = static_cast<unsigned int>(numbering.global_index.size() / n);
    if (dst.n_cells() != n_cells || dst.degree() != numbering.degree)
      dst.reinit(n_cells, numbering.degree);
    parallel_for(n_cells, cell_grain, [&](const std::size_t cell) {
      for (unsigned int i = 0; i < n; ++i)
        {
          const unsigned int j = numbering(static_cast<unsigned int>(cell), i);
          dst(cell, i)         = static_cast<Number>(global[j] / copies.valence[j]);
        }
    });
  }

  /// global[j] = the first copy of DoF j in @p src, for every unique DoF.
  template <typename Number, typename Layout>
  void
  gather_first_copies(const DofCopies &copies, const CellVector<Number, MemorySpace::Host, Layout> &src, double *global)
  {
    const unsigned int n      = src.dofs_per_cell();
    const Number      *values = src.data();
    parallel_for(copies.first_copy.size(), value_grain, [&](const std::size_t j) {
      const std::uint64_t entry = copies.first_copy[j];
      global[j]                 = static_cast<double>(values[Layout::index(entry / n, static_cast<unsigned int>(entry % n), n)]);
    });
  }
} // namespace cellwise
