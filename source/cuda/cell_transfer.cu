// Cell-wise prolongation and fused restriction on the device.
//
// Both kernels run over the parents (cells of level l − 1); a block holds C
// parents, each handled by n^3 threads, one per DoF (n = p + 1), and walks the
// 8 child slots in order. The three 1D passes (x, y, z, as the host's
// kernels/transfer_cell.h) go through shared memory: in each pass the thread
// of DoF (i, j, k) computes its own output entry from the n entries of its
// line, so there is no reduction between threads.
//
// Thread mapping, t = threadIdx.x, C parents per block, n3 = n^3:
//
//   layout           | C                    | parent in block c | DoF d  | global load/store of d
//   -----------------+----------------------+-------------------+--------+----------------------------
//   CellContiguous   | 256 / n3 (>= 1)      | t / n3            | t % n3 | K n3 + d: a warp reads 32
//                    |                      |                   |        | consecutive entries
//   CellBlocked<B>   | largest 2^k <= 32    | t % C             | t / C  | (K/B) B n3 + d B + K%B: a
//                    | with C n3 <= 1024    |                   |        | warp reads one DoF of C cells
//
//   parent K = C blockIdx.x + c; child of slot s: children[8 K + s]
//   shared buffers: [c][d] at c (n3 + 1) + d (the pad keeps the blocked
//   layout's threads, which differ in c, on different banks)
//
// With the child-major ordering the children of slot s of the C parents of a
// block are C consecutive cells: each slot step streams one contiguous range.
// Each thread loads its 8 children's entries before the first pass and keeps
// them in registers: 8 or 16 loads in flight instead of 1 per slot step.
// Measured on the H200 (Q3 FP64, fraction of a same-run copy): in L2 (16^3
// cells) 0.81 -> 0.89, blocked layout at 128^3 0.27 -> 0.49; the contiguous
// layout at 128^3 stayed at 0.63 (8 slot streams 1/8 of the fine vector apart:
// still to be understood, see benchmarks/cuda_solver.cu).
// Every parent is owned by one block, every child by its parent: no atomics.

#include <cellwise/base/config.h>
#include <cellwise/base/cuda_check.h>
#include <cellwise/base/degree_dispatch.h>
#include <cellwise/cuda/cell_transfer.h>
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

      /// Parents per block: ~256 threads for the contiguous layout; for the
      /// blocked layout as many as fit in 1024 threads (at most a layout block
      /// of 32), so that a warp's load of one DoF covers many consecutive cells.
      template <int p, bool cell_fastest>
      struct TransferShape
      {
        static constexpr int n  = p + 1;
        static constexpr int n3 = n * n * n;
        static constexpr int
        choose()
        {
          if (!cell_fastest)
            return n3 >= 256 ? 1 : 256 / n3;
          int c = 32;
          while (c > 1 && c * n3 > 1024)
            c /= 2;
          return c;
        }
        static constexpr int cells   = choose();
        static constexpr int threads = cells * n3;
        static constexpr int stride  = n3 + 1;
      };

      /// One 1D pass along @p direction for the entry @p d = (i, j, k) of a cell:
      /// sum_l A(row, l) in(.. l ..) with row the d-coordinate of the entry, A
      /// = P (prolongation) or P^T (restriction), A n x n row-major.
      template <int n, int direction, bool transpose, typename Number>
      __device__ inline Number
      line_product(const Number *A, const Number *in, const int d)
      {
        constexpr int step = direction == 0 ? 1 : (direction == 1 ? n : n * n);
        const int     row  = (d / step) % n;
        const int     base = d - row * step;
        Number        sum  = 0;
#pragma unroll
        for (int l = 0; l < n; ++l)
          sum += (transpose ? A[l * n + row] : A[row * n + l]) * in[base + l * step];
        return sum;
      }

      template <int p, typename Layout>
      using ShapeOf = TransferShape<p, (Layout::cell_block > 1)>;

      template <int p, typename Layout>
      __device__ inline void
      thread_position(int &c, int &d)
      {
        using Shape = ShapeOf<p, Layout>;
        if constexpr (Layout::cell_block > 1)
          {
            c = threadIdx.x % Shape::cells;
            d = threadIdx.x / Shape::cells;
          }
        else
          {
            c = threadIdx.x / Shape::n3;
            d = threadIdx.x % Shape::n3;
          }
      }

      template <int p, typename Number, typename Layout>
      __global__ void __launch_bounds__(ShapeOf<p, Layout>::threads)
      prolongate_kernel(const TransferMatrices<p, Number> matrices,
                        const int *__restrict__ children,
                        const Number *__restrict__ coarse,
                        Number            *fine,
                        const unsigned int n_parents)
      {
        using Shape      = ShapeOf<p, Layout>;
        constexpr int n  = Shape::n;
        constexpr int n2 = n * n;
        constexpr int n3 = Shape::n3;
        __shared__ Number P[2 * n2];
        __shared__ Number parent_buffer[Shape::cells * Shape::stride];
        __shared__ Number x_buffer[Shape::cells * Shape::stride];
        __shared__ Number y_buffer[Shape::cells * Shape::stride];

        for (int k = threadIdx.x; k < 2 * n2; k += Shape::threads)
          P[k] = matrices.values[k];
        int c, d;
        thread_position<p, Layout>(c, d);
        const unsigned int parent  = blockIdx.x * Shape::cells + c;
        const bool         refined = parent < n_parents && children[8 * static_cast<std::size_t>(parent)] >= 0;
        Number *const      mine    = parent_buffer + c * Shape::stride;
        Number *const      x_cell  = x_buffer + c * Shape::stride;
        Number *const      y_cell  = y_buffer + c * Shape::stride;
        // All 8 fine loads issued up front: a slot step alone has too few
        // loads in flight per SM to cover the memory latency.
        std::size_t index[8];
        Number      old[8];
        if (refined)
          {
#pragma unroll
            for (int slot = 0; slot < 8; ++slot)
              index[slot] = Layout::index(children[8 * static_cast<std::size_t>(parent) + slot], d, n3);
#pragma unroll
            for (int slot = 0; slot < 8; ++slot)
              old[slot] = fine[index[slot]];
          }
        mine[d] = refined ? coarse[Layout::index(parent, d, n3)] : Number(0);
        __syncthreads();

#pragma unroll
        for (int slot = 0; slot < 8; ++slot)
          {
            // x_buffer is free: its last reader (the y pass of slot − 1) is
            // behind the barrier before the z pass of slot − 1.
            x_cell[d] = line_product<n, 0, false>(P + (slot & 1) * n2, mine, d);
            __syncthreads();
            y_cell[d] = line_product<n, 1, false>(P + ((slot >> 1) & 1) * n2, x_cell, d);
            __syncthreads();
            const Number value = line_product<n, 2, false>(P + ((slot >> 2) & 1) * n2, y_cell, d);
            if (refined)
              fine[index[slot]] = old[slot] + value;
          }
      }

      template <int p, typename Number, typename Layout>
      __global__ void __launch_bounds__(ShapeOf<p, Layout>::threads)
      restrict_kernel(const TransferMatrices<p, Number> matrices,
                      const int *__restrict__ children,
                      const Number *__restrict__ fine_b,
                      const Number *__restrict__ fine_Au,
                      Number            *coarse,
                      const unsigned int n_parents)
      {
        using Shape      = ShapeOf<p, Layout>;
        constexpr int n  = Shape::n;
        constexpr int n2 = n * n;
        constexpr int n3 = Shape::n3;
        __shared__ Number P[2 * n2];
        __shared__ Number a_buffer[Shape::cells * Shape::stride];
        __shared__ Number b_buffer[Shape::cells * Shape::stride];

        for (int k = threadIdx.x; k < 2 * n2; k += Shape::threads)
          P[k] = matrices.values[k];
        int c, d;
        thread_position<p, Layout>(c, d);
        const unsigned int parent  = blockIdx.x * Shape::cells + c;
        const bool         refined = parent < n_parents && children[8 * static_cast<std::size_t>(parent)] >= 0;
        Number *const      a_cell  = a_buffer + c * Shape::stride;
        Number *const      b_cell  = b_buffer + c * Shape::stride;

        // All 16 fine loads issued up front (see prolongate_kernel).
        Number residual[8];
        if (refined)
          {
            std::size_t index[8];
#pragma unroll
            for (int slot = 0; slot < 8; ++slot)
              index[slot] = Layout::index(children[8 * static_cast<std::size_t>(parent) + slot], d, n3);
#pragma unroll
            for (int slot = 0; slot < 8; ++slot)
              residual[slot] = fine_b[index[slot]] - fine_Au[index[slot]];
          }
        else
          {
#pragma unroll
            for (int slot = 0; slot < 8; ++slot)
              residual[slot] = 0;
          }

        Number sum = 0; // the parent's entry d, summed over the children in slot order
#pragma unroll
        for (int slot = 0; slot < 8; ++slot)
          {
            a_cell[d] = residual[slot];
            __syncthreads();
            b_cell[d] = line_product<n, 0, true>(P + (slot & 1) * n2, a_cell, d);
            __syncthreads();
            a_cell[d] = line_product<n, 1, true>(P + ((slot >> 1) & 1) * n2, b_cell, d);
            __syncthreads();
            sum += line_product<n, 2, true>(P + ((slot >> 2) & 1) * n2, a_cell, d);
            __syncthreads(); // a_buffer is reloaded by the next slot
          }
        if (refined)
          coarse[Layout::index(parent, d, n3)] += sum;
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
      const Matrices1D   matrices = make_matrices_1d(degree);
      const unsigned int n        = degree + 1;
      prolongation_.resize(2 * n * n);
      for (unsigned int c = 0; c < 2; ++c)
        for (unsigned int i = 0; i < n; ++i)
          for (unsigned int j = 0; j < n; ++j)
            prolongation_[c * n * n + i * n + j] = matrices.prolongation[c](i, j);

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
          children_.back() = allocate<int>(children.size(), "the children table of a level");
          if (!children.empty())
            CELLWISE_CUDA_CHECK(cudaMemcpy(children_.back(), children.data(), children.size() * sizeof(int),
                                           cudaMemcpyHostToDevice));
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
        using Shape     = ShapeOf<p, Layout>;
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
        using Shape     = ShapeOf<p, Layout>;
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
