// The rebalancing fused with the rounding (include/cellwise/storage/
// cuda_rebalanced_rounding.h): the one-pass Hermite vertex DSS of
// cuda_dss.cu, each thread (cell, derivative j) gathering the copies of the
// vertices its cell owns, with the residual's update in the loads and the
// rounded copy in the stores. Unlike the in-place DSS it visits the
// vertices without a copy above (the corners of the box) too: their rounded
// value is written by nobody else.

#include <cellwise/base/cuda_check.h>
#include <cellwise/fe/hermite_element.h>
#include <cellwise/storage/cuda_rebalanced_rounding.h>

#include <limits>

#include "cuda_box_vertex_gather.h"

namespace cellwise
{
  namespace cuda
  {
    namespace
    {
      using namespace box_gather;

      constexpr unsigned int rounding_threads = 256;

      /// update: r ← Π(r + a q) (@p r_out is @p r) and rounded = Rounded(r);
      /// else rounded = Rounded(Π r) with r only read. The sum r + a q is
      /// written as the vectors' add kernel writes it (contracted alike), so
      /// that the result is bit for bit the separate passes'.
      template <bool update, typename Number, typename Rounded, typename Layout>
      __global__ void __launch_bounds__(rounding_threads)
      rebalanced_rounding_kernel(const Number *r,
                                 Number       *r_out,
                                 const Number *q,
                                 const Number  a,
                                 Rounded      *rounded,
                                 const int *__restrict__ sub_boxes,
                                 const unsigned int n_cells)
      {
        std::size_t  cell;
        unsigned int j;
        hermite_vertex_item<Layout>(static_cast<std::size_t>(blockIdx.x) * rounding_threads + threadIdx.x, cell, j);
        if (cell >= n_cells)
          return;
        int  c[8];
        bool below[3];
        sub_box_from_table(sub_boxes, static_cast<unsigned int>(cell), c, below);
        dss_owned_hermite_vertices<Number, Layout, true>(
          c, below, j, Number(0.5),
          [&](const std::size_t k) {
            if constexpr (update)
              return r[k] + a * q[k];
            else
              return r[k];
          },
          [&](const std::size_t k, const Number x) {
            if constexpr (update)
              r_out[k] = x;
            rounded[k] = static_cast<Rounded>(x);
          });
      }

      /// The checks and the launch; @p r_out and @p q are null without the
      /// update.
      template <bool update, typename Number, typename Rounded, typename Layout>
      void
      launch(const LevelData                                     &level_data,
             const CellVector<Number, MemorySpace::CUDA, Layout> &r,
             Number *const                                        r_out,
             const Number                                         a,
             const Number *const                                  q,
             CellVector<Rounded, MemorySpace::CUDA, Layout>       &rounded,
             const char                                          *function)
      {
        CELLWISE_CHECK(r.n_cells() == level_data.n_cells() && r.degree() == hermite::storage_degree,
                       "cuda::" << function << ": the residual has " << r.n_cells() << " cells of degree " << r.degree()
                                << ", the level " << level_data.n_cells() << " cells of the Hermite element (stored as degree "
                                << hermite::storage_degree << ")");
        if (!rounded.has_shape_of(r))
          rounded.reinit(r.n_cells(), r.degree());
        if (r.n_cells() == 0)
          return;
        constexpr unsigned int B       = Layout::cell_block;
        const std::size_t      threads = ((static_cast<std::size_t>(r.n_cells()) + B - 1) / B) * B * hermite::dofs_per_vertex;
        CELLWISE_CHECK(threads / rounding_threads < std::numeric_limits<unsigned int>::max(),
                       "cuda::" << function << ": " << r.n_cells() << " cells are too many for one launch");
        // sub_boxes() refuses a level that does not fill a box
        const int *const sub_boxes = level_data.sub_boxes();
        rebalanced_rounding_kernel<update, Number, Rounded, Layout>
          <<<static_cast<unsigned int>((threads + rounding_threads - 1) / rounding_threads), rounding_threads>>>(
            r.data(), r_out, q, a, rounded.data(), sub_boxes, r.n_cells());
        CELLWISE_CUDA_CHECK_LAUNCH();
      }
    } // namespace

    template <typename Number, typename Rounded, typename Layout>
    void
    round_rebalanced(const LevelData                                    &level_data,
                     const CellVector<Number, MemorySpace::CUDA, Layout> &r,
                     CellVector<Rounded, MemorySpace::CUDA, Layout>      &rounded)
    {
      launch<false>(level_data, r, static_cast<Number *>(nullptr), Number(0), static_cast<const Number *>(nullptr), rounded,
                    "round_rebalanced");
    }

    template <typename Number, typename Rounded, typename Layout>
    void
    add_rebalance_and_round(const LevelData                                    &level_data,
                            CellVector<Number, MemorySpace::CUDA, Layout>      &r,
                            const Number                                        a,
                            const CellVector<Number, MemorySpace::CUDA, Layout> &q,
                            CellVector<Rounded, MemorySpace::CUDA, Layout>      &rounded)
    {
      r.check_compatible(q);
      CELLWISE_CHECK(&q != &r, "cuda::add_rebalance_and_round: q is the residual itself");
      launch<true>(level_data, r, r.data(), a, q.data(), rounded, "add_rebalance_and_round");
    }

#define CELLWISE_INSTANTIATE_REBALANCED_ROUNDING(Layout)                                                                          \
  template void round_rebalanced(const LevelData &, const CellVector<double, MemorySpace::CUDA, Layout> &,                      \
                                 CellVector<float, MemorySpace::CUDA, Layout> &);                                                \
  template void add_rebalance_and_round(const LevelData &, CellVector<double, MemorySpace::CUDA, Layout> &, double,             \
                                        const CellVector<double, MemorySpace::CUDA, Layout> &,                                  \
                                        CellVector<float, MemorySpace::CUDA, Layout> &);
    CELLWISE_INSTANTIATE_REBALANCED_ROUNDING(CellContiguous)
    CELLWISE_INSTANTIATE_REBALANCED_ROUNDING(CellBlocked<32>)
#undef CELLWISE_INSTANTIATE_REBALANCED_ROUNDING
  } // namespace cuda
} // namespace cellwise
