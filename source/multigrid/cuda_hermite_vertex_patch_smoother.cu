// cuda::HermiteVertexPatchSmoother (multigrid/cuda_hermite_vertex_patch_smoother.h):
// set-up on the host (the host smoother's patches and block inverse, the
// level's one cell matrix), one kernel per colour step.

#include <cellwise/base/cuda_check.h>
#include <cellwise/fe/hermite_element.h>
#include <cellwise/mesh/cell_mapping.h>
#include <cellwise/mesh/vertex_patches.h>
#include <cellwise/multigrid/cuda_hermite_vertex_patch_smoother.h>
#include <cellwise/multigrid/hermite_vertex_patch_smoother.h>
#include <cellwise/multigrid/vertex_patch_smoother.h>
#include <cellwise/operators/hermite_biharmonic_operator.h>

#include <cuda_runtime.h>

#include <optional>
#include <vector>

namespace cellwise
{
  namespace cuda
  {
    namespace
    {
      constexpr unsigned int dofs_per_cell     = hermite::dofs_per_cell;
      constexpr unsigned int dofs_per_vertex   = hermite::dofs_per_vertex;
      constexpr unsigned int patches_per_group = 32;
      constexpr unsigned int warps             = 4;
      constexpr unsigned int threads           = warps * patches_per_group;
      /// Rows of A_K at the patch vertex, per lane: entry (lane, column i,
      /// row a) at lane · 512 + 8 i + a, so that a lane's 8 rows at one
      /// column are 8 consecutive numbers.
      constexpr unsigned int rows_size  = 8 * dofs_per_cell * dofs_per_vertex;
      constexpr unsigned int table_size = rows_size + dofs_per_vertex * dofs_per_vertex;

      /// The vertex of the patch centre in the cell of lane @p lane (the cell
      /// sits at v − (1,1,1) + lane bits, vertex_patches.h).
      __host__ __device__ constexpr unsigned int
      centre_vertex(const unsigned int lane)
      {
        return 7 - lane;
      }

      /// The patch residual and the block solve are summed in FP64 on FP32
      /// levels too: the residual at the vertex is a difference of 2 × 64-term
      /// products whose terms are far larger than the result (h^-4 entries),
      /// and summed in FP32 it loses the digits that make the mixed patch
      /// cycles converge as the FP64 ones (doc/hermite.md: 11 against 9
      /// stationary steps at L = 5). A float product is exact in double, so
      /// only the FP32 storage of A_K and u rounds. The kernel does about 4
      /// flops per byte of u moved, below the H200's FP64 balance of about 8.
      using Sum = double;

      /// One colour step (the header's thread mapping). The two lanes of a
      /// thread, w and w + 4, are one warp's lane each, so that the rows a
      /// warp reads are those of one lane: a broadcast from shared memory.
      template <typename Number, typename Layout>
      __global__ void __launch_bounds__(threads)
      patch_colour_kernel(Number *__restrict__ u,
                          const Number *__restrict__ b,
                          const unsigned int *__restrict__ patch_cells,
                          const unsigned int n_patches,
                          const Number *__restrict__ tables)
      {
        // the tables widened once per block: a conversion per product would
        // cost the FP32 sweep twice its time (measured: 3.13 against 1.63 ms)
        __shared__ __align__(16) Sum rows[rows_size];
        __shared__ Sum               inverse[dofs_per_vertex * dofs_per_vertex];
        __shared__ Sum               partial[warps][dofs_per_vertex][patches_per_group];
        for (unsigned int k = threadIdx.x; k < table_size; k += threads)
          {
            if (k < rows_size)
              rows[k] = tables[k];
            else
              inverse[k - rows_size] = tables[k];
          }
        __syncthreads();

        const unsigned int w = threadIdx.x / patches_per_group, p = threadIdx.x % patches_per_group;
        const unsigned int n_groups = (n_patches + patches_per_group - 1) / patches_per_group;
        for (unsigned int group = blockIdx.x; group < n_groups; group += gridDim.x)
          {
            const unsigned int patch  = group * patches_per_group + p;
            const bool         active = patch < n_patches;
            unsigned int       cells[2] = {0, 0};
            Sum                r[dofs_per_vertex];
#pragma unroll
            for (unsigned int a = 0; a < dofs_per_vertex; ++a)
              r[a] = 0;
            if (active)
#pragma unroll
              for (unsigned int half = 0; half < 2; ++half)
                {
                  const unsigned int lane = w + warps * half;
                  const unsigned int cell = patch_cells[8 * std::size_t(patch) + lane];
                  cells[half]             = cell;
#pragma unroll
                  for (unsigned int a = 0; a < dofs_per_vertex; ++a)
                    r[a] += b[Layout::index(cell, hermite::local_index(centre_vertex(lane), a), dofs_per_cell)];
                  const Sum *lane_rows = rows + lane * dofs_per_cell * dofs_per_vertex;
#pragma unroll 8
                  for (unsigned int i = 0; i < dofs_per_cell; ++i)
                    {
                      const Sum x = u[Layout::index(cell, i, dofs_per_cell)];
#pragma unroll
                      for (unsigned int a = 0; a < dofs_per_vertex; ++a)
                        r[a] -= lane_rows[dofs_per_vertex * i + a] * x;
                    }
                }
#pragma unroll
            for (unsigned int a = 0; a < dofs_per_vertex; ++a)
              partial[w][a][p] = r[a];
            __syncthreads();
            if (active)
              {
                Sum residual[dofs_per_vertex], delta[dofs_per_vertex];
#pragma unroll
                for (unsigned int a = 0; a < dofs_per_vertex; ++a)
                  residual[a] = (partial[0][a][p] + partial[1][a][p]) + (partial[2][a][p] + partial[3][a][p]);
#pragma unroll
                for (unsigned int a = 0; a < dofs_per_vertex; ++a)
                  {
                    Sum sum = 0;
#pragma unroll
                    for (unsigned int c = 0; c < dofs_per_vertex; ++c)
                      sum += inverse[dofs_per_vertex * a + c] * residual[c];
                    delta[a] = sum;
                  }
#pragma unroll
                for (unsigned int half = 0; half < 2; ++half)
                  {
                    const unsigned int lane = w + warps * half;
#pragma unroll
                    for (unsigned int a = 0; a < dofs_per_vertex; ++a)
                      u[Layout::index(cells[half], hermite::local_index(centre_vertex(lane), a), dofs_per_cell)] += Number(delta[a]);
                  }
              }
            __syncthreads(); // partial is rewritten by the next group
          }
      }
    } // namespace

    template <typename Number, typename Layout>
    HermiteVertexPatchSmoother<Number, Layout>::HermiteVertexPatchSmoother(const Level &level, const unsigned int n_sweeps)
      : n_cells_(level.n_cells())
      , n_sweeps_(n_sweeps)
    {
      CELLWISE_CHECK(n_sweeps >= 1, "cuda::HermiteVertexPatchSmoother needs at least one sweep, got " << n_sweeps);
      const std::optional<std::array<double, 3>> size = common_box_size(level);
      CELLWISE_CHECK(size, "cuda::HermiteVertexPatchSmoother: the level's " << level.n_cells()
                                                                            << " cells are not boxes of one size (one cell "
                                                                               "matrix and one block inverse for all patches); "
                                                                               "use the host smoother or the Chebyshev smoother");
      const VertexPatches patches = make_vertex_patches(level);

      // the kernel's tables: the rows of the level's one A_K at each lane's
      // patch vertex, then the one A_vv^-1 (from the first patch; none
      // without patches, where the kernel never runs)
      std::vector<Number> tables(table_size, Number(0));
      const DenseMatrix   A = hermite_biharmonic_cell_matrix(*size, 0);
      for (unsigned int lane = 0; lane < 8; ++lane)
        for (unsigned int i = 0; i < dofs_per_cell; ++i)
          for (unsigned int a = 0; a < dofs_per_vertex; ++a)
            tables[lane * dofs_per_cell * dofs_per_vertex + dofs_per_vertex * i + a] =
              static_cast<Number>(A(hermite::local_index(centre_vertex(lane), a), i));
      for (unsigned int colour = 0; colour < VertexPatches::n_colours; ++colour)
        if (patches.n_patches(colour) > 0)
          {
            const std::array<double, 64> inverse = hermite_vertex_block_inverse(level, patches.cells[colour][0]);
            for (unsigned int k = 0; k < 64; ++k)
              tables[rows_size + k] = static_cast<Number>(inverse[k]);
            break;
          }

      try
        {
          tables_ = upload(tables, "the Hermite patch smoother's cell matrix and block inverse");
          static_assert(sizeof(std::array<unsigned int, 8>) == 8 * sizeof(unsigned int), "patch cell lists must be packed");
          for (unsigned int colour = 0; colour < VertexPatches::n_colours; ++colour)
            {
              n_patches_[colour]   = patches.n_patches(colour);
              patch_cells_[colour] = upload(reinterpret_cast<const unsigned int *>(patches.cells[colour].data()),
                                            8 * std::size_t(n_patches_[colour]), "the Hermite vertex-patch cell lists");
            }
          // a persistent grid: each block loads the tables into shared memory once
          int device = 0, multiprocessors = 0, per_multiprocessor = 0;
          CELLWISE_CUDA_CHECK(cudaGetDevice(&device));
          CELLWISE_CUDA_CHECK(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device));
          CELLWISE_CUDA_CHECK(
            cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_multiprocessor, patch_colour_kernel<Number, Layout>, threads, 0));
          CELLWISE_CHECK(per_multiprocessor > 0, "the Hermite patch smoother's kernel does not fit on this device");
          grid_blocks_ = static_cast<unsigned int>(multiprocessors * per_multiprocessor);
        }
      catch (...)
        {
          release();
          throw;
        }
    }

    template <typename Number, typename Layout>
    HermiteVertexPatchSmoother<Number, Layout>::~HermiteVertexPatchSmoother()
    {
      release();
    }

    template <typename Number, typename Layout>
    void
    HermiteVertexPatchSmoother<Number, Layout>::release() noexcept
    {
      free_bytes(tables_);
      tables_ = nullptr;
      for (unsigned int *&cells : patch_cells_)
        {
          free_bytes(cells);
          cells = nullptr;
        }
    }

    template <typename Number, typename Layout>
    void
    HermiteVertexPatchSmoother<Number, Layout>::apply_colour(VectorType &u, const VectorType &b, const unsigned int colour) const
    {
      CELLWISE_CHECK(u.n_cells() == n_cells_ && b.n_cells() == n_cells_ && u.degree() == hermite::storage_degree &&
                       b.degree() == hermite::storage_degree && &u != &b,
                     "cuda::HermiteVertexPatchSmoother: vectors of " << u.n_cells() << " and " << b.n_cells()
                                                                     << " cells for a smoother of " << n_cells_
                                                                     << " Hermite cells (and u, b distinct)");
      CELLWISE_CHECK(colour < VertexPatches::n_colours, "cuda::HermiteVertexPatchSmoother: colour " << colour << " is not in 0..7");
      const unsigned int n_patches = n_patches_[colour];
      if (n_patches == 0)
        return;
      const unsigned int groups = (n_patches + patches_per_group - 1) / patches_per_group;
      unsigned int       blocks = groups < grid_blocks_ ? groups : grid_blocks_;
      if (grid_limit_ > 0 && blocks > grid_limit_)
        blocks = grid_limit_;
      patch_colour_kernel<Number, Layout><<<blocks, threads>>>(u.data(), b.data(), patch_cells_[colour], n_patches, tables_);
      CELLWISE_CUDA_CHECK_LAUNCH();
    }

    template <typename Number, typename Layout>
    void
    HermiteVertexPatchSmoother<Number, Layout>::smooth(VectorType &u, const VectorType &b, const bool zero_initial_guess,
                                                       const SweepDirection direction) const
    {
      if (zero_initial_guess)
        u.set_zero();
      for (unsigned int sweep = 0; sweep < n_sweeps_; ++sweep)
        for (unsigned int step = 0; step < VertexPatches::n_colours; ++step)
          apply_colour(u, b, sweep_colour(step, direction));
    }

    CELLWISE_INSTANTIATE_NUMBERS_AND_LAYOUTS(HermiteVertexPatchSmoother)
  } // namespace cuda
} // namespace cellwise
