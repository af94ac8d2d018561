#pragma once
/**
 * @file
 * make_dirichlet_mask (storage/dirichlet_mask.h) on the device: the same mask
 * of the Dirichlet copies, bit for bit, built from the level's device data
 * (mark the DoFs of the Dirichlet boundary faces, one device DSS sum, 0 where
 * marked). It needs no host vector of the level: at L = 8 the host mask of
 * the finest level took 5.5 s and its upload 1.3 s of the device set-up.
 * Compiles with a plain C++ compiler (implemented in
 * source/storage/cuda_dirichlet_mask.cu).
 */

#include <cellwise/storage/cuda_level_data.h>
#include <cellwise/storage/cuda_cell_vector.h>

#include <functional>
#include <vector>

namespace cellwise
{
  namespace cuda
  {
    /// The most Dirichlet ids the device mask takes (more: cellwise::Error).
    constexpr unsigned int max_device_dirichlet_ids = 32;

    /// @p mask = the Dirichlet mask of the level of @p level_data for
    /// FE_Q(@p degree): 0 on the copies of DoFs of faces whose boundary id is
    /// in @p dirichlet_ids (every boundary face if empty), 1 elsewhere.
    template <typename Number, typename Layout>
    void
    make_dirichlet_mask(const LevelData                                &level_data,
                        unsigned int                                    degree,
                        const std::vector<unsigned int>                &dirichlet_ids,
                        CellVector<Number, MemorySpace::CUDA, Layout> &mask);

    /// The same with the caller's sum over the copies of each node
    /// (@p sum_over_copies, in place; the DSS of the level above): a DSS
    /// across MPI ranks gives the mask of a rank's part of a level
    /// (storage/mpi_cuda_distributed_dirichlet_mask.h).
    template <typename Number, typename Layout>
    void
    make_dirichlet_mask(const LevelData                                                           &level_data,
                        unsigned int                                                               degree,
                        const std::vector<unsigned int>                                           &dirichlet_ids,
                        CellVector<Number, MemorySpace::CUDA, Layout>                            &mask,
                        const std::function<void(CellVector<Number, MemorySpace::CUDA, Layout> &)> &sum_over_copies);
  } // namespace cuda
} // namespace cellwise
