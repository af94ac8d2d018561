#pragma once
/**
 * @file
 * The update of a DSS-Jacobi smoother step on the cubic Hermite element with
 * the DSS inside it, on device levels that fill a box. The composition
 *
 *   z = S r (apply_dss, sum),  d ← α d + β D^{-1} z,  u ← u + d
 *
 * moves r twice for the DSS and then r, D^{-1}, d, u and u, d again: eight
 * passes over the vector. Every Hermite DoF sits at a vertex, and the one-pass
 * DSS already gathers all copies of a vertex DoF in one thread
 * (source/storage/cuda_box_vertex_gather.h). That thread forms z, takes
 * D^{-1} and d once (they are the same at every copy: D^{-1} is an assembled
 * diagonal, d is formed from z and D^{-1} alone) and writes u at every copy:
 * r read once, u read and written once, D^{-1} and d at one copy of eight
 * in the interior. r is not written (the next residual overwrites it), so the
 * first step from zero reads b in its place and saves the copy r = b.
 *
 * The update vector d is kept at the lowest copy of each vertex DoF only
 * (the copy the owning thread reads): it is the smoother's scratch between
 * the steps of one smooth(), all of which take this path on the level. The
 * arithmetic per copy is smoother_correction's, so u equals the composition
 * bit for bit.
 *
 * Compiles with a plain C++ compiler
 * (source/multigrid/cuda_hermite_dss_jacobi_step.cu).
 */

#include <cellwise/operators/smoother_step.h>
#include <cellwise/storage/cuda_cell_vector.h>
#include <cellwise/storage/cuda_level_data.h>

namespace cellwise
{
  namespace cuda
  {
    /// Whether hermite_dss_jacobi_update() takes @p level_data's level: one
    /// that fills a box (Level::fills_box), without skeleton faces.
    bool
    hermite_dss_jacobi_update_supported(const LevelData &level_data);

    /// u ← u + d, d ← α d + β D^{-1} S r per copy (u ← d with
    /// step.zero_initial_guess; u is then only sized), @p r unassembled and
    /// unchanged, @p update read (α ≠ 0) and written (step.store_update) at
    /// the lowest copy of each vertex DoF. step.compute_residual is the
    /// caller's business. Throws cellwise::Error on a level it does not take,
    /// vectors of other shapes or aliased vectors.
    template <typename Number, typename Layout>
    void
    hermite_dss_jacobi_update(const LevelData                                     &level_data,
                              CellVector<Number, MemorySpace::CUDA, Layout>       &u,
                              const CellVector<Number, MemorySpace::CUDA, Layout> &r,
                              CellVector<Number, MemorySpace::CUDA, Layout>       *update,
                              const CellVector<Number, MemorySpace::CUDA, Layout> &inverse_diagonal,
                              const SmootherStep<Number>                          &step);
  } // namespace cuda
} // namespace cellwise
