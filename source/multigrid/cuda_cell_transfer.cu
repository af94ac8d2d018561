// Cell-wise prolongation and fused restriction on the device: sum
// factorization over the 2^3 children of a parent with one thread per 1D line
// of a cell (the pattern of laplace_operator.cu), the line in registers, the
// 1D matrices P_0, P_1 as a kernel parameter indexed with compile-time loop
// indices only (every thread reads the same entry: constant-bank broadcast),
// and shared memory only to turn the lines between directions.
//
// The children share partial results: child slot s = c_x + 2 c_y + 4 c_z
// needs P_{c_z} ⊗ P_{c_y} ⊗ P_{c_x}, so the x pass is done once per c_x (2
// results), the y pass once per (c_y, c_x) (4) and the z pass per child (8):
// 14 n^3 line outputs per parent instead of 24 n^3 for 8 separate children,
// and no slot-dependent matrix selection at all (both P_0 and P_1 are used by
// every thread with compile-time indices). Restriction is the transpose: z
// first (summing c_z), then y (summing c_y), then x (summing c_x).
//
//   prolongate_add (x, y, z):
//   stage | thread owns line q | registers                  | reads            | writes
//   ------+--------------------+----------------------------+------------------+------------------------
//   X     | (j, k), along x    | coarse x-line u            | coarse (global;  | A_cx (shared 0, 1)
//         |                    |                            |  contiguous: via |
//         |                    |                            |  shared 3)       |
//   Y     | (i, k), along y    | A_0, A_1 y-lines           | A                | B_{cy,cx} (shared
//         |                    |                            |                  |  cx + 2 cy, aliasing A)
//   Z     | (i, j), along z    | B_g z-line, fine z-lines   | B, fine (global, | fine (global) of the
//         |                    |  of all 8 children, loaded |  loaded first)   |  children g, g + 4
//         |                    |  at kernel start           |                  |
//
//   restrict_residual_add (z, y, x):
//   Z     | (i, j), along z    | b − Au z-lines of the two  | fine b, Au       | C_g (shared g),
//         |                    |  children g, g + 4         |  (global)        |  g = cx + 2 cy
//   Y     | (i, k), along y    | C_0..C_3 y-lines           | C                | D_cx (shared cx, aliasing C)
//   X     | (j, k), along x    | D_0, D_1 x-lines; old      | D, coarse        | coarse (global;
//         |                    |  coarse loaded at start    |  (global)        |  contiguous: via shared 2)
//
// All global accesses of the fine vectors are z-lines: thread (i, j) of a cell
// touches entries i + n j + n^2 k, so consecutive threads touch consecutive
// entries (contiguous) or consecutive cells (blocked). n = p + 1, L = n^2
// lines per cell, C parents per block, C L threads:
//
//   layout          | C                        | thread tid -> (c, q) | shared entry (c, i, j, k)
//   ----------------+--------------------------+----------------------+-----------------------------------
//   CellContiguous  | max(1, 128 / L)          | c = tid / L,         | c S + n^2 k + n ((j + k) % n)
//                   |                          | q = tid % L          |   + (i + k) % n   (n = 2, 4, 8)
//                   |                          |                      | c S + i + n j + n^2 k (other n)
//   CellBlocked<B>  | 128 bytes / sizeof(Num), | c = tid % C,         | c + C (i' + n j + n^2 k),
//                   | halved while C L > 1024  | q = tid / C          | i' = (i + j + k) % n for n = 8,
//                   | or 4 n^3 C > 48 KB       |                      | i' = i otherwise
//
// Why these maps: a blocked warp holds one line of C cells per 128 bytes, so
// the cell-fastest map serves each (half-)warp in one wavefront for x-, y- and
// z-line accesses alike. The contiguous warp holds 32 lines of one or two
// cells; the skew (rotating the x and y indices by k) makes the three access
// patterns (fixed i, fixed j, fixed k) hit distinct banks for n = 2, 4, 8; the
// cell stride S = n^3 + 4 (n = 2), n^3 + 16 (n = 4), n^3 + 1 (n = 6), n^3
// (other n) separates the cells of one warp. Checked by enumerating the
// shared-memory wavefronts of the x-, y- and z-line accesses (FP64: two
// half-warps of 8-byte words; FP32: 32 words): conflict-free for the blocked
// layout at n = 2..5, 8, 9 and the contiguous layout at n = 2, 4; the other
// cases (odd n contiguous, n = 6, 7 blocked) keep some conflicts, which were
// the fewest among the padded and skewed maps tried.
//
// Parent K = C blockIdx.x + c; child of slot s: children[8 K + s] (slot 0
// also flags refinement). With the child-major ordering the children of slot
// s of the C parents of a block are C consecutive cells: each of the 8 slot
// streams of a block is one contiguous range. The fine loads are issued at the
// start (prolongation: the 2n old values of up to 4 child pairs, as many as
// fit in 64 registers, the others one pair ahead in stage Z; restriction:
// the 16n values of b and Au, scheduled by the compiler), so that many loads are in flight per
// SM while the block waits. Every parent is owned by one block, every child by
// its parent: no atomics. Parents beyond n_parents and parents without
// children compute on zeros (they take part in the barriers) and store nothing.

#include <cellwise/base/config.h>
#include <cellwise/base/cuda_check.h>
#include <cellwise/base/degree_dispatch.h>
#include <cellwise/multigrid/cuda_cell_transfer.h>
#include <cellwise/multigrid/cell_transfer.h>
#include <cellwise/fe/matrices_1d.h>

namespace cellwise
{
  namespace cuda
  {
    namespace
    {
      template <int p, typename Number>
      struct TransferMatrices
      {
        /// P_0 then P_1, n x n row-major each.
        Number values[2 * (p + 1) * (p + 1)];
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

      template <int p, typename Number, typename Layout>
      __global__ void __launch_bounds__(ShapeOf<p, Number, Layout>::threads)
      prolongate_kernel(const TransferMatrices<p, Number> matrices,
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
        const Number *P             = matrices.values; // P_c(r, l) = P[c n^2 + r n + l]
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
                  a += P[cx * L + i * n + l] * u[l];
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
                    b += P[cy * L + j * n + m] * y[cx][m];
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
                      value += P[cz * L + k * n + m] * z[m];
                    fine[Layout::index(child[g + 4 * cz], q + L * k, n3)] = old[g][cz][k] + value;
                  }
            }
        }
      }

      template <int p, typename Number, typename Layout>
      __global__ void __launch_bounds__(ShapeOf<p, Number, Layout>::threads)
      restrict_kernel(const TransferMatrices<p, Number> matrices,
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
        const Number *P             = matrices.values; // P_c(r, l) = P[c n^2 + r n + l]
        __shared__ Number buffer[4 * Shape::buffer];

        int c, q;
        thread_position<Shape, cell_fastest>(c, q);
        const unsigned int parent = blockIdx.x * Shape::cells + c;
        int                child[8];
        load_children(children, parent, parent < n_parents, child);
        const bool refined = child[0] >= 0;

        // The parent's old values, loaded now so that the final update does
        // not wait for memory: the x-line (j, k) = (q % n, q / n) for the
        // blocked layout, the z-line (i, j) for the contiguous one (stored
        // through shared memory below).
        Number old[n];
#pragma unroll
        for (int r = 0; r < n; ++r)
          old[r] = refined ? coarse[Layout::index(parent, cell_fastest ? r + n * q : q + L * r, n3)] : Number(0);

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
#pragma unroll
              for (int m = 0; m < n; ++m)
                {
                  Number sum = 0;
#pragma unroll
                  for (int cz = 0; cz < 2; ++cz)
#pragma unroll
                    for (int k = 0; k < n; ++k)
                      sum += P[cz * L + k * n + m] * r[cz][k];
                  buffer[g * Shape::buffer + Shape::at(c, i, j, m)] = sum;
                }
            }
        }
        __syncthreads();

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
                    sum += P[cy * L + j * n + m] * y[cx + 2 * cy][j];
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
                  out[l] += P[cx * L + i * n + l] * x[cx][i];
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

      template <int p, typename Number>
      TransferMatrices<p, Number>
      make_matrices(const std::vector<double> &prolongation)
      {
        TransferMatrices<p, Number> m;
        for (int k = 0; k < 2 * (p + 1) * (p + 1); ++k)
          m.values[k] = static_cast<Number>(prolongation[k]);
        return m;
      }

      unsigned int
      n_blocks(const unsigned int n_parents, const int cells_per_block)
      {
        return (n_parents + cells_per_block - 1) / cells_per_block;
      }
    } // namespace

    template <typename Number, typename Layout>
    CellTransfer<Number, Layout>::CellTransfer(const LevelHierarchy &hierarchy, const unsigned int degree)
    {
      reinit(hierarchy, degree);
    }

    template <typename Number, typename Layout>
    CellTransfer<Number, Layout>::~CellTransfer()
    {
      release();
    }

    template <typename Number, typename Layout>
    void
    CellTransfer<Number, Layout>::release() noexcept
    {
      for (int *pointer : children_)
        free_bytes(pointer);
      children_.clear();
    }

    template <typename Number, typename Layout>
    void
    CellTransfer<Number, Layout>::reinit(const LevelHierarchy &hierarchy, const unsigned int degree)
    {
      check_degree(degree);
      release();
      hierarchy_ = &hierarchy;
      degree_    = degree;
      prolongation_ = packed_prolongation_matrices<double>(degree);

      for (unsigned int l = 0; l + 1 < hierarchy.n_levels(); ++l)
        {
          const Level     &level = hierarchy.level(l);
          std::vector<int> children(8 * static_cast<std::size_t>(level.n_cells()));
          for (unsigned int cell = 0; cell < level.n_cells(); ++cell)
            {
              const bool refined = level.is_refined(cell);
              for (unsigned int slot = 0; slot < 8; ++slot)
                {
                  const int child = level.children[cell][slot];
                  // the kernels take slot 0 as the refined flag of the parent
                  CELLWISE_CHECK(refined == (child >= 0),
                                 "cuda::CellTransfer: cell " << cell << " of level " << l << " is "
                                                             << (refined ? "" : "not ") << "refined but has child "
                                                             << child << " in slot " << slot);
                  CELLWISE_CHECK(child < 0 || (static_cast<unsigned int>(child) < hierarchy.level(l + 1).n_cells() &&
                                               hierarchy.level(l + 1).parent[child] == static_cast<int>(cell) &&
                                               hierarchy.level(l + 1).child_slot[child] == slot),
                                 "cuda::CellTransfer: inconsistent family links of cell " << cell << " of level " << l
                                                                                         << ", slot " << slot);
                  children[8 * static_cast<std::size_t>(cell) + slot] = child;
                }
            }
          children_.push_back(nullptr);
          children_.back() = upload(children, "the children table of a level");
        }
    }

    template <typename Number, typename Layout>
    void
    CellTransfer<Number, Layout>::check_level(const unsigned int fine_level, const VectorType &fine, const VectorType &coarse) const
    {
      check_transfer_levels(hierarchy_, degree_, fine_level, fine.n_cells(), fine.degree(), coarse.n_cells(), coarse.degree());
    }

    template <typename Number, typename Layout>
    void
    CellTransfer<Number, Layout>::prolongate_add(const unsigned int to_level, VectorType &fine, const VectorType &coarse) const
    {
      check_level(to_level, fine, coarse);
      CELLWISE_CHECK(&fine != &coarse, "cuda::CellTransfer::prolongate_add: fine and coarse are the same vector");
      const unsigned int n_parents = coarse.n_cells();
      if (n_parents == 0)
        return;
      dispatch_degree(degree_, [&](auto degree) {
        constexpr int p = decltype(degree)::value;
        using Shape     = ShapeOf<p, Number, Layout>;
        prolongate_kernel<p, Number, Layout><<<n_blocks(n_parents, Shape::cells), Shape::threads>>>(
          make_matrices<p, Number>(prolongation_), children_[to_level - 1], coarse.data(), fine.data(), n_parents);
        CELLWISE_CUDA_CHECK_LAUNCH();
      });
    }

    template <typename Number, typename Layout>
    void
    CellTransfer<Number, Layout>::restrict_residual_add(const unsigned int from_level,
                                                        VectorType        &coarse,
                                                        const VectorType  &fine_b,
                                                        const VectorType  &fine_Au) const
    {
      check_level(from_level, fine_b, coarse);
      fine_b.check_compatible(fine_Au);
      CELLWISE_CHECK(&coarse != &fine_b && &coarse != &fine_Au,
                     "cuda::CellTransfer::restrict_residual_add: the coarse vector is also a fine input");
      const unsigned int n_parents = coarse.n_cells();
      if (n_parents == 0)
        return;
      dispatch_degree(degree_, [&](auto degree) {
        constexpr int p = decltype(degree)::value;
        using Shape     = ShapeOf<p, Number, Layout>;
        restrict_kernel<p, Number, Layout><<<n_blocks(n_parents, Shape::cells), Shape::threads>>>(
          make_matrices<p, Number>(prolongation_), children_[from_level - 1], fine_b.data(), fine_Au.data(),
          coarse.data(), n_parents);
        CELLWISE_CUDA_CHECK_LAUNCH();
      });
    }

    template <typename Number, typename Layout>
    void
    CellTransfer<Number, Layout>::restrict_add(const unsigned int from_level, VectorType &coarse, const VectorType &fine) const
    {
      VectorType zero;
      zero.reinit(fine);
      restrict_residual_add(from_level, coarse, fine, zero);
    }

    template class CellTransfer<double, CellContiguous>;
    template class CellTransfer<float, CellContiguous>;
    template class CellTransfer<double, CellBlocked<32>>;
    template class CellTransfer<float, CellBlocked<32>>;
  } // namespace cuda
} // namespace cellwise
