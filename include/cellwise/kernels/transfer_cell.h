#pragma once
/**
 * @file
 * Cell kernels of the transfers between a parent and one child. With the 1D
 * prolongations P_0, P_1 onto the child intervals [0,1/2] and [1/2,1]
 * (P_c(i, j) = φ_j((c + x_i)/2)), child slot c = c_x + 2 c_y + 4 c_z gets
 *
 *   u_child = (P_{c_z} ⊗ P_{c_y} ⊗ P_{c_x}) u_parent,
 *
 * and restriction applies the transpose to the child's unassembled residual.
 */

#include <cellwise/base/host_device.h>
#include <cellwise/kernels/tensor_product.h>

namespace cellwise
{
  namespace kernels
  {
    /// child = (P_{c_z} ⊗ P_{c_y} ⊗ P_{c_x}) parent; @p prolongation holds P_0 then
    /// P_1, n x n row-major each; @p scratch has n^3 entries.
    template <int p, typename Number, typename MatrixNumber>
    CELLWISE_HOST_DEVICE inline void
    prolongate_to_child(const MatrixNumber *prolongation, const unsigned int slot, const Number *parent, Number *child, Number *scratch)
    {
      constexpr int n  = p + 1;
      constexpr int n2 = n * n;
      apply_1d<n, 0, false, false>(prolongation + (slot & 1) * n2, parent, child);
      apply_1d<n, 1, false, false>(prolongation + ((slot >> 1) & 1) * n2, child, scratch);
      apply_1d<n, 2, false, false>(prolongation + ((slot >> 2) & 1) * n2, scratch, child);
    }

    /// parent += (P_{c_z} ⊗ P_{c_y} ⊗ P_{c_x})^T child; @p child is overwritten
    /// (used as scratch), @p scratch has n^3 entries.
    template <int p, typename Number, typename MatrixNumber>
    CELLWISE_HOST_DEVICE inline void
    restrict_from_child_add(const MatrixNumber *prolongation, const unsigned int slot, Number *child, Number *parent, Number *scratch)
    {
      constexpr int n  = p + 1;
      constexpr int n2 = n * n;
      apply_1d<n, 0, true, false>(prolongation + (slot & 1) * n2, child, scratch);
      apply_1d<n, 1, true, false>(prolongation + ((slot >> 1) & 1) * n2, scratch, child);
      apply_1d<n, 2, true, true>(prolongation + ((slot >> 2) & 1) * n2, child, parent);
    }
  } // namespace kernels
} // namespace cellwise
