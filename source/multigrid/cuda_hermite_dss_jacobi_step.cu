// The Hermite DSS-Jacobi update with the DSS inside (see the header). Thread
// mapping of the one-pass DSS kernel of the Hermite element (cuda_dss.cu):
// thread (cell K, derivative j) reads the sub-box of cells above K
// (LevelData::sub_boxes), owns the vertices whose lowest copy is K's,
// loads all copies of r and of u of such a vertex DoF (up to eight each) and
// D^{-1} and d at K's copy, then stores u at every copy and d at K's copy.
// A warp holds 32 consecutive cells at one j: in the blocked layout each load
// and store is one 32-cell run. A vertex DoF without copies in other cells
// (a vertex at the upper end of the box) is updated as well: the DSS leaves
// its value as it is, and so does the combination here. In FP32 a thread
// takes two derivatives of the vertex, j and j + 4 (derivatives_per_thread).
// (History, 128^3 cells: two derivatives per thread first ran slower, 0.76
// against 0.66 ms on the H200, with 64-bit indices and three dependent reads
// of the face table. What helped then is occupancy: with 32-bit storage
// indices the FP32 kernel ran five blocks per multiprocessor instead of
// four, 0.78 -> 0.84 of a copy on an H100; six, with spills, did not add to
// it. Then the sub-box of cells from one table read (LevelData::sub_boxes):
// 0.83 -> 0.92 in FP32, 0.94 -> 0.98 in FP64 on an H100. With both, two
// derivatives whose copies share their indices fit 64 registers without
// spills: 703.6 -> 692.1 us in FP32 on an H100, 0.91 -> 0.93 of a copy.)

#include <cellwise/base/cuda_check.h>
#include <cellwise/fe/hermite_element.h>
#include <cellwise/multigrid/cuda_hermite_dss_jacobi_step.h>

#include <cstddef>
#include <limits>
#include <type_traits>

#include "../storage/cuda_box_vertex_gather.h"

namespace cellwise
{
  namespace cuda
  {
    namespace
    {
      constexpr unsigned int step_threads = 256;

      /// Derivatives a thread updates: in FP32 two, j and j + 4 of the same
      /// vertex (one z-derivative apart: the same copies, their storage
      /// indices a constant apart), so that a thread keeps twice the bytes
      /// of a four-byte gather in flight, and the sub-box table is read once
      /// for both; in FP64 one.
      template <typename Number>
      constexpr unsigned int derivatives_per_thread = std::is_same_v<Number, float> ? 2 : 1;

      /// Blocks per multiprocessor the kernel is compiled for (0: no
      /// minimum, as without the argument). With 32-bit storage indices the
      /// FP32 kernel of two derivatives fits 64 registers without spills:
      /// four blocks of 256 threads (five would spill; with one derivative
      /// it ran five blocks of 47 registers). FP64 takes 62, and five blocks
      /// would spill.
      template <typename Number, typename Index>
      constexpr int
      step_min_blocks()
      {
        return std::is_same_v<Number, float> && std::is_same_v<Index, unsigned int> ? 4 : 0;
      }

      /// Index: the type of the storage indices, unsigned int where the
      /// vectors have at most 2^32 entries (the indices of the eight copies
      /// are kept in registers between the loads and the stores).
      template <typename Number, typename Layout, typename Index>
      __global__ void __launch_bounds__(step_threads, step_min_blocks<Number, Index>())
      hermite_dss_jacobi_update_kernel(Number *__restrict__ u,
                                       const Number *__restrict__ r,
                                       Number *__restrict__ update,
                                       const Number *__restrict__ inverse_diagonal,
                                       const int *__restrict__ sub_boxes,
                                       const unsigned int   n_cells,
                                       const SmootherStep<Number> step)
      {
        using namespace box_gather;
        constexpr unsigned int dofs  = hermite::dofs_per_cell;
        constexpr unsigned int items = derivatives_per_thread<Number>;
        constexpr unsigned int n_j   = hermite::dofs_per_vertex / items;
        std::size_t            cell;
        unsigned int           j;
        hermite_vertex_item<Layout, n_j>(static_cast<std::size_t>(blockIdx.x) * step_threads + threadIdx.x, cell, j);
        if (cell >= n_cells)
          return;
        const bool read_update = step.alpha != Number(0);
        const bool read_u      = !step.zero_initial_guess;
        int        c[8];
        bool       below[3];
        sub_box_from_table(sub_boxes, static_cast<unsigned int>(cell), c, below);
        // the copies of derivative j + t n_j sit a constant apart from those
        // of j: local_index(v, j + 4) = local_index(v, j) + 16, and both
        // layouts are linear in the local index (immediate offsets of the
        // loads and stores, no registers of their own)
        const Index apart = static_cast<Index>(Layout::index(0, 16, dofs) - Layout::index(0, 0, dofs));
        static_assert(items == 1 || n_j == 4, "a second derivative is j + 4");
        for_each_owned_hermite_vertex(c, below, [&](const unsigned int vertex, const bool pair_x, const bool pair_y, const bool pair_z) {
          Index  index[8];
          Number w[items][8], x[items][8];
#pragma unroll
          for (unsigned int s = 0; s < 8; ++s)
            {
              if (holds_copy(c, s, vertex))
                index[s] = static_cast<Index>(Layout::index(static_cast<unsigned int>(c[s]), hermite::local_index(vertex & ~s, j), dofs));
#pragma unroll
              for (unsigned int t = 0; t < items; ++t)
                {
                  w[t][s] = x[t][s] = Number(0);
                  if (holds_copy(c, s, vertex))
                    {
                      w[t][s] = r[index[s] + t * apart];
                      if (read_u)
                        x[t][s] = u[index[s] + t * apart];
                    }
                }
            }
#pragma unroll
          for (unsigned int t = 0; t < items; ++t)
            {
              // slot 0 is the cell itself: the lowest copy
              const Index  own     = index[0] + t * apart;
              const Number inverse = inverse_diagonal[own];
              const Number d_old   = read_update ? update[own] : Number(0);
              const Number z       = combine_copies(w[t], pair_x, pair_y, pair_z, Number(1));
              const Number d       = smoother_correction(step.alpha, step.beta, read_update, z, inverse, d_old);
              if (step.store_update)
                update[own] = d;
#pragma unroll
              for (unsigned int s = 0; s < 8; ++s)
                if (holds_copy(c, s, vertex))
                  u[index[s] + t * apart] = read_u ? x[t][s] + d : d;
            }
        });
      }
    } // namespace

    bool
    hermite_dss_jacobi_update_supported(const LevelData &level_data)
    {
      return level_data.fills_box() && !level_data.has_skeleton();
    }

    template <typename Number, typename Layout>
    void
    hermite_dss_jacobi_update(const LevelData                                     &level_data,
                              CellVector<Number, MemorySpace::CUDA, Layout>       &u,
                              const CellVector<Number, MemorySpace::CUDA, Layout> &r,
                              CellVector<Number, MemorySpace::CUDA, Layout>       *update,
                              const CellVector<Number, MemorySpace::CUDA, Layout> &inverse_diagonal,
                              const SmootherStep<Number>                          &step)
    {
      const char *who = "cuda::hermite_dss_jacobi_update";
      CELLWISE_CHECK(hermite_dss_jacobi_update_supported(level_data),
                     who << ": the level of " << level_data.n_cells()
                         << " cells does not fill a box (or has skeleton faces); use apply_dss and the operator's step");
      CELLWISE_CHECK(r.n_cells() == level_data.n_cells() && r.degree() == hermite::storage_degree,
                     who << ": the residual has " << r.n_cells() << " cells of degree " << r.degree() << ", the level "
                         << level_data.n_cells() << " cells of the Hermite element's storage degree " << hermite::storage_degree);
      check_update_vectors(u, r, update, inverse_diagonal, step, who);
      const bool uses_update = step.uses_update();
      if (r.n_cells() == 0)
        return;
      constexpr unsigned int B       = Layout::cell_block;
      const std::size_t      threads =
        ((static_cast<std::size_t>(r.n_cells()) + B - 1) / B) * B * (hermite::dofs_per_vertex / derivatives_per_thread<Number>);
      const unsigned int grid = static_cast<unsigned int>((threads + step_threads - 1) / step_threads);
      auto launch = [&](auto kernel) {
        kernel<<<grid, step_threads>>>(u.data(), r.data(), uses_update ? update->data() : nullptr, inverse_diagonal.data(),
                                       level_data.sub_boxes(), r.n_cells(), step);
      };
      if (r.storage_size() <= std::numeric_limits<unsigned int>::max())
        launch(hermite_dss_jacobi_update_kernel<Number, Layout, unsigned int>);
      else
        launch(hermite_dss_jacobi_update_kernel<Number, Layout, std::size_t>);
      CELLWISE_CUDA_CHECK_LAUNCH();
    }

#define CELLWISE_INSTANTIATE(Number, Layout)                                                                                      \
  template void hermite_dss_jacobi_update(const LevelData &, CellVector<Number, MemorySpace::CUDA, Layout> &,                     \
                                          const CellVector<Number, MemorySpace::CUDA, Layout> &,                                  \
                                          CellVector<Number, MemorySpace::CUDA, Layout> *,                                        \
                                          const CellVector<Number, MemorySpace::CUDA, Layout> &, const SmootherStep<Number> &);
    CELLWISE_INSTANTIATE(double, CellContiguous)
    CELLWISE_INSTANTIATE(float, CellContiguous)
    CELLWISE_INSTANTIATE(double, CellBlocked<32>)
    CELLWISE_INSTANTIATE(float, CellBlocked<32>)
#undef CELLWISE_INSTANTIATE
  } // namespace cuda
} // namespace cellwise
