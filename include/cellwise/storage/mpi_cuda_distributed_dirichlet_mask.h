#pragma once
/**
 * @file
 * The Dirichlet mask of a distributed level built on the device
 * (storage/mpi_distributed_dirichlet_mask.h without its host vector): each
 * local cell marks the DoFs of its own Dirichlet faces in a kernel, the DSS
 * across ranks sums the marks on the device, and a kernel takes the
 * complement — the serial device mask's steps (storage/cuda_dirichlet_mask.h)
 * with the distributed DSS. The owned cells get the host mask's values. At
 * L = 8 on two ranks the host mask of the finest level and its upload were
 * most of the 2.7 s of the outer mask's set-up.
 *
 * Built into cellwise::mpi only with the CUDA backend.
 */

#include <cellwise/storage/mpi_distributed_cell_vector.h>

#include <memory>
#include <vector>

namespace cellwise
{
  /// 0 on the copies of DoFs on faces with a boundary id of
  /// @p dirichlet_ids (every boundary face if empty), 1 elsewhere, on the
  /// local cells of @p level, in device memory. Collective.
  template <typename Number>
  DistributedCellVector<Number, CellContiguous, MemorySpace::CUDA>
  make_device_distributed_dirichlet_mask(const std::shared_ptr<const DistributedLevel> &level,
                                         unsigned int                                   degree,
                                         const std::vector<unsigned int>               &dirichlet_ids = {});
} // namespace cellwise
