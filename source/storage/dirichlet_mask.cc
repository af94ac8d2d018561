#include <cellwise/base/parallel.h>
#include <cellwise/fe/face_dofs.h>
#include <cellwise/storage/dirichlet_mask.h>
#include <cellwise/storage/dss.h>

#include <algorithm>
#include <sstream>

namespace cellwise
{
  bool
  is_dirichlet_face(const int neighbor, const std::vector<unsigned int> &dirichlet_ids)
  {
    return face_neighbor::is_boundary(neighbor) &&
           (dirichlet_ids.empty() ||
            std::find(dirichlet_ids.begin(), dirichlet_ids.end(), face_neighbor::boundary_id(neighbor)) != dirichlet_ids.end());
  }

  std::vector<unsigned int>
  boundary_ids(const Level &level)
  {
    std::vector<unsigned int> ids;
    for (const auto &faces : level.neighbors)
      for (const int neighbor : faces)
        if (face_neighbor::is_boundary(neighbor))
          ids.push_back(face_neighbor::boundary_id(neighbor));
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    return ids;
  }

  void
  check_dirichlet_ids(const Level &coarse_level, const std::vector<unsigned int> &dirichlet_ids)
  {
    const std::vector<unsigned int> present = boundary_ids(coarse_level);
    std::ostringstream              names;
    for (std::size_t k = 0; k < present.size(); ++k)
      names << (k > 0 ? ", " : "") << present[k];
    CELLWISE_CHECK(!present.empty(), "the mesh has no boundary faces, so no Dirichlet condition can be set: the "
                                     "problem would be singular (pure Neumann), which the solvers do not support");
    for (const unsigned int id : dirichlet_ids)
      CELLWISE_CHECK(std::binary_search(present.begin(), present.end(), id),
                     "Dirichlet boundary id " << id << " is not carried by any boundary face of the mesh (its ids: "
                                              << names.str() << "); without Dirichlet faces the problem is pure Neumann, "
                                              << "singular, and not supported");
  }

  std::vector<unsigned int>
  neumann_ids(const Level &coarse_level, const std::vector<unsigned int> &dirichlet_ids)
  {
    if (dirichlet_ids.empty())
      return {};
    std::vector<unsigned int> ids;
    for (const unsigned int id : boundary_ids(coarse_level))
      if (std::find(dirichlet_ids.begin(), dirichlet_ids.end(), id) == dirichlet_ids.end())
        ids.push_back(id);
    return ids;
  }

  template <typename Number, typename Layout>
  CellVector<Number, MemorySpace::Host, Layout>
  make_dirichlet_mask(const Level &level, const unsigned int degree, const std::vector<unsigned int> &dirichlet_ids)
  {
    return make_dirichlet_mask<Number, Layout>(level, degree, dirichlet_ids, lagrange_trace_layers(degree));
  }

  template <typename Number, typename Layout>
  CellVector<Number, MemorySpace::Host, Layout>
  mark_own_face_dofs(const Level                           &level,
                     const unsigned int                     degree,
                     const TraceLayers                     &layers,
                     const std::function<bool(int neighbor)> &selects)
  {
    const unsigned int n = degree + 1;
    CELLWISE_CHECK(layers.n_1d == n, "mark_face_dofs: trace layers of an element with " << layers.n_1d
                                                                                       << " functions per axis for degree " << degree);
    CellVector<Number, MemorySpace::Host, Layout> marker(level.n_cells(), degree);
    // cells write only their own entries: parallel over cells (the set-up of
    // a fine level of 10^7 cells is otherwise dominated by these loops)
    parallel_for(level.n_cells(), cell_grain, [&](const std::size_t cell) {
      for (unsigned int face = 0; face < 6; ++face)
        {
          if (!selects(level.neighbors[cell][face]))
            continue;
          // every layer of the face: for the Hermite element all eight DoFs
          // of its vertices
          for (unsigned int l = 0; l < layers.n_layers; ++l)
            {
              const unsigned int layer = face % 2 ? layers.at_upper_end[l] : layers.at_lower_end[l];
              for (unsigned int b = 0; b < n; ++b)
                for (unsigned int a = 0; a < n; ++a)
                  marker(cell, face_layer_dof(n, face / 2, layer, a, b)) = Number(1);
            }
        }
    });
    return marker;
  }

  template <typename Number, typename Layout>
  CellVector<Number, MemorySpace::Host, Layout>
  mark_face_dofs(const Level                           &level,
                 const unsigned int                     degree,
                 const TraceLayers                     &layers,
                 const std::function<bool(int neighbor)> &selects)
  {
    CellVector<Number, MemorySpace::Host, Layout> marker = mark_own_face_dofs<Number, Layout>(level, degree, layers, selects);
    // the copies in cells that touch the face only at an edge or a vertex
    apply_dss(level, marker, DssMode::sum, layers);
    parallel_for(level.n_cells(), cell_grain, [&](const std::size_t cell) {
      for (unsigned int i = 0; i < marker.dofs_per_cell(); ++i)
        marker(cell, i) = marker(cell, i) != Number(0) ? Number(1) : Number(0);
    });
    return marker;
  }

  template <typename Number, typename Layout>
  CellVector<Number, MemorySpace::Host, Layout>
  make_dirichlet_mask(const Level                     &level,
                      const unsigned int               degree,
                      const std::vector<unsigned int> &dirichlet_ids,
                      const TraceLayers               &layers)
  {
    // u = ∂n u = 0 on a clamped face of the Hermite element: both layers
    CellVector<Number, MemorySpace::Host, Layout> mask =
      mark_face_dofs<Number, Layout>(level, degree, layers, [&dirichlet_ids](const int neighbor) { return is_dirichlet_face(neighbor, dirichlet_ids); });
    // the marker becomes the mask in place (no second vector of the level)
    parallel_for(level.n_cells(), cell_grain, [&](const std::size_t cell) {
      for (unsigned int i = 0; i < mask.dofs_per_cell(); ++i)
        mask(cell, i) = Number(1) - mask(cell, i);
    });
    return mask;
  }

#define CELLWISE_INSTANTIATE(Number, Layout)                                                                     \
  template CellVector<Number, MemorySpace::Host, Layout> make_dirichlet_mask(const Level &, unsigned int,           \
                                                                             const std::vector<unsigned int> &);   \
  template CellVector<Number, MemorySpace::Host, Layout> make_dirichlet_mask(const Level &, unsigned int,           \
                                                                             const std::vector<unsigned int> &,    \
                                                                             const TraceLayers &);   \
  template CellVector<Number, MemorySpace::Host, Layout> mark_face_dofs(const Level &, unsigned int, const TraceLayers &, \
                                                                        const std::function<bool(int)> &);             \
  template CellVector<Number, MemorySpace::Host, Layout> mark_own_face_dofs(const Level &, unsigned int, const TraceLayers &, \
                                                                            const std::function<bool(int)> &);
  CELLWISE_INSTANTIATE(double, CellContiguous)
  CELLWISE_INSTANTIATE(float, CellContiguous)
  CELLWISE_INSTANTIATE(double, CellBlocked<32>)
  CELLWISE_INSTANTIATE(float, CellBlocked<32>)
#undef CELLWISE_INSTANTIATE
} // namespace cellwise
