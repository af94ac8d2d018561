#pragma once
/**
 * @file
 * The coarse solve of a distributed hierarchy: the coarse level is small
 * (its cells are the coarse mesh), so every rank gathers the whole coarse
 * right-hand side (MPI_Allgatherv of the owned cells), solves it with the
 * serial coarse solver on the serial coarse level, identically on every
 * rank, and keeps its local cells of the solution (ghosts included). One
 * collective per V-cycle; the serial solver's result, so the distributed
 * cycle's coarse correction is the serial one's.
 *
 * Built only with MPI (library cellwise::mpi).
 */

#include <cellwise/base/mpi_check.h>
#include <cellwise/mesh/partition.h>
#include <cellwise/multigrid/interfaces.h>
#include <cellwise/storage/cell_vector.h>
#include <cellwise/storage/mpi_distributed_cell_vector.h>

#include <climits>
#include <memory>
#include <vector>

namespace cellwise
{
  template <typename Number, typename Layout = CellContiguous>
  class GatheredCoarseSolver : public CoarseSolver<DistributedCellVector<Number, Layout>>
  {
  public:
    using VectorType       = DistributedCellVector<Number, Layout>;
    using SerialVectorType = CellVector<Number, MemorySpace::Host, Layout>;

    /// Collective. @p serial solves the serial coarse level of
    /// @p serial_cells cells (every rank holds one); @p level is this
    /// rank's part of it.
    GatheredCoarseSolver(std::shared_ptr<const CoarseSolver<SerialVectorType>> serial,
                         std::shared_ptr<const DistributedLevel>               level,
                         const unsigned int                                    degree)
      : serial_(std::move(serial))
      , level_(std::move(level))
      , serial_b_(level_->serial_cells, degree)
      , serial_u_(level_->serial_cells, degree)
    {
      const MPI_Comm    comm  = level_->comm;
      const LocalLevel &local = *level_->local;
      const int         size  = mpi_size(comm);
      const int         mine  = static_cast<int>(local.n_owned_cells());
      cells_per_rank_.resize(size);
      CELLWISE_MPI_CHECK(MPI_Allgather(&mine, 1, MPI_INT, cells_per_rank_.data(), 1, MPI_INT, comm));
      std::vector<int> cell_offsets(size, 0);
      long             total = 0;
      for (int r = 0; r < size; ++r)
        {
          cell_offsets[r] = static_cast<int>(total);
          total += cells_per_rank_[r];
        }
      check_collectively(comm, total == long(level_->serial_cells),
                         "GatheredCoarseSolver: the ranks own " + std::to_string(total) + " cells of a coarse level of " +
                           std::to_string(level_->serial_cells));
      serial_index_of_gathered_.resize(total);
      CELLWISE_MPI_CHECK(MPI_Allgatherv(local.serial_index.data(), mine, MPI_UNSIGNED, serial_index_of_gathered_.data(),
                                        cells_per_rank_.data(), cell_offsets.data(), MPI_UNSIGNED, comm));
      const long values = total * long(serial_b_.dofs_per_cell()) * long(sizeof(Number));
      check_collectively(comm, values <= INT_MAX, "GatheredCoarseSolver: the coarse level is too large to gather");
      for (int r = 0; r < size; ++r)
        {
          bytes_per_rank_.push_back(cells_per_rank_[r] * int(serial_b_.dofs_per_cell() * sizeof(Number)));
          byte_offsets_.push_back(cell_offsets[r] * int(serial_b_.dofs_per_cell() * sizeof(Number)));
        }
    }

    /// u = A_0^{-1} b on the local cells. Collective.
    void
    solve(VectorType &u, const VectorType &b) const override
    {
      const unsigned int n       = b.dofs_per_cell();
      const unsigned int n_owned = b.n_owned_cells();
      std::vector<Number> owned(std::size_t(n_owned) * n), gathered(serial_index_of_gathered_.size() * n);
      for (unsigned int k = 0; k < n_owned; ++k)
        for (unsigned int i = 0; i < n; ++i)
          owned[std::size_t(k) * n + i] = b.local()(k, i);
      CELLWISE_MPI_CHECK(MPI_Allgatherv(owned.data(), static_cast<int>(owned.size() * sizeof(Number)), MPI_BYTE,
                                        gathered.data(), bytes_per_rank_.data(), byte_offsets_.data(), MPI_BYTE,
                                        level_->comm));
      for (std::size_t g = 0; g < serial_index_of_gathered_.size(); ++g)
        for (unsigned int i = 0; i < n; ++i)
          serial_b_(serial_index_of_gathered_[g], i) = gathered[g * n + i];
      serial_->solve(serial_u_, serial_b_);
      if (u.n_cells() != b.n_cells() || u.level_pointer() != b.level_pointer())
        u.reinit(b);
      const LocalLevel &local = *level_->local;
      for (unsigned int k = 0; k < u.n_cells(); ++k)
        for (unsigned int i = 0; i < n; ++i)
          u.local()(k, i) = serial_u_(local.serial_index[k], i);
    }

  private:
    std::shared_ptr<const CoarseSolver<SerialVectorType>> serial_;
    std::shared_ptr<const DistributedLevel>               level_;
    std::vector<int>                                      cells_per_rank_, bytes_per_rank_, byte_offsets_;
    std::vector<unsigned int>                             serial_index_of_gathered_;
    mutable SerialVectorType                              serial_b_, serial_u_;
  };
} // namespace cellwise
