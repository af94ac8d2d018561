#pragma once
// The kernels of cuda::HermiteBiharmonicOperator on a level whose cells are
// all the same box, so that one 64 × 64 cell matrix serves every cell (001
// §4.3–4.4), or scaled copies of one box (the active cells of a locally
// refined box: the matrix scaled per cell): the two-axis even–odd
// realisation (fe/hermite_even_odd.h: four dense 16 × 16 sector products
// between the pair transforms) and the dense one (the 64 × 64 product).
// Private to source/operators (not installed).
//
// Thread mapping. A block of 128 threads (4 warps) works on groups of 32
// cells, one cell per lane, and loops over the groups (a persistent grid, so
// that the block loads the matrix into shared memory once). Per group:
//   1. load: the group's 32 × 64 values are one contiguous chunk of the
//      vector in both layouts (a block of CellBlocked<32> is a group), read
//      coalesced into registers during the previous group's work and put
//      into P (cell stride 65: odd, so that the lanes of a warp, 32 cells at
//      the same local index, hit distinct banks); b (or dst) likewise;
//   2. even–odd: forward pair transform (warp w the values of i_z = w) P → Q
//      in sector order; the sector product (warp w sector w: the matrix
//      entries are read at the same address by the whole warp, a broadcast)
//      Q → P; backward transform (warp w: i_z = w) P → Q;
//      dense: warp w the rows 16 w .. 16 w + 15 of A x, P → Q;
//   3. store: Q → the vector, coalesced, with the mode (=, +=, b −).
// In FP32 the products take each cell's values without their affine part
// (read from P by every thread of the cell; fe/hermite_affine_part.h).
// Shared memory: the matrix, then P and Q (32 × 65 numbers each).

#include <cellwise/fe/hermite_affine_part.h>
#include <cellwise/fe/hermite_even_odd.h>
#include <cellwise/fe/hermite_element.h>

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace cellwise
{
  namespace cuda
  {
    namespace hermite_uniform_kernels
    {
      constexpr unsigned int dofs_per_cell   = hermite::dofs_per_cell;
      constexpr unsigned int cells_per_group = 32;
      constexpr unsigned int warps           = 4;
      constexpr unsigned int threads         = warps * cells_per_group;
      constexpr unsigned int cell_stride     = dofs_per_cell + 1;
      constexpr unsigned int buffer_size     = cells_per_group * cell_stride;

      /// Numbers of the kernel-ready matrix: the four sectors E_s transposed
      /// (entry (i, l) of sector s at s·256 + l·16 + i), or A transposed
      /// (entry (i, j) at j·64 + i).
      template <bool even_odd>
      constexpr unsigned int matrix_size = even_odd ? hermite::n_sectors * 256 : dofs_per_cell * dofs_per_cell;

      /// Dynamic shared memory of a block.
      template <typename Number, bool even_odd>
      constexpr std::size_t shared_bytes = (matrix_size<even_odd> + 2 * buffer_size) * sizeof(Number);

      /// 16-byte vectors of the matrix reads: 2 doubles or 4 floats.
      template <typename Number>
      using Vector16 = std::conditional_t<std::is_same_v<Number, double>, double2, float4>;

      /// The widths of the box whose matrix a kernel applies: the values in P
      /// are that box's physical DoFs (scaled cells' too), so the affine
      /// part of an FP32 cell is formed with them.
      template <typename Number>
      struct MatrixBox
      {
        Number h[3];
      };

      /// y[o + k] += a_k x for the components a_k of a 16-byte vector.
      __device__ inline void
      add_scaled(const double2 a, const double x, double *y)
      {
        y[0] += a.x * x;
        y[1] += a.y * x;
      }
      __device__ inline void
      add_scaled(const float4 a, const float x, float *y)
      {
        y[0] += a.x * x;
        y[1] += a.y * x;
        y[2] += a.z * x;
        y[3] += a.w * x;
      }

      /// y (16 values) += Σ_l column l of the 16-row block @p a (column
      /// stride @p stride numbers) times x_l, for @p n_columns columns: every
      /// thread of the warp reads the same matrix entries.
      template <typename Number, unsigned int n_columns, unsigned int stride>
      __device__ inline void
      add_block_product(const Number *a, const Number (&x)[n_columns], Number (&y)[16])
      {
        using V                     = Vector16<Number>;
        constexpr unsigned int per  = sizeof(V) / sizeof(Number);
#pragma unroll
        for (unsigned int l = 0; l < n_columns; ++l)
          {
            const V *column = reinterpret_cast<const V *>(a + l * stride);
#pragma unroll
            for (unsigned int v = 0; v < 16 / per; ++v)
              add_scaled(column[v], x[l], y + per * v);
          }
      }

      /// Cell @p c (of the group) and local index @p i of the value at
      /// position @p k of the group's chunk of the vector.
      template <typename Layout>
      __device__ inline void
      chunk_position(const unsigned int k, unsigned int &c, unsigned int &i)
      {
        static_assert(Layout::cell_block == 1 || Layout::cell_block == cells_per_group,
                      "a group of cells must be one contiguous chunk of the vector");
        if constexpr (Layout::cell_block == 1)
          {
            c = k / dofs_per_cell;
            i = k % dofs_per_cell;
          }
        else
          {
            c = k % cells_per_group;
            i = k / cells_per_group;
          }
      }

      /// The sum of @p value over the block, in a fixed order (a warp's
      /// shuffle tree, then the warps in turn), written to
      /// @p partials[blockIdx.x]. Every thread of the block calls it.
      __device__ inline void
      write_block_sum(double value, double *partials)
      {
        __shared__ double warp_sums[warps];
#pragma unroll
        for (unsigned int offset = 16; offset > 0; offset /= 2)
          value += __shfl_down_sync(0xffffffffu, value, offset);
        if (threadIdx.x % 32 == 0)
          warp_sums[threadIdx.x / 32] = value;
        __syncthreads();
        if (threadIdx.x == 0)
          {
            double sum = 0;
#pragma unroll
            for (unsigned int w = 0; w < warps; ++w)
              sum += warp_sums[w];
            partials[blockIdx.x] = sum;
          }
      }

      /// The sum of the @p n partial sums of the blocks, in a fixed order
      /// (lane l the partials l, l + 32, ..., then a shuffle tree), written
      /// to @p result; one warp.
      __global__ void __launch_bounds__(32)
      sum_partials_kernel(const double *partials, const unsigned int n, double *result)
      {
        double sum = 0;
        for (unsigned int k = threadIdx.x; k < n; k += 32)
          sum += partials[k];
#pragma unroll
        for (unsigned int offset = 16; offset > 0; offset /= 2)
          sum += __shfl_down_sync(0xffffffffu, sum, offset);
        if (threadIdx.x == 0)
          *result = sum;
      }

      /// mode 0: dst = A u, 1: dst += A u, 2: dst = b − A u (b may be dst),
      /// with the one cell matrix of the level in the kernel-ready order of
      /// matrix_size. With @p mask_bits (one word per cell: the 64 DoFs),
      /// modes 0 and 2 multiply the result by the DoF's bit before the store:
      /// bit for bit the separate pass dst.scale(mask) of the mask they were
      /// made from, without its 24 bytes per entry. With @p scaled (cells
      /// that are scaled copies of the matrix's box, mesh/cell_mapping.h
      /// common_box_shape; @p cell_scale their scales) cell c of scale t has
      /// the matrix t⁻¹ S_t A S_t, S_t = diag(t^|k_i|) the derivative scaling
      /// of its DoFs (each derivative of the physical basis brings a factor
      /// of the width, the fourth-order form t⁻⁴ and the volume t³): u is
      /// scaled by S_t in the load, the product by t⁻¹ S_t before the store.
      /// (A template switch: a run-time one cost the kernel of one cell size
      /// 38 registers in FP64.) With @p pairs (mode 0 only: CG's ⟨p, A p⟩),
      /// each block also sums u_i dst_i over its values in double and writes
      /// the sum to pairing_partials[blockIdx.x] (sum_partials_kernel adds
      /// them): u is kept in the registers that mode 0 does not use for b, so
      /// the pairing costs no second read of u and dst. A template switch as
      /// well: the run-time one cost every FP64 kernel of one cell size 38
      /// registers (128 → 166, four blocks per multiprocessor → three), the
      /// smoothers' residuals included.
      template <typename Number, typename Layout, bool even_odd, bool scaled, bool pairs>
      __global__ void __launch_bounds__(threads)
        uniform_cell_kernel(const Number *__restrict__ matrix,
                            const Number *__restrict__ u,
                            const Number *b,
                            Number      *dst,
                            const unsigned int n_cells,
                            const int          mode_argument,
                            const std::uint64_t *__restrict__ mask_bits,
                            const Number *__restrict__ cell_scale,
                            const MatrixBox<Number>    box,
                            double *pairing_partials)
      {
        const int mode = pairs ? 0 : mode_argument;
        static_assert(dofs_per_cell == 64, "one word of mask bits per cell");
        extern __shared__ __align__(16) unsigned char shared_memory[];
        Number *const A = reinterpret_cast<Number *>(shared_memory);
        Number *const P = A + matrix_size<even_odd>;
        Number *const Q = P + buffer_size;
        for (unsigned int k = threadIdx.x; k < matrix_size<even_odd>; k += threads)
          A[k] = matrix[k];
        const unsigned int lane = threadIdx.x % cells_per_group, w = threadIdx.x / cells_per_group;
        const unsigned int n_groups = (n_cells + cells_per_group - 1) / cells_per_group;

        // The values of a thread in the load and the store: positions
        // threadIdx.x + t · threads of the group's chunk. The next group's
        // u and this group's b (or dst) are loaded into registers before
        // this group's products, so that their memory latency overlaps the
        // arithmetic (in FP64 only 5 blocks of 4 warps fit on a multiprocessor).
        constexpr unsigned int per_thread = cells_per_group * dofs_per_cell / threads;
        Number                 ahead[per_thread], rhs[per_thread];
        const auto             load_chunk = [&](const Number *source, const unsigned int group, Number(&values)[per_thread]) {
          const std::size_t  offset = std::size_t(group) * cells_per_group * dofs_per_cell;
          const unsigned int valid  = min(cells_per_group, n_cells - group * cells_per_group);
#pragma unroll
          for (unsigned int t = 0; t < per_thread; ++t)
            {
              unsigned int c, i;
              chunk_position<Layout>(threadIdx.x + t * threads, c, i);
              values[t] = c < valid ? source[offset + threadIdx.x + t * threads] : Number(0);
            }
        };
        if (blockIdx.x < n_groups)
          load_chunk(u, blockIdx.x, ahead);
        // the pairing: u of the group in rhs (mode 0 leaves it unused)
        double pairing_sum = 0;

        for (unsigned int group = blockIdx.x; group < n_groups; group += gridDim.x)
          {
            const std::size_t  offset = std::size_t(group) * cells_per_group * dofs_per_cell;
            const unsigned int valid  = min(cells_per_group, n_cells - group * cells_per_group);
#pragma unroll
            for (unsigned int t = 0; t < per_thread; ++t)
              {
                unsigned int c, i;
                chunk_position<Layout>(threadIdx.x + t * threads, c, i);
                Number value = ahead[t]; // (zero past the last cell)
                if constexpr (pairs)
                  rhs[t] = value;
                if constexpr (scaled)
                  if (c < valid)
                    {
                      const Number scale = cell_scale[std::size_t(group) * cells_per_group + c];
                      value *= hermite::derivative_scaling(i, scale, scale, scale);
                    }
                P[c * cell_stride + i] = value;
              }
            if (mode != 0)
              load_chunk(mode == 1 ? dst : b, group, rhs);
            if (group + gridDim.x < n_groups)
              load_chunk(u, group + gridDim.x, ahead);
            __syncthreads(); // (and the matrix, in the first group)

            // lanes past the last cell compute on stale values that are
            // never stored
            Number *const p = P + lane * cell_stride, *const q = Q + lane * cell_stride;
            const hermite::AffinePart<Number> affine = hermite::product_affine_part(p, box.h[0], box.h[1], box.h[2]);
            if constexpr (even_odd)
              {
                // forward: the 16 values of i_z = w into the sectors, Q[s·16 + l]
#pragma unroll
                for (unsigned int jy = 0; jy < 2; ++jy)
#pragma unroll
                  for (unsigned int jx = 0; jx < 2; ++jx)
                    {
                      Number members[4];
#pragma unroll
                      for (unsigned int m = 0; m < 4; ++m)
                        {
                          const unsigned int i = hermite::group_member(jx, jy, w, m & 1, m >> 1);
                          members[m]           = hermite::product_input(i, p[i], affine);
                        }
                      Number       sector[4];
                      hermite::forward_quad(members, jx, jy, sector);
#pragma unroll
                      for (unsigned int s = 0; s < 4; ++s)
                        q[s * 16 + jx + 2 * jy + 4 * w] = sector[s];
                    }
                __syncthreads();
                // sector w: P[w·16 + i] = Σ_l E_w(i, l) Q[w·16 + l]
                Number x[16], y[16];
#pragma unroll
                for (unsigned int l = 0; l < 16; ++l)
                  {
                    x[l] = q[w * 16 + l];
                    y[l] = 0;
                  }
                add_block_product<Number, 16, 16>(A + w * 256, x, y);
#pragma unroll
                for (unsigned int i = 0; i < 16; ++i)
                  p[w * 16 + i] = y[i];
                __syncthreads();
                // backward: the values of i_z = w from the four sectors
#pragma unroll
                for (unsigned int jy = 0; jy < 2; ++jy)
#pragma unroll
                  for (unsigned int jx = 0; jx < 2; ++jx)
                    {
                      const unsigned int l         = jx + 2 * jy + 4 * w;
                      const Number       sector[4] = {p[l], p[16 + l], p[32 + l], p[48 + l]};
                      Number             members[4];
                      hermite::backward_quad(sector, jx, jy, members);
                      q[hermite::group_member(jx, jy, w, 0, 0)] = members[0];
                      q[hermite::group_member(jx, jy, w, 1, 0)] = members[1];
                      q[hermite::group_member(jx, jy, w, 0, 1)] = members[2];
                      q[hermite::group_member(jx, jy, w, 1, 1)] = members[3];
                    }
              }
            else
              {
                // rows 16 w .. 16 w + 15 of A x, the columns in chunks of 16
                Number y[16];
#pragma unroll
                for (unsigned int i = 0; i < 16; ++i)
                  y[i] = 0;
#pragma unroll
                for (unsigned int chunk = 0; chunk < 4; ++chunk)
                  {
                    Number x[16];
#pragma unroll
                    for (unsigned int l = 0; l < 16; ++l)
                      x[l] = hermite::product_input(16 * chunk + l, p[16 * chunk + l], affine);
                    add_block_product<Number, 16, dofs_per_cell>(A + 16 * chunk * dofs_per_cell + 16 * w, x, y);
                  }
#pragma unroll
                for (unsigned int i = 0; i < 16; ++i)
                  q[16 * w + i] = y[i];
              }
            __syncthreads();

#pragma unroll
            for (unsigned int t = 0; t < per_thread; ++t)
              {
                unsigned int c, i;
                chunk_position<Layout>(threadIdx.x + t * threads, c, i);
                if (c >= valid)
                  continue;
                Number value = Q[c * cell_stride + i];
                if constexpr (scaled)
                  {
                    const Number scale = cell_scale[std::size_t(group) * cells_per_group + c];
                    value *= hermite::derivative_scaling(i, scale, scale, scale) / scale;
                  }
                const std::size_t index  = offset + threadIdx.x + t * threads;
                Number            result = mode == 0 ? value : (mode == 1 ? rhs[t] + value : rhs[t] - value);
                if (mask_bits)
                  result *= Number((mask_bits[std::size_t(group) * cells_per_group + c] >> i) & 1u);
                dst[index] = result;
                if constexpr (pairs)
                  pairing_sum += double(rhs[t]) * double(result);
              }
            // the next group's load writes P, last read before the
            // synchronization above; its first write to Q follows a
            // synchronization that every thread reaches after this loop
          }
        if constexpr (pairs)
          write_block_sum(pairing_sum, pairing_partials);
      }
    } // namespace hermite_uniform_kernels
  } // namespace cuda
} // namespace cellwise
