#pragma once
/**
 * @file
 * Cell kernel of the Laplace operator on an axis-aligned box by sum
 * factorization:
 *
 *   A_K = c_x (M_z ⊗ M_y ⊗ K_x) + c_y (M_z ⊗ K_y ⊗ M_x) + c_z (K_z ⊗ M_y ⊗ M_x),
 *   c_x = h_y h_z / h_x,  c_y = h_x h_z / h_y,  c_z = h_x h_y / h_z,
 *
 * (Kronecker factors written slowest axis first; x is the fastest index), with
 * the reference 1D mass M and stiffness K on [0,1]. Seven 1D contractions:
 *
 *   a = M_x u,  b = K_x u,
 *   w = c_x M_y b + c_y K_y a,   v = c_z M_y a,
 *   A u = M_z w + K_z v.
 */

#include <cellwise/base/host_device.h>
#include <cellwise/kernels/tensor_product.h>

namespace cellwise
{
  namespace kernels
  {
    /// Metric factors (c_x, c_y, c_z) of a box of edge lengths h.
    template <typename Number>
    CELLWISE_HOST_DEVICE inline void
    laplace_factors(const double h[3], Number c[3])
    {
      c[0] = Number(h[1] * h[2] / h[0]);
      c[1] = Number(h[0] * h[2] / h[1]);
      c[2] = Number(h[0] * h[1] / h[2]);
    }

    /// out = A_K u on one cell; @p scratch holds 4 n^3 entries, n = p+1.
    template <int p, typename Number, typename MatrixNumber>
    CELLWISE_HOST_DEVICE inline void
    apply_laplace_cell(const MatrixNumber *mass,
                       const MatrixNumber *stiffness,
                       const Number        c[3],
                       const Number       *u,
                       Number             *out,
                       Number             *scratch)
    {
      constexpr int n  = p + 1;
      constexpr int n3 = n * n * n;
      Number       *a  = scratch;
      Number       *b  = scratch + n3;
      Number       *w  = scratch + 2 * n3;
      Number       *v  = scratch + 3 * n3;

      apply_1d<n, 0, false, false>(mass, u, a);
      apply_1d<n, 0, false, false>(stiffness, u, b);

      apply_1d<n, 1, false, false>(mass, b, w);
      apply_1d<n, 1, false, false>(mass, a, v);
      for (int k = 0; k < n3; ++k)
        {
          w[k] *= c[0];
          v[k] *= c[2];
        }
      // b is free now: K_y a, added with its factor
      apply_1d<n, 1, false, false>(stiffness, a, b);
      for (int k = 0; k < n3; ++k)
        w[k] += c[1] * b[k];

      apply_1d<n, 2, false, false>(mass, w, out);
      apply_1d<n, 2, false, true>(stiffness, v, out);
    }

    /// Diagonal of A_K: c_x K_ii M_jj M_kk + c_y M_ii K_jj M_kk + c_z M_ii M_jj K_kk.
    template <typename Number, typename MatrixNumber>
    CELLWISE_HOST_DEVICE inline void
    laplace_cell_diagonal(const int n, const MatrixNumber *mass, const MatrixNumber *stiffness, const Number c[3], Number *diagonal)
    {
      for (int k = 0; k < n; ++k)
        for (int j = 0; j < n; ++j)
          for (int i = 0; i < n; ++i)
            {
              const Number mi = mass[i * n + i], mj = mass[j * n + j], mk = mass[k * n + k];
              const Number ki = stiffness[i * n + i], kj = stiffness[j * n + j], kk = stiffness[k * n + k];
              diagonal[(k * n + j) * n + i] = c[0] * ki * mj * mk + c[1] * mi * kj * mk + c[2] * mi * mj * kk;
            }
    }
  } // namespace kernels
} // namespace cellwise
