#pragma once
/**
 * @file
 * The distribution (17) and reassembly (18) of the adaptive V-cycle across
 * MPI ranks on device vectors: the device twin of
 * DistributedActiveLevelTransfer (multigrid/mpi_distributed_active_level_transfer.h),
 * the same copies between a rank's own cells (active_level_copies), no
 * message. Each level's copies are two device entry lists (the active and
 * the level entries, cell · (p+1)³ + i) run through the exchanges' gather
 * and scatter kernels (storage/cuda_cell_entry_gather.h) and one device
 * buffer: plain copies, so host and device agree exactly. (A cell-list
 * kernel, as cuda::ActiveMeshTransfer's, would move a third of the bytes;
 * the lists keep this first version on kernels that are already tested.)
 *
 * Built into cellwise::mpi with the CUDA backend only.
 */

#include <cellwise/multigrid/adaptive_v_cycle.h>
#include <cellwise/storage/mpi_distributed_cell_vector.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace cellwise
{
  namespace cuda
  {
    template <typename Number, typename Layout = CellContiguous>
    class DistributedActiveLevelTransfer : public ActiveLevelTransfer<DistributedCellVector<Number, Layout, MemorySpace::CUDA>>
    {
    public:
      using VectorType = DistributedCellVector<Number, Layout, MemorySpace::CUDA>;

      /// @p mesh, @p levels and @p active as for active_level_copies, for
      /// FE_Q(@p degree) vectors; the lists are uploaded once.
      DistributedActiveLevelTransfer(const ActiveMesh                                           &mesh,
                                     const std::vector<std::shared_ptr<const DistributedLevel>> &levels,
                                     std::shared_ptr<const DistributedLevel>                     active,
                                     unsigned int                                                degree);
      DistributedActiveLevelTransfer(const DistributedActiveLevelTransfer &) = delete;
      DistributedActiveLevelTransfer &
      operator=(const DistributedActiveLevelTransfer &) = delete;
      ~DistributedActiveLevelTransfer() override;

      /// level_vectors[ℓ] = the active values on this rank's active cells
      /// of ℓ, zero elsewhere (refined and ghost cells).
      void
      distribute(const VectorType &active, std::vector<VectorType> &level_vectors) const override;
      /// active|_K = level_vectors[ℓ]|_K on this rank's active cells K of
      /// every level ℓ (an empty @p active is shaped first).
      void
      reassemble(const std::vector<VectorType> &level_vectors, VectorType &active) const override;

      unsigned int
      n_levels() const override
      {
        return static_cast<unsigned int>(levels_.size());
      }
      std::size_t
      n_level_cells(const unsigned int level) const override
      {
        return levels_.at(level)->local->level.n_cells();
      }
      std::size_t
      n_active_cells() const override
      {
        return active_->local->level.n_cells();
      }

    private:
      void
      check(const VectorType &active, const std::vector<VectorType> &level_vectors) const;

      std::vector<std::shared_ptr<const DistributedLevel>> levels_;
      std::shared_ptr<const DistributedLevel>              active_;
      unsigned int                                         degree_ = 0;
      /// Per level: the device entry lists of its copies (active side,
      /// level side) and their length.
      struct Lists
      {
        std::uint64_t *active = nullptr, *level = nullptr;
        std::size_t    count  = 0;
      };
      std::vector<Lists> lists_;
      /// Device buffer of the longest list.
      Number *buffer_ = nullptr;
    };
  } // namespace cuda
} // namespace cellwise
