// Device Laplace operator: sum factorization with one thread per 1D line of a
// cell, the line held in registers, and shared memory to turn the lines
// between the three contraction directions.
//
// A_K u = M_x [c_y K_y (M_z u) + c_z M_y (K_z u)] + c_x K_x [M_y (M_z u)]
// (the same seven contractions as kernels::apply_laplace_cell, z first so that
// the loads from global memory are coalesced for both layouts):
//
//   stage | thread owns line | in registers                | reads from          | writes to
//   ------+------------------+-----------------------------+---------------------+-----------------
//   Z     | (i, j), along z  | a = M_z u, b = K_z u        | u (global)          | A, B (shared)
//   Y     | (i, k), along y  | w = c_y K_y a + c_z M_y b,  | A, B                | W, V (shared,
//         |                  | v = c_x M_y a               |                     |  aliasing A, B)
//   X     | (j, k), along x  | out = M_x w + K_x v         | W, V                | dst (global; for
//         |                  |                             |                     |  CellContiguous via
//         |                  |                             |                     |  shared, by z-planes)
//
// n = p + 1 nodes per axis, L = n^2 lines per cell and stage, C cells per block,
// C L threads per block. Thread tid of a block -> (local cell c, line q):
//
//   layout          | c         | q         | why
//   ----------------+-----------+-----------+----------------------------------------
//   CellContiguous  | tid / L   | tid % L   | the L lines of a cell are L consecutive
//                   |           |           | entries per z-plane: coalesced
//   CellBlocked<B>  | tid % C   | tid / C   | C <= B consecutive cells hold one local
//                   |           |           | DoF side by side: coalesced
//
// Shared index of entry (cell c, row r, line q), two buffers of that size:
//   cell fastest (blocked):  (r L + q) C + c          (warps vary c only: no conflicts)
//   line fastest:            c n (L + n) + r (L + n) + q
//                            (row stride L + n keeps the stage-Y reads, with
//                             threads varying i by 1 and k by the row stride,
//                             on distinct banks for p = 3)
// The 1D matrices are passed by value as a kernel parameter: every thread reads
// the same entry at the same time (loop indices are compile-time), so they are
// broadcast from the constant bank.

#include <cellwise/base/config.h>
#include <cellwise/base/cuda_check.h>
#include <cellwise/base/degree_dispatch.h>
#include <cellwise/cuda/laplace_operator.h>
#include <cellwise/kernels/laplace_cell.h>

#include <utility>

namespace cellwise
{
  namespace cuda
  {
    namespace
    {
      enum ApplyMode
      {
        overwrite = 0,
        accumulate,
        residual_mode
      };

      template <int p, typename Number>
      struct CellMatrices
      {
        Number mass[(p + 1) * (p + 1)];
        Number stiffness[(p + 1) * (p + 1)];
      };

      /// Cells per block: the largest C (power of two for the blocked layout,
      /// at most its block B) with C L <= 1024 threads and two buffers within
      /// 48 KB of static shared memory; the contiguous layout aims at ~256 threads.
      template <int p, typename Number, bool cell_fastest>
      struct LaunchShape
      {
        static constexpr int n = p + 1;
        static constexpr int L = n * n;
        static constexpr int
        buffer_per_cell()
        {
          return cell_fastest ? n * L : n * (L + n);
        }
        static constexpr int
        choose()
        {
          int c = cell_fastest ? 32 : (256 / L > 1 ? 256 / L : 1);
          while (c > 1 && (c * L > 1024 || 2 * c * buffer_per_cell() * int(sizeof(Number)) > 48 * 1024))
            c = cell_fastest ? c / 2 : c - 1;
          return c;
        }
        static constexpr int cells   = choose();
        static constexpr int threads = cells * L;
        static constexpr int buffer  = cells * buffer_per_cell();
      };

      template <int p, typename Number, typename Layout, bool cell_fastest>
      __global__ void __launch_bounds__(LaunchShape<p, Number, cell_fastest>::threads)
      laplace_kernel(const CellMatrices<p, Number> matrices,
                     const Number *__restrict__ factors,
                     const Number *__restrict__ u,
                     const Number      *b,
                     Number            *dst,
                     const unsigned int n_cells,
                     const int          mode)
      {
        using Shape          = LaunchShape<p, Number, cell_fastest>;
        constexpr int n      = p + 1;
        constexpr int L      = n * n;
        constexpr int C      = Shape::cells;
        constexpr int n_dofs = n * n * n;

        __shared__ Number buffer_a[Shape::buffer];
        __shared__ Number buffer_b[Shape::buffer];

        const int          tid  = threadIdx.x;
        const int          c    = cell_fastest ? tid % C : tid / L;
        const int          q    = cell_fastest ? tid / C : tid % L;
        const unsigned int cell = blockIdx.x * C + c;
        const bool         active = cell < n_cells;

        auto sh = [&](const int r, const int line) -> int {
          if constexpr (cell_fastest)
            return (r * L + line) * C + c;
          else
            return c * (n * (L + n)) + r * (L + n) + line;
        };
        const Number *M = matrices.mass;
        const Number *K = matrices.stiffness;

        // ---- stage Z: thread q = i + n j owns the z-line (i, j, :)
        {
          Number x[n];
#pragma unroll
          for (int k = 0; k < n; ++k)
            x[k] = active ? u[Layout::index(cell, q + L * k, n_dofs)] : Number(0);
#pragma unroll
          for (int k = 0; k < n; ++k)
            {
              Number a = 0, bb = 0;
#pragma unroll
              for (int l = 0; l < n; ++l)
                {
                  a += M[k * n + l] * x[l];
                  bb += K[k * n + l] * x[l];
                }
              buffer_a[sh(k, q)] = a;
              buffer_b[sh(k, q)] = bb;
            }
        }
        __syncthreads();

        // ---- stage Y: thread q = i + n k owns the y-line (i, :, k)
        Number cx = 0, cy = 0, cz = 0;
        if (active)
          {
            cx = factors[3 * static_cast<std::size_t>(cell) + 0];
            cy = factors[3 * static_cast<std::size_t>(cell) + 1];
            cz = factors[3 * static_cast<std::size_t>(cell) + 2];
          }
        {
          const int i = q % n, k = q / n;
          Number    ya[n], yb[n];
#pragma unroll
          for (int m = 0; m < n; ++m)
            {
              ya[m] = buffer_a[sh(k, i + n * m)];
              yb[m] = buffer_b[sh(k, i + n * m)];
            }
          __syncthreads(); // W, V overwrite A, B
#pragma unroll
          for (int j = 0; j < n; ++j)
            {
              Number ka = 0, mb = 0, ma = 0;
#pragma unroll
              for (int m = 0; m < n; ++m)
                {
                  ka += K[j * n + m] * ya[m];
                  mb += M[j * n + m] * yb[m];
                  ma += M[j * n + m] * ya[m];
                }
              // W(i, j, k) and V(i, j, k) at row k, line i + n j
              buffer_a[sh(k, i + n * j)] = cy * ka + cz * mb;
              buffer_b[sh(k, i + n * j)] = cx * ma;
            }
        }
        __syncthreads();

        auto store = [&](const std::size_t index, const Number value) {
          if (mode == overwrite)
            dst[index] = value;
          else if (mode == accumulate)
            dst[index] += value;
          else
            dst[index] = b[index] - value;
        };

        // ---- stage X: thread q = j + n k owns the x-line (:, j, k)
        {
          const int j = q % n, k = q / n;
          Number    xw[n], xv[n];
#pragma unroll
          for (int l = 0; l < n; ++l)
            {
              xw[l] = buffer_a[sh(k, l + n * j)];
              xv[l] = buffer_b[sh(k, l + n * j)];
            }
          Number out[n];
#pragma unroll
          for (int i = 0; i < n; ++i)
            {
              out[i] = 0;
#pragma unroll
              for (int l = 0; l < n; ++l)
                out[i] += M[i * n + l] * xw[l] + K[i * n + l] * xv[l];
            }
          if constexpr (cell_fastest)
            {
              // a warp holds one DoF of consecutive cells: direct stores coalesce
              if (!active)
                return;
#pragma unroll
              for (int i = 0; i < n; ++i)
                store(Layout::index(cell, i + n * q, n_dofs), out[i]);
            }
          else
            {
              // An x-line is n consecutive entries: direct stores would leave a
              // warp's stores n entries apart. Turn the lines back to z-planes
              // through shared memory (x-line q at q (n + 1), padded against bank
              // conflicts) and store plane by plane, as the loads of stage Z.
              Number *cell_buffer = buffer_a + c * (n * (L + n));
              __syncthreads(); // all of stage X has read W
#pragma unroll
              for (int i = 0; i < n; ++i)
                cell_buffer[q * (n + 1) + i] = out[i];
              __syncthreads();
              if (!active)
                return;
#pragma unroll
              for (int plane = 0; plane < n; ++plane)
                {
                  const int d = q + L * plane;
                  store(Layout::index(cell, d, n_dofs), cell_buffer[(d / n) * (n + 1) + d % n]);
                }
            }
        }
      }

      /// Diagonal entry of A_K per thread: thread t -> (cell t / n^3, DoF t % n^3);
      /// same expression as kernels::laplace_cell_diagonal.
      template <typename Number, typename Layout>
      __global__ void
      diagonal_kernel(const CellMatrices<8, Number> diagonals, // mass[i], stiffness[i] = M_ii, K_ii
                      const Number *__restrict__ factors,
                      Number            *diagonal,
                      const unsigned int n_cells,
                      const unsigned int n)
      {
        const unsigned int n_dofs = n * n * n;
        const std::size_t  t      = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
        const std::size_t  cell   = t / n_dofs;
        const unsigned int dof    = static_cast<unsigned int>(t % n_dofs);
        if (cell >= n_cells)
          return;
        const unsigned int i = dof % n, j = (dof / n) % n, k = dof / (n * n);
        const Number       mi = diagonals.mass[i], mj = diagonals.mass[j], mk = diagonals.mass[k];
        const Number       ki = diagonals.stiffness[i], kj = diagonals.stiffness[j], kk = diagonals.stiffness[k];
        const Number      *c  = factors + 3 * cell;
        diagonal[Layout::index(cell, dof, n_dofs)] = c[0] * ki * mj * mk + c[1] * mi * kj * mk + c[2] * mi * mj * kk;
      }

      template <int p, typename Number, typename Layout>
      void
      launch_laplace(const std::vector<double> &mass,
                     const std::vector<double> &stiffness,
                     const Number              *factors,
                     const Number              *u,
                     const Number              *b,
                     Number                    *dst,
                     const unsigned int         n_cells,
                     const int                  mode)
      {
        constexpr bool cell_fastest = Layout::cell_block > 1;
        using Shape                 = LaunchShape<p, Number, cell_fastest>;
        static_assert(!cell_fastest || Layout::cell_block % Shape::cells == 0,
                      "a block of cells must not straddle two layout blocks");
        CellMatrices<p, Number> matrices;
        for (int k = 0; k < (p + 1) * (p + 1); ++k)
          {
            matrices.mass[k]      = static_cast<Number>(mass[k]);
            matrices.stiffness[k] = static_cast<Number>(stiffness[k]);
          }
        const unsigned int blocks = (n_cells + Shape::cells - 1) / Shape::cells;
        laplace_kernel<p, Number, Layout, cell_fastest>
          <<<blocks, Shape::threads>>>(matrices, factors, u, b, dst, n_cells, mode);
        CELLWISE_CUDA_CHECK_LAUNCH();
      }
    } // namespace

    template <typename Number, typename Layout>
    LaplaceOperator<Number, Layout>::LaplaceOperator(const Level &level, const unsigned int degree)
    {
      reinit(level, degree);
    }

    template <typename Number, typename Layout>
    LaplaceOperator<Number, Layout>::LaplaceOperator(LaplaceOperator &&other) noexcept
      : degree_(std::exchange(other.degree_, 0))
      , n_cells_(std::exchange(other.n_cells_, 0))
      , mass_(std::move(other.mass_))
      , stiffness_(std::move(other.stiffness_))
      , factors_(std::exchange(other.factors_, nullptr))
    {}

    template <typename Number, typename Layout>
    LaplaceOperator<Number, Layout> &
    LaplaceOperator<Number, Layout>::operator=(LaplaceOperator &&other) noexcept
    {
      std::swap(degree_, other.degree_);
      std::swap(n_cells_, other.n_cells_);
      std::swap(mass_, other.mass_);
      std::swap(stiffness_, other.stiffness_);
      std::swap(factors_, other.factors_);
      return *this;
    }

    template <typename Number, typename Layout>
    LaplaceOperator<Number, Layout>::~LaplaceOperator()
    {
      free_bytes(factors_);
    }

    template <typename Number, typename Layout>
    void
    LaplaceOperator<Number, Layout>::reinit(const Level &level, const unsigned int degree)
    {
      check_degree(degree);
      const Matrices1D   matrices = make_matrices_1d(degree);
      const unsigned int n        = degree + 1;
      mass_.assign(matrices.mass.data(), matrices.mass.data() + n * n);
      stiffness_.assign(matrices.stiffness.data(), matrices.stiffness.data() + n * n);

      std::vector<Number> factors(3 * static_cast<std::size_t>(level.n_cells()));
      for (unsigned int c = 0; c < level.n_cells(); ++c)
        {
          const CellBox &box = level.boxes[c];
          for (unsigned int d = 0; d < 3; ++d)
            CELLWISE_CHECK(box.size[d] > 0,
                           "cell " << c << " has non-positive size " << box.size[d] << " along axis " << d);
          // the host operator's rounding: factors computed in double, rounded once
          kernels::laplace_factors(box.size.data(), factors.data() + 3 * static_cast<std::size_t>(c));
        }
      free_bytes(factors_);
      factors_ = nullptr;
      factors_ = allocate<Number>(factors.size(), "the metric factors of the Laplace operator");
      if (!factors.empty())
        CELLWISE_CUDA_CHECK(cudaMemcpy(factors_, factors.data(), factors.size() * sizeof(Number), cudaMemcpyHostToDevice));
      degree_  = degree;
      n_cells_ = level.n_cells();
    }

    template <typename Number, typename Layout>
    void
    LaplaceOperator<Number, Layout>::apply(VectorType &dst, const VectorType *b, const VectorType &u, const int mode) const
    {
      if (n_cells_ == 0)
        return;
      dispatch_degree(degree_, [&](auto p) {
        launch_laplace<decltype(p)::value, Number, Layout>(
          mass_, stiffness_, factors_, u.data(), b ? b->data() : nullptr, dst.data(), n_cells_, mode);
      });
    }

    template <typename Number, typename Layout>
    void
    LaplaceOperator<Number, Layout>::vmult(VectorType &dst, const VectorType &src) const
    {
      CELLWISE_CHECK(src.n_cells() == n_cells_ && src.degree() == degree_,
                     "cuda::LaplaceOperator::vmult: source has " << src.n_cells() << " cells of degree " << src.degree()
                                                                 << ", the operator " << n_cells_ << " cells of degree "
                                                                 << degree_);
      CELLWISE_CHECK(&dst != &src, "cuda::LaplaceOperator::vmult cannot work in place");
      if (dst.n_cells() != src.n_cells() || dst.degree() != src.degree())
        dst.reinit(src.n_cells(), src.degree());
      apply(dst, nullptr, src, overwrite);
    }

    template <typename Number, typename Layout>
    void
    LaplaceOperator<Number, Layout>::vmult_add(VectorType &dst, const VectorType &src) const
    {
      CELLWISE_CHECK(src.n_cells() == n_cells_ && src.degree() == degree_,
                     "cuda::LaplaceOperator::vmult_add: source has " << src.n_cells() << " cells of degree "
                                                                     << src.degree() << ", the operator " << n_cells_
                                                                     << " cells of degree " << degree_);
      dst.check_compatible(src);
      CELLWISE_CHECK(&dst != &src, "cuda::LaplaceOperator::vmult_add cannot work in place");
      apply(dst, nullptr, src, accumulate);
    }

    template <typename Number, typename Layout>
    void
    LaplaceOperator<Number, Layout>::residual(VectorType &dst, const VectorType &b, const VectorType &u) const
    {
      CELLWISE_CHECK(u.n_cells() == n_cells_ && u.degree() == degree_,
                     "cuda::LaplaceOperator::residual: iterate has " << u.n_cells() << " cells of degree " << u.degree()
                                                                     << ", the operator " << n_cells_
                                                                     << " cells of degree " << degree_);
      b.check_compatible(u);
      CELLWISE_CHECK(&dst != &u, "cuda::LaplaceOperator::residual cannot overwrite the iterate");
      if (dst.n_cells() != u.n_cells() || dst.degree() != u.degree())
        dst.reinit(u.n_cells(), u.degree());
      apply(dst, &b, u, residual_mode);
    }

    template <typename Number, typename Layout>
    void
    LaplaceOperator<Number, Layout>::compute_cell_diagonals(VectorType &diagonal) const
    {
      diagonal.reinit(n_cells_, degree_);
      if (n_cells_ == 0)
        return;
      const unsigned int     n = degree_ + 1;
      CellMatrices<8, Number> diagonals{};
      for (unsigned int i = 0; i < n; ++i)
        {
          diagonals.mass[i]      = static_cast<Number>(mass_[i * n + i]);
          diagonals.stiffness[i] = static_cast<Number>(stiffness_[i * n + i]);
        }
      const std::size_t  threads = static_cast<std::size_t>(n_cells_) * n * n * n;
      const unsigned int blocks  = static_cast<unsigned int>((threads + 255) / 256);
      diagonal_kernel<Number, Layout><<<blocks, 256>>>(diagonals, factors_, diagonal.data(), n_cells_, n);
      CELLWISE_CUDA_CHECK_LAUNCH();
    }

    template class LaplaceOperator<double, CellContiguous>;
    template class LaplaceOperator<float, CellContiguous>;
    template class LaplaceOperator<double, CellBlocked<32>>;
    template class LaplaceOperator<float, CellBlocked<32>>;
  } // namespace cuda
} // namespace cellwise
