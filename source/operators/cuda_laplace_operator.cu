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
//   Z     | (i, j), along z  | a = M_z u, b = K_z u        | u (global; fused    | A, B (shared;
//         |                  |                             |  step: see below)   |  fused step: u, d)
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
//
// Modes: what stage Z loads and what stage X stores, per copy of a cell
// (z = S r_old is the assembled residual the smoother step consumes; D^{-1}
// the inverse diagonal with the masks folded in):
//
//   mode           | stage Z reads            | stage Z writes        | stage X writes
//   ---------------+--------------------------+-----------------------+------------------
//   overwrite      | u                        | -                     | dst = A u
//   accumulate     | u                        | -                     | dst += A u
//   residual_mode  | u                        | -                     | dst = b − A u
//   fused step     | z (= dst), D^{-1},       | d = α d + β D^{-1} z  | dst = b − A u
//   (smoother_step)|  u unless from zero,     |  if stored,           |  (z overwritten)
//                  |  d if α ≠ 0              | u ← u + d (or d)      |
//   corrected      | u, z (FP32, contiguous;  | u ← u + widen(z)      | dst = mask ∘ (b − A u)
//   (add_and_      |  blocked: staged through |                       |  (b loaded with u)
//   masked_resid.) |  shared memory), b       |                       |
//
// overwrite and residual_mode take an optional mask (masked_vmult,
// masked_residual: the outer iterations' Dirichlet mask), multiplied into the
// result before its one store, which saves the pass of a separate
// r.scale(mask) and rounds exactly as it. A mask registered with
// use_dirichlet_mask is read as one bit per DoF (cuda_dirichlet_bits.h builds
// them): the factor is the same 0 or 1, so the result is the same bit for
// bit (NaN · 0 stays NaN), and the FP64 residual moves 24 bytes per entry
// instead of 32.
//
// The fused step and the corrected residual are separate instantiations
// (template flags fused_step, corrected), so that the code of the other three
// modes is unchanged; their output stage is that of residual_mode. It replaces four passes of the unfused smoother step
// (r.scale(D^{-1}), the updates of d and u, the residual) by one: for Jacobi
// read u, z, D^{-1}, b and write u, r (6 vector passes instead of 9), for
// Chebyshev also read and write d (8 instead of 12). The last step of a smooth
// needs no residual and is the update alone (cuda::apply_smoother_update,
// operators/cuda_smoother_update.h: one thread per entry, same arithmetic).

#include <cellwise/base/config.h>
#include <cellwise/base/cuda_check.h>
#include <cellwise/base/parallel.h>
#include <cellwise/base/degree_dispatch.h>
#include <cellwise/operators/cuda_laplace_operator.h>
#include <cellwise/operators/cuda_smoother_update.h>
#include <cellwise/operators/laplace_operator.h>
#include <cellwise/kernels/laplace_cell.h>

#include "cuda_dirichlet_bits.h"

#include <algorithm>
#include <utility>

namespace cellwise
{
  namespace cuda
  {
    namespace
    {
      using internal::MaskArguments;
      using internal::mask_arguments_for;
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

      /// The vectors and scalars of the fused point-smoother step; read only
      /// by the fused_step kernels. No __restrict__: u and d are read and
      /// written, and z is read from dst, which the output stage overwrites.
      template <typename Number>
      struct StepArguments
      {
        Number       *u                = nullptr;
        const Number *inverse_diagonal = nullptr;
        Number       *update           = nullptr;
        Number        alpha            = 0;
        Number        beta             = 0;
        bool          read_u           = false;
        bool          read_update      = false;
        bool          store_update     = false;
        /// The corrected residual (add_and_masked_residual): the FP32
        /// correction, cell-contiguous, added to u in the load stage.
        const float *correction = nullptr;
      };

      /// The correction of one copy (smoother_correction, shared with the
      /// update-only step, operators/cuda_smoother_update.h).
      template <typename Number>
      __device__ __forceinline__ Number
      step_correction(const StepArguments<Number> &step, const Number z, const Number inverse_diagonal, const Number d)
      {
        return smoother_correction(step.alpha, step.beta, step.read_update, z, inverse_diagonal, d);
      }

      template <int p, typename Number, typename Layout, bool cell_fastest, bool fused_step, bool corrected>
      __global__ void __launch_bounds__(LaunchShape<p, Number, cell_fastest>::threads)
      laplace_kernel(const CellMatrices<p, Number> matrices,
                     const Number *__restrict__ factors,
                     const Number *__restrict__ u,
                     const Number            *b,
                     Number                  *dst,
                     const unsigned int       n_cells,
                     const int                mode,
                     const StepArguments<Number> step,
                     const MaskArguments<Number> mask)
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

        // The DoF of the i-th value this thread stores in stage X (x-line
        // entry for the blocked layout, z-plane entry after the transposition
        // otherwise), and the b of these copies for the fused step and the
        // corrected residual, loaded before the contraction (the corrected
        // residual: with u, at the start) so that the n loads are in flight
        // together; with b not __restrict__, a load in the store loop would
        // wait for the previous store.
        auto out_dof = [&](const int i) -> int { return cell_fastest ? i + n * q : q + L * i; };
        Number b_out[n];

        // ---- stage Z: thread q = i + n j owns the z-line (i, j, :)
        {
          Number x[n];
          if constexpr (corrected)
            {
              // u ← u + widen(z) with z cell-contiguous FP32. The blocked
              // layout's warps hold one DoF of 32 cells, 256 bytes apart in z:
              // the block's C n^3 consecutive values are staged through shared
              // memory with coalesced loads, after the loads of u and b have
              // been issued.
              std::size_t index[n];
              Number      u_old[n], z[n];
#pragma unroll
              for (int k = 0; k < n; ++k)
                {
                  index[k] = Layout::index(cell, q + L * k, n_dofs);
                  u_old[k] = active ? step.u[index[k]] : Number(0);
                  b_out[k] = active ? b[Layout::index(cell, out_dof(k), n_dofs)] : Number(0);
                }
              const float *z_cell;
              if constexpr (cell_fastest)
                {
                  // C n^3 = n C L values: n per thread, all loads issued
                  // before the first store to shared memory
                  float             *stage    = reinterpret_cast<float *>(buffer_b);
                  const std::size_t  first    = static_cast<std::size_t>(blockIdx.x) * C * n_dofs;
                  const unsigned int n_values = (min(n_cells - blockIdx.x * C, static_cast<unsigned int>(C))) * n_dofs;
                  float              staged[n];
#pragma unroll
                  for (int r = 0; r < n; ++r)
                    {
                      const unsigned int e = tid + r * Shape::threads;
                      staged[r]            = e < n_values ? step.correction[first + e] : 0.f;
                    }
#pragma unroll
                  for (int r = 0; r < n; ++r)
                    stage[tid + r * Shape::threads] = staged[r];
                  __syncthreads();
                  z_cell = stage + c * n_dofs;
                }
              else
                z_cell = step.correction + static_cast<std::size_t>(cell) * n_dofs;
#pragma unroll
              for (int k = 0; k < n; ++k)
                z[k] = active ? Number(z_cell[q + L * k]) : Number(0);
#pragma unroll
              for (int k = 0; k < n; ++k)
                {
                  x[k] = u_old[k] + z[k];
                  if (active)
                    step.u[index[k]] = x[k];
                }
              if constexpr (cell_fastest)
                __syncthreads(); // the stage is read before the buffers are written
            }
          else if constexpr (!fused_step)
            {
#pragma unroll
              for (int k = 0; k < n; ++k)
                x[k] = active ? u[Layout::index(cell, q + L * k, n_dofs)] : Number(0);
            }
          else
            {
              // The smoother update of the line's copies, then the operator on
              // the updated values. All loads come before the stores: u and d
              // are not __restrict__, so the compiler could not hoist a load of
              // the next copy above the store of the previous one, and the
              // n loads of each vector would wait in sequence.
#pragma unroll
              for (int k = 0; k < n; ++k)
                x[k] = Number(0);
              if (active)
                {
                  std::size_t index[n];
                  Number      z[n], inverse_diagonal[n], d[n], u_old[n];
#pragma unroll
                  for (int k = 0; k < n; ++k)
                    {
                      index[k]            = Layout::index(cell, q + L * k, n_dofs);
                      z[k]                = dst[index[k]];
                      inverse_diagonal[k] = step.inverse_diagonal[index[k]];
                      d[k]                = step.read_update ? step.update[index[k]] : Number(0);
                      u_old[k]            = step.read_u ? step.u[index[k]] : Number(0);
                    }
#pragma unroll
                  for (int k = 0; k < n; ++k)
                    {
                      d[k] = step_correction(step, z[k], inverse_diagonal[k], d[k]);
                      x[k] = step.read_u ? u_old[k] + d[k] : d[k];
                    }
#pragma unroll
                  for (int k = 0; k < n; ++k)
                    {
                      step.u[index[k]] = x[k];
                      if (step.store_update)
                        step.update[index[k]] = d[k];
                    }
                }
            }
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

        // With a mask (the outer iterations' Dirichlet mask) the result is
        // multiplied by it before the one store: bit for bit the separate
        // r.scale(mask) pass it replaces.
        auto store = [&](const int dof, const Number value, const Number preloaded_b) {
          const std::size_t index = Layout::index(cell, dof, n_dofs);
          Number            result;
          if (mode == overwrite)
            result = value;
          else if (mode == accumulate)
            result = dst[index] + value;
          else
            result = (corrected ? preloaded_b : b[index]) - value;
          if (mask.bits)
            result *= Number((mask.bits[static_cast<std::size_t>(cell) * mask.words + dof / 64] >> (dof % 64)) & 1u);
          else if (mask.values)
            result *= mask.values[index];
          dst[index] = result;
        };

        // ---- stage X: thread q = j + n k owns the x-line (:, j, k)
        {
          const int j = q % n, k = q / n;
          if constexpr (fused_step)
            {
#pragma unroll
              for (int i = 0; i < n; ++i)
                b_out[i] = active ? b[Layout::index(cell, out_dof(i), n_dofs)] : Number(0);
            }
          Number xw[n], xv[n];
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
                if constexpr (fused_step)
                  dst[Layout::index(cell, out_dof(i), n_dofs)] = b_out[i] - out[i];
                else
                  store(i + n * q, out[i], b_out[i]);
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
                  if constexpr (fused_step)
                    dst[Layout::index(cell, d, n_dofs)] = b_out[plane] - cell_buffer[(d / n) * (n + 1) + d % n];
                  else
                    store(d, cell_buffer[(d / n) * (n + 1) + d % n], b_out[plane]);
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

      /// Launches the kernel of @p mode; with @p fused_step, the smoother step
      /// of @p step in the load stage (u is then null and @p mode is residual_mode);
      /// with @p corrected, u ← u + widen(correction) of @p step there (u is null).
      template <int p, typename Number, typename Layout, bool fused_step = false, bool corrected = false>
      void
      launch_laplace(const std::vector<double>   &mass,
                     const std::vector<double>   &stiffness,
                     const Number                *factors,
                     const Number                *u,
                     const Number                *b,
                     Number                      *dst,
                     const unsigned int           n_cells,
                     const int                    mode,
                     const StepArguments<Number> &step = {},
                     const MaskArguments<Number> &mask = {})
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
        laplace_kernel<p, Number, Layout, cell_fastest, fused_step, corrected>
          <<<blocks, Shape::threads>>>(matrices, factors, u, b, dst, n_cells, mode, step, mask);
        CELLWISE_CUDA_CHECK_LAUNCH();
      }
    } // namespace

    template <typename Number, typename Layout>
    LaplaceOperator<Number, Layout>::LaplaceOperator(const Level &level, const unsigned int degree)
    {
      reinit(level, degree);
    }

    template <typename Number, typename Layout>
    LaplaceOperator<Number, Layout>::LaplaceOperator(const Level                &level,
                                                     const unsigned int          degree,
                                                     const ScalarFunction       &coefficient,
                                                     const CoefficientEvaluation evaluation)
    {
      CELLWISE_CHECK(!coefficient || evaluation == CoefficientEvaluation::cell_average,
                     "cellwise::cuda::LaplaceOperator takes the coefficient as its cell averages only (one per cell): "
                     "use CoefficientEvaluation::cell_average, or cellwise::cuda::GeneralLaplaceOperator for the "
                     "coefficient at the quadrature points");
      reinit(level, degree);
      if (coefficient)
        set_coefficient(level, coefficient);
    }

    template <typename Number, typename Layout>
    LaplaceOperator<Number, Layout>::LaplaceOperator(LaplaceOperator &&other) noexcept
      : degree_(std::exchange(other.degree_, 0))
      , n_cells_(std::exchange(other.n_cells_, 0))
      , mass_(std::move(other.mass_))
      , stiffness_(std::move(other.stiffness_))
      , factors_(std::exchange(other.factors_, nullptr))
      , coefficient_(std::move(other.coefficient_))
      , mask_vector_(std::exchange(other.mask_vector_, nullptr))
      , mask_data_(std::exchange(other.mask_data_, nullptr))
      , mask_bits_(std::exchange(other.mask_bits_, nullptr))
      , mask_words_(std::exchange(other.mask_words_, 0))
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
      std::swap(coefficient_, other.coefficient_);
      std::swap(mask_vector_, other.mask_vector_);
      std::swap(mask_data_, other.mask_data_);
      std::swap(mask_bits_, other.mask_bits_);
      std::swap(mask_words_, other.mask_words_);
      return *this;
    }

    template <typename Number, typename Layout>
    LaplaceOperator<Number, Layout>::~LaplaceOperator()
    {
      free_bytes(factors_);
      free_bytes(mask_bits_);
    }

    template <typename Number, typename Layout>
    void
    LaplaceOperator<Number, Layout>::set_coefficient(const Level &level, const ScalarFunction &coefficient)
    {
      CELLWISE_CHECK(level.n_cells() == n_cells_, "set_coefficient: level of " << level.n_cells() << " cells, operator of " << n_cells_);
      const std::vector<double> averages = cell_coefficient_averages(level, degree_, coefficient);
      std::vector<Number>       factors(3 * static_cast<std::size_t>(level.n_cells()));
      for (unsigned int c = 0; c < level.n_cells(); ++c)
        {
          const std::array<double, 3> f = checked_laplace_factors<double>(level.boxes[c], c);
          for (unsigned int d = 0; d < 3; ++d)
            factors[3 * static_cast<std::size_t>(c) + d] = static_cast<Number>(averages[c] * f[d]);
        }
      Number *scaled = upload(factors, "the coefficient-scaled factors of the Laplace operator");
      free_bytes(factors_);
      factors_ = scaled;
      coefficient_ = coefficient;
    }

    template <typename Number, typename Layout>
    void
    LaplaceOperator<Number, Layout>::reinit(const Level &level, const unsigned int degree)
    {
      check_degree(degree);
      check_box_cells(level, "cellwise::cuda::LaplaceOperator");
      const Matrices1D   matrices = make_matrices_1d(degree);
      const unsigned int n        = degree + 1;
      mass_.assign(matrices.mass.data(), matrices.mass.data() + n * n);
      stiffness_.assign(matrices.stiffness.data(), matrices.stiffness.data() + n * n);

      UninitializedVector<Number> factors(3 * static_cast<std::size_t>(level.n_cells()));
      parallel_for(level.n_cells(), cell_grain, [&](const std::size_t c) {
        // the host operator's factors and checks, rounded once to Number
        const std::array<Number, 3> f = checked_laplace_factors<Number>(level.boxes[c], static_cast<unsigned int>(c));
        std::copy(f.begin(), f.end(), factors.begin() + 3 * c);
      });
      free_bytes(factors_);
      factors_ = nullptr;
      factors_ = upload(factors, "the metric factors of the Laplace operator");
      coefficient_ = {};
      degree_  = degree;
      n_cells_ = level.n_cells();
      // a registered mask belongs to the old cells
      free_bytes(mask_bits_);
      mask_bits_   = nullptr;
      mask_vector_ = nullptr;
      mask_data_   = nullptr;
      mask_words_  = 0;
    }

    template <typename Number, typename Layout>
    void
    LaplaceOperator<Number, Layout>::use_dirichlet_mask(const VectorType &mask)
    {
      CELLWISE_CHECK(mask.n_cells() == n_cells_ && mask.degree() == degree_,
                     "cuda::LaplaceOperator::use_dirichlet_mask: the mask has " << mask.n_cells() << " cells of degree "
                                                                                 << mask.degree() << ", the operator "
                                                                                 << n_cells_ << " cells of degree " << degree_);
      free_bytes(mask_bits_);
      mask_bits_   = nullptr;
      mask_vector_ = nullptr;
      mask_data_   = nullptr;
      if (n_cells_ == 0)
        return;
      mask_words_ = (mask.dofs_per_cell() + 63) / 64;
      mask_bits_  = internal::make_dirichlet_bits(mask, "cuda::LaplaceOperator::use_dirichlet_mask");
      mask_vector_ = &mask;
      mask_data_   = mask.data();
    }

    template <typename Number, typename Layout>
    void
    LaplaceOperator<Number, Layout>::apply(VectorType       &dst,
                                           const VectorType *b,
                                           const VectorType &u,
                                           const int         mode,
                                           const VectorType *mask) const
    {
      if (n_cells_ == 0)
        return;
      const MaskArguments<Number> mask_arguments =
        mask_arguments_for(mask, mask_vector_, mask_data_, mask_bits_, mask_words_);
      dispatch_degree(degree_, [&](auto p) {
        launch_laplace<decltype(p)::value, Number, Layout>(mass_, stiffness_, factors_, u.data(), b ? b->data() : nullptr,
                                                           dst.data(), n_cells_, mode, StepArguments<Number>{}, mask_arguments);
      });
    }

    template <typename Number, typename Layout>
    void
    LaplaceOperator<Number, Layout>::prepare_output(VectorType &dst, const VectorType &u, const char *function) const
    {
      CELLWISE_CHECK(u.n_cells() == n_cells_ && u.degree() == degree_,
                     "cuda::LaplaceOperator::" << function << ": input has " << u.n_cells() << " cells of degree "
                                               << u.degree() << ", the operator " << n_cells_ << " cells of degree "
                                               << degree_);
      CELLWISE_CHECK(&dst != &u, "cuda::LaplaceOperator::" << function << " cannot overwrite its input");
      if (dst.n_cells() != u.n_cells() || dst.degree() != u.degree())
        dst.reinit(u.n_cells(), u.degree());
    }

    template <typename Number, typename Layout>
    void
    LaplaceOperator<Number, Layout>::vmult(VectorType &dst, const VectorType &src) const
    {
      prepare_output(dst, src, "vmult");
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
      b.check_compatible(u);
      prepare_output(dst, u, "residual");
      apply(dst, &b, u, residual_mode);
    }

    template <typename Number, typename Layout>
    void
    LaplaceOperator<Number, Layout>::masked_vmult(VectorType &dst, const VectorType &src, const VectorType &mask) const
    {
      mask.check_compatible(src);
      CELLWISE_CHECK(&dst != &mask, "cuda::LaplaceOperator::masked_vmult: the output is the mask");
      prepare_output(dst, src, "masked_vmult");
      apply(dst, nullptr, src, overwrite, &mask);
    }

    template <typename Number, typename Layout>
    void
    LaplaceOperator<Number, Layout>::masked_residual(VectorType &dst, const VectorType &b, const VectorType &u, const VectorType &mask) const
    {
      mask.check_compatible(u);
      b.check_compatible(u);
      CELLWISE_CHECK(&dst != &mask, "cuda::LaplaceOperator::masked_residual: the output is the mask");
      prepare_output(dst, u, "masked_residual");
      apply(dst, &b, u, residual_mode, &mask);
    }

    template <typename Number, typename Layout>
    void
    LaplaceOperator<Number, Layout>::add_and_masked_residual(VectorType                                           &dst,
                                                             const VectorType                                     &b,
                                                             VectorType                                           &u,
                                                             const VectorType                                     &mask,
                                                             const CellVector<float, MemorySpace::CUDA, CellContiguous> &z) const
    {
      mask.check_compatible(u);
      b.check_compatible(u);
      CELLWISE_CHECK(z.n_cells() == u.n_cells() && z.degree() == u.degree(),
                     "cuda::LaplaceOperator::add_and_masked_residual: the correction has "
                       << z.n_cells() << " cells of degree " << z.degree() << ", u " << u.n_cells() << " cells of degree "
                       << u.degree());
      // u is updated in the load stage of a cell; b and the mask are read in
      // its output stage, where dst is written: all distinct
      CELLWISE_CHECK(&dst != &mask && &dst != &u && &dst != &b && &u != &b && &u != &mask,
                     "cuda::LaplaceOperator::add_and_masked_residual: the output, u, b and the mask must be distinct vectors");
      prepare_output(dst, u, "add_and_masked_residual");
      if (n_cells_ == 0)
        return;
      const MaskArguments<Number> mask_arguments =
        mask_arguments_for(&mask, mask_vector_, mask_data_, mask_bits_, mask_words_);
      StepArguments<Number> arguments;
      arguments.u          = u.data();
      arguments.correction = z.data();
      dispatch_degree(degree_, [&](auto p) {
        launch_laplace<decltype(p)::value, Number, Layout, false, true>(mass_, stiffness_, factors_, nullptr, b.data(), dst.data(),
                                                                         n_cells_, residual_mode, arguments, mask_arguments);
      });
    }

    template <typename Number, typename Layout>
    void
    LaplaceOperator<Number, Layout>::smoother_step(VectorType         &u,
                                                   VectorType         &r,
                                                   VectorType         *update,
                                                   const VectorType   &b,
                                                   const VectorType   &inverse_diagonal,
                                                   const SmootherStep &step) const
    {
      // A copy of u or d is read and written by one thread; z is read in the
      // load stage of a cell and r written in its output stage, after the
      // block's barriers, so r may hold z (the distinct vectors of the check).
      check_smoother_step(u, r, update, b, inverse_diagonal, step, n_cells_, degree_, "cuda::LaplaceOperator");
      const bool uses_update = step.uses_update();
      if (n_cells_ == 0)
        return;

      StepArguments<Number> arguments;
      arguments.u                = u.data();
      arguments.inverse_diagonal = inverse_diagonal.data();
      arguments.update           = uses_update ? update->data() : nullptr;
      arguments.alpha            = step.alpha;
      arguments.beta             = step.beta;
      arguments.read_u           = !step.zero_initial_guess;
      arguments.read_update      = step.alpha != Number(0);
      arguments.store_update     = step.store_update;

      if (!step.compute_residual)
        {
          apply_smoother_update(u, r, update, inverse_diagonal, step);
          return;
        }
      dispatch_degree(degree_, [&](auto p) {
        launch_laplace<decltype(p)::value, Number, Layout, true>(
          mass_, stiffness_, factors_, nullptr, b.data(), r.data(), n_cells_, residual_mode, arguments);
      });
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

    CELLWISE_INSTANTIATE_NUMBERS_AND_LAYOUTS(LaplaceOperator)
  } // namespace cuda
} // namespace cellwise
