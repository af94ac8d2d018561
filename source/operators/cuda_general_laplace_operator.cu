// cuda::GeneralLaplaceOperator (operators/cuda_general_laplace_operator.h):
// the general cell-wise Laplacian of kernels/general_laplace_cell.h with one
// thread per 1D line of a cell, the line in registers, and shared memory to
// turn the lines between the directions.
//
// n = p + 1 nodes and Gauss points per axis, L = n² lines per cell and
// stage, C cells per block; three shared buffers T0, T1, T2 of n³ numbers
// per cell. Thread tid -> (local cell c, line) and the position of entry
// (x, y, z) of its cell in a buffer, as the box operator's kernels:
//
//   layout          | c       | line    | position                    | why
//   ----------------+---------+---------+-----------------------------+------------------------------
//   CellContiguous  | tid / L | tid % L | c n²(n+1) + (z n + y)(n+1) + x | a cell's lines are consecutive
//                   |         |         |                             | in memory; rows padded to
//                   |         |         |                             | n + 1 so that the x-lines of
//                   |         |         |                             | stages 1 and 5 hit distinct banks
//   CellBlocked<32> | tid % C | tid / C | ((z n + y) n + x) C + c     | C cells side by side per DoF in
//                   |         |         |                             | memory and in shared memory:
//                   |         |         |                             | coalesced, no conflicts
//
// Each stage reads the lines it owns and writes results to the same
// positions, so it works in place:
//
//   stage        | line along | reads                 | computes                         | writes
//   -------------+------------+-----------------------+----------------------------------+-----------
//   1 x          | x          | u (global)            | s = S_x u, d = D_x u             | T0, T1
//   2 y          | y          | T0 (s), T1 (d)        | ss = S_y s, sd = D_y s, ds = S_y d | T0, T1, T2
//   3 z (points) | z          | T2, T1, T0            | g = (S_z ds, S_z sd, D_z ss);    | T0, T1, T2
//                |            |                       | F = G g at each point;           |
//                |            |                       | a = (S_zᵀ F_x, S_zᵀ F_y, D_zᵀ F_z) |
//   4 y back     | y          | T0, T1, T2 (a)        | bx = S_yᵀ a_x, b = S_yᵀ a_z + D_yᵀ a_y | T0, T1
//   5 x back     | x          | T0, T1                | out = D_xᵀ bx + S_xᵀ b           | dst (global, by mode)
//
// The metric of a point comes from the cell's form (metric_at_point in
// laplace_metric.h, shared with the host operator): cartesian G = diag(w_q
// f), cartesian_coefficient diag(f v_q), affine w_q v_e, general v_{6q+e};
// each thread of stage 3 reads the n points of its z-line.

#include <cellwise/base/config.h>
#include <cellwise/base/cuda_check.h>
#include <cellwise/base/degree_dispatch.h>
#include <cellwise/fe/lagrange_basis_1d.h>
#include <cellwise/fe/quadrature.h>
#include <cellwise/kernels/general_laplace_cell.h>
#include <cellwise/operators/cuda_general_laplace_operator.h>
#include <cellwise/operators/cuda_smoother_update.h>

#include <cuda_runtime.h>

#include <algorithm>
#include <type_traits>
#include <vector>

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

      /// Cells per block: about 256 threads, the three buffers (of the
      /// padded size n²(n+1) per cell) within 40 KB of static shared memory.
      template <int p, typename Number>
      struct GeneralShape
      {
        static constexpr int n      = p + 1;
        static constexpr int L      = n * n;
        static constexpr int n3     = n * n * n;
        static constexpr int padded = n * n * (n + 1);
        static constexpr int
        choose()
        {
          int c = 256 / L > 1 ? 256 / L : 1;
          while (c > 1 && 3 * c * padded * int(sizeof(Number)) > 40 * 1024)
            --c;
          return c;
        }
        static constexpr int cells   = choose();
        static constexpr int threads = cells * L;
      };

      /// Whether the threads of a block take the cells fastest (the blocked
      /// layout) or the lines (cell-contiguous); see the table above.
      template <typename Layout>
      constexpr bool cell_fastest = !std::is_same_v<Layout, CellContiguous>;

      template <int p, typename Number, typename Layout>
      __global__ void __launch_bounds__(GeneralShape<p, Number>::threads)
      general_laplace_kernel(const unsigned char *__restrict__ forms,
                             const std::size_t *__restrict__ offsets,
                             const Number *__restrict__ factors,
                             const Number *__restrict__ values,
                             const Number *__restrict__ tables,
                             const Number *__restrict__ u,
                             const Number      *b,
                             Number            *dst,
                             const unsigned int n_cells,
                             const int          mode)
      {
        using Shape         = GeneralShape<p, Number>;
        constexpr int  n    = Shape::n;
        constexpr int  L    = Shape::L;
        constexpr int  n3   = Shape::n3;
        constexpr int  C    = Shape::cells;
        constexpr bool fast = cell_fastest<Layout>;
        __shared__ Number S[n * n], D[n * n];
        __shared__ Number T0[C * Shape::padded], T1[C * Shape::padded], T2[C * Shape::padded];
        for (int k = threadIdx.x; k < n * n; k += Shape::threads)
          {
            S[k] = tables[k];
            D[k] = tables[n * n + k];
          }
        const Number *weights = tables + 2 * n * n;

        const int          c      = fast ? threadIdx.x % C : threadIdx.x / L;
        const int          line   = fast ? threadIdx.x / C : threadIdx.x % L;
        const unsigned int cell   = blockIdx.x * C + c;
        const bool         active = cell < n_cells;
        // the position of entry (x, y, z) of this thread's cell in a buffer
        const auto at = [c](const int x, const int y, const int z) {
          return fast ? ((z * n + y) * n + x) * C + c : c * Shape::padded + (z * n + y) * (n + 1) + x;
        };
        __syncthreads();

        // 1. x-lines (y, z) = (line % n, line / n)
        {
          const int y = line % n, z = line / n;
          Number    x_values[n];
#pragma unroll
          for (int i = 0; i < n; ++i)
            x_values[i] = active ? u[Layout::index(cell, (z * n + y) * n + i, n3)] : Number(0);
#pragma unroll
          for (int q = 0; q < n; ++q)
            {
              Number s = 0, d = 0;
#pragma unroll
              for (int i = 0; i < n; ++i)
                {
                  s += S[q * n + i] * x_values[i];
                  d += D[q * n + i] * x_values[i];
                }
              T0[at(q, y, z)] = s;
              T1[at(q, y, z)] = d;
            }
        }
        __syncthreads();
        // 2. y-lines (x, z)
        {
          const int x = line % n, z = line / n;
          Number    s[n], d[n];
#pragma unroll
          for (int j = 0; j < n; ++j)
            {
              s[j] = T0[at(x, j, z)];
              d[j] = T1[at(x, j, z)];
            }
#pragma unroll
          for (int r = 0; r < n; ++r)
            {
              Number ss = 0, sd = 0, ds = 0;
#pragma unroll
              for (int j = 0; j < n; ++j)
                {
                  ss += S[r * n + j] * s[j];
                  sd += D[r * n + j] * s[j];
                  ds += S[r * n + j] * d[j];
                }
              T0[at(x, r, z)] = ss;
              T1[at(x, r, z)] = sd;
              T2[at(x, r, z)] = ds;
            }
        }
        __syncthreads();
        // 3. z-lines (x, y): gradients at the points, the metric, back along z
        {
          const int x = line % n, y = line / n;
          Number    ss[n], sd[n], ds[n];
#pragma unroll
          for (int k = 0; k < n; ++k)
            {
              ss[k] = T0[at(x, y, k)];
              sd[k] = T1[at(x, y, k)];
              ds[k] = T2[at(x, y, k)];
            }
          Number fx[n], fy[n], fz[n];
          const unsigned char form = active ? forms[cell] : static_cast<unsigned char>(MetricForm::cartesian);
          Number              f[3] = {0, 0, 0};
          const Number       *cell_values = values;
          if (active)
            {
              f[0] = factors[3 * std::size_t(cell)];
              f[1] = factors[3 * std::size_t(cell) + 1];
              f[2] = factors[3 * std::size_t(cell) + 2];
              if (form != static_cast<unsigned char>(MetricForm::cartesian))
                cell_values = values + offsets[cell];
            }
#pragma unroll
          for (int r = 0; r < n; ++r)
            {
              Number gx = 0, gy = 0, gz = 0;
#pragma unroll
              for (int k = 0; k < n; ++k)
                {
                  gx += S[r * n + k] * ds[k];
                  gy += S[r * n + k] * sd[k];
                  gz += D[r * n + k] * ss[k];
                }
              Number G[kernels::metric_entries];
              metric_at_point(static_cast<MetricForm>(form), f, cell_values, weights, x + n * (y + n * r), G);
              fx[r] = G[0] * gx + G[3] * gy + G[4] * gz;
              fy[r] = G[3] * gx + G[1] * gy + G[5] * gz;
              fz[r] = G[4] * gx + G[5] * gy + G[2] * gz;
            }
#pragma unroll
          for (int k = 0; k < n; ++k)
            {
              Number ax = 0, ay = 0, az = 0;
#pragma unroll
              for (int r = 0; r < n; ++r)
                {
                  ax += S[r * n + k] * fx[r];
                  ay += S[r * n + k] * fy[r];
                  az += D[r * n + k] * fz[r];
                }
              T0[at(x, y, k)] = ax;
              T1[at(x, y, k)] = ay;
              T2[at(x, y, k)] = az;
            }
        }
        __syncthreads();
        // 4. y-lines back (x, z)
        {
          const int x = line % n, z = line / n;
          Number    ax[n], ay[n], az[n];
#pragma unroll
          for (int r = 0; r < n; ++r)
            {
              ax[r] = T0[at(x, r, z)];
              ay[r] = T1[at(x, r, z)];
              az[r] = T2[at(x, r, z)];
            }
#pragma unroll
          for (int j = 0; j < n; ++j)
            {
              Number bx = 0, bb = 0;
#pragma unroll
              for (int r = 0; r < n; ++r)
                {
                  bx += S[r * n + j] * ax[r];
                  bb += S[r * n + j] * az[r] + D[r * n + j] * ay[r];
                }
              T0[at(x, j, z)] = bx;
              T1[at(x, j, z)] = bb;
            }
        }
        __syncthreads();
        // 5. x-lines back (y, z), stored by mode
        if (active)
          {
            const int y = line % n, z = line / n;
            Number    bx[n], bb[n];
#pragma unroll
            for (int q = 0; q < n; ++q)
              {
                bx[q] = T0[at(q, y, z)];
                bb[q] = T1[at(q, y, z)];
              }
#pragma unroll
            for (int i = 0; i < n; ++i)
              {
                Number out = 0;
#pragma unroll
                for (int q = 0; q < n; ++q)
                  out += D[q * n + i] * bx[q] + S[q * n + i] * bb[q];
                const std::size_t index = Layout::index(cell, (z * n + y) * n + i, n3);
                if (mode == overwrite)
                  dst[index] = out;
                else if (mode == accumulate)
                  dst[index] += out;
                else
                  dst[index] = b[index] - out;
              }
          }
      }

      /// A thread per DoF i = (i_x, i_y, i_z) of a cell: (A_K)_ii = Σ_q
      /// ∇̂φ_i(q) · G(q) ∇̂φ_i(q) written out over the points (what the host's
      /// six transposed contractions, kernels::general_laplace_cell_diagonal,
      /// sum in another order). A set-up kernel: n³ points per DoF, no
      /// scratch.
      template <int p, typename Number, typename Layout>
      __global__ void
      general_laplace_diagonal_kernel(const unsigned char *__restrict__ forms,
                                      const std::size_t *__restrict__ offsets,
                                      const Number *__restrict__ factors,
                                      const Number *__restrict__ values,
                                      const Number *__restrict__ tables,
                                      Number            *diagonal,
                                      const unsigned int n_cells)
      {
        constexpr int     n     = p + 1;
        constexpr int     n3    = n * n * n;
        const std::size_t index = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
        if (index >= std::size_t(n_cells) * n3)
          return;
        const unsigned int  cell = static_cast<unsigned int>(index / n3);
        const int           i    = static_cast<int>(index % n3);
        const int           ix = i % n, iy = (i / n) % n, iz = i / (n * n);
        const Number       *S = tables, *D = tables + n * n, *weights = tables + 2 * n * n;
        const unsigned char form = forms[cell];
        const Number        f[3] = {factors[3 * std::size_t(cell)], factors[3 * std::size_t(cell) + 1],
                                    factors[3 * std::size_t(cell) + 2]};
        const Number       *cell_values = form == static_cast<unsigned char>(MetricForm::cartesian) ? values : values + offsets[cell];
        Number              sum         = 0;
        for (int qz = 0; qz < n; ++qz)
          for (int qy = 0; qy < n; ++qy)
            for (int qx = 0; qx < n; ++qx)
              {
                const Number sx = S[qx * n + ix], sy = S[qy * n + iy], sz = S[qz * n + iz];
                const Number gx = D[qx * n + ix] * sy * sz, gy = sx * D[qy * n + iy] * sz, gz = sx * sy * D[qz * n + iz];
                Number       G[kernels::metric_entries];
                metric_at_point(static_cast<MetricForm>(form), f, cell_values, weights, qx + n * (qy + n * qz), G);
                sum += G[0] * gx * gx + G[1] * gy * gy + G[2] * gz * gz + Number(2) * (G[3] * gx * gy + G[4] * gx * gz + G[5] * gy * gz);
              }
        diagonal[Layout::index(cell, i, n3)] = sum;
      }
    } // namespace

    template <typename Number, typename Layout>
    GeneralLaplaceOperator<Number, Layout>::GeneralLaplaceOperator(const Level                &level,
                                                                   const unsigned int          degree,
                                                                   const ScalarFunction       &coefficient,
                                                                   const CoefficientEvaluation evaluation)
    {
      check_degree(degree);
      const LaplaceMetric<Number> metric = make_laplace_metric<Number>(level, degree, coefficient, evaluation);
      degree_                            = degree;
      n_cells_                           = level.n_cells();
      form_counts_                       = metric.count();

      const unsigned int        n = degree + 1;
      const LagrangeBasis1D     basis(degree);
      const Quadrature1D        gauss = gauss_quadrature(n);
      const DenseMatrix         S     = basis.values_at(gauss.points);
      const DenseMatrix         D     = basis.derivatives_at(gauss.points);
      std::vector<Number>       tables(2 * n * n + n * n * n);
      for (unsigned int q = 0; q < n; ++q)
        for (unsigned int i = 0; i < n; ++i)
          {
            tables[q * n + i]         = static_cast<Number>(S(q, i));
            tables[n * n + q * n + i] = static_cast<Number>(D(q, i));
          }
      // the weights rounded as the host operator's (products in double)
      for (unsigned int k = 0; k < n; ++k)
        for (unsigned int j = 0; j < n; ++j)
          for (unsigned int i = 0; i < n; ++i)
            tables[2 * n * n + (k * n + j) * n + i] = static_cast<Number>(gauss.weights[i] * gauss.weights[j] * gauss.weights[k]);

      std::vector<unsigned char> forms(n_cells_);
      std::vector<Number>        factors(3 * std::size_t(n_cells_));
      std::vector<std::size_t>   offsets(n_cells_);
      for (unsigned int cell = 0; cell < n_cells_; ++cell)
        {
          forms[cell]   = static_cast<unsigned char>(metric.form[cell]);
          offsets[cell] = metric.offset[cell];
          for (unsigned int d = 0; d < 3; ++d)
            factors[3 * std::size_t(cell) + d] = metric.factors[cell][d];
        }
      try
        {
          forms_   = upload(forms, "the metric forms of the general Laplace operator");
          offsets_ = upload(offsets, "the metric offsets of the general Laplace operator");
          factors_ = upload(factors, "the metric factors of the general Laplace operator");
          values_  = upload(metric.data, "the metric values of the general Laplace operator");
          tables_  = upload(tables, "the 1D tables of the general Laplace operator");
        }
      catch (...)
        {
          release();
          throw;
        }
      metric_bytes_ = forms.size() * sizeof(unsigned char) + offsets.size() * sizeof(std::size_t) +
                      factors.size() * sizeof(Number) + metric.data.size() * sizeof(Number);
    }

    template <typename Number, typename Layout>
    GeneralLaplaceOperator<Number, Layout>::~GeneralLaplaceOperator()
    {
      release();
    }

    template <typename Number, typename Layout>
    void
    GeneralLaplaceOperator<Number, Layout>::release() noexcept
    {
      free_bytes(forms_);
      free_bytes(offsets_);
      free_bytes(factors_);
      free_bytes(values_);
      free_bytes(tables_);
      forms_   = nullptr;
      offsets_ = nullptr;
      factors_ = nullptr;
      values_  = nullptr;
      tables_  = nullptr;
    }

    template <typename Number, typename Layout>
    void
    GeneralLaplaceOperator<Number, Layout>::apply(VectorType &dst, const VectorType *b, const VectorType &u, const int mode) const
    {
      CELLWISE_CHECK(u.n_cells() == n_cells_ && u.degree() == degree_,
                     "cuda::GeneralLaplaceOperator: vector of " << u.n_cells() << " cells of degree " << u.degree()
                                                                << " for an operator of " << n_cells_ << " cells of degree "
                                                                << degree_);
      CELLWISE_CHECK(&dst != &u, "cuda::GeneralLaplaceOperator: source and destination must be different vectors");
      if (mode == overwrite && !dst.has_shape_of(u))
        dst.reinit(u.n_cells(), u.degree());
      CELLWISE_CHECK(dst.has_shape_of(u), "cuda::GeneralLaplaceOperator: destination of " << dst.n_cells() << " cells of degree "
                                                                                          << dst.degree() << " for "
                                                                                          << n_cells_ << " cells");
      if (b)
        CELLWISE_CHECK(b->has_shape_of(u), "cuda::GeneralLaplaceOperator: right-hand side of " << b->n_cells() << " cells");
      if (n_cells_ == 0)
        return;
      dispatch_degree(degree_, [&](auto constant) {
        constexpr int p      = decltype(constant)::value;
        using Shape          = GeneralShape<p, Number>;
        const unsigned int blocks = (n_cells_ + Shape::cells - 1) / Shape::cells;
        general_laplace_kernel<p, Number, Layout><<<blocks, Shape::threads>>>(
          forms_, offsets_, factors_, values_, tables_, u.data(), b ? b->data() : nullptr, dst.data(), n_cells_, mode);
        CELLWISE_CUDA_CHECK_LAUNCH();
      });
    }

    template <typename Number, typename Layout>
    void
    GeneralLaplaceOperator<Number, Layout>::vmult(VectorType &dst, const VectorType &src) const
    {
      apply(dst, nullptr, src, overwrite);
    }

    template <typename Number, typename Layout>
    void
    GeneralLaplaceOperator<Number, Layout>::vmult_add(VectorType &dst, const VectorType &src) const
    {
      apply(dst, nullptr, src, accumulate);
    }

    template <typename Number, typename Layout>
    void
    GeneralLaplaceOperator<Number, Layout>::residual(VectorType &dst, const VectorType &b, const VectorType &u) const
    {
      if (&dst != &b)
        {
          CELLWISE_CHECK(b.has_shape_of(u), "cuda::GeneralLaplaceOperator: right-hand side of " << b.n_cells() << " cells");
          if (!dst.has_shape_of(u))
            dst.reinit(u.n_cells(), u.degree());
        }
      apply(dst, &b, u, residual_mode);
    }

    template <typename Number, typename Layout>
    void
    GeneralLaplaceOperator<Number, Layout>::smoother_step(VectorType                 &u,
                                                          VectorType                 &r,
                                                          VectorType                 *update,
                                                          const VectorType           &b,
                                                          const VectorType           &inverse_diagonal,
                                                          const SmootherStep<Number> &step) const
    {
      check_smoother_step(u, r, update, b, inverse_diagonal, step, n_cells_, degree_, "cuda::GeneralLaplaceOperator");
      apply_smoother_update(u, r, update, inverse_diagonal, step);
      if (step.compute_residual)
        residual(r, b, u);
    }

    template <typename Number, typename Layout>
    void
    GeneralLaplaceOperator<Number, Layout>::compute_cell_diagonals(VectorType &diagonal) const
    {
      diagonal.reinit(n_cells_, degree_);
      if (n_cells_ == 0)
        return;
      dispatch_degree(degree_, [&](auto constant) {
        constexpr int      p       = decltype(constant)::value;
        constexpr int      n3      = (p + 1) * (p + 1) * (p + 1);
        const std::size_t  entries = std::size_t(n_cells_) * n3;
        const unsigned int threads = 128;
        general_laplace_diagonal_kernel<p, Number, Layout><<<static_cast<unsigned int>((entries + threads - 1) / threads), threads>>>(
          forms_, offsets_, factors_, values_, tables_, diagonal.data(), n_cells_);
        CELLWISE_CUDA_CHECK_LAUNCH();
      });
    }

    template class GeneralLaplaceOperator<double, CellContiguous>;
    template class GeneralLaplaceOperator<float, CellContiguous>;
    template class GeneralLaplaceOperator<double, CellBlocked<32>>;
    template class GeneralLaplaceOperator<float, CellBlocked<32>>;
  } // namespace cuda
} // namespace cellwise
