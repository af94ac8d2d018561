// cuda::GeneralLaplaceOperator (operators/cuda_general_laplace_operator.h):
// the general cell-wise Laplacian of kernels/general_laplace_cell.h in two
// kernels. The line kernel, below: one thread per 1D line of a cell, the
// line in registers, and shared memory to turn the lines between the
// directions. The plane kernel (general_laplace_planes_kernel): the phases of
// kernels/general_laplace_planes.h, a thread per z-plane of a cell. Both
// take the metric of a z-line from LineMetric.
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
// each thread of stage 3 reads the n points of its z-line. In the blocked
// layout the values of general and cartesian_coefficient cells are
// interleaved by slot in groups of 32 (interleaved_*_form), so that the
// threads of a warp, which take consecutive cells, read consecutive numbers;
// the products are metric_at_point's. A recomputed
// cell (recomputed_form) has instead its record: c and its mapping nodes X_i
// of degree K. Its z-line thread (x, y) first sums the nodes over i_x, i_y
// with the mapping tables MS, MD at its (x, y),
//
//   A_x(i_z) = Σ X_i MD(x, i_x) MS(y, i_y),  A_y(i_z) = Σ X_i MS(x, i_x) MD(y, i_y),
//   A_s(i_z) = Σ X_i MS(x, i_x) MS(y, i_y)                     (9 (K+1) numbers),
//
// then at each of its points r the Jacobian's columns Σ_iz A_x MS(r, i_z),
// Σ_iz A_y MS(r, i_z), Σ_iz A_s MD(r, i_z) and G = w_q c cof(J)ᵀ cof(J) / det J
// (kernels::inverse_metric): kernels::metric_from_nodes, sum-factorized.

#include <cellwise/base/config.h>
#include <cellwise/base/cuda_check.h>
#include <cellwise/base/degree_dispatch.h>
#include <cellwise/fe/lagrange_basis_1d.h>
#include <cellwise/fe/quadrature.h>
#include <cellwise/kernels/general_laplace_cell.h>
#include <cellwise/kernels/general_laplace_planes.h>
#include <cellwise/kernels/mapped_laplace_cell.h>
#include <cellwise/operators/cuda_general_laplace_operator.h>
#include <cellwise/operators/cuda_smoother_update.h>

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
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

      /// The form code of a cell whose metric the kernels recompute from its
      /// nodes (after the MetricForm codes 0..3).
      constexpr unsigned char recomputed_form = 4;
      /// The form codes of general and cartesian_coefficient cells whose
      /// values lie interleaved by slot (blocked layouts: see metric_records_).
      constexpr unsigned char interleaved_general_form     = 5;
      constexpr unsigned char interleaved_coefficient_form = 6;
      /// The largest mapping degree whose cells are recomputed.
      constexpr unsigned int max_recomputed_mapping_degree = 3;

      /// Numbers per recomputed cell's record: c, then 3 (K+1)³ coordinates.
      constexpr int
      record_size(const int K)
      {
        return 1 + 3 * (K + 1) * (K + 1) * (K + 1);
      }

      /// Entry @p j of the record in @p slot (the group-of-32 layout of
      /// GeneralLaplaceOperator::nodes_).
      CELLWISE_HOST_DEVICE inline std::size_t
      record_index(const std::size_t slot, const int j, const int R)
      {
        return (slot / 32) * 32 * std::size_t(R) + 32 * std::size_t(j) + slot % 32;
      }

      /// G at point @p q of a cell of an interleaved form, whose values are
      /// record @p slot of @p metric_records (6 n³ values: v_{6q+e}) or of
      /// @p coefficient_records (n³: diag(f v_q)); the products those of
      /// metric_at_point, so the same numbers as the host's.
      template <typename Number>
      __device__ inline void
      interleaved_metric_at_point(const unsigned char form,
                                  const Number       *f,
                                  const Number *__restrict__ metric_records,
                                  const Number *__restrict__ coefficient_records,
                                  const std::size_t slot,
                                  const int         n3,
                                  const int         q,
                                  Number           *G)
      {
        if (form == interleaved_general_form)
          {
#pragma unroll
            for (int e = 0; e < kernels::metric_entries; ++e)
              G[e] = metric_records[record_index(slot, kernels::metric_entries * q + e, kernels::metric_entries * n3)];
            return;
          }
        const Number v = coefficient_records[record_index(slot, q, n3)];
        G[0]           = f[0] * v;
        G[1]           = f[1] * v;
        G[2]           = f[2] * v;
        G[3] = G[4] = G[5] = Number(0);
      }

      /// Entries k of the records of @p n_slots slots (R each; groups of 32,
      /// record_index) from the per-cell values: slot s's record is @p
      /// values[sources[s] .. + R). A thread per entry of the group-padded
      /// array, in its order (coalesced writes); padding is zero.
      template <typename Number>
      __global__ void
      interleave_records_kernel(const Number *__restrict__ values,
                                const std::size_t *__restrict__ sources,
                                const std::size_t n_slots,
                                const int         R,
                                Number           *records)
      {
        const std::size_t k     = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
        const std::size_t group = k / (32 * std::size_t(R));
        if (group >= (n_slots + 31) / 32)
          return;
        const std::size_t within = k % (32 * std::size_t(R));
        const std::size_t slot   = group * 32 + within % 32;
        records[k]               = slot < n_slots ? values[sources[slot] + within / 32] : Number(0);
      }

      /**
       * The stored metric of general cells made on the device: a thread per
       * point q of slot s writes G = w_q c det J J⁻¹ J⁻ᵀ (kernels::
       * metric_from_nodes, in double, rounded once to Number) into entries
       * 6q..6q+5 of record s (record_index, R = 6 n³). @p nodes: per slot c,
       * then the 3 (k+1)³ node coordinates relative to its first node, slot
       * after slot; @p tables: ψ_i(ξ_q), ψ_i'(ξ_q) (n × (k+1) each), then the
       * n³ tensor weights.
       */
      template <typename Number>
      __global__ void
      metric_records_from_nodes_kernel(const double *__restrict__ nodes,
                                       const unsigned int *__restrict__ cells,
                                       const double *__restrict__ coefficients,
                                       const std::size_t n_slots,
                                       const int         k,
                                       const int         n,
                                       const double *__restrict__ tables,
                                       Number *records)
      {
        const int         n3    = n * n * n;
        const std::size_t index = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
        if (index >= n_slots * n3)
          return;
        const std::size_t slot = index / n3;
        const int         q    = static_cast<int>(index % n3);
        const int         m    = k + 1;
        // the cell's nodes where the mapping keeps them, relative to its
        // first (each difference rounded once, as the host forms them)
        const double *X  = nodes + std::size_t(cells[slot]) * 3 * (m * m * m);
        const double *MS = tables, *MD = tables + n * m, *weights = tables + 2 * n * m;
        double        G[kernels::metric_entries];
        kernels::metric_from_nodes(MS, MD, k, n, X, X, coefficients[slot] * weights[q], q, G);
        for (int e = 0; e < kernels::metric_entries; ++e)
          records[record_index(slot, kernels::metric_entries * q + e, kernels::metric_entries * n3)] = static_cast<Number>(G[e]);
      }

      /// The kernel's tables, passed by value: every thread of a warp reads
      /// the same entry at the same (compile-time) index, a broadcast from the
      /// constant bank, as the box operator's 1D matrices. S(q, i), D(q, i)
      /// and the collocation derivative Dc(q, k) at the Gauss points (n × n
      /// row-major: kernels::PlaneTables), the 1D Gauss weights, the
      /// mapping's ψ_i(ξ_q), ψ_i'(ξ_q) (n × (K+1)). At most 3 KB.
      template <int p, int K, typename Number>
      struct KernelTables
      {
        static constexpr int            n = p + 1, m = K + 1;
        kernels::PlaneTables<p, Number> st;
        Number                          w[n], MS[n * m], MD[n * m];
      };

      /// What the threads of both kernels index by their own line (x, y):
      /// the 1D weights and the mapping tables, copied from KernelTables into
      /// shared memory (the rest of the tables is read at compile-time
      /// indices, from the constant bank).
      template <int p, int K, typename Number>
      struct SharedLineTables
      {
        static constexpr int n = p + 1, m = K + 1;
        Number               w[n], MS[n * m], MD[n * m];

        /// By the block's @p threads threads; read after the next barrier.
        __device__ void
        copy(const KernelTables<p, K, Number> &t, const int threads)
        {
          for (int k = threadIdx.x; k < n; k += threads)
            w[k] = t.w[k];
          if constexpr (K > 0)
            for (int k = threadIdx.x; k < n * m; k += threads)
              {
                MS[k] = t.MS[k];
                MD[k] = t.MD[k];
              }
        }
      };

      /// The operator's device arrays of the metric, for the kernels.
      template <typename Number>
      struct MetricArrays
      {
        const unsigned char *forms;
        const std::size_t   *offsets;
        const Number        *factors, *values, *nodes, *metric_records, *coefficient_records;
      };

      /**
       * The metric at the n points of one z-line (x, y) of a cell, for both
       * kernels: line() reads what the line needs once (form, factors, where
       * its values lie; for a recomputed cell the node sums A_x, A_y, A_s per
       * i_z, see the top), at(r, G) gives G at its point r (compile-time r).
       * @p w, @p MS, @p MD: shared copies of the tables' weights and mapping
       * tables, which the threads index by their own x, y. Past the last cell
       * G = 0.
       */
      template <int p, int K, typename Number>
      struct LineMetric
      {
        static constexpr int              n = p + 1, m = K + 1, n3 = n * n * n;
        const MetricArrays<Number>       &arrays;
        const KernelTables<p, K, Number> &t;
        const Number                     *w, *MS, *MD;
        unsigned int                      first;   ///< the block's first cell
        unsigned int                      n_cells; ///< of the operator
        // the line's
        unsigned char form        = static_cast<unsigned char>(MetricForm::cartesian);
        bool          interleaved = false;
        Number        f[3]        = {0, 0, 0};
        const Number *cell_values = nullptr;
        std::size_t   slot        = 0;
        Number        c = 0, w_xy = 0, A[3][m][3];
        int           x = 0, y = 0;

        __device__ __forceinline__ void
        line(const int local_cell, const int line_x, const int line_y)
        {
          const unsigned int cell   = first + local_cell;
          const bool         active = cell < n_cells;
          x                         = line_x;
          y                         = line_y;
          // w_q = (w_x w_y) w_z, multiplied in the order of the host's tensor weights
          w_xy        = w[x] * w[y];
          form        = active ? arrays.forms[cell] : static_cast<unsigned char>(MetricForm::cartesian);
          interleaved = form == interleaved_general_form || form == interleaved_coefficient_form;
          cell_values = arrays.values;
          f[0] = f[1] = f[2] = Number(0);
          if (!active)
            return;
          if (form <= static_cast<unsigned char>(MetricForm::cartesian_coefficient) || form == interleaved_coefficient_form)
            {
              f[0] = arrays.factors[3 * std::size_t(cell)];
              f[1] = arrays.factors[3 * std::size_t(cell) + 1];
              f[2] = arrays.factors[3 * std::size_t(cell) + 2];
            }
          if (K > 0 && form == recomputed_form)
            {
              constexpr int R = record_size(K);
              slot            = arrays.offsets[cell];
              c               = arrays.nodes[record_index(slot, 0, R)];
              CELLWISE_UNROLL
              for (int iz = 0; iz < m; ++iz)
                CELLWISE_UNROLL
                for (int a = 0; a < 3; ++a)
                  A[0][iz][a] = A[1][iz][a] = A[2][iz][a] = Number(0);
              CELLWISE_UNROLL
              for (int iz = 0; iz < m; ++iz)
                CELLWISE_UNROLL
                for (int iy = 0; iy < m; ++iy)
                  CELLWISE_UNROLL
                  for (int ix = 0; ix < m; ++ix)
                    {
                      const Number wx = MD[x * m + ix] * MS[y * m + iy], wy = MS[x * m + ix] * MD[y * m + iy],
                                   ws = MS[x * m + ix] * MS[y * m + iy];
                      CELLWISE_UNROLL
                      for (int a = 0; a < 3; ++a)
                        {
                          const Number X = arrays.nodes[record_index(slot, 1 + 3 * ((iz * m + iy) * m + ix) + a, R)];
                          A[0][iz][a] += X * wx;
                          A[1][iz][a] += X * wy;
                          A[2][iz][a] += X * ws;
                        }
                    }
            }
          else if (interleaved)
            slot = arrays.offsets[cell];
          else if (form != static_cast<unsigned char>(MetricForm::cartesian))
            cell_values = arrays.values + arrays.offsets[cell];
        }

        __device__ __forceinline__ void
        at(const int r, Number *G) const
        {
          const int q = x + n * (y + n * r);
          if (K > 0 && form == recomputed_form)
            {
              Number J[9];
              CELLWISE_UNROLL
              for (int a = 0; a < 3; ++a)
                {
                  Number jx = 0, jy = 0, jz = 0;
                  CELLWISE_UNROLL
                  for (int iz = 0; iz < m; ++iz)
                    {
                      jx += A[0][iz][a] * t.MS[r * m + iz];
                      jy += A[1][iz][a] * t.MS[r * m + iz];
                      jz += A[2][iz][a] * t.MD[r * m + iz];
                    }
                  J[3 * a]     = jx;
                  J[3 * a + 1] = jy;
                  J[3 * a + 2] = jz;
                }
              kernels::inverse_metric(J, G);
              const Number scale = c * (w_xy * t.w[r]);
              CELLWISE_UNROLL
              for (int e = 0; e < kernels::metric_entries; ++e)
                G[e] *= scale;
            }
          else if (interleaved)
            interleaved_metric_at_point(form, f, arrays.metric_records, arrays.coefficient_records, slot, n3, q, G);
          else
            metric_at_point(static_cast<MetricForm>(form), f, cell_values, Number(w_xy * t.w[r]), q, G);
        }
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

      template <int p, int K, typename Number, typename Layout>
      __global__ void __launch_bounds__(GeneralShape<p, Number>::threads)
      general_laplace_kernel(const MetricArrays<Number>       arrays,
                             const KernelTables<p, K, Number> t,
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
        __shared__ SharedLineTables<p, K, Number> line_tables;
        __shared__ Number T0[C * Shape::padded], T1[C * Shape::padded], T2[C * Shape::padded];
        line_tables.copy(t, Shape::threads);

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
                  s += t.st.S[q * n + i] * x_values[i];
                  d += t.st.D[q * n + i] * x_values[i];
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
                  ss += t.st.S[r * n + j] * s[j];
                  sd += t.st.D[r * n + j] * s[j];
                  ds += t.st.S[r * n + j] * d[j];
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
          LineMetric<p, K, Number> metric{arrays, t, line_tables.w, line_tables.MS, line_tables.MD, blockIdx.x * C, n_cells};
          metric.line(c, x, y);
          Number ax[n], ay[n], az[n];
          kernels::z_line_flux<n>(t.st.S, t.st.D, metric, ds, sd, ss, ax, ay, az);
#pragma unroll
          for (int k = 0; k < n; ++k)
            {
              T0[at(x, y, k)] = ax[k];
              T1[at(x, y, k)] = ay[k];
              T2[at(x, y, k)] = az[k];
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
                  bx += t.st.S[r * n + j] * ax[r];
                  bb += t.st.S[r * n + j] * az[r] + t.st.D[r * n + j] * ay[r];
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
                  out += t.st.D[q * n + i] * bx[q] + t.st.S[q * n + i] * bb[q];
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

      /// The degrees of the plane kernel: a thread keeps two or three n × n
      /// planes in registers (p = 4 in FP64: about 150 registers).
      constexpr int min_plane_degree = 2, max_plane_degree = 4;

      /// A point-smoother step inside the plane kernel (smoother_step with
      /// the plane kernel): phase A forms, per entry of its plane, d = α d +
      /// β D⁻¹ z (smoother_correction) and u ← u + d (u ← d from zero), writes
      /// u (and d), and applies the operator to the new u; phase C writes r =
      /// b − A u. z is r itself (the DSS wrote z there): each entry of r is
      /// read in phase A and written in phase C by the same thread, so the
      /// update and the residual need one pass instead of two.
      template <typename Number>
      struct PlaneStep
      {
        Number       *u;
        const Number *z;
        Number       *update;
        const Number *inverse_diagonal;
        Number        alpha, beta;
        bool          read_u, read_update, store_update;
      };

      /// Cells per block and threads of the plane kernel.
      template <int p, typename Number>
      struct PlaneShape
      {
        static constexpr int cells   = kernels::plane_block_cells<p, Number>();
        static constexpr int threads = (p + 1) * cells;
      };

      /**
       * The plane kernel (kernels/general_laplace_planes.h): a thread per
       * z-plane of a cell in phases A and C, per y and n z-lines in phase B,
       * the work buffer in shared memory, a barrier between the phases. For
       * blocked layouts, whose C cells per block lie side by side (a warp
       * reads consecutive numbers); the metric as the line kernel's.
       */
      template <int p, int K, typename Number, typename Layout, bool with_step>
      __global__ void __launch_bounds__(PlaneShape<p, Number>::threads)
      general_laplace_planes_kernel(const MetricArrays<Number>       arrays,
                                    const KernelTables<p, K, Number> t,
                                    const Number *__restrict__ u,
                                    const PlaneStep<Number> step,
                                    const Number      *b,
                                    Number            *dst,
                                    const unsigned int n_cells,
                                    const int          mode)
      {
        using Shape        = PlaneShape<p, Number>;
        constexpr int n    = p + 1;
        constexpr int n3   = n * n * n;
        constexpr int C    = Shape::cells;
        __shared__ Number W[3 * n3 * C];
        __shared__ SharedLineTables<p, K, Number> line_tables;
        line_tables.copy(t, Shape::threads); // read in phase B, after the first barrier
        const unsigned int first = blockIdx.x * C;
        const auto         load  = [&](const int c, const int i) {
          const unsigned int cell = first + c;
          if (cell >= n_cells)
            return Number(0);
          const std::size_t index = Layout::index(cell, i, n3);
          if constexpr (!with_step)
            return u[index];
          else
            {
              const Number d     = smoother_correction(step.alpha, step.beta, step.read_update, step.z[index],
                                                   step.inverse_diagonal[index], step.read_update ? step.update[index] : Number(0));
              const Number value = step.read_u ? step.u[index] + d : d;
              step.u[index]      = value;
              if (step.store_update)
                step.update[index] = d;
              return value;
            }
        };
        kernels::plane_gradients<p, C>(threadIdx.x, t.st, load, W);
        __syncthreads();
        LineMetric<p, K, Number> metric{arrays, t, line_tables.w, line_tables.MS, line_tables.MD, first, n_cells};
        kernels::z_line_fluxes<p, C>(threadIdx.x, t.st, metric, W);
        __syncthreads();
        const auto store = [&](const int c, const int i, const Number value) {
          const unsigned int cell = first + c;
          if (cell >= n_cells)
            return;
          const std::size_t index = Layout::index(cell, i, n3);
          if (mode == overwrite)
            dst[index] = value;
          else if (mode == accumulate)
            dst[index] += value;
          else
            dst[index] = b[index] - value;
        };
        kernels::plane_divergence<p, C>(threadIdx.x, t.st, W, store);
      }

      /// A thread per DoF i = (i_x, i_y, i_z) of a cell: (A_K)_ii = Σ_q
      /// ∇̂φ_i(q) · G(q) ∇̂φ_i(q) written out over the points (what the host's
      /// six transposed contractions, kernels::general_laplace_cell_diagonal,
      /// sum in another order). A set-up kernel: n³ points per DoF, no
      /// scratch.
      template <int p, typename Number, typename Layout>
      __global__ void
      general_laplace_diagonal_kernel(const MetricArrays<Number> a,
                                      const Number *__restrict__ tables,
                                      const int          mapping_degree,
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
        const unsigned char form = a.forms[cell];
        const Number        f[3] = {a.factors[3 * std::size_t(cell)], a.factors[3 * std::size_t(cell) + 1],
                                    a.factors[3 * std::size_t(cell) + 2]};
        const bool          recomputed  = form == recomputed_form;
        const bool          interleaved = form == interleaved_general_form || form == interleaved_coefficient_form;
        const Number       *cell_values = form == static_cast<unsigned char>(MetricForm::cartesian) || recomputed || interleaved
                                            ? a.values
                                            : a.values + a.offsets[cell];
        // a recomputed cell's record, gathered (a set-up kernel: local memory is fine)
        constexpr int max_R = record_size(max_recomputed_mapping_degree);
        Number        record[max_R];
        const int     R = record_size(mapping_degree);
        if (recomputed)
          for (int j = 0; j < R; ++j)
            record[j] = a.nodes[record_index(a.offsets[cell], j, R)];
        const Number *MS = tables + 2 * n * n + n3 + n, *MD = MS + n * (mapping_degree + 1);
        Number        sum = 0;
        for (int qz = 0; qz < n; ++qz)
          for (int qy = 0; qy < n; ++qy)
            for (int qx = 0; qx < n; ++qx)
              {
                const Number sx = S[qx * n + ix], sy = S[qy * n + iy], sz = S[qz * n + iz];
                const Number gx = D[qx * n + ix] * sy * sz, gy = sx * D[qy * n + iy] * sz, gz = sx * sy * D[qz * n + iz];
                Number       G[kernels::metric_entries];
                const int    q = qx + n * (qy + n * qz);
                if (recomputed)
                  kernels::metric_from_nodes(MS, MD, mapping_degree, n, record + 1, record[0] * weights[q], q, G);
                else if (interleaved)
                  interleaved_metric_at_point(form, f, a.metric_records, a.coefficient_records, a.offsets[cell], n3, q, G);
                else
                  metric_at_point(static_cast<MetricForm>(form), f, cell_values, weights[q], q, G);
                sum += G[0] * gx * gx + G[1] * gy * gy + G[2] * gz * gz + Number(2) * (G[3] * gx * gy + G[4] * gx * gz + G[5] * gy * gz);
              }
        diagonal[Layout::index(cell, i, n3)] = sum;
      }
    } // namespace

    namespace
    {
      /// What the operator does with the general cells of @p level: whether
      /// it may recompute their metric from the nodes at every application,
      /// and whether it makes their stored values on the device.
      struct GeneralCellChoice
      {
        bool may_recompute = false, device_values = false;
      };

      template <typename Layout>
      GeneralCellChoice
      general_cell_choice(const Level                &level,
                          const ScalarFunction       &coefficient,
                          const CoefficientEvaluation evaluation,
                          const GeneralCellMetric     general_cells)
      {
        // general cells with one coefficient each (c = its average) are
        // recomputed from their nodes where the mapping's degree allows
        // (and, by default, where that is the faster: trilinear cells);
        // their values at the points are then not made at all (most of the
        // set-up)
        const unsigned int k     = level.mapping.degree;
        const unsigned int max_k = general_cells == GeneralCellMetric::recomputed ? max_recomputed_mapping_degree
                                   : general_cells == GeneralCellMetric::automatic ? 1u
                                                                                    : 0u;
        const bool        one_coefficient = !coefficient || evaluation == CoefficientEvaluation::cell_average;
        GeneralCellChoice choice;
        choice.may_recompute = k >= 1 && k <= max_k && one_coefficient;
        // general cells stored in the blocked layout with one coefficient
        // each: their values are made on the device from their nodes (the
        // host's metric of them was most of the set-up on curved meshes: 3
        // KB per cell at p = 3 written, packed and uploaded)
        choice.device_values = cell_fastest<Layout> && k >= 1 && one_coefficient && !choice.may_recompute;
        return choice;
      }
    } // namespace

    template <typename Number, typename Layout>
    GeneralCellValues
    GeneralLaplaceOperator<Number, Layout>::host_values(const Level                &level,
                                                        const ScalarFunction       &coefficient,
                                                        const CoefficientEvaluation evaluation,
                                                        const GeneralCellMetric     general_cells)
    {
      const GeneralCellChoice choice = general_cell_choice<Layout>(level, coefficient, evaluation, general_cells);
      return choice.may_recompute || choice.device_values ? GeneralCellValues::omitted : GeneralCellValues::stored;
    }

    template <typename Number, typename Layout>
    GeneralLaplaceOperator<Number, Layout>::GeneralLaplaceOperator(const Level                &level,
                                                                   const unsigned int          degree,
                                                                   const ScalarFunction       &coefficient,
                                                                   const CoefficientEvaluation evaluation,
                                                                   const GeneralCellMetric     general_cells)
    {
      check_degree(degree);
      const auto                  start  = std::chrono::steady_clock::now();
      const LaplaceMetric<Number> metric = make_laplace_metric<Number>(level, degree, coefficient, evaluation,
                                                                       host_values(level, coefficient, evaluation, general_cells));
      setup_times_.add("metric on the host", std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      build(level, degree, metric, coefficient, evaluation, general_cells);
    }

    template <typename Number, typename Layout>
    GeneralLaplaceOperator<Number, Layout>::GeneralLaplaceOperator(const Level                 &level,
                                                                   const unsigned int           degree,
                                                                   const LaplaceMetric<Number> &metric,
                                                                   const ScalarFunction        &coefficient,
                                                                   const CoefficientEvaluation  evaluation,
                                                                   const GeneralCellMetric      general_cells)
    {
      check_degree(degree);
      build(level, degree, metric, coefficient, evaluation, general_cells);
    }

    template <typename Number, typename Layout>
    void
    GeneralLaplaceOperator<Number, Layout>::build(const Level                 &level,
                                                  const unsigned int           degree,
                                                  const LaplaceMetric<Number> &metric,
                                                  const ScalarFunction        &coefficient,
                                                  const CoefficientEvaluation  evaluation,
                                                  const GeneralCellMetric      general_cells)
    {
      coefficient_                          = coefficient;
      evaluation_                           = evaluation;
      const unsigned int      k             = level.mapping.degree;
      const GeneralCellChoice choice        = general_cell_choice<Layout>(level, coefficient, evaluation, general_cells);
      const bool              may_recompute = choice.may_recompute, device_values = choice.device_values;
      const auto              computed      = std::chrono::steady_clock::now();
      // a metric made with other general values than this operator takes
      // would be read where it has none
      check_given_metric(metric, level.n_cells(), degree,
                         may_recompute || device_values ? GeneralCellValues::omitted : GeneralCellValues::stored,
                         "cuda::GeneralLaplaceOperator");
      degree_      = degree;
      n_cells_     = level.n_cells();
      form_counts_ = metric.count();
      const bool recomputes = may_recompute && form_counts_[3] > 0;
      mapping_degree_ = recomputes ? k : 0;

      const unsigned int        n = degree + 1;
      const LagrangeBasis1D     basis(degree);
      const Quadrature1D        gauss = gauss_quadrature(n);
      const DenseMatrix         S     = basis.values_at(gauss.points);
      const DenseMatrix         D     = basis.derivatives_at(gauss.points);
      const unsigned int        m     = mapping_degree_ + 1;
      // S, D, the tensor weights, the 1D weights, MS, MD (layout of tables_)
      std::vector<Number>       tables(2 * n * n + n * n * n + n + (recomputes ? 2 * n * m : 0));
      for (unsigned int q = 0; q < n; ++q)
        for (unsigned int i = 0; i < n; ++i)
          {
            tables[q * n + i]         = static_cast<Number>(S(q, i));
            tables[n * n + q * n + i] = static_cast<Number>(D(q, i));
          }
      // the weights rounded as the host operator's (products in double)
      for (unsigned int kz = 0; kz < n; ++kz)
        for (unsigned int j = 0; j < n; ++j)
          for (unsigned int i = 0; i < n; ++i)
            tables[2 * n * n + (kz * n + j) * n + i] = static_cast<Number>(gauss.weights[i] * gauss.weights[j] * gauss.weights[kz]);
      for (unsigned int i = 0; i < n; ++i)
        tables[2 * n * n + n * n * n + i] = static_cast<Number>(gauss.weights[i]);
      if (recomputes)
        {
          const MappingTables mapping = make_mapping_tables(k, n);
          for (unsigned int e = 0; e < n * m; ++e)
            {
              tables[2 * n * n + n * n * n + n + e]         = static_cast<Number>(mapping.values[e]);
              tables[2 * n * n + n * n * n + n + n * m + e] = static_cast<Number>(mapping.derivatives[e]);
            }
        }
      host_tables_ = tables;
      // Dc(q, k) = ℓ_k'(x_q) on the Gauss points: the plane kernel's
      // derivatives at the points (D = Dc S)
      const DenseMatrix Dc = collocation_derivatives(gauss.points);
      host_collocation_.assign(Dc.data(), Dc.data() + n * n);

      // per cell its form, factors and where its data lie. With recomputed
      // cells the stored values are re-packed without theirs (whose records
      // go by slot into the group-of-32 layout). In a blocked layout the
      // threads of a warp take consecutive cells, so the values of general
      // and cartesian_coefficient cells are interleaved by slot in the same
      // way (metric_records_, coefficient_records_): a warp reading entry j
      // of its cells then reads consecutive numbers, where a cell's values
      // one after the other put its cells 3 KB apart (p = 3). Otherwise the
      // metric's own values and offsets are uploaded as they are: re-packing
      // them on one thread was a copy of the whole array (700 MB for the
      // ball at L = 5, p = 3), the same values in the same places.
      const bool                 interleave = cell_fastest<Layout>;
      std::vector<unsigned char> forms(n_cells_);
      std::vector<Number>        factors(3 * std::size_t(n_cells_));
      std::vector<std::size_t>   offsets(n_cells_);
      std::vector<Number>        values;
      std::vector<Number>        nodes;
      // per interleaved slot where its values start in metric.data
      std::vector<std::size_t>   general_sources, coefficient_sources;
      // with device_values: per general cell (slot) its cell and c
      std::vector<unsigned int>  device_value_cells;
      std::vector<double>        device_value_coefficients;
      std::size_t                n_device_values = 0;
      const bool                 repack = recomputes || interleave;
      const int                  R      = recomputes ? record_size(static_cast<int>(k)) : 0;
      for (unsigned int cell = 0; cell < n_cells_; ++cell)
        {
          for (unsigned int d = 0; d < 3; ++d)
            factors[3 * std::size_t(cell) + d] = metric.factors[cell][d];
          if (recomputes && metric.form[cell] == MetricForm::general)
            {
              forms[cell]            = recomputed_form;
              const std::size_t slot = n_recomputed_++;
              offsets[cell]          = slot;
              nodes.resize(((n_recomputed_ + 31) / 32) * 32 * std::size_t(R), Number(0));
              const Point *X = level.mapping.cell_nodes(cell);
              nodes[record_index(slot, 0, R)] = static_cast<Number>(metric.coefficient_averages[cell]);
              for (unsigned int i = 0; i < level.mapping.nodes_per_cell(); ++i)
                for (unsigned int a = 0; a < 3; ++a) // relative to the first node: in FP32, J loses no digits to the cell's position
                  nodes[record_index(slot, 1 + 3 * i + a, R)] = static_cast<Number>(X[i][a] - X[0][a]);
              continue;
            }
          forms[cell] = static_cast<unsigned char>(metric.form[cell]);
          if (device_values && metric.form[cell] == MetricForm::general)
            {
              forms[cell]   = interleaved_general_form;
              offsets[cell] = n_device_values++;
              device_value_cells.push_back(cell);
              device_value_coefficients.push_back(metric.coefficient_averages[cell]);
              continue;
            }
          if (interleave && (metric.form[cell] == MetricForm::general || metric.form[cell] == MetricForm::cartesian_coefficient))
            {
              const bool general = metric.form[cell] == MetricForm::general;
              auto      &sources = general ? general_sources : coefficient_sources;
              forms[cell]        = general ? interleaved_general_form : interleaved_coefficient_form;
              offsets[cell]      = sources.size();
              sources.push_back(metric.offset[cell]);
              continue;
            }
          if (!repack)
            continue;
          offsets[cell]           = values.size();
          const std::size_t begin = metric.offset[cell];
          const std::size_t end   = cell + 1 < n_cells_ ? metric.offset[cell + 1] : metric.data.size();
          values.insert(values.end(), metric.data.begin() + begin, metric.data.begin() + end);
        }
      // the set-up's sub-stages, each from the end of the one before
      auto stage_start = computed;
      auto end_stage   = [&](const char *stage) {
        const auto now = std::chrono::steady_clock::now();
        setup_times_.add(stage, std::chrono::duration<double>(now - stage_start).count());
        stage_start = now;
      };
      end_stage("packing on the host");
      const std::size_t n_values = repack ? values.size() : metric.data.size();
      const int         n3       = static_cast<int>(n * n * n);
      const int         R_metric = kernels::metric_entries * n3;
      try
        {
          forms_   = upload(forms, "the metric forms of the general Laplace operator");
          offsets_ = repack ? upload(offsets, "the metric offsets of the general Laplace operator")
                            : upload(metric.offset, "the metric offsets of the general Laplace operator");
          factors_ = upload(factors, "the metric factors of the general Laplace operator");
          values_  = repack ? upload(values, "the metric values of the general Laplace operator")
                            : upload(metric.data, "the metric values of the general Laplace operator");
          nodes_   = upload(nodes, "the mapping nodes of the general Laplace operator");
          tables_  = upload(tables, "the 1D tables of the general Laplace operator");
          end_stage("upload");
          if (n_device_values > 0)
            {
              metric_records_ = metric_records_from_nodes(level.mapping, device_value_cells, device_value_coefficients, gauss);
              end_stage("metric from the nodes (upload, device)");
            }
          if (!general_sources.empty() || !coefficient_sources.empty())
            {
              // the metric as the host made it, interleaved on the device
              // (no host pass over it), then released
              Number *staged = upload(metric.data, "the metric values of the general Laplace operator (staged)");
              try
                {
                  // (general cells are interleaved here or made from their
                  // nodes above, never both: keep the records of the other)
                  if (!general_sources.empty())
                    metric_records_ = interleave_records(staged, general_sources, R_metric, "the interleaved metric records");
                  coefficient_records_ = interleave_records(staged, coefficient_sources, n3, "the interleaved coefficient records");
                }
              catch (...)
                {
                  free_bytes(staged);
                  throw;
                }
              free_bytes(staged);
              end_stage("interleaving (upload, device)");
            }
        }
      catch (...)
        {
          release();
          throw;
        }
      metric_bytes_ = forms.size() * sizeof(unsigned char) + offsets.size() * sizeof(std::size_t) +
                      factors.size() * sizeof(Number) + n_values * sizeof(Number) + nodes.size() * sizeof(Number) +
                      ((general_sources.size() + n_device_values) * R_metric + coefficient_sources.size() * n3) * sizeof(Number);
    }

    template <typename Number, typename Layout>
    Number *
    GeneralLaplaceOperator<Number, Layout>::metric_records_from_nodes(const CellMapping               &mapping,
                                                                      const std::vector<unsigned int> &cells,
                                                                      const std::vector<double>       &coefficients,
                                                                      const Quadrature1D              &gauss)
    {
      const std::size_t  n_slots = cells.size();
      const unsigned int n = static_cast<unsigned int>(gauss.points.size()), n3 = n * n * n;
      // ψ_i(ξ_q), ψ_i'(ξ_q) of the mapping, then the tensor weights (their
      // products in double, as make_laplace_metric's)
      const MappingTables mapping_tables = make_mapping_tables(mapping.degree, n);
      std::vector<double> tables         = mapping_tables.values;
      tables.insert(tables.end(), mapping_tables.derivatives.begin(), mapping_tables.derivatives.end());
      for (unsigned int kz = 0; kz < n; ++kz)
        for (unsigned int j = 0; j < n; ++j)
          for (unsigned int i = 0; i < n; ++i)
            tables.push_back(gauss.weights[i] * gauss.weights[j] * gauss.weights[kz]);
      const std::size_t entries = (n_slots + 31) / 32 * 32 * kernels::metric_entries * std::size_t(n3);
      Number           *records = allocate<Number>(entries, "the metric records of the general Laplace operator");
      double           *staged_nodes = nullptr, *staged_tables = nullptr, *staged_coefficients = nullptr;
      unsigned int     *staged_cells = nullptr;
      try
        {
          // the padding of the last group of 32 is never read; zero, not garbage
          CELLWISE_CUDA_CHECK(cudaMemset(records, 0, entries * sizeof(Number)));
          // the mapping's own array, every cell's nodes, as it lies: copying
          // the general cells' nodes into records on the host first took
          // 1.2–1.7 s for the ball at L = 6 (2.8 GB); their upload and
          // this kernel 0.08 s (H200, 2026-12-05)
          staged_nodes = upload(mapping.nodes.data()->data(), 3 * mapping.nodes.size(), "the mapping nodes of the level (staged)");
          staged_cells = upload(cells, "the general cells of the metric made on the device (staged)");
          staged_coefficients = upload(coefficients, "the coefficients of the general cells (staged)");
          staged_tables       = upload(tables, "the mapping tables of the general cells (staged)");
          const std::size_t  points  = n_slots * n3;
          const unsigned int threads = 128;
          metric_records_from_nodes_kernel<<<static_cast<unsigned int>((points + threads - 1) / threads), threads>>>(
            staged_nodes, staged_cells, staged_coefficients, n_slots, static_cast<int>(mapping.degree), static_cast<int>(n),
            staged_tables, records);
          CELLWISE_CUDA_CHECK_LAUNCH();
          // the staged arrays are freed after this: the kernel must be done
          CELLWISE_CUDA_CHECK(cudaDeviceSynchronize());
        }
      catch (...)
        {
          free_bytes(staged_nodes);
          free_bytes(staged_cells);
          free_bytes(staged_coefficients);
          free_bytes(staged_tables);
          free_bytes(records);
          throw;
        }
      free_bytes(staged_nodes);
      free_bytes(staged_cells);
      free_bytes(staged_coefficients);
      free_bytes(staged_tables);
      return records;
    }

    template <typename Number, typename Layout>
    Number *
    GeneralLaplaceOperator<Number, Layout>::interleave_records(const Number                   *values,
                                                               const std::vector<std::size_t> &sources,
                                                               const int                       R,
                                                               const char                     *what)
    {
      if (sources.empty())
        return nullptr;
      const std::size_t entries = (sources.size() + 31) / 32 * 32 * std::size_t(R);
      Number           *records = allocate<Number>(entries, what);
      std::size_t      *staged  = nullptr;
      try
        {
          staged                     = upload(sources, what);
          const unsigned int threads = 256;
          interleave_records_kernel<<<static_cast<unsigned int>((entries + threads - 1) / threads), threads>>>(values, staged, sources.size(), R, records);
          CELLWISE_CUDA_CHECK_LAUNCH();
          // the staged arrays are freed after this: the kernel must be done
          CELLWISE_CUDA_CHECK(cudaDeviceSynchronize());
        }
      catch (...)
        {
          free_bytes(staged);
          free_bytes(records);
          throw;
        }
      free_bytes(staged);
      return records;
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
      free_bytes(nodes_);
      free_bytes(metric_records_);
      free_bytes(coefficient_records_);
      free_bytes(tables_);
      forms_   = nullptr;
      offsets_ = nullptr;
      factors_ = nullptr;
      values_  = nullptr;
      nodes_   = nullptr;
      metric_records_      = nullptr;
      coefficient_records_ = nullptr;
      tables_  = nullptr;
    }

    template <typename Number, typename Layout>
    void
    GeneralLaplaceOperator<Number, Layout>::apply(VectorType                 &dst,
                                                  const VectorType           *b,
                                                  const VectorType           &u,
                                                  const int                   mode,
                                                  const SmootherStep<Number> *step,
                                                  VectorType                 *update,
                                                  const VectorType           *inverse_diagonal) const
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
        constexpr int p = decltype(constant)::value;
        dispatch_constant<0, max_recomputed_mapping_degree>(mapping_degree_, [&](auto mapping_constant) {
          constexpr int      K      = decltype(mapping_constant)::value;
          // the kernel's tables by value, from the host copies
          constexpr int              n = p + 1, n3 = n * n * n, m = K + 1;
          KernelTables<p, K, Number> t;
          const Number              *h = host_tables_.data();
          for (int e = 0; e < n * n; ++e)
            {
              t.st.S[e]  = h[e];
              t.st.D[e]  = h[n * n + e];
              t.st.Dc[e] = host_collocation_[e];
            }
          for (int e = 0; e < n; ++e)
            t.w[e] = h[2 * n * n + n3 + e];
          for (int e = 0; e < n * m; ++e) // K = 0: no mapping tables, unused
            {
              t.MS[e] = K > 0 ? h[2 * n * n + n3 + n + e] : Number(0);
              t.MD[e] = K > 0 ? h[2 * n * n + n3 + n + n * m + e] : Number(0);
            }
          const MetricArrays<Number> arrays{forms_, offsets_, factors_, values_, nodes_, metric_records_, coefficient_records_};
          const Number              *b_data = b ? b->data() : nullptr;
          if constexpr (cell_fastest<Layout> && p >= min_plane_degree && p <= max_plane_degree)
            if (kernel() == GeneralKernel::planes)
              {
                using Shape               = PlaneShape<p, Number>;
                const unsigned int blocks = (n_cells_ + Shape::cells - 1) / Shape::cells;
                if (step)
                  {
                    // u is smoother_step's own (non-const) vector, passed
                    // here as the operator's input
                    const PlaneStep<Number> fused{const_cast<Number *>(u.data()),
                                                  dst.data(),
                                                  step->uses_update() ? update->data() : nullptr,
                                                  inverse_diagonal->data(),
                                                  step->alpha,
                                                  step->beta,
                                                  !step->zero_initial_guess,
                                                  step->alpha != Number(0),
                                                  step->store_update};
                    general_laplace_planes_kernel<p, K, Number, Layout, true>
                      <<<blocks, Shape::threads>>>(arrays, t, nullptr, fused, b_data, dst.data(), n_cells_, mode);
                  }
                else
                  general_laplace_planes_kernel<p, K, Number, Layout, false>
                    <<<blocks, Shape::threads>>>(arrays, t, u.data(), PlaneStep<Number>{}, b_data, dst.data(), n_cells_, mode);
                CELLWISE_CUDA_CHECK_LAUNCH();
                return;
              }
          CELLWISE_CHECK(!step, "cuda::GeneralLaplaceOperator: a smoother step inside the operator's pass needs the plane kernel");
          using Shape               = GeneralShape<p, Number>;
          const unsigned int blocks = (n_cells_ + Shape::cells - 1) / Shape::cells;
          general_laplace_kernel<p, K, Number, Layout>
            <<<blocks, Shape::threads>>>(arrays, t, u.data(), b_data, dst.data(), n_cells_, mode);
          CELLWISE_CUDA_CHECK_LAUNCH();
        });
      });
    }

    template <typename Number, typename Layout>
    bool
    GeneralLaplaceOperator<Number, Layout>::planes_available() const
    {
      return cell_fastest<Layout> && int(degree_) >= min_plane_degree && int(degree_) <= max_plane_degree;
    }

    template <typename Number, typename Layout>
    void
    GeneralLaplaceOperator<Number, Layout>::use_kernel(const GeneralKernel kernel)
    {
      CELLWISE_CHECK(kernel != GeneralKernel::planes || planes_available(),
                     "cuda::GeneralLaplaceOperator: the plane kernel takes blocked layouts and degrees "
                       << min_plane_degree << ".." << max_plane_degree << ", not degree " << degree_
                       << (cell_fastest<Layout> ? "" : " in the cell-contiguous layout"));
      kernel_ = kernel;
    }

    template <typename Number, typename Layout>
    GeneralKernel
    GeneralLaplaceOperator<Number, Layout>::kernel() const
    {
      return kernel_ == GeneralKernel::automatic ? GeneralKernel::lines : kernel_;
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
      if (step.compute_residual && kernel() == GeneralKernel::planes)
        {
          // the update in the plane kernel's loads, then r = b − A u: one pass
          apply(r, &b, u, residual_mode, &step, update, &inverse_diagonal);
          return;
        }
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
        const MetricArrays<Number> arrays{forms_, offsets_, factors_, values_, nodes_, metric_records_, coefficient_records_};
        general_laplace_diagonal_kernel<p, Number, Layout><<<static_cast<unsigned int>((entries + threads - 1) / threads), threads>>>(
          arrays, tables_, static_cast<int>(mapping_degree_), diagonal.data(), n_cells_);
        CELLWISE_CUDA_CHECK_LAUNCH();
      });
    }

    CELLWISE_INSTANTIATE_NUMBERS_AND_LAYOUTS(GeneralLaplaceOperator)
  } // namespace cuda
} // namespace cellwise
