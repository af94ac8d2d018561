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
 */

#include <cellwise/base/host_device.h>

namespace cellwise
{
  CELLWISE_HOST_DEVICE inline unsigned int
  face_dof(const unsigned int n, const unsigned int d, const unsigned int side, const unsigned int a, const unsigned int b)
  {
    const unsigned int s = side * (n - 1);
    if (d == 0)
      return s + n * a + n * n * b;
    if (d == 1)
      return a + n * s + n * n * b;
    return a + n * b + n * n * s;
  }
} // namespace cellwise
