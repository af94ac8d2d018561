#include <cellwise/base/parallel.h>
#include <cellwise/fe/face_dofs.h>
#include <cellwise/multigrid/refinement_edge.h>
#include <cellwise/storage/dirichlet_mask.h>
#include <cellwise/storage/dss.h>

namespace cellwise
{
  template <typename Number, typename Layout>
  CellVector<Number, MemorySpace::Host, Layout>
  make_refinement_edge_mask(const Level &level, const unsigned int degree, const TraceLayers &layers)
  {
    return mark_face_dofs<Number, Layout>(level, degree, layers,
                                          [](const int neighbor) { return neighbor == face_neighbor::none; });
  }

  template <typename Number, typename Layout>
  CellVector<Number, MemorySpace::Host, Layout>
  make_refinement_edge_mask(const Level &level, const unsigned int degree)
  {
    return make_refinement_edge_mask<Number, Layout>(level, degree, lagrange_trace_layers(degree));
  }

  template <typename Number, typename Layout>
  CellVector<Number, MemorySpace::Host, Layout>
  make_free_mask(const Level                     &level,
                 const unsigned int               degree,
                 const std::vector<unsigned int> &dirichlet_ids,
                 const TraceLayers               &layers)
  {
    CellVector<Number, MemorySpace::Host, Layout> mask = make_dirichlet_mask<Number, Layout>(level, degree, dirichlet_ids, layers);
    const CellVector<Number, MemorySpace::Host, Layout> edge = make_refinement_edge_mask<Number, Layout>(level, degree, layers);
    parallel_for(level.n_cells(), cell_grain, [&](const std::size_t cell) {
      for (unsigned int i = 0; i < mask.dofs_per_cell(); ++i)
        if (edge(cell, i) != Number(0))
          mask(cell, i) = Number(0);
    });
    return mask;
  }

  template <typename Number, typename Layout>
  CellVector<Number, MemorySpace::Host, Layout>
  make_free_mask(const Level &level, const unsigned int degree, const std::vector<unsigned int> &dirichlet_ids)
  {
    return make_free_mask<Number, Layout>(level, degree, dirichlet_ids, lagrange_trace_layers(degree));
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
                                                                                        const std::vector<unsigned int> &); \
  template CellVector<Number, MemorySpace::Host, Layout> make_refinement_edge_mask<Number, Layout>(const Level &, unsigned int, \
                                                                                                   const TraceLayers &);    \
  template CellVector<Number, MemorySpace::Host, Layout> make_free_mask<Number, Layout>(                                  \
    const Level &, unsigned int, const std::vector<unsigned int> &, const TraceLayers &);
  CELLWISE_INSTANTIATE(double, CellContiguous)
  CELLWISE_INSTANTIATE(float, CellContiguous)
  CELLWISE_INSTANTIATE(double, CellBlocked<32>)
  CELLWISE_INSTANTIATE(float, CellBlocked<32>)
#undef CELLWISE_INSTANTIATE
} // namespace cellwise
