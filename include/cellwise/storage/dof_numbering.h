#pragma once
/**
 * @file
 * A global numbering of the unique DoFs of a level, and the gather G and its
 * transpose. The solver never forms assembled vectors; this is for the exact
 * coarse solver, for I/O and for tests. The numbering joins the copies that
 * same-level face neighbours share (union–find over the face pairs of the DSS).
 */

#include <cellwise/base/parallel.h>
#include <cellwise/fe/face_dofs.h>
#include <cellwise/mesh/level.h>
#include <cellwise/storage/cell_vector.h>

#include <vector>

namespace cellwise
{
  struct DofNumbering
  {
    unsigned int degree   = 0;
    unsigned int n_unique = 0;
    /// Global index of local DoF i of cell K at [K (p+1)^3 + i].
    std::vector<unsigned int> global_index;

    unsigned int
    dofs_per_cell() const
    {
      return (degree + 1) * (degree + 1) * (degree + 1);
    }
    unsigned int
    operator()(const unsigned int cell, const unsigned int i) const
    {
      return global_index[static_cast<std::size_t>(cell) * dofs_per_cell() + i];
    }
  };

  DofNumbering
  make_dof_numbering(const Level &level, unsigned int degree);

  /// The numbering of an element whose faces share the trace @p layers (the
  /// C¹ Hermite element: hermite_trace_layers(), storage degree 3). Its
  /// derivative DoFs are physical, so copies join without a sign or a scale.
  /// Skeleton faces (unstructured meshes, FE_Q only) join their nodes through
  /// the face orientation; with @p across_skeleton false they join none (the
  /// parts that the structured DSS cascade completes).
  DofNumbering
  make_dof_numbering(const Level &level, unsigned int degree, const TraceLayers &layers, bool across_skeleton = true);

  /// G: v_K = u_global restricted to K (primal), @p global holding
  /// numbering.n_unique entries; @p v is resized to the numbering's cells.
  template <typename Number, typename Layout>
  void
  gather(const DofNumbering &numbering, const double *global, CellVector<Number, MemorySpace::Host, Layout> &v)
  {
    const unsigned int n       = numbering.dofs_per_cell();
    const unsigned int n_cells = static_cast<unsigned int>(numbering.global_index.size() / n);
    if (v.n_cells() != n_cells || v.degree() != numbering.degree)
      v.reinit(n_cells, numbering.degree);
    parallel_for(n_cells, cell_grain, [&](const std::size_t cell) {
      for (unsigned int i = 0; i < n; ++i)
        v(cell, i) = static_cast<Number>(global[numbering(static_cast<unsigned int>(cell), i)]);
    });
  }

  /// The same for a std::vector (its size checked).
  template <typename Number, typename Layout>
  void
  gather(const DofNumbering &numbering, const std::vector<double> &global, CellVector<Number, MemorySpace::Host, Layout> &v)
  {
    CELLWISE_CHECK(global.size() == numbering.n_unique,
                   "gather: global vector has " << global.size() << " entries, the numbering " << numbering.n_unique);
    gather(numbering, global.data(), v);
  }

  /// G^T: the assembled vector, each entry the sum of its copies (dual).
  template <typename Number, typename Layout>
  std::vector<double>
  gather_transpose(const DofNumbering &numbering, const CellVector<Number, MemorySpace::Host, Layout> &v)
  {
    CELLWISE_CHECK(v.degree() == numbering.degree && v.size() == numbering.global_index.size(),
                   "gather_transpose: vector of " << v.n_cells() << " cells of degree " << v.degree()
                                                  << " does not match the numbering");
    std::vector<double> global(numbering.n_unique, 0.);
    for (unsigned int cell = 0; cell < v.n_cells(); ++cell)
      for (unsigned int i = 0; i < v.dofs_per_cell(); ++i)
        global[numbering(cell, i)] += double(v(cell, i));
    return global;
  }
} // namespace cellwise
