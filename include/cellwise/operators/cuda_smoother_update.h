#pragma once
/**
 * @file
 * The update half of a point-smoother step on device vectors, the twin of
 * apply_smoother_update (operators/smoother_step.h): per stored entry
 * d ← α d + β D^{-1} z, u ← u + d (u ← d from zero), z read from r, one
 * thread per entry. The device operators call it for a step without a
 * residual after it (the last step of a smooth) and, where the update is not
 * fused into their kernel (the Hermite operator), before their residual.
 *
 * Compiles with a plain C++ compiler (source/operators/cuda_smoother_update.cu).
 */

#include <cellwise/operators/smoother_step.h>
#include <cellwise/storage/cuda_cell_vector.h>

namespace cellwise
{
  namespace cuda
  {
    /// The vectors are checked by the operator's smoother_step
    /// (check_smoother_step); @p update may be null where the step does not
    /// use it.
    template <typename Number, typename Layout>
    void
    apply_smoother_update(CellVector<Number, MemorySpace::CUDA, Layout>       &u,
                          const CellVector<Number, MemorySpace::CUDA, Layout> &r,
                          CellVector<Number, MemorySpace::CUDA, Layout>       *update,
                          const CellVector<Number, MemorySpace::CUDA, Layout> &inverse_diagonal,
                          const SmootherStep<Number>                          &step);
  } // namespace cuda
} // namespace cellwise
