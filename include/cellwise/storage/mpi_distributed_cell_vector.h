#pragma once
/**
 * @file
 * A cell vector of a level distributed over MPI ranks (doc/mpi.md): the
 * rank's owned cells and its ghosts in one CellVector of the local level,
 * and the level's shared context (the local level, its DSS, the
 * communicator). It provides the vector operations through which the
 * V-cycle, the point smoothers and the outer iterations see a vector
 * (multigrid/interfaces.h), so that they run unchanged on ranks: elementwise
 * operations act on all local cells (on ghosts they compute values that no
 * owned result reads), reductions sum the owned cells and MPI_Allreduce
 * them. Ghost values are not meaningful between operations: only DSS
 * (which fills the layers it needs) and the transfers (which exchange what
 * they need) cross ranks. The local cells live in host or device memory
 * (@p Memory): the device vector is the same over a device CellVector, whose
 * reductions over the owned cells run on the device.
 *
 * Built only with MPI (library cellwise::mpi).
 */

#include <cellwise/base/mpi_check.h>
#include <cellwise/mesh/partition.h>
#include <cellwise/storage/cell_vector.h>
#include <cellwise/storage/cuda_cell_vector.h>
#include <cellwise/storage/mpi_distributed_dss.h>

#include <cmath>
#include <memory>
#include <type_traits>

namespace cellwise
{
  /// What the vectors of one distributed level share: the rank's part of
  /// the level, the communicator, the serial level's cell count and the DSS
  /// of the element's trace layers. Keeps a reference to @p local.
  struct DistributedLevel
  {
    DistributedLevel(const LocalLevel &local, const MPI_Comm comm, const unsigned int serial_cells, const TraceLayers &layers)
      : local(&local)
      , comm(comm)
      , serial_cells(serial_cells)
      , layers(layers)
      , dss(local, comm, layers)
    {}
    /// A temporary level would dangle.
    DistributedLevel(const LocalLevel &&local, MPI_Comm comm, unsigned int serial_cells, const TraceLayers &layers) = delete;

    const LocalLevel *local;
    MPI_Comm          comm;
    unsigned int      serial_cells;
    TraceLayers       layers;
    DistributedDss    dss;
  };

  template <typename Number, typename Layout = CellContiguous, typename Memory = MemorySpace::Host>
  class DistributedCellVector
  {
  public:
    using value_type   = Number;
    using memory_space = Memory;
    using layout_type  = Layout;
    using LocalVector  = CellVector<Number, Memory, Layout>;
    /// The host vector of the same cells (the vector itself on the host).
    using HostVector = DistributedCellVector<Number, Layout, MemorySpace::Host>;

    DistributedCellVector() = default;
    /// Zero on the local cells of @p level, FE_Q(@p degree) storage.
    DistributedCellVector(std::shared_ptr<const DistributedLevel> level, const unsigned int degree)
      : level_(std::move(level))
      , local_(level_->local->level.n_cells(), degree)
    {}

    /// The local cells of @p level holding @p local (moved in; no copy and
    /// no zeroing of 10^9 values): the level's local cells, or none (a
    /// vector that copy_to_host or copy_from_host sizes).
    DistributedCellVector(std::shared_ptr<const DistributedLevel> level, LocalVector local)
      : level_(std::move(level))
      , local_(std::move(local))
    {
      CELLWISE_CHECK(local_.n_cells() == 0 || local_.n_cells() == level_->local->level.n_cells(),
                     "DistributedCellVector: " << local_.n_cells() << " cells for a rank's " << level_->local->level.n_cells()
                                               << " local cells");
    }

    /// The shape and level of @p other, zero.
    void
    reinit(const DistributedCellVector &other)
    {
      level_ = other.level_;
      local_.reinit(other.local_);
    }
    /// Whether this vector has @p other's level (the same partition) and
    /// local shape: what reinit(other) would give, up to the values.
    bool
    has_shape_of(const DistributedCellVector &other) const
    {
      return level_ == other.level_ && local_.has_shape_of(other.local_);
    }

    void
    set_zero()
    {
      local_.set_zero();
    }
    void
    fill(const Number s)
    {
      local_.fill(s);
    }
    void
    equ(const Number a, const DistributedCellVector &x)
    {
      local_.equ(a, x.local_);
    }
    void
    add(const Number a, const DistributedCellVector &x)
    {
      local_.add(a, x.local_);
    }
    /// this += a x for a vector of another precision (the mixed cycle's
    /// widened correction)
    template <typename OtherNumber, typename = std::enable_if_t<!std::is_same_v<OtherNumber, Number>>>
    void
    add(const Number a, const DistributedCellVector<OtherNumber, Layout, Memory> &x)
    {
      local_.add(a, x.local());
    }
    void
    sadd(const Number s, const Number a, const DistributedCellVector &x)
    {
      local_.sadd(s, a, x.local_);
    }
    void
    scale(const Number s)
    {
      local_.scale(s);
    }
    void
    scale(const DistributedCellVector &d)
    {
      local_.scale(d.local_);
    }
    template <typename OtherNumber>
    void
    copy_from(const DistributedCellVector<OtherNumber, Layout, Memory> &other)
    {
      level_ = other.level_pointer();
      local_.copy_from(other.local());
    }

    /// Σ over the owned cells of all ranks. Collective; vectors that do not
    /// match on any rank are an error on every rank (the check travels in
    /// the same MPI_Allreduce as the sum, so it costs nothing).
    double
    dot(const DistributedCellVector &x) const
    {
      const bool compatible = level_ && level_ == x.level_ && local_.n_cells() == x.local_.n_cells() &&
                              local_.degree() == x.local_.degree();
      double mine[2] = {0., compatible ? 0. : 1.};
      if (compatible)
        mine[0] = local_.dot(x.local_, n_owned_cells());
      const MPI_Comm comm = level_ ? level_->comm : x.level().comm;
      double         sum[2] = {0., 0.};
      CELLWISE_MPI_CHECK(MPI_Allreduce(mine, sum, 2, MPI_DOUBLE, MPI_SUM, comm));
      CELLWISE_CHECK(compatible, "DistributedCellVector::dot: vectors of " << local_.n_cells() << " and " << x.local_.n_cells()
                                                                          << " local cells of degree " << local_.degree() << " and "
                                                                          << x.local_.degree()
                                                                          << (level_ == x.level_ ? "" : " on different levels"));
      CELLWISE_CHECK(sum[1] == 0., "DistributedCellVector::dot: the vectors do not match on " << sum[1]
                                                                                             << " other rank(s) (their message is there)");
      return sum[0];
    }
    double
    l2_norm() const
    {
      return std::sqrt(dot(*this));
    }
    /// Whether every owned value on every rank is finite. Collective.
    bool
    all_finite() const
    {
      int mine = local_.all_finite(n_owned_cells()) ? 1 : 0;
      int all  = 0;
      CELLWISE_MPI_CHECK(MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_LAND, level_->comm));
      return all != 0;
    }

    void
    copy_to_host(HostVector &host) const
    {
      if constexpr (std::is_same_v<Memory, MemorySpace::Host>)
        host = *this;
      else
        {
          // (every entry is copied: the host vector is sized, not zeroed)
          if (host.level_pointer() != level_ || host.n_cells() != n_cells() || host.degree() != degree())
            host = HostVector(level_, typename HostVector::LocalVector());
          local_.copy_to_host(host.local());
        }
    }
    void
    copy_from_host(const HostVector &host)
    {
      if constexpr (std::is_same_v<Memory, MemorySpace::Host>)
        *this = host;
      else
        {
          level_ = host.level_pointer();
          local_.copy_from_host(host.local());
        }
    }

    /// Local cells (owned and ghost).
    unsigned int
    n_cells() const
    {
      return local_.n_cells();
    }
    unsigned int
    n_owned_cells() const
    {
      return level_ ? level_->local->n_owned_cells() : 0;
    }
    unsigned int
    degree() const
    {
      return local_.degree();
    }
    unsigned int
    dofs_per_cell() const
    {
      return local_.dofs_per_cell();
    }
    void
    check_compatible(const DistributedCellVector &x) const
    {
      local_.check_compatible(x.local_);
      CELLWISE_CHECK(level_ == x.level_, "distributed vectors of different levels");
    }

    LocalVector &
    local()
    {
      return local_;
    }
    const LocalVector &
    local() const
    {
      return local_;
    }
    /// The local cells of a const vector, to update its ghost cells: ghost
    /// values are scratch, not part of the vector's value (deal.II's
    /// update_ghost_values() is const for the same reason). Owned values
    /// must not be written through it.
    LocalVector &
    local_for_ghost_update() const
    {
      return local_;
    }
    const DistributedLevel &
    level() const
    {
      CELLWISE_CHECK(level_, "a distributed vector used before it was given a level");
      return *level_;
    }
    const std::shared_ptr<const DistributedLevel> &
    level_pointer() const
    {
      return level_;
    }

  private:
    std::shared_ptr<const DistributedLevel> level_;
    /// mutable: the ghost cells of a const vector may be updated
    mutable LocalVector local_;
  };
} // namespace cellwise
