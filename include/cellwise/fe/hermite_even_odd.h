#pragma once
/**
 * @file
 * The two-axis even–odd decomposition of a Hermite cell matrix (001 §4.3).
 *
 * The signed reflection x → 1 − x maps the 1D basis functions onto each
 * other: value 0 ↔ value 1 (indices 0 ↔ 2) and derivative 0 ↔ −derivative 1
 * (1 ↔ 3; a derivative changes sign under reflection). On a box cell the
 * biharmonic cell matrix commutes with this reflection in each axis, so in
 * the basis of reflection-even and -odd combinations of the pairs it is block
 * diagonal. Splitting the x and y axes gives four parity sectors
 * s = p_x + 2 p_y of 16 DoFs each, local index l = j_x + 2 j_y + 4 i_z
 * (j ∈ {0, 1}: value or derivative of the pair (j, j + 2)), and four dense
 * 16 × 16 products instead of one 64 × 64 product.
 *
 * With a = 0 for the DoF j and a = 1 for its mirror j + 2, the sector
 * coordinate of parity p takes the sign sector_sign(p, j, a): + for a = 0,
 * for a = 1 − when exactly one of "odd parity" and "derivative" holds. The
 * 64 × 64 transform T (x̂ = T x) is the product of the x and y pair
 * transforms; T Tᵀ = 4 I, so
 *
 *   A x = Tᵀ E T x,  E = T A Tᵀ / 16  (block diagonal: the sectors E_s),
 *
 * which is what the kernels evaluate: forward_quad per group of four mirror
 * DoFs, the sector products with E_s, backward_quad.
 */

#include <cellwise/base/dense_matrix.h>
#include <cellwise/base/host_device.h>

#include <array>

namespace cellwise
{
  namespace hermite
  {
    /// Parity sectors of the two-axis decomposition, and DoFs per sector.
    constexpr unsigned int n_sectors        = 4;
    constexpr unsigned int dofs_per_sector  = 16;

    /// Sign of the mirror DoF (@p a = 1) or of the DoF itself (@p a = 0) of
    /// the pair of kind @p j (0: values, 1: derivatives) in the coordinate of
    /// parity @p p (0: even, 1: odd).
    CELLWISE_HOST_DEVICE constexpr int
    sector_sign(const unsigned int p, const unsigned int j, const unsigned int a)
    {
      return (a == 0 || p == j) ? 1 : -1;
    }

    /// The four sector coordinates (index s = p_x + 2 p_y) of the group of
    /// mirror DoFs x[(j_x + 2 a_x) + 4 (j_y + 2 a_y)] given as q[a_x + 2 a_y].
    template <typename Number>
    CELLWISE_HOST_DEVICE inline void
    forward_quad(const Number (&q)[4], const unsigned int jx, const unsigned int jy, Number (&sector)[4])
    {
      // x first: the even and odd combinations of the two x-pairs (a_y = 0, 1)
      const Number sx = jx == 0 ? Number(1) : Number(-1);
      const Number e0 = q[0] + sx * q[1], o0 = q[0] - sx * q[1];
      const Number e1 = q[2] + sx * q[3], o1 = q[2] - sx * q[3];
      const Number sy = jy == 0 ? Number(1) : Number(-1);
      sector[0] = e0 + sy * e1; // (even, even)
      sector[1] = o0 + sy * o1; // (odd, even)
      sector[2] = e0 - sy * e1; // (even, odd)
      sector[3] = o0 - sy * o1; // (odd, odd)
    }

    /// The transpose of forward_quad: the four values q[a_x + 2 a_y] of a
    /// group from its sector coordinates.
    template <typename Number>
    CELLWISE_HOST_DEVICE inline void
    backward_quad(const Number (&sector)[4], const unsigned int jx, const unsigned int jy, Number (&q)[4])
    {
      const Number sy = jy == 0 ? Number(1) : Number(-1);
      const Number e0 = sector[0] + sector[2], e1 = sy * (sector[0] - sector[2]);
      const Number o0 = sector[1] + sector[3], o1 = sy * (sector[1] - sector[3]);
      const Number sx = jx == 0 ? Number(1) : Number(-1);
      q[0] = e0 + o0;
      q[1] = sx * (e0 - o0);
      q[2] = e1 + o1;
      q[3] = sx * (e1 - o1);
    }

    /// Local cell index (i_x + 4 i_y + 16 i_z) of member (a_x, a_y) of the
    /// group (j_x, j_y, i_z).
    CELLWISE_HOST_DEVICE constexpr unsigned int
    group_member(const unsigned int jx, const unsigned int jy, const unsigned int iz, const unsigned int ax,
                 const unsigned int ay)
    {
      return (jx + 2 * ax) + 4 * (jy + 2 * ay) + 16 * iz;
    }

    /// The sector blocks E_s (16 × 16, index l = j_x + 2 j_y + 4 i_z) of
    /// E = T A Tᵀ / 16 for a 64 × 64 cell matrix @p A. Throws
    /// cellwise::Error when A couples two sectors by more than 1e-12 of its
    /// largest entry: it does not commute with the signed reflections (a cell
    /// that is not a box, or a matrix in another DoF order).
    std::array<DenseMatrix, n_sectors>
    even_odd_sectors(const DenseMatrix &A);

    /// y = A x through the sectors (the kernels' algorithm on the host; x
    /// and y hold 64 values in the local cell order).
    void
    apply_even_odd(const std::array<DenseMatrix, n_sectors> &sectors, const double *x, double *y);
  } // namespace hermite
} // namespace cellwise
