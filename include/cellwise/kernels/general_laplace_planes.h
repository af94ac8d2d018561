#pragma once
/**
 * @file
 * The general cell-wise Laplacian of kernels/general_laplace_cell.h for a
 * block of C cells in three phases, each a function of a thread index t, so
 * that the CUDA kernel (a __syncthreads between the phases:
 * source/operators/cuda_general_laplace_operator.cu) and a host loop over
 * the threads (tests/unit/general_laplace_planes_test.cc) run the same code.
 * n = p + 1 nodes and Gauss points per axis, n C threads:
 *
 *   phase        | thread t               | computes                                | work buffer
 *   -------------+------------------------+-----------------------------------------+--------------------
 *   A planes     | cell t % C, plane z =  | a = S_y S_x u, p_x = Dc_x a, p_y = Dc_y a | writes W0 = a,
 *                | t / C (all x, y)       | (u of its plane read from the vector)   | W1 = p_x, W2 = p_y
 *   B z-lines    | cell t % C, lines (x,  | g = (S_z p_x, S_z p_y, D_z a); F = G g   | reads W0..2, writes
 *                | y = t / C), x = 0..n-1 | at each point; a_x = S_zᵀ F_x,          | W0 = a_z, W1 = a_x,
 *                |                        | a_y = S_zᵀ F_y, a_z = D_zᵀ F_z          | W2 = a_y in place
 *   C planes     | as A                   | out = S_xᵀ S_yᵀ (a_z + Dc_xᵀ a_x + Dc_yᵀ a_y) | reads W0..2; out to
 *                |                        |                                         | the vector
 *
 * Dc(q, k) = ℓ_k'(x_q) is the collocation derivative on the Gauss points
 * (fe/lagrange_basis_1d.h: collocation_derivatives); D = Dc S, so that S_z
 * S_y D_x u = S_z Dc_x a and the transposes likewise: the operator of
 * general_laplace_cell.h with 14 one-dimensional contractions of n⁴ FMAs
 * per cell instead of 16. Why: the five-stage kernel (a thread per line, the
 * direction turned through shared memory after each stage) moves 20 fields
 * through shared memory per cell, about as many cycles as its arithmetic;
 * here a thread keeps a whole plane in registers, x and y need no exchange,
 * and only the turn to z and back goes through the buffer: 12 fields.
 *
 * Work buffer W: three fields of n³ C numbers; entry (x, y, z) of local
 * cell c at ((z n + y) n + x) C + c, so that the threads of a warp
 * (consecutive c) touch consecutive numbers.
 *
 * The functors: load(c, i) the vector's entry i = (z n + y) n + x of local
 * cell c (0 past the last cell); metric.line(c, x, y) prepares the z-line
 * (x, y) of cell c, metric.at(r, G) writes the six entries of G (xx, yy,
 * zz, xy, xz, yz) at its point r; store(c, i, value) takes the result.
 */

#include <cellwise/base/host_device.h>
#include <cellwise/kernels/general_laplace_cell.h>

namespace cellwise
{
  namespace kernels
  {
    /// The 1D tables of the phases at the n Gauss points, n × n row-major:
    /// S(q, i) = φ_i(x_q), D(q, i) = φ_i'(x_q), Dc(q, k) = ℓ_k'(x_q).
    template <int p, typename Number>
    struct PlaneTables
    {
      static constexpr int n = p + 1;
      Number               S[n * n], D[n * n], Dc[n * n];
    };

    /// Cells per block: 32 (a warp of cells), halved while the work buffer
    /// (3 n³ C numbers) would pass 46 KB: the static shared memory of a
    /// block is 48 KB, and the kernel keeps its small tables beside it.
    template <int p, typename Number>
    constexpr int
    plane_block_cells()
    {
      constexpr int n3 = (p + 1) * (p + 1) * (p + 1);
      int           c  = 32;
      while (c > 1 && 3 * n3 * c * int(sizeof(Number)) > 46 * 1024)
        c /= 2;
      return c;
    }

    /// Where entry (x, y, z) of local cell @p c lies in a field of the work buffer.
    template <int n, int C>
    CELLWISE_HOST_DEVICE constexpr int
    plane_index(const int c, const int x, const int y, const int z)
    {
      return ((z * n + y) * n + x) * C + c;
    }

    /// A plane [y][x] contracted along x: out[j][q] (+)= Σ_i M(q, i) in[j][i],
    /// with M(i, q) where @p transpose (M n × n row-major).
    template <int n, bool transpose, bool add, typename Number, typename MatrixNumber>
    CELLWISE_HOST_DEVICE inline void
    plane_along_x(const MatrixNumber *M, const Number (&in)[n][n], Number (&out)[n][n])
    {
      CELLWISE_UNROLL
      for (int j = 0; j < n; ++j)
        CELLWISE_UNROLL
        for (int q = 0; q < n; ++q)
          {
            Number sum = 0;
            CELLWISE_UNROLL
            for (int i = 0; i < n; ++i)
              sum += M[transpose ? i * n + q : q * n + i] * in[j][i];
            out[j][q] = add ? out[j][q] + sum : sum;
          }
    }

    /// A plane [y][x] contracted along y: out[q][j] (+)= Σ_i M(q, i) in[i][j].
    template <int n, bool transpose, bool add, typename Number, typename MatrixNumber>
    CELLWISE_HOST_DEVICE inline void
    plane_along_y(const MatrixNumber *M, const Number (&in)[n][n], Number (&out)[n][n])
    {
      CELLWISE_UNROLL
      for (int q = 0; q < n; ++q)
        CELLWISE_UNROLL
        for (int j = 0; j < n; ++j)
          {
            Number sum = 0;
            CELLWISE_UNROLL
            for (int i = 0; i < n; ++i)
              sum += M[transpose ? i * n + q : q * n + i] * in[i][j];
            out[q][j] = add ? out[q][j] + sum : sum;
          }
    }

    /// Field @p field of the work buffer at plane @p z of local cell @p c,
    /// into or out of a thread's registers.
    template <int n, int C, typename Number>
    CELLWISE_HOST_DEVICE inline void
    load_plane(const Number *W, const int field, const int c, const int z, Number (&plane)[n][n])
    {
      CELLWISE_UNROLL
      for (int y = 0; y < n; ++y)
        CELLWISE_UNROLL
        for (int x = 0; x < n; ++x)
          plane[y][x] = W[field * n * n * n * C + plane_index<n, C>(c, x, y, z)];
    }
    template <int n, int C, typename Number>
    CELLWISE_HOST_DEVICE inline void
    store_plane(Number *W, const int field, const int c, const int z, const Number (&plane)[n][n])
    {
      CELLWISE_UNROLL
      for (int y = 0; y < n; ++y)
        CELLWISE_UNROLL
        for (int x = 0; x < n; ++x)
          W[field * n * n * n * C + plane_index<n, C>(c, x, y, z)] = plane[y][x];
    }

    /// Phase A for thread @p t: the interpolated plane a and its collocation
    /// derivatives along x and y, into W0, W1, W2.
    template <int p, int C, typename Number, typename Load>
    CELLWISE_HOST_DEVICE inline void
    plane_gradients(const int t, const PlaneTables<p, Number> &tab, const Load &load, Number *W)
    {
      constexpr int n = p + 1;
      const int     c = t % C, z = t / C;
      Number        u[n][n], a[n][n];
      CELLWISE_UNROLL
      for (int y = 0; y < n; ++y)
        CELLWISE_UNROLL
        for (int x = 0; x < n; ++x)
          u[y][x] = load(c, (z * n + y) * n + x);
      plane_along_x<n, false, false>(tab.S, u, a); // S_x u
      plane_along_y<n, false, false>(tab.S, a, u); // S_y S_x u, in u's registers
      store_plane<n, C>(W, 0, c, z, u);
      plane_along_x<n, false, false>(tab.Dc, u, a);
      store_plane<n, C>(W, 1, c, z, a);
      plane_along_y<n, false, false>(tab.Dc, u, a);
      store_plane<n, C>(W, 2, c, z, a);
    }

    /**
     * One z-line at the points and back: g = (S_z to_gx, S_z to_gy, D_z
     * to_gz) at its n points, F = G g with metric.at(r, G) at point r, and
     * the fluxes integrated along z, a_x = S_zᵀ F_x, a_y = S_zᵀ F_y, a_z =
     * D_zᵀ F_z. Stage 3 of the line kernel (to_gx = S_y D_x u and so on) and
     * phase B here (to_gx = p_x, to_gy = p_y, to_gz = a).
     */
    template <int n, typename Number, typename MatrixNumber, typename LineMetric>
    CELLWISE_HOST_DEVICE inline void
    z_line_flux(const MatrixNumber *S,
                const MatrixNumber *D,
                const LineMetric   &metric,
                const Number (&to_gx)[n],
                const Number (&to_gy)[n],
                const Number (&to_gz)[n],
                Number (&ax)[n],
                Number (&ay)[n],
                Number (&az)[n])
    {
      Number fx[n], fy[n], fz[n];
      CELLWISE_UNROLL
      for (int r = 0; r < n; ++r)
        {
          Number gx = 0, gy = 0, gz = 0;
          CELLWISE_UNROLL
          for (int k = 0; k < n; ++k)
            {
              gx += S[r * n + k] * to_gx[k];
              gy += S[r * n + k] * to_gy[k];
              gz += D[r * n + k] * to_gz[k];
            }
          Number G[metric_entries];
          metric.at(r, G);
          fx[r] = G[0] * gx + G[3] * gy + G[4] * gz;
          fy[r] = G[3] * gx + G[1] * gy + G[5] * gz;
          fz[r] = G[4] * gx + G[5] * gy + G[2] * gz;
        }
      CELLWISE_UNROLL
      for (int k = 0; k < n; ++k)
        {
          Number sx = 0, sy = 0, sz = 0;
          CELLWISE_UNROLL
          for (int r = 0; r < n; ++r)
            {
              sx += S[r * n + k] * fx[r];
              sy += S[r * n + k] * fy[r];
              sz += D[r * n + k] * fz[r];
            }
          ax[k] = sx;
          ay[k] = sy;
          az[k] = sz;
        }
    }

    /// Phase B for thread @p t: its n z-lines from the gradients at the
    /// points to the fluxes integrated along z, in place.
    template <int p, int C, typename Number, typename LineMetric>
    CELLWISE_HOST_DEVICE inline void
    z_line_fluxes(const int t, const PlaneTables<p, Number> &tab, LineMetric &metric, Number *W)
    {
      constexpr int n  = p + 1;
      constexpr int n3 = n * n * n;
      const int     c = t % C, y = t / C;
      // one line at a time: unrolled, the compiler interleaves the lines and
      // runs out of registers (FP64, p = 3: 112 -> 255 with spills)
      CELLWISE_UNROLL_NONE
      for (int x = 0; x < n; ++x)
        {
          Number a[n], px[n], py[n];
          CELLWISE_UNROLL
          for (int k = 0; k < n; ++k)
            {
              const int at = plane_index<n, C>(c, x, y, k);
              a[k]         = W[at];
              px[k]        = W[n3 * C + at];
              py[k]        = W[2 * n3 * C + at];
            }
          metric.line(c, x, y);
          Number ax[n], ay[n], az[n];
          z_line_flux<n>(tab.S, tab.D, metric, px, py, a, ax, ay, az);
          CELLWISE_UNROLL
          for (int k = 0; k < n; ++k)
            {
              const int at       = plane_index<n, C>(c, x, y, k);
              W[at]              = az[k];
              W[n3 * C + at]     = ax[k];
              W[2 * n3 * C + at] = ay[k];
            }
        }
    }

    /// Phase C for thread @p t: the divergence in collocation form and the
    /// test functions' values, out of its plane.
    template <int p, int C, typename Number, typename Store>
    CELLWISE_HOST_DEVICE inline void
    plane_divergence(const int t, const PlaneTables<p, Number> &tab, const Number *W, const Store &store)
    {
      constexpr int n = p + 1;
      const int     c = t % C, z = t / C;
      Number        v[n][n], f[n][n];
      load_plane<n, C>(W, 0, c, z, v); // a_z
      load_plane<n, C>(W, 1, c, z, f);
      plane_along_x<n, true, true>(tab.Dc, f, v); // + Dc_xᵀ a_x
      load_plane<n, C>(W, 2, c, z, f);
      plane_along_y<n, true, true>(tab.Dc, f, v); // + Dc_yᵀ a_y
      plane_along_y<n, true, false>(tab.S, v, f); // S_yᵀ
      plane_along_x<n, true, false>(tab.S, f, v); // S_xᵀ
      CELLWISE_UNROLL
      for (int y = 0; y < n; ++y)
        CELLWISE_UNROLL
        for (int i = 0; i < n; ++i)
          store(c, (z * n + y) * n + i, v[y][i]);
    }
  } // namespace kernels
} // namespace cellwise
