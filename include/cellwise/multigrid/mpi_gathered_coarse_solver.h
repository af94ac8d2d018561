#pragma once
/**
 * @file
 * The coarse solve of a distributed hierarchy: the coarse level is small
 * (its cells are the coarse mesh), so every rank gathers the whole coarse
 * right-hand side (MPI_Allgatherv of the owned cells), solves it with the
 * serial coarse solver on the serial coarse level, identically on every
 * rank, and keeps its local cells of the solution (ghosts included). One
 * collective per V-cycle; the serial solver's result, so the distributed
 * cycle's coarse correction is the serial one's. On device vectors the
 * local cells go to the host and back around it (the coarse level is a few
 * cells per rank).
 *
 * Built only with MPI (library cellwise::mpi).
 */

#include <cellwise/base/mpi_check.h>
#include <cellwise/mesh/partition.h>
#include <cellwise/multigrid/interfaces.h>
#include <cellwise/storage/cell_vector.h>
#include <cellwise/storage/mpi_distributed_cell_vector.h>
#include <cellwise/storage/mpi_serial_gather.h>

#include <memory>
#include <type_traits>
#include <vector>

namespace cellwise
{
  template <typename Number, typename Layout = CellContiguous, typename Memory = MemorySpace::Host>
  class GatheredCoarseSolver : public CoarseSolver<DistributedCellVector<Number, Layout, Memory>>
  {
  public:
    using VectorType       = DistributedCellVector<Number, Layout, Memory>;
    using SerialVectorType = CellVector<Number, MemorySpace::Host, Layout>;

    /// Collective. @p serial solves the serial coarse level of
    /// @p serial_cells cells (every rank holds one); @p level is this
    /// rank's part of it.
    GatheredCoarseSolver(std::shared_ptr<const CoarseSolver<SerialVectorType>> serial,
                         std::shared_ptr<const DistributedLevel>               level,
                         const unsigned int                                    degree)
      : serial_(std::move(serial))
      , level_(std::move(level))
      , gather_(*level_->local, level_->comm, level_->serial_cells, degree)
    {}

    /// u = A_0^{-1} b on the local cells. Collective.
    void
    solve(VectorType &u, const VectorType &b) const override
    {
      const auto lock = work_space_lock_.lock("cellwise::GatheredCoarseSolver::solve");
      if constexpr (std::is_same_v<Memory, MemorySpace::Host>)
        solve_on_host(u, b);
      else
        {
          typename VectorType::HostVector host_u, host_b;
          b.copy_to_host(host_b);
          solve_on_host(host_u, host_b);
          u.copy_from_host(host_u);
        }
    }

  private:
    void
    solve_on_host(typename VectorType::HostVector &u, const typename VectorType::HostVector &b) const
    {
      gather_.gather(b.local(), serial_b_);
      serial_->solve(serial_u_, serial_b_);
      if (u.n_cells() != b.n_cells() || u.level_pointer() != b.level_pointer())
        u.reinit(b);
      const LocalLevel &local = *level_->local;
      std::vector<Number> cell(b.dofs_per_cell());
      for (unsigned int k = 0; k < u.n_cells(); ++k)
        {
          serial_u_.read_cell(local.serial_index[k], cell.data());
          u.local().write_cell(k, cell.data());
        }
    }

    std::shared_ptr<const CoarseSolver<SerialVectorType>> serial_;
    std::shared_ptr<const DistributedLevel>               level_;
    SerialGather                                          gather_;
    mutable SerialVectorType                              serial_b_, serial_u_;
    WorkSpaceLock                                         work_space_lock_;
  };
} // namespace cellwise
