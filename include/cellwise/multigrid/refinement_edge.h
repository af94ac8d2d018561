#pragma once
/**
 * @file
 * The refinement edge E_ℓ of a level of a locally refined hierarchy (003 §3.2.1,
 * §5): the DoFs of level-ℓ cells on faces without a same-level neighbour that
 * are interior to the domain (face_neighbor::none), together with the edges and
 * vertices where such faces meet ordinary ones. Found as the Dirichlet copies
 * are: mark the DoFs of the `none` faces, spread the mark with one DSS sum
 * (three axis passes), take the support. One DSS suffices: a copy of an edge or
 * vertex DoF of E_ℓ whose cell has no `none` face at that DoF has a present
 * same-level neighbour that has one, and the x, y, z passes reach it
 * (doc/adaptive.md; checked against a coordinate-based definition in
 * tests/unit/adaptive_test.cc).
 *
 * The smoother mask of a level is the "free" mask: 1 on free DoFs, 0 on
 * Dirichlet and on E_ℓ copies; passed to DssJacobiPreconditioner (and hence
 * to the Jacobi and Chebyshev smoothers) it is folded into the stored inverse
 * diagonal (003 §5, "constraints baked into the diagonal").
 */

#include <cellwise/fe/face_dofs.h>
#include <cellwise/mesh/level.h>
#include <cellwise/storage/cell_vector.h>

#include <vector>

namespace cellwise
{
  /// 1 on every copy of a DoF of E_ℓ, 0 elsewhere.
  template <typename Number, typename Layout = CellContiguous>
  CellVector<Number, MemorySpace::Host, Layout>
  make_refinement_edge_mask(const Level &level, unsigned int degree);

  /// 1 on free copies, 0 on Dirichlet copies (boundary ids @p dirichlet_ids,
  /// all if empty) and on E_ℓ.
  template <typename Number, typename Layout = CellContiguous>
  CellVector<Number, MemorySpace::Host, Layout>
  make_free_mask(const Level &level, unsigned int degree, const std::vector<unsigned int> &dirichlet_ids = {});

  /// The same for an element whose faces share the trace @p layers: the C¹
  /// Hermite element (hermite_trace_layers()) marks both layers of a `none`
  /// face, i.e. all eight DoFs of its vertices (doc/hermite.md).
  template <typename Number, typename Layout = CellContiguous>
  CellVector<Number, MemorySpace::Host, Layout>
  make_refinement_edge_mask(const Level &level, unsigned int degree, const TraceLayers &layers);

  /// The free mask of an element with trace @p layers: its Dirichlet (for
  /// Hermite: clamped) mask times 1 − its refinement-edge mask.
  template <typename Number, typename Layout = CellContiguous>
  CellVector<Number, MemorySpace::Host, Layout>
  make_free_mask(const Level &level, unsigned int degree, const std::vector<unsigned int> &dirichlet_ids,
                 const TraceLayers &layers);

  /// Whether @p level has faces of kind face_neighbor::none.
  bool
  has_refinement_edge(const Level &level);
} // namespace cellwise
