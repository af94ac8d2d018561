// cuda::HermiteBiharmonicOperator (operators/cuda_hermite_biharmonic_operator.h):
// the sum-factorization kernel of the Hermite biharmonic operator, the same
// stages as the host operator's apply_cell (the oracle of the tests).

#include <cellwise/base/cuda_check.h>
#include <cellwise/base/exceptions.h>
#include <cellwise/fe/hermite_matrices_1d.h>
#include <cellwise/mesh/cell_mapping.h>
#include <cellwise/operators/cuda_hermite_biharmonic_operator.h>
#include <cellwise/operators/hermite_biharmonic_operator.h>

#include <cuda_runtime_api.h>

#include <utility>
#include <vector>

namespace cellwise
{
  namespace cuda
  {
    namespace
    {
      constexpr unsigned int dofs_per_cell = hermite::dofs_per_cell;
      /// Cells per block: 4 × 64 threads, 7 shared 64-value stages per cell.
      constexpr unsigned int cells_per_block = 4;

      /// The 1D matrices, 4 × 4 row-major, passed by value to the kernel.
      template <typename Number>
      struct HermiteMatrices
      {
        Number mass[16], stiffness[16], bending[16];
      };

      /// Σ_j A(i, j) x[base + j stride]: one contraction of a 4-point axis.
      template <typename Number>
      __device__ Number
      contract(const Number *A, const unsigned int i, const Number *x, const unsigned int base, const unsigned int stride)
      {
        return A[4 * i] * x[base] + A[4 * i + 1] * x[base + stride] + A[4 * i + 2] * x[base + 2 * stride] +
               A[4 * i + 3] * x[base + 3 * stride];
      }

      /// mode 0: dst = A u, 1: dst += A u, 2: dst = b − A u. Thread o of a
      /// cell is its DoF o = i_x + 4 i_y + 16 i_z; the stages of the host's
      /// apply_cell in shared memory, one synchronization between them.
      template <typename Number, typename Layout>
      __global__ void __launch_bounds__(cells_per_block * dofs_per_cell)
        hermite_biharmonic_kernel(const HermiteMatrices<Number> matrices,
                                  const Number *__restrict__ widths,
                                  const Number *__restrict__ factors,
                                  const Number *__restrict__ u,
                                  const Number *b,
                                  Number      *dst,
                                  const unsigned int n_cells,
                                  const int          mode)
      {
        __shared__ Number stage[cells_per_block][7][dofs_per_cell];
        // the 1D matrices in shared memory: the threads of a warp read
        // different rows (a kernel parameter whose address is taken lives
        // in local memory, constant memory serializes divergent reads)
        __shared__ Number M[16], K[16], B[16];
        if (threadIdx.x < 16)
          {
            M[threadIdx.x] = matrices.mass[threadIdx.x];
            K[threadIdx.x] = matrices.stiffness[threadIdx.x];
            B[threadIdx.x] = matrices.bending[threadIdx.x];
          }
        const unsigned int local = threadIdx.x / dofs_per_cell, o = threadIdx.x % dofs_per_cell;
        const unsigned int cell   = blockIdx.x * cells_per_block + local;
        const bool         active = cell < n_cells;
        const unsigned int ix = o % 4, iy = (o / 4) % 4, iz = o / 16;
        Number            *x = stage[local][0], *xm = stage[local][1], *xk = stage[local][2], *xb = stage[local][3];
        Number            *t1 = stage[local][4], *t2 = stage[local][5], *t3 = stage[local][6];

        // physical -> reference DoFs: derivative DoFs times the widths
        Number scaling = 1;
        if (active)
          {
            const Number *h = widths + 3 * std::size_t(cell);
            scaling         = ((o & 1) ? h[0] : Number(1)) * ((o & 4) ? h[1] : Number(1)) * ((o & 16) ? h[2] : Number(1));
            x[o]            = u[Layout::index(cell, o, dofs_per_cell)] * scaling;
          }
        __syncthreads();
        // along x: M, K, B
        const unsigned int row_x = o - ix;
        if (active)
          {
            xm[o] = contract(M, ix, x, row_x, 1);
            xk[o] = contract(K, ix, x, row_x, 1);
            xb[o] = contract(B, ix, x, row_x, 1);
          }
        __syncthreads();
        // along y: t1 = cxx Y_BM + cyy Y_MB + cxy Y_KK, t2 = czz Y_MM,
        // t3 = cxz Y_KM + cyz Y_MK (Y_ab: a along x, then b along y)
        const unsigned int row_y = o - 4 * iy;
        if (active)
          {
            const Number *c = factors + 6 * std::size_t(cell);
            Number        s = c[0] * contract(M, iy, xb, row_y, 4);
            s += c[1] * contract(B, iy, xm, row_y, 4);
            s += c[3] * contract(K, iy, xk, row_y, 4);
            t1[o] = s;
            t2[o] = c[2] * contract(M, iy, xm, row_y, 4);
            Number r = c[4] * contract(M, iy, xk, row_y, 4);
            r += c[5] * contract(K, iy, xm, row_y, 4);
            t3[o] = r;
          }
        __syncthreads();
        // along z: M t1 + B t2 + K t3, back to physical duals
        if (!active)
          return;
        const unsigned int row_z = o - 16 * iz;
        const Number       z1    = contract(M, iz, t1, row_z, 16);
        const Number       z2    = contract(B, iz, t2, row_z, 16);
        const Number       z3    = contract(K, iz, t3, row_z, 16);
        const Number       y     = (z1 + z2 + z3) * scaling;
        const std::size_t  index = Layout::index(cell, o, dofs_per_cell);
        if (mode == 0)
          dst[index] = y;
        else if (mode == 1)
          dst[index] += y;
        else
          dst[index] = b[index] - y;
      }

      template <typename Number>
      void
      copy_matrix(const DenseMatrix &A, Number *a)
      {
        for (unsigned int i = 0; i < 4; ++i)
          for (unsigned int j = 0; j < 4; ++j)
            a[4 * i + j] = static_cast<Number>(A(i, j));
      }
    } // namespace

    template <typename Number, typename Layout>
    HermiteBiharmonicOperator<Number, Layout>::HermiteBiharmonicOperator(const Level &level)
      : n_cells_(level.n_cells())
    {
      check_box_cells(level, "the device Hermite biharmonic operator");
      std::vector<Number> widths(3 * std::size_t(n_cells_)), factors(6 * std::size_t(n_cells_));
      for (unsigned int c = 0; c < n_cells_; ++c)
        {
          const std::array<double, 3> &h = level.boxes[c].size;
          const std::array<double, 6>  f = hermite_biharmonic_factors(h, c); // (checks the widths)
          for (unsigned int d = 0; d < 3; ++d)
            widths[3 * std::size_t(c) + d] = static_cast<Number>(h[d]);
          for (unsigned int t = 0; t < 6; ++t)
            factors[6 * std::size_t(c) + t] = static_cast<Number>(f[t]);
        }
      widths_ = upload(widths, "the cell widths of the Hermite biharmonic operator");
      try
        {
          factors_ = upload(factors, "the metric factors of the Hermite biharmonic operator");
        }
      catch (...)
        {
          free_bytes(widths_);
          throw;
        }
    }

    template <typename Number, typename Layout>
    HermiteBiharmonicOperator<Number, Layout>::HermiteBiharmonicOperator(HermiteBiharmonicOperator &&other) noexcept
      : n_cells_(std::exchange(other.n_cells_, 0u))
      , widths_(std::exchange(other.widths_, nullptr))
      , factors_(std::exchange(other.factors_, nullptr))
    {}

    template <typename Number, typename Layout>
    HermiteBiharmonicOperator<Number, Layout> &
    HermiteBiharmonicOperator<Number, Layout>::operator=(HermiteBiharmonicOperator &&other) noexcept
    {
      std::swap(n_cells_, other.n_cells_);
      std::swap(widths_, other.widths_);
      std::swap(factors_, other.factors_);
      return *this;
    }

    template <typename Number, typename Layout>
    HermiteBiharmonicOperator<Number, Layout>::~HermiteBiharmonicOperator()
    {
      free_bytes(widths_);
      free_bytes(factors_);
    }

    template <typename Number, typename Layout>
    void
    HermiteBiharmonicOperator<Number, Layout>::prepare_output(VectorType &dst, const VectorType &u, const char *function) const
    {
      CELLWISE_CHECK(u.n_cells() == n_cells_ && u.degree() == hermite::storage_degree,
                     "cuda::HermiteBiharmonicOperator::" << function << ": input has " << u.n_cells() << " cells of degree "
                                                         << u.degree() << ", the operator " << n_cells_
                                                         << " cells of the Hermite element (stored as degree "
                                                         << hermite::storage_degree << ")");
      CELLWISE_CHECK(&dst != &u, "cuda::HermiteBiharmonicOperator::" << function << " cannot overwrite its input");
      if (dst.n_cells() != u.n_cells() || dst.degree() != u.degree())
        dst.reinit(u.n_cells(), u.degree());
    }

    template <typename Number, typename Layout>
    void
    HermiteBiharmonicOperator<Number, Layout>::apply(VectorType &dst, const VectorType *b, const VectorType &u, const int mode) const
    {
      if (n_cells_ == 0)
        return;
      const hermite::Matrices1D matrices_1d = hermite::make_matrices_1d();
      HermiteMatrices<Number>   matrices{};
      copy_matrix(matrices_1d.mass, matrices.mass);
      copy_matrix(matrices_1d.stiffness, matrices.stiffness);
      copy_matrix(matrices_1d.bending, matrices.bending);
      const unsigned int blocks = (n_cells_ + cells_per_block - 1) / cells_per_block;
      hermite_biharmonic_kernel<Number, Layout><<<blocks, cells_per_block * dofs_per_cell>>>(
        matrices, widths_, factors_, u.data(), b ? b->data() : nullptr, dst.data(), n_cells_, mode);
      CELLWISE_CUDA_CHECK_LAUNCH();
    }

    template <typename Number, typename Layout>
    void
    HermiteBiharmonicOperator<Number, Layout>::vmult(VectorType &dst, const VectorType &src) const
    {
      prepare_output(dst, src, "vmult");
      apply(dst, nullptr, src, 0);
    }

    template <typename Number, typename Layout>
    void
    HermiteBiharmonicOperator<Number, Layout>::vmult_add(VectorType &dst, const VectorType &src) const
    {
      CELLWISE_CHECK(dst.n_cells() == n_cells_ && dst.degree() == hermite::storage_degree,
                     "cuda::HermiteBiharmonicOperator::vmult_add: the destination has " << dst.n_cells() << " cells of degree "
                                                                                        << dst.degree());
      prepare_output(dst, src, "vmult_add");
      apply(dst, nullptr, src, 1);
    }

    template <typename Number, typename Layout>
    void
    HermiteBiharmonicOperator<Number, Layout>::residual(VectorType &dst, const VectorType &b, const VectorType &u) const
    {
      prepare_output(dst, u, "residual");
      CELLWISE_CHECK(b.n_cells() == n_cells_ && b.degree() == hermite::storage_degree,
                     "cuda::HermiteBiharmonicOperator::residual: the right-hand side has " << b.n_cells() << " cells of degree "
                                                                                           << b.degree());
      apply(dst, &b, u, 2);
    }

    template class HermiteBiharmonicOperator<double, CellContiguous>;
    template class HermiteBiharmonicOperator<float, CellContiguous>;
    template class HermiteBiharmonicOperator<double, CellBlocked<32>>;
    template class HermiteBiharmonicOperator<float, CellBlocked<32>>;
  } // namespace cuda
} // namespace cellwise
