// Device vertex-patch smoother (000 §3, §5): the host's patches and patch
// inverses uploaded, two colour-step kernels.
//
// ---- generic kernel: one thread block per patch --------------------------
//
// The eight cells of the patch live in shared memory (lanes c = c_x + 2 c_y +
// 4 c_z as in mesh/vertex_patches.h); every stage is a loop of the block's
// threads over the entries, with a barrier between stages:
//
//   stage        | thread owns entry        | reads         | writes
//   -------------+--------------------------+---------------+------------------
//   load         | e = c n^3 + i (x fastest) | b, u (global) | Bv, U
//   Z            | e                        | U             | A1 = M_z u, B1 = K_z u
//   Y1           | e                        | A1, B1        | U  = c_y K_y A1 + c_z M_y B1
//   Y2           | e                        | A1            | B1 = c_x M_y A1
//   X            | e                        | U, B1         | Bv -= M_x U + K_x B1 (residual)
//   assemble     | I = patch-interior DoF   | Bv            | R (in A1): Σ of the copies
//   solve        | I, six contractions      | A1 <-> B1     | δ = Q Λ^{-1} Q^T R (in A1)
//   scatter      | e, non-rim copies        | A1            | u += δ (global)
//
// Same arithmetic as the host update_patches<p> up to the order of the sums.
// Thread count: 8 n^3 rounded up to a warp, at most 256. The four buffers of
// 8 n^3 entries are dynamic shared memory (over 48 KB from p = 5 in FP64).
//
// ---- register kernel (FP32, Q3, CellContiguous, uniform) -----------------
//
// One cell per thread; a warp holds four patches, a block four warps:
//
//   lane (in warp) = 8 q + 4 c_z + 2 c_y + c_x
//   ------------------------------------------------------------
//   q   = patch in the warp (patch 4 w + q of the colour, w the warp)
//   c_d = side of the cell along axis d (0 lower, 1 upper)
//   partner across axis d = lane ^ (1 << d)   (butterfly shuffle)
//
// Per thread, in registers:
//
//   step          | array (x fastest)                  | entries
//   --------------+------------------------------------+--------
//   load u        | v[z][y][x] nodal                   | 64
//   u^            | v = (S^-1)^⊗3 u   (cell eigenbasis) | 64
//   load b, b^    | r = (S^T)^⊗3 b                     | 64 + 64
//   residual      | r = r - D v  (D diagonal, 000 §6.2) | 64
//   forward x     | y[z][y][i]   i = own x-mode         | 48
//   forward y     | y[z][k][i]   k = own y-mode         | 36
//   forward z     | y[l][k][i]   l = own z-mode         | 27
//   scale         | y /= μ~_x + μ~_y + μ~_z (own octant)| 27
//   backward z    | d[z][k][i]   z = own z-node         | 36
//   backward y    | d[z][y][i]                         | 48
//   backward x    | d[z][y][x]   (zero at the rim)      | 64
//   copy cascade  | d faces 0 <- partner's faces 3     | 64
//   u += d, store | second read of u (L2), whole cells | 64
//
// Along each axis the lane of side a owns modes 3a..3a+2 of the 6 rows of
// F = [(gQ)^T; 0] (doc/vertex_patch_smoother.md §4); forward
//   y_a = Fo x_a + Fp x_ā   (x_a, x_ā: the own and the partner's 4-node pencils,
//                            rim columns of Fo and Fp zero),
// applied to the residual in the cell eigenbasis, x = S^-T x^, through the
// merged blocks Fo S^-T and Fp S^-T (000 §6.3); backward
//   d_a = Fo^T y_a + Gp^T y_ā,  Gp = rows of the partner's modes, own columns.
// Each lane computes its own copy of the correction at the DoFs it shares
// with other cells of the patch; the copy cascade (unify_copies) then gives
// every copy the value of the lowest lane holding it, so that u stays
// continuous (same butterfly partners, x then y then z, 48 shuffles).
// The four 3 x 4 blocks per (axis, side) and 1/(μ~_x + μ~_y + μ~_z) per modal
// octant sit in shared memory, read at the start of each stage; a warp reads
// two addresses per matrix entry (one per side), whose banks differ (odd
// stride 49; octant stride 27). S^-1, S^T and D are kernel parameters (the
// same for all lanes: constant-bank operands).
//
// Loads and stores are coalesced through shared memory (staging buffer of 32
// cells x 68 words per warp): in round r (0..15) lane l moves the float4
// piece (r 32 + l) % 16 of the cell of lane (r 32 + l) / 16, i.e. eight
// lanes read one 128-byte row of a cell; the owner then reads its cell as 16
// float4 at stride 68 words (conflict-free per quarter warp). Lanes of missing
// patches (patch count not a multiple of 4) compute on a copy of the warp's
// first patch and skip their stores, so that all shuffles see a full warp.
//
// ---- register kernel with the reflection symmetry (000 §6.4) -------------
//
// register_q3_symmetric: lane mapping, cp.async staging, copy cascade and
// shuffle partners as register_q3_async; the arithmetic uses that a patch of
// equal cells (a uniform level, the register kernels' condition) is mirror
// symmetric along each axis (J = reversal, derivation and checks in
// doc/cuda_vertex_patch_smoother.md):
//  - the reference K, M are persymmetric, so mode k of the cell eigenbasis is
//    even or odd, τ_k = (+, -, +, -): a pencil of S^-1 or S^T needs
//    e = (v0 + v3, v1 + v2), o = (v0 - v3, v1 - v2) and 2 terms per mode;
//  - the patch modes are even (3) or odd (2, plus the zero row of F), and
//    side 0 owns the even modes, side 1 the odd ones (register_q3 splits by
//    eigenvalue order instead), so that with σ_0 = +1, σ_1 = -1
//      B_{aā} = σ_a B_{aa} diag(τ),  F_{āa} = σ_ā F_{āā} J_4   (B = F S^-T).
//
//   step          | per pencil, per thread                       | instr.
//   --------------+----------------------------------------------+--------
//   S^-1, S^T     | e, o (4 add), out_k = e0|o0 + T'_k1 e1|o1     |  8 (16)
//   forward       | w = x^_a + σ_a τ∘x^_ā (partner by shuffle)    | 13 (24)
//                 | y_a = B'_aa w, pivot entry of each row 1     |
//   backward      | z_a = F_aa^T y_a (4 nodes, 0 at the rim)     | 16 (24)
//                 | d_a = z_a + σ_ā J z_ā (partner's z, shuffle) |
//
// (register_q3 in brackets.) The backward stage exchanges the partner's z (4
// values per pencil) instead of its y (3). The rim stays ±0 exactly: z is 0
// at the own rim (zero rim column of F_aa), and J maps the partner's rim onto
// it; so the copy cascade applies unchanged. Because z feeds a shuffle, the
// compiler no longer drops the backward work that the cascade overwrites (it
// did for register_q3); the kernel skips it explicitly: backward x on the
// faces y = 0, z = 0 (7 of 16 pencils), backward y on z = 0 (3 of 12), and in
// the cascade the 11 shuffles whose results the next axis overwrites
// (unify_copies_live: 37 of 48, same result bit for bit).
//
// Unit entries, whose factors move into diagonal tables: the rows of S^-1 and
// S^T are divided by their first entries s_k, t_k (T'), so that v' = v / s³
// and r^' = r^ / t³; r = t³ (r^' − D~ v') with D~ = D s³ / t³ (a kernel
// parameter like D), and each axis's share of the separable t³ goes into its
// forward block, B_aa diag(t). The rows of that block are divided by a pivot
// entry (q3_forward_pivot) and the pivots of the three axes multiply the
// inverse eigenvalue sums of the octant. This removes the first multiply of
// every transform pencil and of every forward mode: per thread (u != 0) about
// 1873 FP instructions against 2368 without it and 3363 for register_q3
// (PTX); 293 shuffles in the solve and cascade against 307. Tables per (axis,
// side), 29 words: B'_aa (12), F_aa (12), σ_a τ (4), σ_ā; then pivots/μ~ per
// octant in the parity order of the modes.

#include <cellwise/base/config.h>
#include <cellwise/base/cuda_check.h>
#include <cellwise/base/degree_dispatch.h>
#include <cellwise/multigrid/cuda_vertex_patch_smoother.h>
#include <cellwise/fe/generalized_eigenproblem.h>
#include <cellwise/fe/matrices_1d.h>
#include <cellwise/fe/patch_fast_diagonalization.h>
#include <cellwise/kernels/laplace_cell.h>
#include <cellwise/multigrid/vertex_patch_smoother.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <utility>
#include <type_traits>

namespace cellwise
{
  namespace cuda
  {
    namespace
    {
      template <int p, typename Number>
      struct PatchMatrices
      {
        Number mass[(p + 1) * (p + 1)];
        Number stiffness[(p + 1) * (p + 1)];
      };

      template <int p>
      constexpr int
      generic_threads()
      {
        constexpr int entries = 8 * (p + 1) * (p + 1) * (p + 1);
        constexpr int rounded = (entries + 31) / 32 * 32;
        return rounded < 256 ? rounded : 256;
      }

      template <int p, typename Number>
      constexpr std::size_t
      generic_shared_bytes()
      {
        return 4 * 8 * (p + 1) * (p + 1) * (p + 1) * sizeof(Number);
      }

      template <int p, typename Number, typename Layout>
      __global__ void __launch_bounds__(generic_threads<p>())
      generic_patch_kernel(const PatchMatrices<p, Number> matrices,
                           const Number *__restrict__ factors,
                           const Number *__restrict__ inverses,
                           const unsigned int *__restrict__ patch_cells,
                           const unsigned int *__restrict__ inverse_index,
                           const Number *__restrict__ b,
                           Number            *u,
                           const int          u_is_zero)
      {
        constexpr int n  = p + 1;
        constexpr int n3 = n * n * n;
        constexpr int m  = 2 * p - 1;
        constexpr int m3 = m * m * m;
        constexpr int E  = 8 * n3;
        constexpr int T  = generic_threads<p>();

        extern __shared__ __align__(16) unsigned char shared_raw[];
        Number *U  = reinterpret_cast<Number *>(shared_raw);
        Number *Bv = U + E;
        Number *A1 = Bv + E;
        Number *B1 = A1 + E;
        __shared__ unsigned int cells[8];
        __shared__ Number       c[24];

        const unsigned int patch = blockIdx.x;
        const int          tid   = threadIdx.x;
        if (tid < 8)
          {
            cells[tid] = patch_cells[8 * static_cast<std::size_t>(patch) + tid];
            for (int d = 0; d < 3; ++d)
              c[3 * tid + d] = factors[3 * static_cast<std::size_t>(cells[tid]) + d];
          }
        __syncthreads();

        for (int e = tid; e < E; e += T)
          {
            const std::size_t index = Layout::index(cells[e / n3], e % n3, n3);
            Bv[e]                   = b[index];
            if (!u_is_zero)
              U[e] = u[index];
          }
        __syncthreads();

        const Number *M = matrices.mass;
        const Number *K = matrices.stiffness;
        if (!u_is_zero)
          {
            // Z: along z (stride n^2)
            for (int e = tid; e < E; e += T)
              {
                const int     i = e % n3, iz = i / (n * n);
                const Number *x = U + (e - iz * n * n);
                Number        a = 0, bb = 0;
#pragma unroll
                for (int l = 0; l < n; ++l)
                  {
                    a += M[iz * n + l] * x[l * n * n];
                    bb += K[iz * n + l] * x[l * n * n];
                  }
                A1[e] = a;
                B1[e] = bb;
              }
            __syncthreads();
            // Y1: W = c_y K_y A1 + c_z M_y B1 into U
            for (int e = tid; e < E; e += T)
              {
                const int     cell = e / n3, iy = (e % n3) / n % n;
                const int     base = e - iy * n;
                Number        ka = 0, mb = 0;
#pragma unroll
                for (int l = 0; l < n; ++l)
                  {
                    ka += K[iy * n + l] * A1[base + l * n];
                    mb += M[iy * n + l] * B1[base + l * n];
                  }
                U[e] = c[3 * cell + 1] * ka + c[3 * cell + 2] * mb;
              }
            __syncthreads();
            // Y2: V = c_x M_y A1 into B1 (B1 is no longer read)
            for (int e = tid; e < E; e += T)
              {
                const int cell = e / n3, iy = (e % n3) / n % n;
                const int base = e - iy * n;
                Number    ma   = 0;
#pragma unroll
                for (int l = 0; l < n; ++l)
                  ma += M[iy * n + l] * A1[base + l * n];
                B1[e] = c[3 * cell + 0] * ma;
              }
            __syncthreads();
            // X: Bv -= M_x W + K_x V
            for (int e = tid; e < E; e += T)
              {
                const int ix = e % n, base = e - ix;
                Number    s  = 0;
#pragma unroll
                for (int l = 0; l < n; ++l)
                  s += M[ix * n + l] * U[base + l] + K[ix * n + l] * B1[base + l];
                Bv[e] -= s;
              }
            __syncthreads();
          }

        // assemble: patch node I_d + 1 (0..2p) is local node I_d + 1 of side 0
        // (if <= p) and local node I_d + 1 - p of side 1 (if >= p)
        Number *R = A1, *S = B1;
        for (int I = tid; I < m3; I += T)
          {
            const int J[3] = {I % m + 1, I / m % m + 1, I / (m * m) + 1};
            Number    sum  = 0;
            for (int lane = 0; lane < 8; ++lane)
              {
                int  local[3];
                bool inside = true;
                for (int d = 0; d < 3; ++d)
                  {
                    local[d] = ((lane >> d) & 1) ? J[d] - p : J[d];
                    inside   = inside && local[d] >= 0 && local[d] <= p;
                  }
                if (inside)
                  sum += Bv[lane * n3 + (local[2] * n + local[1]) * n + local[0]];
              }
            R[I] = sum;
          }
        __syncthreads();

        // solve: (Q_z Q_y Q_x) Λ^{-1} (Q_z Q_y Q_x)^T R, Q_d = m x m row-major
        const Number *inverse = inverses + static_cast<std::size_t>(inverse_index[patch]) * (3 * m * m + m3);
        auto contract = [&](const int direction, const bool transpose, const Number *in, Number *out) {
          const int stride = direction == 0 ? 1 : (direction == 1 ? m : m * m);
          const Number *Q  = inverse + direction * m * m;
          for (int I = tid; I < m3; I += T)
            {
              const int i    = I / stride % m;
              const int base = I - i * stride;
              Number    sum  = 0;
#pragma unroll
              for (int j = 0; j < m; ++j)
                sum += (transpose ? Q[j * m + i] : Q[i * m + j]) * in[base + j * stride];
              out[I] = sum;
            }
          __syncthreads();
        };
        contract(0, true, R, S);
        contract(1, true, S, R);
        contract(2, true, R, S);
        for (int I = tid; I < m3; I += T)
          S[I] *= inverse[3 * m * m + I];
        __syncthreads();
        contract(0, false, S, R);
        contract(1, false, R, S);
        contract(2, false, S, R);

        // scatter into the non-rim copies of every lane
        for (int e = tid; e < E; e += T)
          {
            const int lane = e / n3, i = e % n3;
            const int local[3] = {i % n, i / n % n, i / (n * n)};
            int       I[3];
            bool      inside = true;
            for (int d = 0; d < 3; ++d)
              {
                I[d]   = ((lane >> d) & 1) * p + local[d] - 1;
                inside = inside && I[d] >= 0 && I[d] < m;
              }
            if (inside)
              u[Layout::index(cells[lane], i, n3)] += R[(I[2] * m + I[1]) * m + I[0]];
          }
      }

      template <int p, typename Number, typename Layout>
      void
      launch_generic(const std::vector<double> &mass,
                     const std::vector<double> &stiffness,
                     const Number              *factors,
                     const Number              *inverses,
                     const unsigned int        *patch_cells,
                     const unsigned int        *inverse_index,
                     const unsigned int         n_patches,
                     const Number              *b,
                     Number                    *u,
                     const bool                 u_is_zero)
      {
        PatchMatrices<p, Number> matrices;
        for (int k = 0; k < (p + 1) * (p + 1); ++k)
          {
            matrices.mass[k]      = static_cast<Number>(mass[k]);
            matrices.stiffness[k] = static_cast<Number>(stiffness[k]);
          }
        constexpr std::size_t bytes = generic_shared_bytes<p, Number>();
        if (bytes > 48 * 1024)
          CELLWISE_CUDA_CHECK(cudaFuncSetAttribute(generic_patch_kernel<p, Number, Layout>,
                                                   cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
        generic_patch_kernel<p, Number, Layout><<<n_patches, generic_threads<p>(), bytes>>>(
          matrices, factors, inverses, patch_cells, inverse_index, b, u, u_is_zero ? 1 : 0);
        CELLWISE_CUDA_CHECK_LAUNCH();
      }

      // ---------------------------------------------------------------
      // register kernel

      constexpr int          q3_block       = 128;
      constexpr int          q3_stage       = 68;  // words per staged cell: 64 + 4 (float4-aligned pad)
      constexpr int          q3_axis_stride = 49;  // words per (axis, side): Fo S^-T, Fp S^-T, Fo, Gp (48) + 1
      constexpr int          q3_inverse_at  = 296; // first word of the 8 x 27 inverse eigenvalue sums
      constexpr int          q3_table_size  = q3_inverse_at + 8 * 27;
      constexpr unsigned int full_mask      = 0xffffffffu;

      /// The cell eigenbasis (000 §6.2): K S = M S λ on the reference cell,
      /// S^T M S = I, so that b - A_K u = (S^-T)^⊗3 [(S^T)^⊗3 b - D (S^-1)^⊗3 u]
      /// with D = c_x λ_i + c_y λ_j + c_z λ_k diagonal.
      struct Q3Matrices
      {
        float s_inverse[16];   ///< S^-1, row-major
        float s_transpose[16]; ///< S^T, row-major
        float diagonal[64];    ///< D at i + 4 j + 16 k
      };

      /// v = the 64 values of the cell of this lane; coalesced through @p stage.
      template <bool use_ldg>
      __device__ __forceinline__ void
      load_cells(const float *src, const unsigned int cell, float *stage, const int lane, float (&v)[64])
      {
        // Keep the loads here: hoisted above the arithmetic (to hide their
        // latency) they would hold 64 more registers through it and spill.
        asm volatile("" ::: "memory");
        float4 x[16];
#pragma unroll
        for (int r = 0; r < 16; ++r)
          {
            const int          idx   = r * 32 + lane;
            const unsigned int other = __shfl_sync(full_mask, cell, idx >> 4);
            const float4      *row   = reinterpret_cast<const float4 *>(src + static_cast<std::size_t>(other) * 64) + (idx & 15);
            if constexpr (use_ldg)
              x[r] = __ldg(row);
            else
              x[r] = *row;
          }
#pragma unroll
        for (int r = 0; r < 16; ++r)
          {
            const int idx = r * 32 + lane;
            *reinterpret_cast<float4 *>(stage + (idx >> 4) * q3_stage + (idx & 15) * 4) = x[r];
          }
        __syncwarp();
#pragma unroll
        for (int k = 0; k < 16; ++k)
          {
            const float4 y = *reinterpret_cast<const float4 *>(stage + lane * q3_stage + 4 * k);
            v[4 * k + 0]   = y.x;
            v[4 * k + 1]   = y.y;
            v[4 * k + 2]   = y.z;
            v[4 * k + 3]   = y.w;
          }
        __syncwarp();
      }

      /// Store the 64 values of every lane's cell (only lanes with @p valid).
      __device__ __forceinline__ void
      store_cells(float *dst, const unsigned int cell, const bool valid, float *stage, const int lane, const float (&v)[64])
      {
#pragma unroll
        for (int k = 0; k < 16; ++k)
          *reinterpret_cast<float4 *>(stage + lane * q3_stage + 4 * k) =
            make_float4(v[4 * k + 0], v[4 * k + 1], v[4 * k + 2], v[4 * k + 3]);
        __syncwarp();
#pragma unroll
        for (int r = 0; r < 16; ++r)
          {
            const int          idx   = r * 32 + lane;
            const unsigned int other = __shfl_sync(full_mask, cell, idx >> 4);
            const bool         ok    = __shfl_sync(full_mask, valid ? 1 : 0, idx >> 4) != 0;
            const float4       y     = *reinterpret_cast<const float4 *>(stage + (idx >> 4) * q3_stage + (idx & 15) * 4);
            if (ok)
              reinterpret_cast<float4 *>(dst + static_cast<std::size_t>(other) * 64)[idx & 15] = y;
          }
        __syncwarp();
      }

      /// v <- (T ⊗ T ⊗ T) v in place, T 4 x 4 row-major (parameter bank).
      __device__ __forceinline__ void
      transform_cube(const float *T, float (&v)[64])
      {
#pragma unroll
        for (int axis = 0; axis < 3; ++axis)
          {
            const int stride = axis == 0 ? 1 : (axis == 1 ? 4 : 16);
#pragma unroll
            for (int q = 0; q < 16; ++q)
              {
                // the q-th pencil along this axis: base index without the axis digit
                const int base = axis == 0 ? 4 * q : (axis == 1 ? (q / 4) * 16 + q % 4 : q);
                float     out[4];
#pragma unroll
                for (int k = 0; k < 4; ++k)
                  {
                    float sum = T[4 * k] * v[base];
#pragma unroll
                    for (int i = 1; i < 4; ++i)
                      sum = fmaf(T[4 * k + i], v[base + i * stride], sum);
                    out[k] = sum;
                  }
#pragma unroll
                for (int k = 0; k < 4; ++k)
                  v[base + k * stride] = out[k];
              }
          }
      }

      /// Forward transform of @p count pencils along one axis: pencil q has its
      /// 4 nodes at in[base(q) + j stride_in]; out[base_out(q) + i stride_out]
      /// gets the 3 own modes. T points at (Fo, Fp, Gp) of this axis and side.
      template <int count, int stride_in, int stride_out, int axis_mask, typename InIndex, typename OutIndex>
      __device__ __forceinline__ void
      forward_axis(const float *table, const float *in, float *out, InIndex in_base, OutIndex out_base)
      {
        // The blocks are read at the start of each stage through volatile, so
        // that the compiler cannot keep the blocks of all six stages live
        // across the kernel (108 registers: it spilled).
        float T[24];
#pragma unroll
        for (int k = 0; k < 24; ++k)
          T[k] = static_cast<const volatile float *>(table)[k];
#pragma unroll
        for (int q = 0; q < count; ++q)
          {
            float own[4], other[4];
#pragma unroll
            for (int j = 0; j < 4; ++j)
              {
                own[j]   = in[in_base(q) + j * stride_in];
                other[j] = __shfl_xor_sync(full_mask, own[j], axis_mask);
              }
#pragma unroll
            for (int i = 0; i < 3; ++i)
              {
                float s = T[4 * i] * own[0];
#pragma unroll
                for (int j = 1; j < 4; ++j)
                  s = fmaf(T[4 * i + j], own[j], s);
#pragma unroll
                for (int j = 0; j < 4; ++j)
                  s = fmaf(T[12 + 4 * i + j], other[j], s);
                out[out_base(q) + i * stride_out] = s;
              }
          }
      }

      /// Backward transform: pencil q has its 3 own modes at in[base + i
      /// stride_in]; out gets the 4 nodes d_a = Fo^T y_a + Gp^T y_ā.
      template <int count, int stride_in, int stride_out, int axis_mask, typename InIndex, typename OutIndex>
      __device__ __forceinline__ void
      backward_axis(const float *table, const float *in, float *out, InIndex in_base, OutIndex out_base)
      {
        float T[36]; // Fo (0..11), Gp (24..35) from words 24..47; 12..23 unused
#pragma unroll
        for (int k = 0; k < 12; ++k)
          {
            T[k]      = static_cast<const volatile float *>(table)[24 + k];
            T[24 + k] = static_cast<const volatile float *>(table)[36 + k];
          }
#pragma unroll
        for (int q = 0; q < count; ++q)
          {
            float own[3], other[3];
#pragma unroll
            for (int i = 0; i < 3; ++i)
              {
                own[i]   = in[in_base(q) + i * stride_in];
                other[i] = __shfl_xor_sync(full_mask, own[i], axis_mask);
              }
#pragma unroll
            for (int j = 0; j < 4; ++j)
              {
                float s = T[j] * own[0];
#pragma unroll
                for (int i = 1; i < 3; ++i)
                  s = fmaf(T[4 * i + j], own[i], s);
#pragma unroll
                for (int i = 0; i < 3; ++i)
                  s = fmaf(T[24 + 4 * i + j], other[i], s);
                out[out_base(q) + j * stride_out] = s;
              }
          }
      }

      /// Copy cascade: make the copies of every shared patch DoF in the eight
      /// lanes of a patch bitwise equal to the copy of the lowest lane holding
      /// it. Each lane computes its own cell's copy of the correction, so
      /// copies differ by FP32 rounding; added to a continuous u they would
      /// make it discontinuous. Axis by axis (x, y, z), with the partners of
      /// the exchange: the face i_d = 3 of the lower lane (c_d = 0) and the
      /// face i_d = 0 of the upper lane (c_d = 1) are the two copies of the
      /// DoFs between them, and the upper lane takes the lower lane's values.
      /// After x the copies across x agree; y then copies whole faces
      /// including their x-face nodes, so the four copies on an edge and,
      /// after z, the eight of the centre vertex agree (the DSS cascade with
      /// "take the lower" instead of "sum").
      ///
      /// No selects: every lane sends its face i_d = 3 and overwrites its face
      /// i_d = 0 with what it receives. In the lower lane both are no-ops on
      /// values: its face 0 is its rim along d and receives the upper lane's
      /// rim (face 3). At the rim d is ±0 exactly (the rim columns of the Fo
      /// and Gp tables are 0, see reinit), and the copies keep it so: a rim
      /// node receives a rim node of
      /// the partner, which has the same rim along the other axes. The rim
      /// DoFs of the shared face are copied too (16 shuffles per axis instead
      /// of the 9 interior ones): skipping them would need lane-dependent
      /// indices, i.e. selects, which cost more issue slots than the shuffles.
      /// 48 shuffles per thread against 259 in the solve.
      __device__ __forceinline__ void
      unify_copies(float (&d)[64])
      {
#pragma unroll
        for (int q = 0; q < 16; ++q) // x: (y, z) = (q % 4, q / 4)
          d[4 * q] = __shfl_xor_sync(full_mask, d[4 * q + 3], 1);
#pragma unroll
        for (int q = 0; q < 16; ++q) // y: (x, z) = (q % 4, q / 4)
          d[16 * (q / 4) + q % 4] = __shfl_xor_sync(full_mask, d[16 * (q / 4) + 12 + q % 4], 2);
#pragma unroll
        for (int q = 0; q < 16; ++q) // z: (x, y) = (q % 4, q / 4)
          d[q] = __shfl_xor_sync(full_mask, d[48 + q], 4);
      }

      /// d = the correction of this lane's cell from its residual r in the
      /// cell eigenbasis: forward F (merged), 1/μ~, backward F^T; the partner
      /// across axis d is lane ^ (1 << d). The copies of a shared DoF in the
      /// patch's lanes are made equal (unify_copies).
      __device__ __forceinline__ void
      solve_in_registers(const float *table, const int c, const float (&r)[64], float (&d)[64])
      {
        const float *Tx = table + (0 + (c & 1)) * q3_axis_stride;
        const float *Ty = table + (2 + ((c >> 1) & 1)) * q3_axis_stride;
        const float *Tz = table + (4 + ((c >> 2) & 1)) * q3_axis_stride;

        // forward: x over the 16 (y, z) pencils, y over the 12 (x-mode, z),
        // z over the 9 (x-mode, y-mode)
        float y1[48], y2[36], y3[27];
        forward_axis<16, 1, 1, 1>(Tx, r, y1, [](int q) { return 4 * q; }, [](int q) { return 3 * q; });
        forward_axis<12, 3, 3, 2>(Ty, y1, y2, [](int q) { return (q / 3) * 12 + q % 3; },
                                  [](int q) { return (q / 3) * 9 + q % 3; });
        forward_axis<9, 9, 9, 4>(Tz, y2, y3, [](int q) { return q; }, [](int q) { return q; });
        const float *inverse = table + q3_inverse_at + c * 27;
#pragma unroll
        for (int k = 0; k < 27; ++k)
          y3[k] *= inverse[k];
        // backward: z, y, x
        backward_axis<9, 9, 9, 4>(Tz, y3, y2, [](int q) { return q; }, [](int q) { return q; });
        backward_axis<12, 3, 3, 2>(Ty, y2, y1, [](int q) { return (q / 3) * 9 + q % 3; },
                                   [](int q) { return (q / 3) * 12 + q % 3; });
        backward_axis<16, 1, 1, 1>(Tx, y1, d, [](int q) { return 3 * q; }, [](int q) { return 4 * q; });
        unify_copies(d);
      }

      /// One colour step (or, with @p stub, only its loads and stores).
      template <bool stub>
      __global__ void __launch_bounds__(q3_block)
      register_q3_kernel(const Q3Matrices mats,
                         const float *__restrict__ tables,
                         const unsigned int *__restrict__ patch_cells,
                         const float *__restrict__ b,
                         float             *u,
                         const unsigned int n_patches,
                         const int          u_is_zero,
                         const float        zero)
      {
        __shared__ __align__(16) float stage_all[q3_block / 32][32 * q3_stage];
        __shared__ float                table[q3_table_size];
        for (int i = threadIdx.x; i < q3_table_size; i += q3_block)
          table[i] = tables[i];
        __syncthreads();

        const int          lane        = threadIdx.x & 31;
        const int          warp        = threadIdx.x >> 5;
        const unsigned int first_patch = (blockIdx.x * (q3_block / 32) + warp) * 4;
        if (first_patch >= n_patches)
          return; // the whole warp: no barrier follows
        unsigned int patch = first_patch + (lane >> 3);
        const bool   valid = patch < n_patches;
        if (!valid)
          patch = first_patch;
        const int          c    = lane & 7;
        const unsigned int cell = patch_cells[8 * static_cast<std::size_t>(patch) + c];
        float             *stage = stage_all[warp];

        float r[64];
        if constexpr (stub)
          {
            // the kernel's order: u, b, second read of u, store
            float v[64];
            if (!u_is_zero)
              {
                load_cells<false>(u, cell, stage, lane, v);
                load_cells<true>(b, cell, stage, lane, r);
#pragma unroll
                for (int k = 0; k < 64; ++k)
                  r[k] = fmaf(zero, v[k], r[k]);
              }
            else
              load_cells<true>(b, cell, stage, lane, r);
            load_cells<false>(u, cell, stage, lane, v);
#pragma unroll
            for (int k = 0; k < 64; ++k)
              v[k] = fmaf(zero, r[k], v[k]);
            store_cells(u, cell, valid, stage, lane, v);
            return;
          }
        else
          {
            // residual in the cell eigenbasis: r^ = S^T⊗3 b - D S^-1⊗3 u; the
            // factor S^-T⊗3 back to nodal values is merged into the forward
            // blocks (Fo S^-T, Fp S^-T)
            if (!u_is_zero)
              {
                float v[64];
                load_cells<false>(u, cell, stage, lane, v);
                transform_cube(mats.s_inverse, v);
                load_cells<true>(b, cell, stage, lane, r);
                transform_cube(mats.s_transpose, r);
#pragma unroll
                for (int k = 0; k < 64; ++k)
                  r[k] = fmaf(-mats.diagonal[k], v[k], r[k]);
              }
            else
              {
                load_cells<true>(b, cell, stage, lane, r);
                transform_cube(mats.s_transpose, r);
              }

            float d[64];
            solve_in_registers(table, c, r, d);

            // u += d with whole-cell stores; u = 0 needs no second read
            if (!u_is_zero)
              {
                float v[64];
                load_cells<false>(u, cell, stage, lane, v);
#pragma unroll
                for (int k = 0; k < 64; ++k)
                  d[k] += v[k];
              }
            store_cells(u, cell, valid, stage, lane, d);
          }
      }

      // ---- variant with asynchronous copies (cp.async) ------------------
      //
      // Same lane mapping and arithmetic; the staging differs: u and b~ of the
      // warp's 32 cells are copied global -> shared by cp.async (no registers
      // in flight), both issued at the start, u waited for first so that the
      // copy of b~ overlaps S^-1⊗3 u. u stays in shared memory and serves as
      // the "second read" at the end: the updated cell is written back into
      // its slot and stored from there in whole rows. Two buffers of 32 x 68
      // words per warp; blocks of two warps keep them in static shared memory.

      constexpr int q3_async_warps = 2;
      /// Six blocks of two warps per multiprocessor: 6 x 36 KB of staging and
      /// tables fit its 227 KB, and at most 168 registers per thread fill its
      /// 64 K registers (the kernels need 154-168). The bound keeps the traffic
      /// stub at the occupancy of the kernels it is the reference for (left
      /// alone, the compiler gave a version of it 226 registers).
      constexpr int q3_async_blocks_per_multiprocessor = 6;

      /// Issue the copies of the 32 cells of the warp into @p stage (same
      /// rounds as load_cells) and commit them as one group.
      __device__ __forceinline__ void
      copy_cells_async(const float *src, const unsigned int cell, float *stage, const int lane)
      {
#pragma unroll
        for (int r = 0; r < 16; ++r)
          {
            const int          idx   = r * 32 + lane;
            const unsigned int other = __shfl_sync(full_mask, cell, idx >> 4);
            const float       *from  = src + static_cast<std::size_t>(other) * 64 + (idx & 15) * 4;
            const unsigned int to =
              static_cast<unsigned int>(__cvta_generic_to_shared(stage + (idx >> 4) * q3_stage + (idx & 15) * 4));
            asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(to), "l"(from) : "memory");
          }
        asm volatile("cp.async.commit_group;\n" ::: "memory");
      }

      /// Wait until at most @p pending groups of this thread are in flight,
      /// then make the warp's copies visible to all its lanes.
      template <int pending>
      __device__ __forceinline__ void
      wait_copies()
      {
        asm volatile("cp.async.wait_group %0;\n" ::"n"(pending) : "memory");
        __syncwarp();
      }

      __device__ __forceinline__ void
      read_own(const float *stage, const int lane, float (&v)[64])
      {
#pragma unroll
        for (int k = 0; k < 16; ++k)
          {
            const float4 y = *reinterpret_cast<const float4 *>(stage + lane * q3_stage + 4 * k);
            v[4 * k + 0]   = y.x;
            v[4 * k + 1]   = y.y;
            v[4 * k + 2]   = y.z;
            v[4 * k + 3]   = y.w;
          }
      }

      // ---- variant with the reflection symmetry (000 §6.4) ---------------
      //
      // Staging as register_q3_async; the arithmetic in the symmetric forms
      // (header comment, doc/cuda_vertex_patch_smoother.md). Own tables:
      // the patch modes are split between the sides by parity, not by
      // eigenvalue order, so the blocks and the octants of 1/μ~ differ from
      // those of the other register kernels.

      /// The entry of row i (patch mode i of the lane's side) of the forward
      /// block B_aa that the tables divide out: a column where the row of
      /// side 0 and that of side 1 (patch modes 0|1, 2|3, 4|zero row of F)
      /// are both well away from zero; column 0, the constant cell mode, is
      /// 0 for mode 3, so no single column does. Checked at set-up (the
      /// variant is unavailable otherwise).
      __host__ __device__ constexpr int
      q3_forward_pivot(const int i)
      {
        return i == 0 ? 0 : (i == 1 ? 1 : 3);
      }
      constexpr int q3_sym_axis_stride = 29; // words per (axis, side): B_aa, F_aa (12 each), σ_a τ (4), σ_ā
      constexpr int q3_sym_inverse_at  = 6 * q3_sym_axis_stride; // 8 x 27 inverse eigenvalue sums (parity order)
      constexpr int q3_sym_table_size  = q3_sym_inverse_at + 8 * 27;
      /// Offset of the symmetric tables in the smoother's register_tables_
      /// (after the tables of the other register kernels and the 96 words of
      /// S^-1, S^T, D kept on the host).
      constexpr int q3_symmetric_tables_at = q3_table_size + 96;
      /// Then the kernel parameters of register_q3_symmetric (96 words, used
      /// on the host): S^-1 and S^T with row k divided by its first entry
      /// (s_k, t_k), and D~ = D (s ⊗ s ⊗ s) / (t ⊗ t ⊗ t). With v' = v / s³
      /// and r^' = r^ / t³ from the scaled transforms, r = r^ - D v =
      /// t³ (r^' - D~ v'); the factor t³ is separable and each forward block
      /// takes its axis's share, B_aa diag(t) (column k times t_k).
      constexpr int q3_symmetric_matrices_at = q3_symmetric_tables_at + q3_sym_table_size;

      /// v <- (T ⊗ T ⊗ T) v in place for T = S^-1 or S^T with every row
      /// divided by its first entry (row-major, parameter bank): rows 0, 2 are
      /// even and rows 1, 3 odd under the reversal of the 4 nodes, so
      /// out_k = (v0 ± v3) + T_k1 (v1 ± v2) with T_k0 = 1; only the second
      /// entry of each row is read. The factors T_k0 dropped here are put back
      /// in the diagonal and the forward blocks (symmetric_matrices_at).
      /// 8 instructions per pencil (12 with T_k0).
      __device__ __forceinline__ void
      transform_cube_symmetric(const float *T, float (&v)[64])
      {
#pragma unroll
        for (int axis = 0; axis < 3; ++axis)
          {
            const int stride = axis == 0 ? 1 : (axis == 1 ? 4 : 16);
#pragma unroll
            for (int q = 0; q < 16; ++q)
              {
                const int   base = axis == 0 ? 4 * q : (axis == 1 ? (q / 4) * 16 + q % 4 : q);
                const float v0 = v[base], v1 = v[base + stride], v2 = v[base + 2 * stride], v3 = v[base + 3 * stride];
                const float e0 = v0 + v3, e1 = v1 + v2, o0 = v0 - v3, o1 = v1 - v2;
                v[base]              = fmaf(T[1], e1, e0);
                v[base + stride]     = fmaf(T[5], o1, o0);
                v[base + 2 * stride] = fmaf(T[9], e1, e0);
                v[base + 3 * stride] = fmaf(T[13], o1, o0);
              }
          }
      }

      /// Forward transform in the symmetric form: with the partner's pencil
      /// x^_ā (shuffle), w = x^_a + σ_a τ∘x^_ā and y_a = B_aa w (the partner's
      /// block B_aā = σ_a B_aa diag(τ) is folded into w). 16 instructions per
      /// pencil against 24. @p table: this axis and side.
      template <int count, int stride_in, int stride_out, int axis_mask, typename InIndex, typename OutIndex>
      __device__ __forceinline__ void
      forward_axis_symmetric(const float *table, const float *in, float *out, InIndex in_base, OutIndex out_base)
      {
        // volatile: read per stage, as in forward_axis (else kept live and spilled)
        float B[12], sign[4];
#pragma unroll
        for (int k = 0; k < 12; ++k)
          B[k] = static_cast<const volatile float *>(table)[k];
#pragma unroll
        for (int k = 0; k < 4; ++k)
          sign[k] = static_cast<const volatile float *>(table)[24 + k];
#pragma unroll
        for (int q = 0; q < count; ++q)
          {
            float w[4];
#pragma unroll
            for (int j = 0; j < 4; ++j)
              {
                const float own   = in[in_base(q) + j * stride_in];
                const float other = __shfl_xor_sync(full_mask, own, axis_mask);
                w[j]              = fmaf(sign[j], other, own);
              }
#pragma unroll
            for (int i = 0; i < 3; ++i)
              {
                // the pivot entry of row i is 1 (its value is in the inverse
                // eigenvalue table): 3 multiply-adds per mode instead of 4
                constexpr int pivot_of[3] = {q3_forward_pivot(0), q3_forward_pivot(1), q3_forward_pivot(2)};
                float         s           = w[pivot_of[i]];
#pragma unroll
                for (int j = 0; j < 4; ++j)
                  if (j != pivot_of[i])
                    s = fmaf(B[4 * i + j], w[j], s);
                out[out_base(q) + i * stride_out] = s;
              }
          }
      }

      /// Backward transform in the symmetric form: z_a = F_aa^T y_a on the 4
      /// nodes of the own cell (0 at its rim), then d_a = z_a + σ_ā J z_ā with
      /// the partner's z (shuffle; F_āa = σ_ā F_āā J). 16 instructions and 4
      /// shuffles per pencil against 24 and 3. Pencils with !live(q) are not
      /// computed (their out stays unset): the copy cascade overwrites them
      /// in every lane. The compiler cannot find this itself here, as it
      /// did for backward_axis: z feeds a shuffle, which it keeps.
      template <int count, int stride_in, int stride_out, int axis_mask, typename InIndex, typename OutIndex, typename Live>
      __device__ __forceinline__ void
      backward_axis_symmetric(const float *table, const float *in, float *out, InIndex in_base, OutIndex out_base, Live live)
      {
        float F[12];
#pragma unroll
        for (int k = 0; k < 12; ++k)
          F[k] = static_cast<const volatile float *>(table)[12 + k];
        const float partner_sign = static_cast<const volatile float *>(table)[28];
#pragma unroll
        for (int q = 0; q < count; ++q)
          {
            if (!live(q)) // compile-time after unrolling: no divergence
              continue;
            float z[4];
#pragma unroll
            for (int j = 0; j < 4; ++j)
              {
                float s = F[j] * in[in_base(q)];
#pragma unroll
                for (int i = 1; i < 3; ++i)
                  s = fmaf(F[4 * i + j], in[in_base(q) + i * stride_in], s);
                z[j] = s;
              }
            float other[4];
#pragma unroll
            for (int j = 0; j < 4; ++j)
              other[j] = __shfl_xor_sync(full_mask, z[j], axis_mask);
#pragma unroll
            for (int j = 0; j < 4; ++j)
              out[out_base(q) + j * stride_out] = fmaf(partner_sign, other[3 - j], z[j]);
          }
      }

      /// unify_copies without the shuffles whose results the next axis of the
      /// cascade overwrites in every lane: the x copies of the faces y = 0 and
      /// z = 0 and the y copies of the face z = 0 (37 shuffles instead of 48).
      /// Every shuffle left reads a value computed by the backward x transform
      /// or by an earlier axis of the cascade, so the result is that of
      /// unify_copies, bit for bit: every copy of a DoF ends with the value of
      /// the lowest lane holding it, and the rim stays ±0.
      __device__ __forceinline__ void
      unify_copies_live(float (&d)[64])
      {
#pragma unroll
        for (int q = 0; q < 16; ++q) // x: (y, z) = (q % 4, q / 4)
          if (q % 4 != 0 && q / 4 != 0)
            d[4 * q] = __shfl_xor_sync(full_mask, d[4 * q + 3], 1);
#pragma unroll
        for (int q = 0; q < 16; ++q) // y: (x, z) = (q % 4, q / 4)
          if (q / 4 != 0)
            d[16 * (q / 4) + q % 4] = __shfl_xor_sync(full_mask, d[16 * (q / 4) + 12 + q % 4], 2);
#pragma unroll
        for (int q = 0; q < 16; ++q) // z: (x, y) = (q % 4, q / 4)
          d[q] = __shfl_xor_sync(full_mask, d[48 + q], 4);
      }

      /// solve_in_registers with the symmetric forms and tables. The backward
      /// transforms skip what the copy cascade overwrites: along x the pencils
      /// on the faces y = 0 and z = 0 (7 of 16), along y those on z = 0 (3 of
      /// 12); their nodes are set by the cascade from the faces y = 3, z = 3.
      __device__ __forceinline__ void
      solve_in_registers_symmetric(const float *table, const int c, const float (&r)[64], float (&d)[64])
      {
        const float *Tx = table + (0 + (c & 1)) * q3_sym_axis_stride;
        const float *Ty = table + (2 + ((c >> 1) & 1)) * q3_sym_axis_stride;
        const float *Tz = table + (4 + ((c >> 2) & 1)) * q3_sym_axis_stride;

        float y1[48], y2[36], y3[27];
        forward_axis_symmetric<16, 1, 1, 1>(Tx, r, y1, [](int q) { return 4 * q; }, [](int q) { return 3 * q; });
        forward_axis_symmetric<12, 3, 3, 2>(Ty, y1, y2, [](int q) { return (q / 3) * 12 + q % 3; },
                                            [](int q) { return (q / 3) * 9 + q % 3; });
        forward_axis_symmetric<9, 9, 9, 4>(Tz, y2, y3, [](int q) { return q; }, [](int q) { return q; });
        const float *inverse = table + q3_sym_inverse_at + c * 27;
#pragma unroll
        for (int k = 0; k < 27; ++k)
          y3[k] *= inverse[k];
        backward_axis_symmetric<9, 9, 9, 4>(
          Tz, y3, y2, [](int q) { return q; }, [](int q) { return q; }, [](int) { return true; });
        // pencil q: x-mode q % 3, z = q / 3
        backward_axis_symmetric<12, 3, 3, 2>(
          Ty, y2, y1, [](int q) { return (q / 3) * 9 + q % 3; }, [](int q) { return (q / 3) * 12 + q % 3; },
          [](int q) { return q / 3 != 0; });
        // pencil q: y = q % 4, z = q / 4
        backward_axis_symmetric<16, 1, 1, 1>(
          Tx, y1, d, [](int q) { return 3 * q; }, [](int q) { return 4 * q; },
          [](int q) { return q % 4 != 0 && q / 4 != 0; });
        unify_copies_live(d);
      }

      /// The colour step with cp.async staging (register_q3_async), with the
      /// arithmetic in the nodal forms or, with @p symmetric, in the symmetric
      /// forms and their own tables (register_q3_symmetric): the same staging
      /// and order of loads, waits and stores; with @p stub only the loads and
      /// stores.
      ///
      /// Persistent and pipelined: the grid is one wave of resident blocks
      /// (launch_register_q3), and warp w of the grid takes the groups of four
      /// patches g = w, w + W, w + 2W, ... (W warps in the grid). The patches of
      /// one colour share no cell, so the next group's u and b~ may be fetched
      /// while the current group is solved. Two staging buffers per warp, X and
      /// Y, whose roles alternate (u_is_zero: b~ always in Y, the result in X):
      ///
      ///   step                        | X            | Y
      ///   ----------------------------+--------------+---------------------------
      ///   (issued before)             | u(g)         | b~(g)
      ///   wait u(g), S^-1⊗3 u         | read         |
      ///   wait b~(g), read it         |              | read, then cp.async u(g+W)
      ///   S^T⊗3 b~, solve             |              | (u(g+W) in flight)
      ///   u += d, whole-row stores    | write, store |
      ///   then                        | cp.async b~(g+W)
      ///   next group                  | = its Y      | = its X
      ///
      /// so that the next u arrives behind the solve and the next b~ behind
      /// S^-1⊗3 u, as the first group's b~ did in the former one-group kernel
      /// (full sweep at 128^3 on the H200: 0.82 of a copy with one group per
      /// warp, 0.85 pipelined, 0.92 with the unit entries of the symmetric
      /// forms).
      template <bool stub, bool symmetric>
      __global__ void __launch_bounds__(32 * q3_async_warps, q3_async_blocks_per_multiprocessor)
      register_q3_async_kernel(const Q3Matrices mats,
                               const float *__restrict__ tables,
                               const unsigned int *__restrict__ patch_cells,
                               const float *__restrict__ b,
                               float             *u,
                               const unsigned int n_patches,
                               const int          u_is_zero,
                               const float        zero)
      {
        constexpr int q3_tables = symmetric ? q3_sym_table_size : q3_table_size;
        // the cell eigenbasis transform of the variant
        auto cube = [](const float *T, float(&v)[64]) {
          if constexpr (symmetric)
            transform_cube_symmetric(T, v);
          else
            transform_cube(T, v);
        };
        __shared__ __align__(16) float stage[q3_async_warps][2][32 * q3_stage];
        __shared__ float                table[q3_tables];
        for (int i = threadIdx.x; i < q3_tables; i += 32 * q3_async_warps)
          table[i] = tables[i];
        __syncthreads();

        const int          lane     = threadIdx.x & 31;
        const int          warp     = threadIdx.x >> 5;
        const int          c        = lane & 7;
        const unsigned int n_groups = (n_patches + 3) / 4;
        const unsigned int stride   = gridDim.x * q3_async_warps;
        unsigned int       group    = blockIdx.x * q3_async_warps + warp;
        if (group >= n_groups)
          return; // the whole warp: no barrier follows

        // This lane's cell in group g. Lanes of a missing patch (last group)
        // compute on a copy of the group's first patch and do not store.
        auto valid_in = [&](const unsigned int g) { return 4 * g + (lane >> 3) < n_patches; };
        auto cell_in  = [&](const unsigned int g) {
          const unsigned int patch = valid_in(g) ? 4 * g + (lane >> 3) : 4 * g;
          return patch_cells[8 * static_cast<std::size_t>(patch) + c];
        };
        unsigned int cell = cell_in(group);
        float       *x    = stage[warp][0]; // u in, u + d out
        float       *y    = stage[warp][1]; // b~ in
        if (!u_is_zero)
          copy_cells_async(u, cell, x, lane);
        copy_cells_async(b, cell, y, lane);

        for (;;)
          {
            // (recomputed where used: fewer registers live through the solve)
            auto               has_next  = [&] { return group + stride < n_groups; }; // the same in the whole warp
            const unsigned int next_cell = has_next() ? cell_in(group + stride) : 0;

            float r[64], d[64];
            if (!u_is_zero)
              {
                float v[64];
                wait_copies<1>(); // u has arrived, b~ may still be in flight
                read_own(x, lane, v);
                if constexpr (!stub)
                  cube(mats.s_inverse, v);
                wait_copies<0>();
                read_own(y, lane, r);
                if constexpr (!stub)
                  cube(mats.s_transpose, r);
#pragma unroll
                for (int k = 0; k < 64; ++k)
                  r[k] = fmaf(stub ? zero : -mats.diagonal[k], v[k], r[k]);
                // Every lane has read Y: the next u may land there. Issued
                // here, where v is dead: the 16 addresses of the copies would
                // otherwise be live next to v and r and spill.
                __syncwarp();
                if (has_next())
                  copy_cells_async(u, next_cell, y, lane);
              }
            else
              {
                wait_copies<0>();
                read_own(y, lane, r);
                __syncwarp();
                if (has_next())
                  copy_cells_async(b, next_cell, y, lane);
                if constexpr (!stub)
                  cube(mats.s_transpose, r);
              }

            if constexpr (stub)
              {
#pragma unroll
                for (int k = 0; k < 64; ++k)
                  d[k] = zero * r[k];
              }
            else
              if constexpr (symmetric)
                solve_in_registers_symmetric(table, c, r, d);
              else
                solve_in_registers(table, c, r, d);

            // u += d in the staged copy of u (zero where u is), then whole rows
            if (!u_is_zero)
              {
#pragma unroll
                for (int k = 0; k < 16; ++k)
                  {
                    float4 *slot = reinterpret_cast<float4 *>(x + lane * q3_stage + 4 * k);
                    float4  w    = *slot;
                    w.x += d[4 * k + 0];
                    w.y += d[4 * k + 1];
                    w.z += d[4 * k + 2];
                    w.w += d[4 * k + 3];
                    *slot = w;
                  }
              }
            else
              {
#pragma unroll
                for (int k = 0; k < 16; ++k)
                  *reinterpret_cast<float4 *>(x + lane * q3_stage + 4 * k) =
                    make_float4(d[4 * k + 0], d[4 * k + 1], d[4 * k + 2], d[4 * k + 3]);
              }
            __syncwarp();
#pragma unroll
            for (int k = 0; k < 16; ++k)
              {
                const int          idx   = k * 32 + lane;
                const unsigned int other = __shfl_sync(full_mask, cell, idx >> 4);
                // the patch of the stored cell exists (no shuffle: its lane's patch is (idx >> 4) / 8)
                const bool         ok    = 4 * group + ((idx >> 4) >> 3) < n_patches;
                const float4       w     = *reinterpret_cast<const float4 *>(x + (idx >> 4) * q3_stage + (idx & 15) * 4);
                if (ok)
                  reinterpret_cast<float4 *>(u + static_cast<std::size_t>(other) * 64)[idx & 15] = w;
              }
            if (!has_next())
              break;
            __syncwarp(); // every lane has stored from X: it may be refilled
            if (!u_is_zero)
              {
                copy_cells_async(b, next_cell, x, lane);
                float *const swap = x;
                x                 = y;
                y                 = swap;
              }
            group += stride;
            cell = next_cell;
          }
      }
    } // namespace

    namespace internal
    {
      /// How many blocks of @p threads of @p function the current device runs
      /// at once (the number of multiprocessors times the blocks per
      /// multiprocessor that registers and shared memory allow); queried once
      /// per kernel and device.
      template <typename Function>
      unsigned int
      resident_blocks(Function *function, const int threads)
      {
        static std::mutex                                         mutex;
        static std::map<std::pair<const void *, int>, unsigned int> known;
        int                                                       device = 0;
        CELLWISE_CUDA_CHECK(cudaGetDevice(&device));
        const std::lock_guard<std::mutex> lock(mutex);
        const auto key = std::make_pair(reinterpret_cast<const void *>(function), device);
        if (const auto it = known.find(key); it != known.end())
          return it->second;
        int per_multiprocessor = 0, multiprocessors = 0;
        CELLWISE_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_multiprocessor, function, threads, 0));
        CELLWISE_CUDA_CHECK(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device));
        CELLWISE_CHECK(per_multiprocessor > 0, "cuda::VertexPatchSmoother: no block of " << threads
                                                 << " threads of the register kernel fits on a multiprocessor of this device");
        const unsigned int blocks = static_cast<unsigned int>(per_multiprocessor) * static_cast<unsigned int>(multiprocessors);
        known.emplace(key, blocks);
        return blocks;
      }

      /// Launch the register colour step (or its traffic stub) of @p kernel
      /// (register_q3, register_q3_async or register_q3_symmetric) on raw
      /// device arrays. @p tables as built by the smoother for that kernel
      /// (the symmetric variant has its own). @p max_blocks > 0 caps the grid
      /// of the cp.async kernels (limit_register_grid).
      void
      launch_register_q3(const float       *s_inverse,
                         const float       *s_transpose,
                         const float       *diagonal,
                         const float       *tables,
                         const unsigned int *patch_cells,
                         unsigned int       n_patches,
                         const float       *b,
                         float             *u,
                         bool               u_is_zero,
                         bool               stub,
                         PatchKernel        kernel,
                         unsigned int       max_blocks)
      {
        if (n_patches == 0)
          return;
        Q3Matrices mats;
        for (int k = 0; k < 16; ++k)
          {
            mats.s_inverse[k]   = s_inverse[k];
            mats.s_transpose[k] = s_transpose[k];
          }
        for (int k = 0; k < 64; ++k)
          mats.diagonal[k] = diagonal[k];
        if (kernel == PatchKernel::register_q3_async || kernel == PatchKernel::register_q3_symmetric)
          {
            const unsigned int per_block = 4 * q3_async_warps;
            const unsigned int needed    = (n_patches + per_block - 1) / per_block;
            const bool         symmetric = kernel == PatchKernel::register_q3_symmetric;
            auto launch = [&](auto stub_flag, auto symmetric_flag) {
              const auto function = register_q3_async_kernel<decltype(stub_flag)::value, decltype(symmetric_flag)::value>;
              // one wave of resident blocks (the kernel loops over the groups)
              unsigned int blocks = std::min(needed, resident_blocks(function, 32 * q3_async_warps));
              if (max_blocks > 0)
                blocks = std::min(blocks, max_blocks);
              function<<<blocks, 32 * q3_async_warps>>>(mats, tables, patch_cells, b, u, n_patches, u_is_zero, 0.f);
            };
            using yes = std::true_type;
            using no  = std::false_type;
            if (stub)
              symmetric ? launch(yes{}, yes{}) : launch(yes{}, no{});
            else
              symmetric ? launch(no{}, yes{}) : launch(no{}, no{});
            CELLWISE_CUDA_CHECK_LAUNCH();
            return;
          }
        const unsigned int patches_per_block = q3_block / 8;
        const unsigned int blocks            = (n_patches + patches_per_block - 1) / patches_per_block;
        if (stub)
          register_q3_kernel<true><<<blocks, q3_block>>>(mats, tables, patch_cells, b, u, n_patches, u_is_zero, 0.f);
        else
          register_q3_kernel<false><<<blocks, q3_block>>>(mats, tables, patch_cells, b, u, n_patches, u_is_zero, 0.f);
        CELLWISE_CUDA_CHECK_LAUNCH();
      }
    } // namespace internal

    template <typename Number, typename Layout>
    VertexPatchSmoother<Number, Layout>::VertexPatchSmoother(const Level &level, const unsigned int degree, const unsigned int n_sweeps)
    {
      reinit(level, degree, n_sweeps);
    }

    template <typename Number, typename Layout>
    VertexPatchSmoother<Number, Layout>::~VertexPatchSmoother()
    {
      release();
    }

    template <typename Number, typename Layout>
    void
    VertexPatchSmoother<Number, Layout>::release()
    {
      free_bytes(factors_);
      free_bytes(inverses_);
      free_bytes(register_tables_device_);
      factors_                = nullptr;
      inverses_               = nullptr;
      register_tables_device_ = nullptr;
      for (unsigned int colour = 0; colour < 8; ++colour)
        {
          free_bytes(patch_cells_[colour]);
          free_bytes(inverse_index_[colour]);
          patch_cells_[colour]   = nullptr;
          inverse_index_[colour] = nullptr;
        }
    }

    template <typename Number, typename Layout>
    void
    VertexPatchSmoother<Number, Layout>::reinit(const Level &level, const unsigned int degree, const unsigned int n_sweeps)
    {
      // The host smoother is the oracle: its patches, its tensor-grid checks
      // and its cache of patch inverses are taken as they are.
      const cellwise::VertexPatchSmoother<Number, Layout> host(level, degree, n_sweeps);
      release();
      degree_   = degree;
      n_sweeps_ = n_sweeps;
      n_cells_  = level.n_cells();
      patches_  = host.patches();

      const Matrices1D   matrices = make_matrices_1d(degree);
      const unsigned int n        = degree + 1;
      mass_.assign(matrices.mass.data(), matrices.mass.data() + n * n);
      stiffness_.assign(matrices.stiffness.data(), matrices.stiffness.data() + n * n);

      std::vector<Number> factors(3 * static_cast<std::size_t>(n_cells_));
      for (unsigned int c = 0; c < n_cells_; ++c)
        kernels::laplace_factors(level.boxes[c].size.data(), factors.data() + 3 * static_cast<std::size_t>(c));
      factors_ = upload(factors, "the metric factors of the vertex-patch smoother");

      // distinct inverses in order of first use: Q_x, Q_y, Q_z, 1/(λ sums)
      const unsigned int                          m = 2 * degree - 1;
      std::map<const PatchInverse *, unsigned int> known;
      std::vector<const PatchInverse *>            distinct;
      std::vector<Number>                          inverse_data;
      for (unsigned int colour = 0; colour < 8; ++colour)
        {
          std::vector<unsigned int> cells(8 * static_cast<std::size_t>(patches_.n_patches(colour)));
          std::vector<unsigned int> index(patches_.n_patches(colour));
          for (unsigned int k = 0; k < patches_.n_patches(colour); ++k)
            {
              for (unsigned int lane = 0; lane < 8; ++lane)
                cells[8 * static_cast<std::size_t>(k) + lane] = patches_.cells[colour][k][lane];
              const PatchInverse *inverse = &host.patch_inverse(colour, k);
              const auto          it      = known.emplace(inverse, static_cast<unsigned int>(distinct.size()));
              if (it.second)
                {
                  distinct.push_back(inverse);
                  for (unsigned int d = 0; d < 3; ++d)
                    for (unsigned int i = 0; i < m * m; ++i)
                      inverse_data.push_back(static_cast<Number>(inverse->axis(d).eigenvectors.data()[i]));
                  for (const double value : inverse->inverse_eigenvalues())
                    inverse_data.push_back(static_cast<Number>(value));
                }
              index[k] = it.first->second;
            }
          patch_cells_[colour]   = upload(cells, "the vertex-patch cell lists");
          inverse_index_[colour] = upload(index, "the vertex-patch inverse indices");
        }
      n_inverses_ = static_cast<unsigned int>(distinct.size());
      inverses_   = upload(inverse_data, "the vertex-patch inverses");

      // register kernel tables (layout in the comment at the top)
      register_available_  = false;
      symmetric_available_ = false;
      register_tables_.clear();
      if constexpr (std::is_same_v<Number, float> && std::is_same_v<Layout, CellContiguous>)
        if (degree == 3 && n_inverses_ == 1)
          {
            const PatchInverse &inverse = *distinct[0];
            bool                equal   = true;
            for (unsigned int d = 0; d < 3; ++d)
              equal = equal && std::abs(inverse.sizes()[d][0] - inverse.sizes()[d][1]) <= 1e-12 * inverse.sizes()[d][0];
            if (equal)
              {
                // device tables (q3_table_size words), then on the host only:
                // S^-1, S^T (16 each) and D (64) for the kernel parameters,
                // then the tables of register_q3_symmetric (q3_sym_table_size)
                register_tables_.assign(q3_symmetric_matrices_at + 96, 0.f);
                const GeneralizedEigenpairs cell_pairs = solve_generalized_eigenproblem(matrices.stiffness, matrices.mass);
                const DenseMatrix          &S          = cell_pairs.eigenvectors; // column k: mode k
                double                      s_inverse[4][4];                     // S^-1 = S^T M
                for (int k = 0; k < 4; ++k)
                  for (int i = 0; i < 4; ++i)
                    {
                      s_inverse[k][i] = 0;
                      for (int j = 0; j < 4; ++j)
                        s_inverse[k][i] += S(j, k) * matrices.mass(j, i);
                      register_tables_[q3_table_size + 4 * k + i]      = float(s_inverse[k][i]);
                      register_tables_[q3_table_size + 16 + 4 * k + i] = float(S(i, k));
                    }
                // column of F of local node j on side a; -1 at the rim
                auto column = [](const unsigned int a, const int j) { return a == 0 ? (j >= 1 ? j - 1 : -1) : (j <= 2 ? 3 + j : -1); };
                for (unsigned int d = 0; d < 3; ++d)
                  {
                    const DenseMatrix &F = inverse.axis(d).cellwise_transform;
                    for (unsigned int a = 0; a < 2; ++a)
                      {
                        float *block = register_tables_.data() + (2 * d + a) * q3_axis_stride;
                        double fo[3][4], fp[3][4];
                        for (int i = 0; i < 3; ++i)
                          for (int j = 0; j < 4; ++j)
                            {
                              const int own = column(a, j), other = column(1 - a, j);
                              fo[i][j]              = own < 0 ? 0. : F(3 * a + i, own);
                              fp[i][j]              = other < 0 ? 0. : F(3 * a + i, other);
                              block[24 + 4 * i + j] = float(fo[i][j]);
                              block[36 + 4 * i + j] = own < 0 ? 0.f : float(F(3 * (1 - a) + i, own));
                            }
                        // merged with S^-T: (F S^-T)_{ik} = Σ_j F_ij (S^-1)_kj
                        for (int i = 0; i < 3; ++i)
                          for (int k = 0; k < 4; ++k)
                            {
                              double so = 0, sp = 0;
                              for (int j = 0; j < 4; ++j)
                                {
                                  so += fo[i][j] * s_inverse[k][j];
                                  sp += fp[i][j] * s_inverse[k][j];
                                }
                              block[4 * i + k]      = float(so);
                              block[12 + 4 * i + k] = float(sp);
                            }
                      }
                  }
                for (unsigned int octant = 0; octant < 8; ++octant)
                  for (int l = 0; l < 3; ++l)
                    for (int k = 0; k < 3; ++k)
                      for (int i = 0; i < 3; ++i)
                        {
                          const double sum = inverse.axis(0).padded_eigenvalues[3 * (octant & 1) + i] +
                                             inverse.axis(1).padded_eigenvalues[3 * ((octant >> 1) & 1) + k] +
                                             inverse.axis(2).padded_eigenvalues[3 * ((octant >> 2) & 1) + l];
                          register_tables_[q3_inverse_at + octant * 27 + (l * 3 + k) * 3 + i] = float(1. / sum);
                        }
                const double h[3] = {inverse.sizes()[0][0], inverse.sizes()[1][0], inverse.sizes()[2][0]};
                double       c[3];
                kernels::laplace_factors(h, c);
                const std::vector<double> &lambda = cell_pairs.eigenvalues;
                for (int k = 0; k < 4; ++k)
                  for (int j = 0; j < 4; ++j)
                    for (int i = 0; i < 4; ++i)
                      register_tables_[q3_table_size + 32 + 16 * k + 4 * j + i] =
                        float(c[0] * lambda[i] + c[1] * lambda[j] + c[2] * lambda[k]);

                // register_q3_symmetric (000 §6.4): the forms need the mirror
                // symmetry of the patch along each axis, i.e. equal cells in
                // the patch (checked above: one patch inverse, h0 = h1 along
                // every axis). Its consequences are checked here in FP64 on
                // the actual tables, so that the kernel's hard-wired parities
                // cannot silently disagree with the eigensolver's output; the
                // signs of the eigenvectors (an eigensolver may return -s) do
                // not matter: only parities enter, the entries are used as
                // they are. Without them the variant is unavailable.
                symmetric_available_ = true;
                auto near            = [](const double a, const double b, const double scale) {
                  return std::abs(a - b) <= 1e-10 * scale;
                };
                // cell modes: S(3 - j, k) = τ_k S(j, k) with τ = (+, -, +, -); then
                // the rows of S^T and of S^-1 = S^T M (M persymmetric) as well
                double tau[4];
                for (int k = 0; k < 4; ++k)
                  {
                    tau[k]       = k % 2 == 0 ? 1. : -1.;
                    double scale = 0;
                    for (int j = 0; j < 4; ++j)
                      scale = std::max({scale, std::abs(S(j, k)), std::abs(s_inverse[k][j])});
                    for (int j = 0; j < 4; ++j)
                      symmetric_available_ = symmetric_available_ && near(S(3 - j, k), tau[k] * S(j, k), scale) &&
                                             near(s_inverse[k][3 - j], tau[k] * s_inverse[k][j], scale);
                  }
                // patch modes per axis: parity ε_k from F(k, node of cell 1) =
                // ε_k F(k, mirrored node of cell 0); side 0 owns the 3 even
                // modes, side 1 the 2 odd ones and the zero row (index 5)
                int mode_of[3][2][3];
                for (unsigned int d = 0; d < 3 && symmetric_available_; ++d)
                  {
                    const DenseMatrix &F      = inverse.axis(d).cellwise_transform;
                    int                n_side[2] = {0, 0};
                    for (int k = 0; k < 6; ++k)
                      {
                        double dot = 0, scale = 0;
                        for (int j = 1; j < 4; ++j)
                          {
                            dot += F(k, column(1, 3 - j)) * F(k, column(0, j));
                            scale = std::max(scale, std::abs(F(k, column(0, j))));
                          }
                        const int side = (k == 5 || dot < 0) ? 1 : 0;
                        for (int j = 1; j < 4; ++j)
                          symmetric_available_ = symmetric_available_ &&
                                                 near(F(k, column(1, 3 - j)), (side == 0 ? 1. : -1.) * F(k, column(0, j)), scale);
                        if (n_side[side] < 3)
                          mode_of[d][side][n_side[side]] = k;
                        ++n_side[side];
                      }
                    symmetric_available_ = symmetric_available_ && n_side[0] == 3 && n_side[1] == 3;
                  }
                // the first entries of the rows of S^-1 and S^T, which the
                // symmetric transforms divide out (see q3_symmetric_matrices_at)
                double first_inverse[4], first_transpose[4];
                for (int k = 0; k < 4; ++k)
                  {
                    first_inverse[k]   = s_inverse[k][0];
                    first_transpose[k] = S(0, k);
                    double scale_inverse = 0, scale_transpose = 0;
                    for (int j = 0; j < 4; ++j)
                      {
                        scale_inverse   = std::max(scale_inverse, std::abs(s_inverse[k][j]));
                        scale_transpose = std::max(scale_transpose, std::abs(S(j, k)));
                      }
                    symmetric_available_ = symmetric_available_ && std::abs(first_inverse[k]) > 1e-3 * scale_inverse &&
                                           std::abs(first_transpose[k]) > 1e-3 * scale_transpose;
                  }
                if (symmetric_available_)
                  {
                    float *matrices_sym = register_tables_.data() + q3_symmetric_matrices_at;
                    for (int k = 0; k < 4; ++k)
                      for (int i = 0; i < 4; ++i)
                        {
                          matrices_sym[4 * k + i]      = float(s_inverse[k][i] / first_inverse[k]);
                          matrices_sym[16 + 4 * k + i] = float(S(i, k) / first_transpose[k]);
                        }
                    for (int k = 0; k < 4; ++k)
                      for (int j = 0; j < 4; ++j)
                        for (int i = 0; i < 4; ++i)
                          matrices_sym[32 + 16 * k + 4 * j + i] =
                            float((c[0] * lambda[i] + c[1] * lambda[j] + c[2] * lambda[k]) * first_inverse[i] * first_inverse[j] *
                                  first_inverse[k] / (first_transpose[i] * first_transpose[j] * first_transpose[k]));
                    float *sym = register_tables_.data() + q3_symmetric_tables_at;
                    double forward_pivot[3][2][3]; // pivot entries of the rows of B_aa diag(t), divided out
                    for (unsigned int d = 0; d < 3; ++d)
                      {
                        const DenseMatrix &F = inverse.axis(d).cellwise_transform;
                        for (unsigned int a = 0; a < 2; ++a)
                          {
                            float *block = sym + (2 * d + a) * q3_sym_axis_stride;
                            const double sigma = a == 0 ? 1. : -1.;
                            for (int i = 0; i < 3; ++i)
                              {
                                const int mode = mode_of[d][a][i];
                                double    fo[4];
                                for (int j = 0; j < 4; ++j)
                                  {
                                    const int own         = column(a, j);
                                    fo[j]                 = own < 0 ? 0. : F(mode, own);
                                    block[12 + 4 * i + j] = float(fo[j]); // F_aa, 0 in the rim column
                                  }
                                // B_aa = F_aa S^-T, times t_k (the scaled r^),
                                // then the row divided by its pivot entry
                                // (q3_forward_pivot), which the inverse
                                // eigenvalue table multiplies back in
                                double row[4];
                                for (int k = 0; k < 4; ++k)
                                  {
                                    row[k] = 0;
                                    for (int j = 0; j < 4; ++j)
                                      row[k] += fo[j] * s_inverse[k][j];
                                    row[k] *= first_transpose[k];
                                  }
                                const double largest = std::max({std::abs(row[0]), std::abs(row[1]), std::abs(row[2]), std::abs(row[3])});
                                const double pivot   = row[q3_forward_pivot(i)];
                                // the zero row of F (side 1, i = 2) stays zero,
                                // its pivot 0: the kernel's implied 1 there
                                // gives a value that the table's 0 removes
                                forward_pivot[d][a][i] = pivot;
                                if (largest > 0)
                                  {
                                    symmetric_available_ = symmetric_available_ && std::abs(pivot) > 1e-3 * largest;
                                    for (int k = 0; k < 4; ++k)
                                      block[4 * i + k] = float(row[k] / pivot);
                                  }
                              }
                            for (int k = 0; k < 4; ++k)
                              block[24 + k] = float(sigma * tau[k]);
                            block[28] = float(-sigma);
                          }
                      }
                    for (unsigned int octant = 0; octant < 8; ++octant)
                      for (int l = 0; l < 3; ++l)
                        for (int k = 0; k < 3; ++k)
                          for (int i = 0; i < 3; ++i)
                            {
                              const double sum =
                                inverse.axis(0).padded_eigenvalues[mode_of[0][octant & 1][i]] +
                                inverse.axis(1).padded_eigenvalues[mode_of[1][(octant >> 1) & 1][k]] +
                                inverse.axis(2).padded_eigenvalues[mode_of[2][(octant >> 2) & 1][l]];
                              const double pivots = forward_pivot[0][octant & 1][i] * forward_pivot[1][(octant >> 1) & 1][k] *
                                                    forward_pivot[2][(octant >> 2) & 1][l];
                              sym[q3_sym_inverse_at + octant * 27 + (l * 3 + k) * 3 + i] = float(pivots / sum);
                            }
                  }
                register_tables_device_ = upload(register_tables_, "the register patch kernel tables");
                register_available_     = true;
              }
          }
      if ((kernel_ == PatchKernel::register_q3 || kernel_ == PatchKernel::register_q3_async) && !register_available_)
        kernel_ = PatchKernel::automatic;
      if (kernel_ == PatchKernel::register_q3_symmetric && !symmetric_available_)
        kernel_ = PatchKernel::automatic;
    }

    template <typename Number, typename Layout>
    void
    VertexPatchSmoother<Number, Layout>::use_kernel(const PatchKernel kernel)
    {
      CELLWISE_CHECK((kernel != PatchKernel::register_q3 && kernel != PatchKernel::register_q3_async) || register_available_,
                     "cuda::VertexPatchSmoother: the register kernel needs FP32, degree 3, the cell-contiguous layout "
                     "and a uniform level (one patch inverse, equal cells along each axis); here degree "
                       << degree_ << " with " << n_inverses_ << " patch inverse(s)");
      CELLWISE_CHECK(kernel != PatchKernel::register_q3_symmetric || symmetric_available_,
                     "cuda::VertexPatchSmoother: register_q3_symmetric needs the register kernel and mirror-symmetric "
                     "patches (equal cells in every patch; degree "
                       << degree_ << ", " << n_inverses_ << " patch inverse(s))");
      kernel_ = kernel;
    }

    template <typename Number, typename Layout>
    PatchKernel
    VertexPatchSmoother<Number, Layout>::active_kernel() const
    {
      if (kernel_ == PatchKernel::generic || !register_available_)
        return PatchKernel::generic;
      // automatic: the symmetric variant where the patches are mirror
      // symmetric, else the cp.async one (full sweep at 128^3 on the H200,
      // 2026-11-30: 0.82, 0.80 and, register-staged, 0.57 of a device copy).
      // All register kernels write one value into every copy of a patch DoF,
      // so a continuous iterate stays continuous, as with the generic kernel.
      if ((kernel_ == PatchKernel::register_q3_symmetric || kernel_ == PatchKernel::automatic) && symmetric_available_)
        return PatchKernel::register_q3_symmetric;
      return kernel_ == PatchKernel::register_q3 ? PatchKernel::register_q3 : PatchKernel::register_q3_async;
    }

    template <typename Number, typename Layout>
    const float *
    VertexPatchSmoother<Number, Layout>::device_tables(const PatchKernel kernel) const
    {
      return register_tables_device_ + (kernel == PatchKernel::register_q3_symmetric ? q3_symmetric_tables_at : 0);
    }

    template <typename Number, typename Layout>
    const float *
    VertexPatchSmoother<Number, Layout>::host_matrices(const PatchKernel kernel) const
    {
      return register_tables_.data() + (kernel == PatchKernel::register_q3_symmetric ? q3_symmetric_matrices_at : q3_table_size);
    }

    template <typename Number, typename Layout>
    void
    VertexPatchSmoother<Number, Layout>::check_vectors(const VectorType &u, const VectorType &b) const
    {
      CELLWISE_CHECK(u.n_cells() == n_cells_ && u.degree() == degree_,
                     "cuda::VertexPatchSmoother: iterate has " << u.n_cells() << " cells of degree " << u.degree()
                                                               << ", the smoother " << n_cells_ << " cells of degree "
                                                               << degree_);
      CELLWISE_CHECK(b.n_cells() == n_cells_ && b.degree() == degree_,
                     "cuda::VertexPatchSmoother: right-hand side has " << b.n_cells() << " cells of degree "
                                                                       << b.degree() << ", the smoother " << n_cells_
                                                                       << " cells of degree " << degree_);
      CELLWISE_CHECK(&u != &b, "cuda::VertexPatchSmoother: iterate and right-hand side must be different vectors");
    }

    template <typename Number, typename Layout>
    void
    VertexPatchSmoother<Number, Layout>::apply_colour(VectorType &u, const VectorType &b, const unsigned int colour, const bool u_is_zero) const
    {
      check_vectors(u, b);
      CELLWISE_CHECK(colour < 8, "cuda::VertexPatchSmoother: colour " << colour << " is not in 0..7");
      const unsigned int n_patches = patches_.n_patches(colour);
      if (n_patches == 0)
        return;
      if (active_kernel() != PatchKernel::generic)
        {
          if constexpr (std::is_same_v<Number, float>)
            {
              const float *matrices = host_matrices(active_kernel());
              internal::launch_register_q3(matrices, matrices + 16, matrices + 32, device_tables(active_kernel()),
                                           patch_cells_[colour], n_patches, b.data(), u.data(), u_is_zero, false,
                                           active_kernel(), register_grid_limit_);
            }
          return;
        }
      dispatch_degree(degree_, [&](auto p) {
        launch_generic<decltype(p)::value, Number, Layout>(mass_, stiffness_, factors_, inverses_, patch_cells_[colour],
                                                           inverse_index_[colour], n_patches, b.data(), u.data(), u_is_zero);
      });
    }

    template <typename Number, typename Layout>
    void
    VertexPatchSmoother<Number, Layout>::apply_traffic_stub(VectorType &u, const VectorType &b, const unsigned int colour, const bool u_is_zero) const
    {
      check_vectors(u, b);
      CELLWISE_CHECK(colour < 8, "cuda::VertexPatchSmoother: colour " << colour << " is not in 0..7");
      CELLWISE_CHECK(register_available_, "cuda::VertexPatchSmoother: the traffic stub needs the register kernel");
      if constexpr (std::is_same_v<Number, float>)
        {
          const float *matrices = host_matrices(active_kernel());
          internal::launch_register_q3(matrices, matrices + 16, matrices + 32, device_tables(active_kernel()),
                                       patch_cells_[colour], patches_.n_patches(colour), b.data(), u.data(), u_is_zero,
                                       true, active_kernel(), register_grid_limit_);
        }
    }

    template <typename Number, typename Layout>
    void
    VertexPatchSmoother<Number, Layout>::smooth(VectorType &u, const VectorType &b, const bool zero_initial_guess, const SweepDirection direction) const
    {
      check_vectors(u, b);
      if (zero_initial_guess)
        u.set_zero();
      for (unsigned int sweep = 0; sweep < n_sweeps_; ++sweep)
        for (unsigned int step = 0; step < 8; ++step)
          {
            const unsigned int colour = sweep_colour(step, direction); // the host order, 000 Table 10
            apply_colour(u, b, colour, zero_initial_guess && sweep == 0 && step == 0);
          }
    }

    template class VertexPatchSmoother<double, CellContiguous>;
    template class VertexPatchSmoother<float, CellContiguous>;
    template class VertexPatchSmoother<double, CellBlocked<32>>;
    template class VertexPatchSmoother<float, CellBlocked<32>>;
  } // namespace cuda
} // namespace cellwise
