// cuda::HermiteBiharmonicOperator (operators/cuda_hermite_biharmonic_operator.h):
// the sum-factorization kernel of the Hermite biharmonic operator, the same
// stages as the host operator's apply_cell (the oracle of the tests), and the
// set-up and launch of the kernels of one cell size
// (cuda_hermite_uniform_cell_kernels.h).

#include <cellwise/base/cuda_check.h>
#include <cellwise/base/exceptions.h>
#include <cellwise/fe/hermite_affine_part.h>
#include <cellwise/fe/hermite_matrices_1d.h>
#include <cellwise/mesh/cell_mapping.h>
#include <cellwise/operators/cuda_hermite_biharmonic_operator.h>
#include <cellwise/operators/cuda_smoother_update.h>
#include <cellwise/operators/hermite_biharmonic_operator.h>

#include "cuda_dirichlet_bits.h"
#include "cuda_hermite_uniform_cell_kernels.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

namespace cellwise
{
  namespace cuda
  {
    namespace
    {
      constexpr unsigned int dofs_per_cell = hermite::dofs_per_cell;
      /// A thread per line of 4 values of a cell (16 per cell), 8 cells per
      /// block; 6 shared 64-value stages per cell.
      constexpr unsigned int lines_per_cell  = 16;
      constexpr unsigned int cells_per_block = 8;

      /// The 1D matrices, 4 × 4 row-major, passed by value to the kernel.
      template <typename Number>
      struct HermiteMatrices
      {
        Number mass[16], stiffness[16], bending[16];
      };

      /// y_i += a Σ_j A(i, j) x_j for the 4 values of a line.
      template <typename Number>
      __device__ void
      add_contraction(const Number *A, const Number a, const Number (&x)[4], Number (&y)[4])
      {
#pragma unroll
        for (unsigned int i = 0; i < 4; ++i)
          y[i] += a * (A[4 * i] * x[0] + A[4 * i + 1] * x[1] + A[4 * i + 2] * x[2] + A[4 * i + 3] * x[3]);
      }

      /// The 4 values x[base + j stride] of a line in shared memory.
      template <typename Number>
      __device__ void
      read_line(const Number *x, const unsigned int base, const unsigned int stride, Number (&line)[4])
      {
#pragma unroll
        for (unsigned int j = 0; j < 4; ++j)
          line[j] = x[base + j * stride];
      }

      /// mode 0: dst = A u, 1: dst += A u, 2: dst = b − A u. The stages of
      /// the host's apply_cell with a thread per line of 4 values: it loads
      /// an x-line of the cell (scaled to reference DoFs) and contracts it
      /// with M, K, B in registers, then takes a y-line of those for the six
      /// pairs with the cell's factors, then a z-line of the three sums and
      /// writes it back scaled to physical duals; one synchronization
      /// between the stages, which exchange lines through shared memory.
      template <typename Number, typename Layout>
      __global__ void __launch_bounds__(cells_per_block * lines_per_cell)
        hermite_biharmonic_kernel(const HermiteMatrices<Number> matrices,
                                  const Number *__restrict__ widths,
                                  const Number *__restrict__ factors,
                                  const Number *__restrict__ u,
                                  const Number *b,
                                  Number      *dst,
                                  const unsigned int n_cells,
                                  const int          mode)
      {
        __shared__ Number stage[cells_per_block][6][dofs_per_cell];
        // the 1D matrices in shared memory (read at the same address by
        // every thread: a broadcast; a kernel parameter whose address is
        // taken would live in local memory)
        __shared__ Number M[16], K[16], B[16];
        if (threadIdx.x < 16)
          {
            M[threadIdx.x] = matrices.mass[threadIdx.x];
            K[threadIdx.x] = matrices.stiffness[threadIdx.x];
            B[threadIdx.x] = matrices.bending[threadIdx.x];
          }
        const unsigned int local = threadIdx.x / lines_per_cell, line = threadIdx.x % lines_per_cell;
        const unsigned int cell   = blockIdx.x * cells_per_block + local;
        const bool         active = cell < n_cells;
        // the line's two fixed indices (the other two axes)
        const unsigned int p = line % 4, q = line / 4;
        Number            *xm = stage[local][0], *xk = stage[local][1], *xb = stage[local][2];
        Number            *t1 = stage[local][3], *t2 = stage[local][4], *t3 = stage[local][5];
        Number             h[3] = {1, 1, 1};
        if (active)
          for (unsigned int d = 0; d < 3; ++d)
            h[d] = widths[3 * std::size_t(cell) + d];
        __syncthreads(); // (the matrices)

        // x-lines (i_y = p, i_z = q): physical -> reference DoFs, M, K, B
        if (active)
          {
            Number             x[4];
            const unsigned int base = 4 * p + 16 * q;
            const Number       s_yz = ((p & 1) ? h[1] : Number(1)) * ((q & 1) ? h[2] : Number(1));
#pragma unroll
            for (unsigned int i = 0; i < 4; ++i)
              x[i] = u[Layout::index(cell, base + i, dofs_per_cell)] * s_yz * ((i & 1) ? h[0] : Number(1));
            if constexpr (hermite::subtracts_affine_part<Number>)
              {
                // FP32: the line without the cell's affine part, formed in
                // reference DoFs as the host's apply_cell does (every line
                // reads vertex 0's four values; fe/hermite_affine_part.h)
                const auto vertex_0 = [&](const unsigned int i) { return u[Layout::index(cell, i, dofs_per_cell)]; };
                const hermite::AffinePart<Number> affine = hermite::make_affine_part(
                  vertex_0(0), vertex_0(1) * h[0], vertex_0(4) * h[1], vertex_0(16) * h[2], Number(1), Number(1), Number(1));
#pragma unroll
                for (unsigned int i = 0; i < 4; ++i)
                  x[i] = hermite::without_affine_part(base + i, x[i], affine);
              }
            Number ym[4] = {0, 0, 0, 0}, yk[4] = {0, 0, 0, 0}, yb[4] = {0, 0, 0, 0};
            add_contraction(M, Number(1), x, ym);
            add_contraction(K, Number(1), x, yk);
            add_contraction(B, Number(1), x, yb);
#pragma unroll
            for (unsigned int i = 0; i < 4; ++i)
              {
                xm[base + i] = ym[i];
                xk[base + i] = yk[i];
                xb[base + i] = yb[i];
              }
          }
        __syncthreads();
        // y-lines (i_x = p, i_z = q): t1 = cxx Y_BM + cyy Y_MB + cxy Y_KK,
        // t2 = czz Y_MM, t3 = cxz Y_KM + cyz Y_MK (Y_ab: a along x, b along y)
        if (active)
          {
            const Number      *c    = factors + 6 * std::size_t(cell);
            const unsigned int base = p + 16 * q;
            Number             lm[4], lk[4], lb[4];
            read_line(xm, base, 4, lm);
            read_line(xk, base, 4, lk);
            read_line(xb, base, 4, lb);
            Number r1[4] = {0, 0, 0, 0}, r2[4] = {0, 0, 0, 0}, r3[4] = {0, 0, 0, 0};
            add_contraction(M, c[0], lb, r1);
            add_contraction(B, c[1], lm, r1);
            add_contraction(K, c[3], lk, r1);
            add_contraction(M, c[2], lm, r2);
            add_contraction(M, c[4], lk, r3);
            add_contraction(K, c[5], lm, r3);
#pragma unroll
            for (unsigned int i = 0; i < 4; ++i)
              {
                t1[base + 4 * i] = r1[i];
                t2[base + 4 * i] = r2[i];
                t3[base + 4 * i] = r3[i];
              }
          }
        __syncthreads();
        // z-lines (i_x = p, i_y = q): M t1 + B t2 + K t3, back to physical
        // duals
        if (!active)
          return;
        const unsigned int base = p + 4 * q;
        Number             l1[4], l2[4], l3[4], y[4] = {0, 0, 0, 0};
        read_line(t1, base, 16, l1);
        read_line(t2, base, 16, l2);
        read_line(t3, base, 16, l3);
        add_contraction(M, Number(1), l1, y);
        add_contraction(B, Number(1), l2, y);
        add_contraction(K, Number(1), l3, y);
        const Number s_xy = ((p & 1) ? h[0] : Number(1)) * ((q & 1) ? h[1] : Number(1));
#pragma unroll
        for (unsigned int i = 0; i < 4; ++i)
          {
            const Number      value = y[i] * s_xy * ((i & 1) ? h[2] : Number(1));
            const std::size_t index = Layout::index(cell, base + 16 * i, dofs_per_cell);
            if (mode == 0)
              dst[index] = value;
            else if (mode == 1)
              dst[index] += value;
            else
              dst[index] = b[index] - value;
          }
      }

      /// The matrices of the kernels, row-major in Number.
      template <typename Number>
      HermiteMatrices<Number>
      make_kernel_matrices()
      {
        const hermite::Matrices1D matrices_1d = hermite::make_matrices_1d();
        HermiteMatrices<Number>   matrices{};
        const auto                copy = [](const DenseMatrix &A, Number *a) {
          const std::array<Number, 16> values = hermite::row_major<Number>(A);
          for (unsigned int k = 0; k < 16; ++k)
            a[k] = values[k];
        };
        copy(matrices_1d.mass, matrices.mass);
        copy(matrices_1d.stiffness, matrices.stiffness);
        copy(matrices_1d.bending, matrices.bending);
        return matrices;
      }

      /// The diagonal of A_K per copy, one thread per value: the six Kronecker
      /// terms' diagonals with the cell's factors, times the squared
      /// derivative scaling (the host's compute_cell_diagonals).
      template <typename Number, typename Layout>
      __global__ void
      hermite_diagonal_kernel(const HermiteMatrices<Number> matrices,
                              const Number *__restrict__ widths,
                              const Number *__restrict__ factors,
                              Number            *diagonal,
                              const unsigned int n_cells)
      {
        const std::size_t t    = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
        const std::size_t cell = t / dofs_per_cell;
        if (cell >= n_cells)
          return;
        const unsigned int i = t % dofs_per_cell, ix = i % 4, iy = (i / 4) % 4, iz = i / 16;
        const Number      *c = factors + 6 * cell, *h = widths + 3 * cell;
        // the diagonals of M, K and B: entry j is at 5 j of a 4 × 4 row-major matrix
        const auto   m = [&](const unsigned int j) { return matrices.mass[5 * j]; };
        const auto   k = [&](const unsigned int j) { return matrices.stiffness[5 * j]; };
        const auto   b = [&](const unsigned int j) { return matrices.bending[5 * j]; };
        const Number a = c[0] * b(ix) * m(iy) * m(iz) + c[1] * m(ix) * b(iy) * m(iz) + c[2] * m(ix) * m(iy) * b(iz) +
                         c[3] * k(ix) * k(iy) * m(iz) + c[4] * k(ix) * m(iy) * k(iz) + c[5] * m(ix) * k(iy) * k(iz);
        const Number s = ((ix & 1) ? h[0] : Number(1)) * ((iy & 1) ? h[1] : Number(1)) * ((iz & 1) ? h[2] : Number(1));
        diagonal[Layout::index(cell, i, dofs_per_cell)] = a * (s * s);
      }

      /// The level's one cell matrix A_K (cell size @p h) in the order of the
      /// even–odd kernel (the sectors E_s transposed) or of the dense one (A
      /// transposed): see hermite_uniform_kernels::matrix_size.
      template <typename Number>
      std::vector<Number>
      make_uniform_cell_matrix(const std::array<double, 3> &h, const bool even_odd)
      {
        const DenseMatrix   A = hermite_biharmonic_cell_matrix(h, 0);
        std::vector<Number> values;
        if (even_odd)
          {
            const auto sectors = hermite::even_odd_sectors(A);
            values.resize(hermite_uniform_kernels::matrix_size<true>);
            for (unsigned int s = 0; s < hermite::n_sectors; ++s)
              for (unsigned int l = 0; l < 16; ++l)
                for (unsigned int i = 0; i < 16; ++i)
                  values[256 * s + 16 * l + i] = static_cast<Number>(sectors[s](i, l));
          }
        else
          {
            values.resize(hermite_uniform_kernels::matrix_size<false>);
            for (unsigned int j = 0; j < dofs_per_cell; ++j)
              for (unsigned int i = 0; i < dofs_per_cell; ++i)
                values[dofs_per_cell * j + i] = static_cast<Number>(A(i, j));
          }
        return values;
      }

      /// The kernel of one cell size for the operator's realisation (even–odd
      /// or dense) and cells (one size or scaled copies), with or without the
      /// pairing.
      template <typename Number, typename Layout, bool pairs>
      auto
      uniform_kernel(const bool even_odd, const bool scaled)
      {
        namespace k = hermite_uniform_kernels;
        return even_odd ? (scaled ? k::uniform_cell_kernel<Number, Layout, true, true, pairs>
                                  : k::uniform_cell_kernel<Number, Layout, true, false, pairs>)
                        : (scaled ? k::uniform_cell_kernel<Number, Layout, false, true, pairs>
                                  : k::uniform_cell_kernel<Number, Layout, false, false, pairs>);
      }

      /// Blocks of the persistent grid of a kernel of one cell size: as
      /// many as fit on the device at once (after raising its shared-memory
      /// limit where it needs more than the default 48 KiB).
      template <typename Number, typename Layout, bool pairs>
      unsigned int
      uniform_grid_blocks(const bool even_odd, const bool scaled)
      {
        const auto  kernel = uniform_kernel<Number, Layout, pairs>(even_odd, scaled);
        const auto  bytes  = even_odd ? hermite_uniform_kernels::shared_bytes<Number, true>
                                      : hermite_uniform_kernels::shared_bytes<Number, false>;
        int         device = 0, multiprocessors = 0, per_multiprocessor = 0;
        CELLWISE_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
        CELLWISE_CUDA_CHECK(cudaGetDevice(&device));
        CELLWISE_CUDA_CHECK(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device));
        CELLWISE_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_multiprocessor, kernel,
                                                                          hermite_uniform_kernels::threads, bytes));
        CELLWISE_CHECK(per_multiprocessor > 0, "the Hermite " << (even_odd ? "even-odd" : "dense")
                                                               << " kernel does not fit on this device (" << bytes
                                                               << " bytes of shared memory per block)");
        return static_cast<unsigned int>(multiprocessors * per_multiprocessor);
      }
    } // namespace

    const char *
    to_string(const HermiteOperatorKernel kernel)
    {
      switch (kernel)
        {
          case HermiteOperatorKernel::automatic:
            return "automatic";
          case HermiteOperatorKernel::sum_factorization:
            return "sum factorization";
          case HermiteOperatorKernel::even_odd:
            return "even-odd";
          case HermiteOperatorKernel::dense:
            return "dense";
        }
      return "unknown";
    }

    template <typename Number, typename Layout>
    HermiteBiharmonicOperator<Number, Layout>::HermiteBiharmonicOperator(const Level &level, const HermiteOperatorKernel kernel)
      : n_cells_(level.n_cells())
    {
      check_box_cells(level, "the device Hermite biharmonic operator");
      // one cell size: one matrix; scaled copies of one box: one matrix and a
      // scale per cell
      const std::optional<std::array<double, 3>> size  = common_box_size(level);
      const std::optional<BoxShape>              shape = size ? std::nullopt : common_box_shape(level);
      CELLWISE_CHECK(size || shape || kernel == HermiteOperatorKernel::automatic || kernel == HermiteOperatorKernel::sum_factorization,
                     "cuda::HermiteBiharmonicOperator: the " << to_string(kernel)
                                                             << " kernel needs a level whose cells are copies of one box, "
                                                                "scaled or not (one cell matrix); this level's "
                                                             << level.n_cells()
                                                             << " cells are not: use sum factorization");
      kernel_ = kernel == HermiteOperatorKernel::automatic
                  ? (size || shape ? HermiteOperatorKernel::even_odd : HermiteOperatorKernel::sum_factorization)
                  : kernel;
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
          if (kernel_ != HermiteOperatorKernel::sum_factorization)
            {
              const bool even_odd = kernel_ == HermiteOperatorKernel::even_odd;
              const std::array<double, 3> &box = size ? *size : shape->size;
              for (unsigned int d = 0; d < 3; ++d)
                matrix_box_[d] = static_cast<Number>(box[d]);
              cell_matrix_   = upload(make_uniform_cell_matrix<Number>(box, even_odd),
                                    "the cell matrix of the Hermite biharmonic operator");
              if (shape)
                cell_scale_ = upload(std::vector<Number>(shape->scale.begin(), shape->scale.end()),
                                     "the cell scales of the Hermite biharmonic operator");
              const bool scaled = shape.has_value();
              uniform_blocks_   = uniform_grid_blocks<Number, Layout, false>(even_odd, scaled);
              pairing_blocks_   = uniform_grid_blocks<Number, Layout, true>(even_odd, scaled);
            }
        }
      catch (...)
        {
          free_bytes(widths_);
          free_bytes(factors_);
          free_bytes(cell_matrix_);
          free_bytes(cell_scale_);
          throw;
        }
    }

    template <typename Number, typename Layout>
    HermiteBiharmonicOperator<Number, Layout>::HermiteBiharmonicOperator(HermiteBiharmonicOperator &&other) noexcept
      : n_cells_(std::exchange(other.n_cells_, 0u))
      , kernel_(other.kernel_)
      , uniform_blocks_(other.uniform_blocks_)
      , pairing_blocks_(other.pairing_blocks_)
      , cell_matrix_(std::exchange(other.cell_matrix_, nullptr))
      , cell_scale_(std::exchange(other.cell_scale_, nullptr))
      , matrix_box_(other.matrix_box_)
      , widths_(std::exchange(other.widths_, nullptr))
      , factors_(std::exchange(other.factors_, nullptr))
      , mask_vector_(std::exchange(other.mask_vector_, nullptr))
      , mask_data_(std::exchange(other.mask_data_, nullptr))
      , mask_bits_(std::exchange(other.mask_bits_, nullptr))
      , pairing_partials_(std::exchange(other.pairing_partials_, nullptr))
    {}

    template <typename Number, typename Layout>
    HermiteBiharmonicOperator<Number, Layout> &
    HermiteBiharmonicOperator<Number, Layout>::operator=(HermiteBiharmonicOperator &&other) noexcept
    {
      std::swap(n_cells_, other.n_cells_);
      std::swap(kernel_, other.kernel_);
      std::swap(uniform_blocks_, other.uniform_blocks_);
      std::swap(pairing_blocks_, other.pairing_blocks_);
      std::swap(cell_matrix_, other.cell_matrix_);
      std::swap(cell_scale_, other.cell_scale_);
      std::swap(matrix_box_, other.matrix_box_);
      std::swap(widths_, other.widths_);
      std::swap(factors_, other.factors_);
      std::swap(mask_vector_, other.mask_vector_);
      std::swap(mask_data_, other.mask_data_);
      std::swap(mask_bits_, other.mask_bits_);
      std::swap(pairing_partials_, other.pairing_partials_);
      return *this;
    }

    template <typename Number, typename Layout>
    HermiteBiharmonicOperator<Number, Layout>::~HermiteBiharmonicOperator()
    {
      free_bytes(widths_);
      free_bytes(factors_);
      free_bytes(cell_matrix_);
      free_bytes(cell_scale_);
      free_bytes(mask_bits_);
      free_bytes(pairing_partials_);
    }

    template <typename Number, typename Layout>
    void
    HermiteBiharmonicOperator<Number, Layout>::use_dirichlet_mask(const VectorType &mask)
    {
      CELLWISE_CHECK(mask.n_cells() == n_cells_ && mask.degree() == hermite::storage_degree,
                     "cuda::HermiteBiharmonicOperator::use_dirichlet_mask: the mask has "
                       << mask.n_cells() << " cells of degree " << mask.degree() << ", the operator " << n_cells_
                       << " cells of the Hermite element");
      free_bytes(mask_bits_);
      mask_bits_   = nullptr;
      mask_vector_ = nullptr;
      mask_data_   = nullptr;
      mask_bits_   = internal::make_dirichlet_bits(mask, "cuda::HermiteBiharmonicOperator::use_dirichlet_mask");
      mask_vector_ = &mask;
      mask_data_   = mask.data();
    }

    template <typename Number, typename Layout>
    bool
    HermiteBiharmonicOperator<Number, Layout>::folds_mask(const VectorType &mask) const
    {
      // the sum-factorization kernel (cells of several sizes) takes no mask
      return kernel_ != HermiteOperatorKernel::sum_factorization && mask_bits_ && &mask == mask_vector_ &&
             mask.data() == mask_data_;
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
    double
    HermiteBiharmonicOperator<Number, Layout>::apply(VectorType       &dst,
                                                     const VectorType *b,
                                                     const VectorType &u,
                                                     const int         mode,
                                                     const bool        masked,
                                                     const bool        pairing) const
    {
      if (n_cells_ == 0)
        return 0.;
      if (kernel_ != HermiteOperatorKernel::sum_factorization)
        {
          namespace k         = hermite_uniform_kernels;
          const bool   even   = kernel_ == HermiteOperatorKernel::even_odd;
          const auto   bytes  = even ? k::shared_bytes<Number, true> : k::shared_bytes<Number, false>;
          const bool   scaled = cell_scale_ != nullptr;
          const unsigned int groups = (n_cells_ + k::cells_per_group - 1) / k::cells_per_group;
          const std::uint64_t *bits = masked ? mask_bits_ : nullptr;
          const k::MatrixBox<Number> box{{matrix_box_[0], matrix_box_[1], matrix_box_[2]}};
          if (!pairing)
            {
              uniform_kernel<Number, Layout, false>(even, scaled)<<<std::min(groups, uniform_blocks_), k::threads, bytes>>>(
                cell_matrix_, u.data(), b ? b->data() : nullptr, dst.data(), n_cells_, mode, bits, cell_scale_, box, nullptr);
              CELLWISE_CUDA_CHECK_LAUNCH();
              return 0.;
            }
          CELLWISE_CHECK(mode == 0, "cuda::HermiteBiharmonicOperator: the pairing is formed with dst = A u only");
          if (!pairing_partials_)
            pairing_partials_ = allocate<double>(std::size_t(pairing_blocks_) + 1, "the partial sums of the pairing ⟨p, A p⟩");
          const unsigned int grid = std::min(groups, pairing_blocks_);
          uniform_kernel<Number, Layout, true>(even, scaled)<<<grid, k::threads, bytes>>>(
            cell_matrix_, u.data(), nullptr, dst.data(), n_cells_, 0, bits, cell_scale_, box, pairing_partials_);
          CELLWISE_CUDA_CHECK_LAUNCH();
          k::sum_partials_kernel<<<1, 32>>>(pairing_partials_, grid, pairing_partials_ + pairing_blocks_);
          CELLWISE_CUDA_CHECK_LAUNCH();
          double result = 0;
          CELLWISE_CUDA_CHECK(cudaMemcpy(&result, pairing_partials_ + pairing_blocks_, sizeof(double), cudaMemcpyDeviceToHost));
          return result;
        }
      CELLWISE_CHECK(!masked && !pairing, "cuda::HermiteBiharmonicOperator: the sum-factorization kernel takes no mask bits and forms no pairing");
      const HermiteMatrices<Number> matrices = make_kernel_matrices<Number>();
      const unsigned int            blocks = (n_cells_ + cells_per_block - 1) / cells_per_block;
      hermite_biharmonic_kernel<Number, Layout><<<blocks, cells_per_block * lines_per_cell>>>(
        matrices, widths_, factors_, u.data(), b ? b->data() : nullptr, dst.data(), n_cells_, mode);
      CELLWISE_CUDA_CHECK_LAUNCH();
      return 0.;
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

    template <typename Number, typename Layout>
    void
    HermiteBiharmonicOperator<Number, Layout>::masked_vmult(VectorType &dst, const VectorType &src, const VectorType &mask) const
    {
      CELLWISE_CHECK(&dst != &mask, "cuda::HermiteBiharmonicOperator::masked_vmult: the output is the mask");
      if (!folds_mask(mask))
        return LevelOperator<VectorType>::masked_vmult(dst, src, mask);
      prepare_output(dst, src, "masked_vmult");
      apply(dst, nullptr, src, 0, true);
    }

    template <typename Number, typename Layout>
    double
    HermiteBiharmonicOperator<Number, Layout>::masked_vmult_dot(VectorType &dst, const VectorType &src, const VectorType &mask) const
    {
      CELLWISE_CHECK(&dst != &mask, "cuda::HermiteBiharmonicOperator::masked_vmult_dot: the output is the mask");
      if (!folds_mask(mask) || n_cells_ == 0)
        return LevelOperator<VectorType>::masked_vmult_dot(dst, src, mask);
      prepare_output(dst, src, "masked_vmult_dot");
      return apply(dst, nullptr, src, 0, true, true);
    }

    template <typename Number, typename Layout>
    void
    HermiteBiharmonicOperator<Number, Layout>::masked_residual(VectorType       &dst,
                                                               const VectorType &b,
                                                               const VectorType &u,
                                                               const VectorType &mask) const
    {
      CELLWISE_CHECK(&dst != &mask, "cuda::HermiteBiharmonicOperator::masked_residual: the output is the mask");
      if (!folds_mask(mask))
        return LevelOperator<VectorType>::masked_residual(dst, b, u, mask);
      prepare_output(dst, u, "masked_residual");
      CELLWISE_CHECK(b.n_cells() == n_cells_ && b.degree() == hermite::storage_degree,
                     "cuda::HermiteBiharmonicOperator::masked_residual: the right-hand side has " << b.n_cells()
                                                                                                  << " cells of degree "
                                                                                                  << b.degree());
      apply(dst, &b, u, 2, true);
    }

    template <typename Number, typename Layout>
    void
    HermiteBiharmonicOperator<Number, Layout>::smoother_step(VectorType                 &u,
                                                             VectorType                 &r,
                                                             VectorType                 *update,
                                                             const VectorType           &b,
                                                             const VectorType           &inverse_diagonal,
                                                             const SmootherStep<Number> &step) const
    {
      check_smoother_step(u, r, update, b, inverse_diagonal, step, n_cells_, degree(), "cuda::HermiteBiharmonicOperator");
      apply_smoother_update(u, r, update, inverse_diagonal, step);
      if (step.compute_residual)
        residual(r, b, u);
    }

    template <typename Number, typename Layout>
    void
    HermiteBiharmonicOperator<Number, Layout>::compute_cell_diagonals(VectorType &diagonal) const
    {
      diagonal.reinit(n_cells_, hermite::storage_degree);
      if (n_cells_ == 0)
        return;
      const std::size_t threads = static_cast<std::size_t>(n_cells_) * dofs_per_cell;
      hermite_diagonal_kernel<Number, Layout><<<static_cast<unsigned int>((threads + 255) / 256), 256>>>(
        make_kernel_matrices<Number>(), widths_, factors_, diagonal.data(), n_cells_);
      CELLWISE_CUDA_CHECK_LAUNCH();
    }

    CELLWISE_INSTANTIATE_NUMBERS_AND_LAYOUTS(HermiteBiharmonicOperator)
  } // namespace cuda
} // namespace cellwise
