#pragma once
/**
 * @file
 * Cell kernel of the general cell-wise Laplacian (003 §6: curved cells, a
 * coefficient at the quadrature points), shared by both backends:
 *
 *   (A_K u)_i = Σ_q ∇̂φ_i(q) · G(q) ∇̂u(q),   G(q) = w_q c(x_q) det J J^{-1} J^{-T},
 *
 * with the reference gradients ∇̂ at the n_q^3 Gauss points of the cell and
 * the symmetric 3 × 3 metric G(q), stored as (G_xx, G_yy, G_zz, G_xy, G_xz,
 * G_yz). Sum factorization with the 1D matrices S(q, i) = φ_i(x_q) and
 * D(q, i) = φ_i'(x_q) (n_q × n, row-major):
 *
 *   gradients (8 contractions)          | integration (8 contractions)
 *   s = S_x u,  d = D_x u               | a_x = S_z^T F_x, a_y = S_z^T F_y, a_z = D_z^T F_z
 *   ss = S_y s, sd = D_y s, ds = S_y d  | b_x = S_y^T a_x, b = S_y^T a_z + D_y^T a_y
 *   g_x = S_z ds, g_y = S_z sd,         | out = D_x^T b_x + S_x^T b
 *   g_z = D_z ss                        |
 *
 * (the first index of a 1D factor name is the direction of the first
 * contraction, x; F = G g at every point in between). With G diagonal and
 * G_dd(q) = w_q c_d this is the Cartesian operator of laplace_cell.h.
 */

#include <cellwise/base/host_device.h>
#include <cellwise/kernels/tensor_product.h>

namespace cellwise
{
  namespace kernels
  {
    /// Number of metric entries per quadrature point.
    constexpr int metric_entries = 6;

    /// out = A_K u for one cell of degree p with n_q Gauss points per axis;
    /// @p metric(q, G) writes the six entries of G at point q = q_x + n_q
    /// (q_y + n_q q_z). @p scratch holds 6 max(n, n_q)^3 entries.
    template <int p, int n_q, typename Number, typename MatrixNumber, typename Metric>
    CELLWISE_HOST_DEVICE inline void
    apply_general_laplace_cell(const MatrixNumber *S, const MatrixNumber *D, const Metric &metric, const Number *u, Number *out,
                               Number *scratch)
    {
      constexpr int n  = p + 1;
      constexpr int m  = n > n_q ? n : n_q;
      constexpr int m3 = m * m * m;
      constexpr int q3 = n_q * n_q * n_q;
      Number       *s  = scratch;          // S_x u          [n][n][n_q]
      Number       *d  = scratch + m3;     // D_x u
      Number       *ss = scratch + 2 * m3; // S_y s          [n][n_q][n_q]
      Number       *sd = scratch + 3 * m3; // D_y s
      Number       *ds = scratch + 4 * m3; // S_y d
      Number       *gx = scratch + 5 * m3; // gradients at the points, in place of the fluxes
      // x: [z][y][x] n×n×n -> n×n×n_q
      contract<n, n_q, 1, n * n, false, false>(S, u, s);
      contract<n, n_q, 1, n * n, false, false>(D, u, d);
      // y: n×n×n_q -> n×n_q×n_q
      contract<n, n_q, n_q, n, false, false>(S, s, ss);
      contract<n, n_q, n_q, n, false, false>(D, s, sd);
      contract<n, n_q, n_q, n, false, false>(S, d, ds);
      // z: n×n_q×n_q -> n_q^3; g_x into gx, g_y into s, g_z into d (both free)
      Number *gy = s, *gz = d;
      contract<n, n_q, n_q * n_q, 1, false, false>(S, ds, gx);
      contract<n, n_q, n_q * n_q, 1, false, false>(S, sd, gy);
      contract<n, n_q, n_q * n_q, 1, false, false>(D, ss, gz);
      for (int q = 0; q < q3; ++q)
        {
          Number G[metric_entries];
          metric(q, G);
          const Number x = gx[q], y = gy[q], z = gz[q];
          gx[q]          = G[0] * x + G[3] * y + G[4] * z;
          gy[q]          = G[3] * x + G[1] * y + G[5] * z;
          gz[q]          = G[4] * x + G[5] * y + G[2] * z;
        }
      // z back: n_q^3 -> n×n_q×n_q
      Number *ax = ss, *ay = sd, *az = ds;
      contract<n_q, n, n_q * n_q, 1, true, false>(S, gx, ax);
      contract<n_q, n, n_q * n_q, 1, true, false>(S, gy, ay);
      contract<n_q, n, n_q * n_q, 1, true, false>(D, gz, az);
      // y back: n×n_q×n_q -> n×n×n_q
      Number *bx = gx, *b = gy;
      contract<n_q, n, n_q, n, true, false>(S, ax, bx);
      contract<n_q, n, n_q, n, true, false>(S, az, b);
      contract<n_q, n, n_q, n, true, true>(D, ay, b);
      // x back: n×n×n_q -> n^3
      contract<n_q, n, 1, n * n, true, false>(D, bx, out);
      contract<n_q, n, 1, n * n, true, true>(S, b, out);
    }

    /**
     * Diagonal of A_K for the general kernel: (A_K)_ii = Σ_q Σ_de G_de(q)
     * ∂_dφ_i(q) ∂_eφ_i(q), a sum of six terms, each the transposed tensor
     * contraction of one metric entry with products of the 1D tables
     * (n_q × n): @p SS = S∘S, @p DD = D∘D, @p SD = S∘D entrywise. Term xx:
     * (SS_z ⊗ SS_y ⊗ DD_x)^T G_xx; xy (twice): (SS_z ⊗ SD_y ⊗ SD_x)^T G_xy;
     * and so on. @p scratch holds n_q^3 + 2 max(n, n_q)^3 entries.
     */
    template <int p, int n_q, typename Number, typename MatrixNumber, typename Metric>
    CELLWISE_HOST_DEVICE inline void
    general_laplace_cell_diagonal(const MatrixNumber *SS, const MatrixNumber *DD, const MatrixNumber *SD, const Metric &metric,
                                  Number *diagonal, Number *scratch)
    {
      constexpr int n  = p + 1;
      constexpr int m  = n > n_q ? n : n_q;
      constexpr int q3 = n_q * n_q * n_q;
      constexpr int n3 = n * n * n;
      Number       *g  = scratch;           // one metric entry at the points
      Number       *a  = scratch + q3;      // after z
      Number       *b  = a + m * m * m;     // after y
      for (int i = 0; i < n3; ++i)
        diagonal[i] = 0;
      // entry e: the tables along z, y, x and the weight (2 off the diagonal)
      for (int e = 0; e < metric_entries; ++e)
        {
          for (int q = 0; q < q3; ++q)
            {
              Number G[metric_entries];
              metric(q, G);
              g[q] = (e < 3 ? Number(1) : Number(2)) * G[e];
            }
          // which axes carry a derivative: xx, yy, zz, xy, xz, yz
          const bool dx = e == 0 || e == 3 || e == 4, dy = e == 1 || e == 3 || e == 5, dz = e == 2 || e == 4 || e == 5;
          const bool twice_x = e == 0, twice_y = e == 1, twice_z = e == 2;
          const MatrixNumber *tz = twice_z ? DD : (dz ? SD : SS);
          const MatrixNumber *ty = twice_y ? DD : (dy ? SD : SS);
          const MatrixNumber *tx = twice_x ? DD : (dx ? SD : SS);
          contract<n_q, n, n_q * n_q, 1, true, false>(tz, g, a);
          contract<n_q, n, n_q, n, true, false>(ty, a, b);
          contract<n_q, n, 1, n * n, true, true>(tx, b, diagonal);
        }
    }
  } // namespace kernels
} // namespace cellwise
