#pragma once
/**
 * @file
 * The rebalancing of a residual fused with its rounding to the precision of
 * a mixed-precision cycle (000 §4.4) for the cubic Hermite element on a
 * level that fills a box: the averaging DSS Π over both trace layers taken
 * in the pass that writes the rounded residual, so that the cycle sees a
 * rebalanced residual at every step without a pass of its own (the one-pass
 * vertex kernel of storage/cuda_dss.h with other loads and stores). Bit for
 * bit the separate passes: r.add(a, q), apply_dss(r, DssMode::mean,
 * hermite_trace_layers()), rounded.copy_from(r).
 */

#include <cellwise/storage/cuda_cell_vector.h>
#include <cellwise/storage/cuda_level_data.h>

namespace cellwise
{
  namespace cuda
  {
    /// rounded = Rounded(Π r); r is not changed. One pass: r read, rounded
    /// written (it takes r's shape).
    template <typename Number, typename Rounded, typename Layout>
    void
    round_rebalanced(const LevelData                                     &level_data,
                     const CellVector<Number, MemorySpace::CUDA, Layout>  &r,
                     CellVector<Rounded, MemorySpace::CUDA, Layout>       &rounded);

    /// r ← Π(r + a q), then rounded = Rounded(r). One pass: r and q read, r
    /// and rounded written (the mixed-precision CG's residual update).
    template <typename Number, typename Rounded, typename Layout>
    void
    add_rebalance_and_round(const LevelData                                    &level_data,
                            CellVector<Number, MemorySpace::CUDA, Layout>      &r,
                            Number                                              a,
                            const CellVector<Number, MemorySpace::CUDA, Layout> &q,
                            CellVector<Rounded, MemorySpace::CUDA, Layout>      &rounded);
  } // namespace cuda
} // namespace cellwise
