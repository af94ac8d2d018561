#pragma once
/**
 * @file
 * The metric of the general cell-wise Laplacian recomputed at a quadrature
 * point from the cell's mapping nodes instead of read from storage (003 §6;
 * doc/geometry.md: 3 (k+1)³ numbers per cell for a mapping of degree k
 * against 6 (p+1)³ stored, e.g. 24 against 384 for trilinear cells at p = 3),
 * shared by both backends:
 *
 *   J(q) = Σ_i X_i ⊗ ∇̂ψ_i(ξ_q),   G(q) = w_q c det J J⁻¹ J⁻ᵀ = w_q c cof(J)ᵀ cof(J) / det J,
 *
 * with the tensor Lagrange basis ψ of degree k of the mapping (CellMapping:
 * its Gauss–Lobatto nodes, x fastest) tabulated at the n_q Gauss points per
 * axis: MS(q, i) = ψ_i(ξ_q) and MD(q, i) = ψ_i'(ξ_q), n_q × (k+1) row-major
 * (make_mapping_tables, operators/laplace_metric.h). metric_from_nodes is a
 * Metric of apply_general_laplace_cell (kernels/general_laplace_cell.h), so a
 * cell is applied with no stored geometry but its nodes.
 */

#include <cellwise/base/host_device.h>

namespace cellwise
{
  namespace kernels
  {
    /// det J J⁻¹ J⁻ᵀ into @p metric as (xx, yy, zz, xy, xz, yz) for the
    /// row-major Jacobian @p J (row a: ∂x_a/∂ξ), by the cofactors; returns
    /// det J. The form make_laplace_metric stores, the same arithmetic.
    template <typename Number>
    CELLWISE_HOST_DEVICE inline Number
    inverse_metric(const Number *J, Number *metric)
    {
      // columns of J^{-T} det J: the cofactors
      const Number c00 = J[4] * J[8] - J[5] * J[7], c01 = J[5] * J[6] - J[3] * J[8], c02 = J[3] * J[7] - J[4] * J[6];
      const Number c10 = J[2] * J[7] - J[1] * J[8], c11 = J[0] * J[8] - J[2] * J[6], c12 = J[1] * J[6] - J[0] * J[7];
      const Number c20 = J[1] * J[5] - J[2] * J[4], c21 = J[2] * J[3] - J[0] * J[5], c22 = J[0] * J[4] - J[1] * J[3];
      const Number det = J[0] * c00 + J[1] * c01 + J[2] * c02;
      // (J^{-1})_{d a} = c_{a d} / det; (J^-1 J^-T)_{de} = Σ_a c_{ad} c_{ae} / det²
      // one division: the device kernels evaluate this at every point
      const Number inverse = Number(1) / det;
      const Number col0[3] = {c00, c10, c20}, col1[3] = {c01, c11, c21}, col2[3] = {c02, c12, c22};
      const auto   g = [inverse](const Number *cd, const Number *ce) { return (cd[0] * ce[0] + cd[1] * ce[1] + cd[2] * ce[2]) * inverse; };
      metric[0] = g(col0, col0);
      metric[1] = g(col1, col1);
      metric[2] = g(col2, col2);
      metric[3] = g(col0, col1);
      metric[4] = g(col0, col2);
      metric[5] = g(col1, col2);
      return det;
    }

    /// G at Gauss point @p q = q_x + n_q (q_y + n_q q_z) of a cell whose
    /// mapping of degree @p k has the (k+1)³ @p nodes (x, y, z of each, node
    /// by node, x fastest), taken relative to @p origin, with @p scale = w_q c
    /// (the tensor Gauss weight times the cell's constant coefficient); @p MS
    /// and @p MD as above. J(q) by a direct sum over the nodes. (Relative to
    /// the cell's first node J keeps the digits that the cell's position
    /// would take; each difference is rounded once, as where the caller
    /// forms them.)
    template <typename Number, typename MatrixNumber>
    CELLWISE_HOST_DEVICE inline void
    metric_from_nodes(const MatrixNumber *MS,
                      const MatrixNumber *MD,
                      const int           k,
                      const int           n_q,
                      const Number       *nodes,
                      const Number       *origin,
                      const Number        scale,
                      const int           q,
                      Number             *G)
    {
      const int m = k + 1, qx = q % n_q, qy = (q / n_q) % n_q, qz = q / (n_q * n_q);
      Number    J[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
      for (int iz = 0; iz < m; ++iz)
        for (int iy = 0; iy < m; ++iy)
          for (int ix = 0; ix < m; ++ix)
            {
              const Number sx = MS[qx * m + ix], sy = MS[qy * m + iy], sz = MS[qz * m + iz];
              const Number dx = MD[qx * m + ix] * sy * sz, dy = sx * MD[qy * m + iy] * sz, dz = sx * sy * MD[qz * m + iz];
              const Number *X = nodes + 3 * ((iz * m + iy) * m + ix);
              for (int a = 0; a < 3; ++a)
                {
                  const Number x = X[a] - origin[a];
                  J[3 * a] += x * dx;
                  J[3 * a + 1] += x * dy;
                  J[3 * a + 2] += x * dz;
                }
            }
      inverse_metric(J, G);
      for (int e = 0; e < 6; ++e)
        G[e] *= scale;
    }

    /// metric_from_nodes() of @p nodes as they are (already relative to the
    /// cell's first node): x − 0 is x, bit for bit.
    template <typename Number, typename MatrixNumber>
    CELLWISE_HOST_DEVICE inline void
    metric_from_nodes(const MatrixNumber *MS,
                      const MatrixNumber *MD,
                      const int           k,
                      const int           n_q,
                      const Number       *nodes,
                      const Number        scale,
                      const int           q,
                      Number             *G)
    {
      const Number origin[3] = {Number(0), Number(0), Number(0)};
      metric_from_nodes(MS, MD, k, n_q, nodes, origin, scale, q, G);
    }
  } // namespace kernels
} // namespace cellwise
