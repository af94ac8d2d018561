// Device vertex-patch smoother (000 §5-6), the register-resident FP32 Q3
// colour-step kernels for uniform levels: register_q3, its cp.async variant
// and the variant with the reflection symmetry, with their launcher. The
// tables they read are built by the set-up in cuda_vertex_patch_smoother.cu,
// in the layout of cuda_vertex_patch_kernels.h.
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
// (The cp.async variants below read b~ and store u without the cell's plane
// on the patch rim along z: 644 instead of 772 bytes per cell visit.)
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

#include <cellwise/base/cuda_check.h>

#include "cuda_vertex_patch_kernels.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <type_traits>
#include <utility>

namespace cellwise
{
  namespace cuda
  {
    namespace
    {
      using namespace internal; // the table layout

      constexpr int          q3_block       = 128;
      constexpr int          q3_stage       = 68;  // words per staged cell: 64 + 4 (float4-aligned pad)
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

      /// Whether the row (y, z) of 4 values (the float4 piece 4 z + y of a
      /// cell) lies on the rim of the patch for the cell of lane @p owner,
      /// along z only or along y or z: the patch's outer face, index 0 along
      /// axis d for the lower cell (c_d = 0), 3 for the upper one.
      __device__ __forceinline__ bool
      row_on_rim(const int owner, const int piece, const bool along_y_too)
      {
        const int c = owner & 7;
        const int z = piece >> 2, y = piece & 3;
        return z == ((c & 4) ? 3 : 0) || (along_y_too && y == ((c & 2) ? 3 : 0));
      }

      /// Issue the copies of the 32 cells of the warp into @p stage (same
      /// rounds as load_cells) and commit them as one group. With
      /// @p rim_as_zero the rows on the rim of the cell's patch (along y or z)
      /// are not read but filled with zeros (cp.async with source size 0):
      /// for b~, whose rim values the local solve never uses (the rim
      /// columns of F are zero: F b~ is the same without them). The rim plane
      /// along z is two whole 32-byte sectors of the cell's 256 bytes, so a
      /// colour step reads 192 bytes of b~ per cell instead of 256 (the rim
      /// rows along y share their sectors with interior rows: fewer requests
      /// to L2, the same bytes from memory).
      template <bool rim_as_zero>
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
            const unsigned int bytes = rim_as_zero && row_on_rim(idx >> 4, idx & 15, true) ? 0u : 16u;
            asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(to), "l"(from), "r"(bytes) : "memory");
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
          copy_cells_async<false>(u, cell, x, lane);
        copy_cells_async<true>(b, cell, y, lane);

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
                  copy_cells_async<false>(u, next_cell, y, lane);
              }
            else
              {
                wait_copies<0>();
                read_own(y, lane, r);
                __syncwarp();
                if (has_next())
                  copy_cells_async<true>(b, next_cell, y, lane);
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
                // the patch of the stored cell exists (no shuffle: its lane's
                // patch is (idx >> 4) / 8); the rim plane along z is not
                // stored where u was read: there d is ±0 and u + d = u
                // (192 of the cell's 256 bytes written)
                const bool ok = 4 * group + ((idx >> 4) >> 3) < n_patches && (u_is_zero || !row_on_rim(idx >> 4, idx & 15, false));
                const float4       w     = *reinterpret_cast<const float4 *>(x + (idx >> 4) * q3_stage + (idx & 15) * 4);
                if (ok)
                  reinterpret_cast<float4 *>(u + static_cast<std::size_t>(other) * 64)[idx & 15] = w;
              }
            if (!has_next())
              break;
            __syncwarp(); // every lane has stored from X: it may be refilled
            if (!u_is_zero)
              {
                copy_cells_async<true>(b, next_cell, x, lane);
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
  } // namespace cuda
} // namespace cellwise
