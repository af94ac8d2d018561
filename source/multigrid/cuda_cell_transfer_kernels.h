#pragma once
// The kernels of the cell-wise transfers on the device, shared by
// cuda::CellTransfer (FE_Q, cuda_cell_transfer.cu, whose header comment
// describes the thread mapping and the shared-memory maps) and
// cuda::HermiteCellTransfer (cuda_hermite_cell_transfer.cu, one set of 1D
// matrices per axis). Private to source/multigrid (not installed).

#include <cellwise/base/config.h>
#include <cellwise/base/cuda_check.h>
#include <cellwise/base/exceptions.h>
#include <cellwise/mesh/level.h>

#include <cstddef>
#include <vector>

namespace cellwise
{
  namespace cuda
  {
    namespace transfer_kernels
    {
      /// The 1D matrices as a kernel argument: P_0 then P_1, n x n row-major
      /// each, once for all axes (FE_Q) or per axis x, y, z (@p axes = 3: the
      /// Hermite element, whose derivative scaling differs per axis).
      template <int p, typename Number, int axes = 1>
      struct TransferMatrices
      {
        static_assert(axes == 1 || axes == 3, "one set of matrices, or one per axis");
        Number values[axes * 2 * (p + 1) * (p + 1)];

        /// P_0 of axis @p d (P_1 follows it); @p d a compile-time index in the
        /// kernels, so the entries stay in the constant bank.
        __device__ const Number *
        axis(const int d) const
        {
          return values + (axes == 1 ? 0 : d * 2 * (p + 1) * (p + 1));
        }
      };

      /// Launch shape and shared-memory map (see the table above).
      template <int p, typename Number, bool cell_fastest>
      struct TransferShape
      {
        static constexpr int  n    = p + 1;
        static constexpr int  L    = n * n;
        static constexpr int  n3   = n * n * n;
        static constexpr bool skew = cell_fastest ? (n == 8) : (n == 2 || n == 4 || n == 8);
        static constexpr int  cell_stride =
          cell_fastest ? n3 : n3 + (n == 2 ? 4 : (n == 4 ? 16 : (n == 6 ? 1 : 0)));
        static constexpr int
        choose()
        {
          if (!cell_fastest)
            return L >= 128 ? 1 : 128 / L;
          int c = 128 / int(sizeof(Number));
          while (c > 1 && (c * L > 1024 || 4 * n3 * c * int(sizeof(Number)) > 48 * 1024))
            c /= 2;
          return c;
        }
        static constexpr int cells   = choose();
        static constexpr int threads = cells * L;
        /// Child pairs whose old fine values prolongate_kernel loads before
        /// the x pass: as many as fit in 64 registers, at least one.
        static constexpr int preload_pairs =
          256 / (2 * n * int(sizeof(Number))) >= 4 ? 4 : (256 / (2 * n * int(sizeof(Number))) >= 1 ? 256 / (2 * n * int(sizeof(Number))) : 1);
        /// Entries of one of the four shared buffers.
        static constexpr int buffer = cells * cell_stride;

        /// Shared index of entry (i, j, k) of local cell c.
        __device__ static int
        at(const int c, const int i, const int j, const int k)
        {
          if constexpr (cell_fastest)
            {
              const int ii = skew ? ((i + j + k) & (n - 1)) : i;
              return c + cells * (ii + n * j + L * k);
            }
          else if constexpr (skew)
            return c * cell_stride + L * k + n * ((j + k) & (n - 1)) + ((i + k) & (n - 1));
          else
            return c * cell_stride + i + n * j + L * k;
        }
      };
      static_assert(TransferShape<3, double, false>::threads == 128 && TransferShape<3, double, true>::cells == 16,
                    "the Q3 shapes the header comment describes");

      template <int p, typename Number, typename Layout>
      using ShapeOf = TransferShape<p, Number, (Layout::cell_block > 1)>;

      /// Local cell c and line q of this thread.
      template <typename Shape, bool cell_fastest>
      __device__ inline void
      thread_position(int &c, int &q)
      {
        if constexpr (cell_fastest)
          {
            c = threadIdx.x % Shape::cells;
            q = threadIdx.x / Shape::cells;
          }
        else
          {
            c = threadIdx.x / Shape::L;
            q = threadIdx.x % Shape::L;
          }
      }

      /// The 8 children of @p parent (two 16-byte loads of the 32-byte row),
      /// all -1 for a parent beyond the end.
      __device__ inline void
      load_children(const int *__restrict__ children, const unsigned int parent, const bool active, int child[8])
      {
        if (active)
          {
            const int4 *row = reinterpret_cast<const int4 *>(children + 8 * static_cast<std::size_t>(parent));
            const int4  lo = row[0], hi = row[1];
            child[0] = lo.x, child[1] = lo.y, child[2] = lo.z, child[3] = lo.w;
            child[4] = hi.x, child[5] = hi.y, child[6] = hi.z, child[7] = hi.w;
          }
        else
          for (int s = 0; s < 8; ++s)
            child[s] = -1;
      }

      template <int p, typename Number, typename Layout, int axes = 1>
      __global__ void __launch_bounds__(ShapeOf<p, Number, Layout>::threads)
      prolongate_kernel(const TransferMatrices<p, Number, axes> matrices,
                        const int *__restrict__ children,
                        const Number *__restrict__ coarse,
                        Number            *fine,
                        const unsigned int n_parents)
      {
        constexpr bool cell_fastest = Layout::cell_block > 1;
        using Shape                 = ShapeOf<p, Number, Layout>;
        constexpr int n             = Shape::n;
        constexpr int L             = Shape::L;
        constexpr int n3            = Shape::n3;
        // P_c(r, l) = P[c n^2 + r n + l] for the axis of each stage
        const Number *Px = matrices.axis(0), *Py = matrices.axis(1), *Pz = matrices.axis(2);
        __shared__ Number buffer[4 * Shape::buffer];

        int c, q;
        thread_position<Shape, cell_fastest>(c, q);
        const unsigned int parent = blockIdx.x * Shape::cells + c;
        int                child[8];
        load_children(children, parent, parent < n_parents, child);
        const bool refined = child[0] >= 0;

        // Old fine values of the z-line (i, j) = (q % n, q / n) of the
        // children of the first W pairs (g, g + 4), issued first: they arrive
        // while the x and y passes run. W keeps them within ~64 registers
        // (all 4 pairs up to Q3 in FP64, Q7 in FP32); stage Z issues the
        // loads of pair g + W when it starts pair g.
        constexpr int W = Shape::preload_pairs;
        Number        old[4][2][n];
        auto          load_pair = [&](const int g) {
#pragma unroll
          for (int cz = 0; cz < 2; ++cz)
#pragma unroll
            for (int k = 0; k < n; ++k)
              old[g][cz][k] = fine[Layout::index(child[g + 4 * cz], q + L * k, n3)];
        };
        if (refined)
          {
#pragma unroll
            for (int g = 0; g < W; ++g)
              load_pair(g);
          }

        // ---- stage X: thread q = j + n k owns the x-line (:, j, k) of the parent
        Number u[n];
        if constexpr (cell_fastest)
          {
            // one entry of C consecutive cells per warp access: coalesced
#pragma unroll
            for (int i = 0; i < n; ++i)
              u[i] = refined ? coarse[Layout::index(parent, i + n * q, n3)] : Number(0);
          }
        else
          {
            // load by z-planes (consecutive threads, consecutive entries) and
            // turn to x-lines through shared buffer 3, unused until stage Y
            Number *stage = buffer + 3 * Shape::buffer;
#pragma unroll
            for (int k = 0; k < n; ++k)
              stage[Shape::at(c, q % n, q / n, k)] = refined ? coarse[Layout::index(parent, q + L * k, n3)] : Number(0);
            __syncthreads();
#pragma unroll
            for (int i = 0; i < n; ++i)
              u[i] = stage[Shape::at(c, i, q % n, q / n)];
          }
        {
          const int j = q % n, k = q / n;
#pragma unroll
          for (int cx = 0; cx < 2; ++cx)
#pragma unroll
            for (int i = 0; i < n; ++i)
              {
                Number a = 0;
#pragma unroll
                for (int l = 0; l < n; ++l)
                  a += Px[cx * L + i * n + l] * u[l];
                buffer[cx * Shape::buffer + Shape::at(c, i, j, k)] = a;
              }
        }
        __syncthreads();

        // ---- stage Y: thread q = i + n k owns the y-line (i, :, k)
        {
          const int i = q % n, k = q / n;
          Number    y[2][n];
#pragma unroll
          for (int cx = 0; cx < 2; ++cx)
#pragma unroll
            for (int m = 0; m < n; ++m)
              y[cx][m] = buffer[cx * Shape::buffer + Shape::at(c, i, m, k)];
          __syncthreads(); // B overwrites A
#pragma unroll
          for (int cy = 0; cy < 2; ++cy)
#pragma unroll
            for (int cx = 0; cx < 2; ++cx)
#pragma unroll
              for (int j = 0; j < n; ++j)
                {
                  Number b = 0;
#pragma unroll
                  for (int m = 0; m < n; ++m)
                    b += Py[cy * L + j * n + m] * y[cx][m];
                  buffer[(cx + 2 * cy) * Shape::buffer + Shape::at(c, i, j, k)] = b;
                }
        }
        __syncthreads();

        // ---- stage Z: thread q = i + n j owns the z-line (i, j, :); pair g =
        // c_x + 2 c_y gives the children g (c_z = 0) and g + 4 (c_z = 1)
        if (!refined)
          return; // no barrier follows
        {
          const int i = q % n, j = q / n;
#pragma unroll
          for (int g = 0; g < 4; ++g)
            {
              if (g + W < 4)
                load_pair(g + W);
              Number z[n];
#pragma unroll
              for (int m = 0; m < n; ++m)
                z[m] = buffer[g * Shape::buffer + Shape::at(c, i, j, m)];
#pragma unroll
              for (int cz = 0; cz < 2; ++cz)
#pragma unroll
                for (int k = 0; k < n; ++k)
                  {
                    Number value = 0;
#pragma unroll
                    for (int m = 0; m < n; ++m)
                      value += Pz[cz * L + k * n + m] * z[m];
                    fine[Layout::index(child[g + 4 * cz], q + L * k, n3)] = old[g][cz][k] + value;
                  }
            }
        }
      }

      /// The parent's values that restrict_stages_y_x adds to, loaded at the
      /// start so that the final update does not wait for memory: the x-line
      /// (j, k) = (q % n, q / n) for the blocked layout, the z-line (i, j) for
      /// the contiguous one (zeros where the parent is not refined).
      template <int p, typename Number, typename Layout>
      __device__ __forceinline__ void
      load_restriction_parent(const Number *coarse, const unsigned int parent, const int q, const bool refined, Number (&old)[p + 1])
      {
        constexpr bool cell_fastest = Layout::cell_block > 1;
        using Shape                 = ShapeOf<p, Number, Layout>;
        constexpr int n             = Shape::n;
#pragma unroll
        for (int r = 0; r < n; ++r)
          old[r] = refined ? coarse[Layout::index(parent, cell_fastest ? r + n * q : q + Shape::L * r, Shape::n3)] : Number(0);
      }

      /// The restriction's stage Z for one pair of children, g = c_x + 2 c_y
      /// and g + 4: the thread of the z-line (i, j, :) holds those lines of
      /// their residuals in @p r and writes C_g = Σ_cz P_cz^T r_{g + 4 cz}
      /// into shared buffer g.
      template <int p, typename Number, typename Layout>
      __device__ __forceinline__ void
      restrict_pair_z(const Number *Pz, const Number (&r)[2][p + 1], Number *buffer, const int g, const int c, const int i, const int j)
      {
        using Shape     = ShapeOf<p, Number, Layout>;
        constexpr int n = Shape::n;
        constexpr int L = Shape::L;
#pragma unroll
        for (int m = 0; m < n; ++m)
          {
            Number sum = 0;
#pragma unroll
            for (int cz = 0; cz < 2; ++cz)
#pragma unroll
              for (int k = 0; k < n; ++k)
                sum += Pz[cz * L + k * n + m] * r[cz][k];
            buffer[g * Shape::buffer + Shape::at(c, i, j, m)] = sum;
          }
      }

      /// The restriction's stages Y and X, after its stage Z has left C_g
      /// (g = c_x + 2 c_y) in shared buffers 0..3 and a barrier: D_cx in
      /// buffers 0 and 1, then parent += Σ_cx P_cx^T D_cx with @p old its
      /// values loaded before (x-line (j, k) = (q % n, q / n) for the
      /// blocked layout, z-line (i, j) for the contiguous one). Shared by
      /// restrict_kernel and the fused residual restriction
      /// (cuda_laplace_residual_restriction.cu); every thread of the block
      /// calls it (it has barriers).
      template <int p, typename Number, typename Layout>
      __device__ __forceinline__ void
      restrict_stages_y_x(const Number      *Py,
                          const Number      *Px,
                          Number            *buffer,
                          const int          c,
                          const int          q,
                          const unsigned int parent,
                          const bool         refined,
                          const Number (&old)[p + 1],
                          Number *coarse)
      {
        constexpr bool cell_fastest = Layout::cell_block > 1;
        using Shape                 = ShapeOf<p, Number, Layout>;
        constexpr int n             = Shape::n;
        constexpr int L             = Shape::L;
        constexpr int n3            = Shape::n3;

        // ---- stage Y: thread q = i + n k owns the y-line (i, :, k);
        // D_cx = sum_cy P_cy^T C_{cx + 2 cy}
        {
          const int i = q % n, k = q / n;
          Number    y[4][n];
#pragma unroll
          for (int g = 0; g < 4; ++g)
#pragma unroll
            for (int j = 0; j < n; ++j)
              y[g][j] = buffer[g * Shape::buffer + Shape::at(c, i, j, k)];
          __syncthreads(); // D overwrites C
#pragma unroll
          for (int cx = 0; cx < 2; ++cx)
#pragma unroll
            for (int m = 0; m < n; ++m)
              {
                Number sum = 0;
#pragma unroll
                for (int cy = 0; cy < 2; ++cy)
#pragma unroll
                  for (int j = 0; j < n; ++j)
                    sum += Py[cy * L + j * n + m] * y[cx + 2 * cy][j];
                buffer[cx * Shape::buffer + Shape::at(c, i, m, k)] = sum;
              }
        }
        __syncthreads();

        // ---- stage X: thread q = j + n k owns the x-line (:, j, k);
        // parent += sum_cx P_cx^T D_cx
        {
          const int j = q % n, k = q / n;
          Number    x[2][n];
#pragma unroll
          for (int cx = 0; cx < 2; ++cx)
#pragma unroll
            for (int i = 0; i < n; ++i)
              x[cx][i] = buffer[cx * Shape::buffer + Shape::at(c, i, j, k)];
          Number out[n];
#pragma unroll
          for (int l = 0; l < n; ++l)
            {
              out[l] = 0;
#pragma unroll
              for (int cx = 0; cx < 2; ++cx)
#pragma unroll
                for (int i = 0; i < n; ++i)
                  out[l] += Px[cx * L + i * n + l] * x[cx][i];
            }
          if constexpr (cell_fastest)
            {
              // one entry of C consecutive cells per warp access: coalesced
              if (refined)
#pragma unroll
                for (int l = 0; l < n; ++l)
                  coarse[Layout::index(parent, l + n * q, n3)] = old[l] + out[l];
            }
          else
            {
              // turn the x-lines to z-lines through shared buffer 2 (last
              // read in stage Y, before the barrier) and store by z-planes
              Number *stage = buffer + 2 * Shape::buffer;
#pragma unroll
              for (int l = 0; l < n; ++l)
                stage[Shape::at(c, l, j, k)] = out[l];
              __syncthreads();
              if (refined)
#pragma unroll
                for (int r = 0; r < n; ++r)
                  coarse[Layout::index(parent, q + L * r, n3)] = old[r] + stage[Shape::at(c, q % n, q / n, r)];
            }
        }
      }

      template <int p, typename Number, typename Layout, int axes = 1>
      __global__ void __launch_bounds__(ShapeOf<p, Number, Layout>::threads)
      restrict_kernel(const TransferMatrices<p, Number, axes> matrices,
                      const int *__restrict__ children,
                      const Number *__restrict__ fine_b,
                      const Number *__restrict__ fine_Au,
                      Number            *coarse,
                      const unsigned int n_parents)
      {
        constexpr bool cell_fastest = Layout::cell_block > 1;
        using Shape                 = ShapeOf<p, Number, Layout>;
        constexpr int n             = Shape::n;
        constexpr int L             = Shape::L;
        constexpr int n3            = Shape::n3;
        // P_c(r, l) = P[c n^2 + r n + l] for the axis of each stage
        const Number *Px = matrices.axis(0), *Py = matrices.axis(1), *Pz = matrices.axis(2);
        __shared__ Number buffer[4 * Shape::buffer];

        int c, q;
        thread_position<Shape, cell_fastest>(c, q);
        const unsigned int parent = blockIdx.x * Shape::cells + c;
        int                child[8];
        load_children(children, parent, parent < n_parents, child);
        const bool refined = child[0] >= 0;

        Number old[n];
        load_restriction_parent<p, Number, Layout>(coarse, parent, q, refined, old);

        // ---- stage Z: thread q = i + n j owns the z-line (i, j, :) of every
        // child; C_g = sum_cz P_cz^T r_{g + 4 cz}, g = c_x + 2 c_y
        {
          const int i = q % n, j = q / n;
#pragma unroll
          for (int g = 0; g < 4; ++g)
            {
              Number r[2][n];
#pragma unroll
              for (int cz = 0; cz < 2; ++cz)
#pragma unroll
                for (int k = 0; k < n; ++k)
                  if (refined)
                    {
                      const std::size_t index = Layout::index(child[g + 4 * cz], q + L * k, n3);
                      r[cz][k]                = fine_b[index] - fine_Au[index];
                    }
                  else
                    r[cz][k] = 0;
              restrict_pair_z<p, Number, Layout>(Pz, r, buffer, g, c, i, j);
            }
        }
        __syncthreads();

        restrict_stages_y_x<p, Number, Layout>(Py, Px, buffer, c, q, parent, refined, old, coarse);
      }

      /// The kernel argument of @p prolongation (P_0, P_1, once or per axis).
      template <int p, typename Number, int axes = 1>
      TransferMatrices<p, Number, axes>
      make_matrices(const std::vector<double> &prolongation)
      {
        TransferMatrices<p, Number, axes> m;
        CELLWISE_CHECK(prolongation.size() == axes * 2 * (p + 1) * (p + 1),
                       "cuda transfer: " << prolongation.size() << " matrix entries for degree " << p);
        for (int k = 0; k < axes * 2 * (p + 1) * (p + 1); ++k)
          m.values[k] = static_cast<Number>(prolongation[k]);
        return m;
      }

      /// The children of every cell of level @p l by slot (-1 where not
      /// refined), checked against the family links of level l + 1; the
      /// kernels take slot 0 as the refined flag of the parent. @p who names
      /// the transfer in the messages.
      inline std::vector<int>
      children_table(const LevelHierarchy &hierarchy, const unsigned int l, const char *who)
      {
        const Level     &level = hierarchy.level(l);
        std::vector<int> children(8 * static_cast<std::size_t>(level.n_cells()));
        for (unsigned int cell = 0; cell < level.n_cells(); ++cell)
          {
            const bool refined = level.is_refined(cell);
            for (unsigned int slot = 0; slot < 8; ++slot)
              {
                const int child = level.children[cell][slot];
                CELLWISE_CHECK(refined == (child >= 0),
                               who << ": cell " << cell << " of level " << l << " is " << (refined ? "" : "not ")
                                   << "refined but has child " << child << " in slot " << slot);
                CELLWISE_CHECK(child < 0 || (static_cast<unsigned int>(child) < hierarchy.level(l + 1).n_cells() &&
                                             hierarchy.level(l + 1).parent[child] == static_cast<int>(cell) &&
                                             hierarchy.level(l + 1).child_slot[child] == slot),
                               who << ": inconsistent family links of cell " << cell << " of level " << l << ", slot " << slot);
                children[8 * static_cast<std::size_t>(cell) + slot] = child;
              }
          }
        return children;
      }

      inline unsigned int
      n_blocks(const unsigned int n_parents, const int cells_per_block)
      {
        return (n_parents + cells_per_block - 1) / cells_per_block;
      }
    } // namespace transfer_kernels
  } // namespace cuda
} // namespace cellwise
