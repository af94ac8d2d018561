#pragma once
/**
 * @file
 * Direct stiffness summation S = G G^T on a level, and the rebalancing
 * Pi = G D^{-1} G^T, by the dimension-split cascade: three axis passes; each
 * pass replaces the two copies a, b of every DoF on a same-level face pair by
 * a + b (sum) or (a + b)/2 (mean). Edge and vertex DoFs are complete after two
 * and three passes. The mean leaves the represented dual G^T r unchanged and
 * makes all copies equal (000 §4.4).
 *
 * An element with two trace layers per face (the cubic Hermite element: values
 * and normal derivatives) runs the same passes over both layers.
 *
 * Faces without a same-level neighbour (boundary, refinement edge) are left
 * alone; on the refinement edge the result is then not a full sum, which the
 * masked smoothers make harmless (003 §4.3.1).
 */

#include <cellwise/fe/face_dofs.h>
#include <cellwise/mesh/level.h>
#include <cellwise/storage/cell_vector.h>

namespace cellwise
{
  enum class DssMode
  {
    sum, ///< S: every copy becomes the sum of all copies
    mean ///< Pi: every copy becomes the mean of all copies
  };

  /// In-place DSS of @p v over the faces of @p level (host backend), for
  /// FE_Q of v's degree.
  template <typename Number, typename Layout>
  void
  apply_dss(const Level &level, CellVector<Number, MemorySpace::Host, Layout> &v, DssMode mode = DssMode::sum);

  /// The same over the trace layers @p layers of the element (e.g. both
  /// layers of the cubic Hermite element, fe/face_dofs.h).
  template <typename Number, typename Layout>
  void
  apply_dss(const Level &level, CellVector<Number, MemorySpace::Host, Layout> &v, DssMode mode, const TraceLayers &layers);
} // namespace cellwise
