// Device vertex-patch smoother (000 §3), the generic colour-step kernel: any
// degree, number type and layout, one thread block per patch.
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

#include <cellwise/base/cuda_check.h>

#include "cuda_vertex_patch_kernels.h"

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
    } // namespace

    template <int p, typename Number, typename Layout>
    void
    internal::launch_generic(const std::vector<double> &mass,
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

#define CELLWISE_INSTANTIATE(p, Number, Layout)                                                              \
  template void internal::launch_generic<p, Number, Layout>(const std::vector<double> &, const std::vector<double> &, \
                                                            const Number *, const Number *, const unsigned int *,     \
                                                            const unsigned int *, unsigned int, const Number *,       \
                                                            Number *, bool);
#define CELLWISE_INSTANTIATE_DEGREES(Number, Layout) \
  CELLWISE_INSTANTIATE(1, Number, Layout)            \
  CELLWISE_INSTANTIATE(2, Number, Layout)            \
  CELLWISE_INSTANTIATE(3, Number, Layout)            \
  CELLWISE_INSTANTIATE(4, Number, Layout)            \
  CELLWISE_INSTANTIATE(5, Number, Layout)            \
  CELLWISE_INSTANTIATE(6, Number, Layout)            \
  CELLWISE_INSTANTIATE(7, Number, Layout)            \
  CELLWISE_INSTANTIATE(8, Number, Layout)
    // the degrees of dispatch_degree (base/degree_dispatch.h)
    CELLWISE_INSTANTIATE_DEGREES(double, CellContiguous)
    CELLWISE_INSTANTIATE_DEGREES(float, CellContiguous)
    CELLWISE_INSTANTIATE_DEGREES(double, CellBlocked<32>)
    CELLWISE_INSTANTIATE_DEGREES(float, CellBlocked<32>)
#undef CELLWISE_INSTANTIATE_DEGREES
#undef CELLWISE_INSTANTIATE
  } // namespace cuda
} // namespace cellwise
