#pragma once
/**
 * @file
 * Direct stiffness summation S = G G^T and rebalancing Pi on the device: the
 * same three axis passes (x, y, z, one launch each) and the same pairing of
 * face DoFs (kernels/face_dofs.h) as the host apply_dss in
 * cellwise/storage/dss.h, so that the results agree bit for bit.
 */

#include <cellwise/cuda/level_data.h>
#include <cellwise/storage/cuda_cell_vector.h>
#include <cellwise/storage/dss.h>

namespace cellwise
{
  namespace cuda
  {
    /// In-place DSS of @p v over the faces of the level of @p level_data.
    template <typename Number, typename Layout>
    void
    apply_dss(const LevelData &level_data, CellVector<Number, MemorySpace::CUDA, Layout> &v, DssMode mode = DssMode::sum);
  } // namespace cuda
} // namespace cellwise
