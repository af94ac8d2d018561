#pragma once
/**
 * @file
 * Local index of a DoF on a face of a cell with n = p+1 nodes per axis.
 * The face normal to axis d at side s (0: lower, 1: upper) holds the DoFs with
 * i_d = s p; (a, b) run over the two other axes in increasing axis order:
 *
 *   d = 0: i = s p + n a + n^2 b      (a = i_y, b = i_z)
 *   d = 1: i = a + n s p + n^2 b      (a = i_x, b = i_z)
 *   d = 2: i = a + n b + n^2 s p      (a = i_x, b = i_y)
 *
 * Two same-level neighbours across a face pair their DoFs by equal (a, b).
 *
 * TraceLayers says which 1D indices along the normal a face shares: one layer
 * for FE_Q(p) (index p of the lower cell with index 0 of the upper one), two
 * for the cubic Hermite element (the value layer 2 ↔ 0 and the
 * normal-derivative layer 3 ↔ 1; doc/hermite.md). DSS and the Dirichlet masks
 * take them, so that one cascade serves both elements.
 */

#include <cellwise/base/host_device.h>

namespace cellwise
{
  /// Local index of the DoF with index @p layer along axis @p d and (a, b)
  /// along the two other axes, n = nodes per axis.
  CELLWISE_HOST_DEVICE inline unsigned int
  face_layer_dof(const unsigned int n, const unsigned int d, const unsigned int layer, const unsigned int a, const unsigned int b)
  {
    if (d == 0)
      return layer + n * a + n * n * b;
    if (d == 1)
      return a + n * layer + n * n * b;
    return a + n * b + n * n * layer;
  }

  /// The layers of 1D indices a face shares with its neighbour.
  struct TraceLayers
  {
    /// Basis functions per axis.
    unsigned int n_1d = 0;
    /// Number of shared layers (1 or 2).
    unsigned int n_layers = 0;
    /// Layer l of a face at the upper end of a cell (t = 1) ...
    unsigned int at_upper_end[2] = {0, 0};
    /// ... is shared with layer l at the lower end (t = 0) of the neighbour.
    unsigned int at_lower_end[2] = {0, 0};

    bool
    operator==(const TraceLayers &other) const
    {
      return n_1d == other.n_1d && n_layers == other.n_layers && at_upper_end[0] == other.at_upper_end[0] &&
             at_upper_end[1] == other.at_upper_end[1] && at_lower_end[0] == other.at_lower_end[0] &&
             at_lower_end[1] == other.at_lower_end[1];
    }
  };

  /// FE_Q(@p degree): one layer, index p at the upper end, 0 at the lower.
  inline TraceLayers
  lagrange_trace_layers(const unsigned int degree)
  {
    return {degree + 1, 1, {degree, 0}, {0, 0}};
  }

  /// The cubic Hermite element: values (2 ↔ 0) and normal derivatives (3 ↔ 1).
  inline TraceLayers
  hermite_trace_layers()
  {
    return {4, 2, {2, 3}, {0, 1}};
  }

  CELLWISE_HOST_DEVICE inline unsigned int
  face_dof(const unsigned int n, const unsigned int d, const unsigned int side, const unsigned int a, const unsigned int b)
  {
    return face_layer_dof(n, d, side * (n - 1), a, b);
  }
} // namespace cellwise
