#pragma once
/**
 * @file
 * The cell-wise transfers between levels distributed over MPI ranks, on
 * device vectors (doc/mpi.md). The device kernels of the serial transfer
 * (multigrid/cuda_cell_transfer.h) run unchanged on a rank's part of the
 * levels: each local level also holds, as ghosts, the cells of every family
 * the rank prolongates to or restricts into (family_ghosts in
 * mesh/partitioned_hierarchy.h), and a copy of the local levels with family links in
 * local indices gives the kernels whole families. Before a prolongation the
 * owners send the parents of this rank's cells into its coarse ghosts;
 * before a restriction they send b and Au of the children of this rank's
 * parents into its fine ghosts (whole cells, storage/mpi_cell_halo_exchange.h),
 * so the kernel forms b − Au of every child from the owner's values: the
 * owned cells get the serial device transfer's values bit for bit. Ghost
 * cells receive values too (their results are scratch, as every ghost
 * value between operations).
 *
 * Built into cellwise::mpi with the CUDA backend only.
 */

#include <cellwise/mesh/level.h>
#include <cellwise/mesh/partition.h>
#include <cellwise/mesh/partitioned_hierarchy.h>
#include <cellwise/multigrid/cuda_cell_transfer.h>
#include <cellwise/multigrid/interfaces.h>
#include <cellwise/storage/mpi_cell_halo_exchange.h>
#include <cellwise/storage/mpi_distributed_cell_vector.h>

#include <cstddef>
#include <memory>
#include <vector>

namespace cellwise
{
  namespace cuda
  {
    template <typename Number, typename Layout = CellContiguous>
    class DistributedLevelTransfer : public LevelTransfer<DistributedCellVector<Number, Layout, MemorySpace::CUDA>>
    {
    public:
      using VectorType = DistributedCellVector<Number, Layout, MemorySpace::CUDA>;

      /**
       * Collective over @p comm. @p local: this rank's part of every level
       * of @p hierarchy, made with the family_ghosts of each level among
       * its ghosts (checked: a missing family member is an error on every
       * rank), FE_Q(@p degree). Keeps no reference to either.
       */
      DistributedLevelTransfer(const PartitionedHierarchy    &hierarchy,
                               const std::vector<LocalLevel> &local,
                               MPI_Comm                       comm,
                               unsigned int                   degree);

      /// fine += P coarse on level @p to_level's owned cells. Collective.
      void
      prolongate_add(unsigned int to_level, VectorType &fine, const VectorType &coarse) const override;
      /// coarse += R (fine_b − fine_Au) on the owned coarse cells.
      /// Collective.
      void
      restrict_residual_add(unsigned int from_level, VectorType &coarse, const VectorType &fine_b, const VectorType &fine_Au) const override;

      /// Cells this rank sends per prolongation to, and per restriction
      /// from, level @p fine_level (the restriction sends b and Au: two
      /// messages per neighbour), and its messages.
      std::size_t
      cells_sent_per_prolongation(unsigned int fine_level) const;
      std::size_t
      cells_sent_per_restriction(unsigned int fine_level) const;
      std::size_t
      messages_per_prolongation(unsigned int fine_level) const;
      std::size_t
      messages_per_restriction(unsigned int fine_level) const;

    private:
      /// The local levels with family links in local indices: a cell is
      /// refined here when all its children are local.
      LevelHierarchy              families_;
      CellTransfer<Number, Layout> transfer_;
      /// Per fine level l ≥ 1: the parents (on level l − 1) and children
      /// (on level l) that travel.
      std::vector<std::unique_ptr<CellHaloExchange>> parents_, children_;
    };
  } // namespace cuda
} // namespace cellwise
