#pragma once
/**
 * @file
 * The copies of Dirichlet DoFs: a cell vector holding 0 on every copy of a DoF
 * that lies on a Dirichlet boundary face and 1 elsewhere. Found by marking the
 * DoFs of boundary faces and spreading the mark with one DSS, so that a cell
 * touching the boundary only at an edge or vertex is marked too.
 */

#include <cellwise/fe/face_dofs.h>
#include <cellwise/mesh/level.h>
#include <cellwise/storage/cell_vector.h>

#include <functional>
#include <vector>

namespace cellwise
{
  /// Mask of the Dirichlet copies on @p level for FE_Q(@p degree): 0 on DoFs of
  /// faces whose boundary id is in @p dirichlet_ids (all boundary faces if
  /// empty), 1 elsewhere.
  template <typename Number, typename Layout = CellContiguous>
  CellVector<Number, MemorySpace::Host, Layout>
  make_dirichlet_mask(const Level &level, unsigned int degree, const std::vector<unsigned int> &dirichlet_ids = {});

  /// The same for an element with the trace layers @p layers: 0 on every DoF
  /// of every layer of a Dirichlet face. For the cubic Hermite element
  /// (hermite_trace_layers(), degree 3 storage) this is the clamped
  /// condition u = ∂n u = 0: all eight DoFs of a boundary vertex vanish
  /// (doc/hermite.md).
  template <typename Number, typename Layout = CellContiguous>
  CellVector<Number, MemorySpace::Host, Layout>
  make_dirichlet_mask(const Level                     &level,
                      unsigned int                     degree,
                      const std::vector<unsigned int> &dirichlet_ids,
                      const TraceLayers               &layers);

  /// Whether a face with neighbour code @p neighbor is a Dirichlet face: a
  /// boundary face whose id is in @p dirichlet_ids (any boundary face if
  /// empty). The `selects` of mark_face_dofs for the Dirichlet masks.
  bool
  is_dirichlet_face(int neighbor, const std::vector<unsigned int> &dirichlet_ids);

  /// 1 on every copy of a DoF on a face for whose neighbour code (a cell
  /// index, face_neighbor::none or a boundary) @p selects is true, on every
  /// layer of @p layers, 0 elsewhere: the faces' DoFs are marked and one DSS
  /// sum spreads the mark to the copies in cells that touch such a face only
  /// at an edge or a vertex. The Dirichlet masks (boundary faces) and the
  /// refinement edge (`none` faces, multigrid/refinement_edge.h) are its
  /// complement and itself.
  template <typename Number, typename Layout = CellContiguous>
  CellVector<Number, MemorySpace::Host, Layout>
  mark_face_dofs(const Level &level, unsigned int degree, const TraceLayers &layers,
                 const std::function<bool(int neighbor)> &selects);

  /// The first half of mark_face_dofs: 1 on the DoFs of each cell's own
  /// selected faces, before the DSS spreads the mark (the distributed mask
  /// spreads it with the DSS across ranks, storage/mpi_distributed_dss.h).
  template <typename Number, typename Layout = CellContiguous>
  CellVector<Number, MemorySpace::Host, Layout>
  mark_own_face_dofs(const Level &level, unsigned int degree, const TraceLayers &layers,
                     const std::function<bool(int neighbor)> &selects);

  /// The boundary ids of the faces of @p level on the domain boundary,
  /// sorted, each once.
  std::vector<unsigned int>
  boundary_ids(const Level &level);

  /**
   * Throws cellwise::Error unless every id of @p dirichlet_ids is carried by
   * a boundary face of @p coarse_level (the coarsest level, which covers the
   * domain), naming the ids the mesh has. Without Dirichlet faces the Laplace
   * problem is pure Neumann, singular, and its solution is not unique: the
   * solvers would return garbage, so an id that no face carries (a typo, or
   * a mesh whose ids were never set) is refused, as is an empty boundary.
   * A pure Neumann problem is solved only when asked for
   * (MultigridParameters::pure_neumann, which skips this check).
   */
  void
  check_dirichlet_ids(const Level &coarse_level, const std::vector<unsigned int> &dirichlet_ids);

  /// The ids of @p coarse_level's boundary faces that are not among
  /// @p dirichlet_ids (empty where @p dirichlet_ids is: all Dirichlet): the
  /// Neumann part of the boundary.
  std::vector<unsigned int>
  neumann_ids(const Level &coarse_level, const std::vector<unsigned int> &dirichlet_ids);

  /// Set the entries of @p v to zero where @p mask is zero.
  template <typename Number, typename Layout>
  void
  zero_masked_entries(CellVector<Number, MemorySpace::Host, Layout> &v, const CellVector<Number, MemorySpace::Host, Layout> &mask)
  {
    v.scale(mask);
  }
} // namespace cellwise
