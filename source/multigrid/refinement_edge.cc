#include <cellwise/base/parallel.h>
#include <cellwise/fe/face_dofs.h>
#include <cellwise/multigrid/refinement_edge.h>
#include <cellwise/storage/dirichlet_mask.h>
#include <cellwise/storage/dss.h>

namespace cellwise
{
  template <typename Number, typename Layout>
  CellVector<Number, MemorySpace::Host, Layout>
  make_refinement_edge_mask(const Level &level, const unsigned int degree)
  {
    const unsigned int                            n = degree + 1;
    CellVector<Number, MemorySpace::Host, Layout> marker(level.n_cells(), degree);
    parallel_for(level.n_cells(), cell_grain, [&](const std::size_t cell) {
      for (unsigned int face = 0; face < 6; ++face)
        if (level.neighbors[cell][face] == face_neighbor::none)
          for (unsigned int b = 0; b < n; ++b)
            for (unsigned int a = 0; a < n; ++a)
              marker(cell, face_dof(n, face / 2, face % 2, a, b)) = Number(1);
    });
    apply_dss(level, marker, DssMode::sum);
    const long n_cells = static_cast<long>(level.n_cells());
    parallel_for(n_cells, cell_grain, [&](const std::size_t cell) {
      for (unsigned int i = 0; i < marker.dofs_per_cell(); ++i)
        marker(cell, i) = marker(cell, i) != Number(0) ? Number(1) : Number(0);
    });
    return marker;
  }

  template <typename Number, typename Layout>
  CellVector<Number, MemorySpace::Host, Layout>
  make_free_mask(const Level &level, const unsigned int degree, const std::vector<unsigned int> &dirichlet_ids)
  {
    CellVector<Number, MemorySpace::Host, Layout>       mask = make_dirichlet_mask<Number, Layout>(level, degree, dirichlet_ids);
    const CellVector<Number, MemorySpace::Host, Layout> edge = make_refinement_edge_mask<Number, Layout>(level, degree);
    const long                                          n_cells = static_cast<long>(level.n_cells());
    parallel_for(n_cells, cell_grain, [&](const std::size_t cell) {
      for (unsigned int i = 0; i < mask.dofs_per_cell(); ++i)
        if (edge(cell, i) != Number(0))
          mask(cell, i) = Number(0);
    });
    return mask;
  }

  bool
  has_refinement_edge(const Level &level)
  {
    for (unsigned int cell = 0; cell < level.n_cells(); ++cell)
      for (unsigned int face = 0; face < 6; ++face)
        if (level.neighbors[cell][face] == face_neighbor::none)
          return true;
    return false;
  }

#define CELLWISE_INSTANTIATE(Number, Layout)                                                                            \
  template CellVector<Number, MemorySpace::Host, Layout> make_refinement_edge_mask<Number, Layout>(const Level &, unsigned int); \
  template CellVector<Number, MemorySpace::Host, Layout> make_free_mask<Number, Layout>(const Level &,                   \
                                                                                        unsigned int,                   \
                                                                                        const std::vector<unsigned int> &);
  CELLWISE_INSTANTIATE(double, CellContiguous)
  CELLWISE_INSTANTIATE(float, CellContiguous)
  CELLWISE_INSTANTIATE(double, CellBlocked<32>)
  CELLWISE_INSTANTIATE(float, CellBlocked<32>)
#undef CELLWISE_INSTANTIATE
} // namespace cellwise
