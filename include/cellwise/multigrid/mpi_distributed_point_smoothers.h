#pragma once
/**
 * @file
 * The point smoothers on a level distributed over MPI ranks: the masked
 * DSS-Jacobi preconditioner P = D^{-1} S with the DSS across ranks, and
 * the Jacobi and Chebyshev smoothers of multigrid/point_smoothers.h over
 * it, unchanged (their steps, the Chebyshev recurrence and the Lanczos
 * estimate of λ_max run on distributed vectors, whose dot products are
 * global). The Lanczos start vector is the serial one's values on the
 * owned cells (a hash of each entry's serial position, drawn by each rank
 * for its own cells), so that the estimate, and with it the smoother, is
 * the serial one's up to the rounding of the global sums.
 *
 * Built only with MPI (library cellwise::mpi).
 */

#include <cellwise/base/mpi_check.h>
#include <cellwise/multigrid/interfaces.h>
#include <cellwise/multigrid/point_smoothers.h>
#include <cellwise/operators/mpi_distributed_laplace_operator.h>
#include <cellwise/storage/mpi_distributed_cell_vector.h>

#include <cstdint>
#include <sstream>
#include <type_traits>
#include <vector>

namespace cellwise
{
  template <typename Number, typename Layout = CellContiguous, typename Memory = MemorySpace::Host>
  class DistributedDssJacobi : public InPlacePreconditioner<DistributedCellVector<Number, Layout, Memory>>
  {
  public:
    using VectorType   = DistributedCellVector<Number, Layout, Memory>;
    using OperatorType = DistributedLaplaceOperator<Number, Layout, Memory>;

    /// Collective. @p level is the rank's local level (the smoothers' interface
    /// passes it), @p mask 1 on free and 0 on masked copies.
    DistributedDssJacobi(const Level &level, const OperatorType &op, const VectorType &mask)
      : dss_(&mask.level().dss)
    {
      CELLWISE_CHECK(op.n_cells() == level.n_cells() && mask.n_cells() == level.n_cells(),
                     "DistributedDssJacobi: operator of " << op.n_cells() << " cells and mask of " << mask.n_cells()
                                                          << " on a local level of " << level.n_cells());
      inverse_diagonal_.reinit(mask);
      op.local_operator().compute_cell_diagonals(inverse_diagonal_.local());
      assemble(inverse_diagonal_);
      // inverted on the host (a set-up step; device vectors go there and back)
      std::ostringstream problem;
      bool               positive = true;
      const auto invert = [&](typename VectorType::HostVector &diagonal, const typename VectorType::HostVector &host_mask) {
        for (unsigned int cell = 0; cell < diagonal.n_cells(); ++cell)
          for (unsigned int i = 0; i < diagonal.dofs_per_cell(); ++i)
            {
              Number &d = diagonal.local()(cell, i);
              if (cell >= diagonal.n_owned_cells())
                d = Number(0); // ghosts: the DSS leaves them incomplete
              else if (!(d > 0))
                {
                  if (positive)
                    problem << "assembled diagonal entry " << d << " at local cell " << cell << ", DoF " << i
                            << " is not positive";
                  positive = false;
                }
              else
                d = host_mask.local()(cell, i) != Number(0) ? Number(1) / d : Number(0);
            }
      };
      if constexpr (std::is_same_v<Memory, MemorySpace::Host>)
        invert(inverse_diagonal_, mask);
      else
        {
          typename VectorType::HostVector diagonal, host_mask;
          inverse_diagonal_.copy_to_host(diagonal);
          mask.copy_to_host(host_mask);
          invert(diagonal, host_mask);
          inverse_diagonal_.copy_from_host(diagonal);
        }
      check_collectively(mask.level().comm, positive, problem.str());
    }

    /// r ← S r (DSS sum across ranks). Collective.
    void
    assemble(VectorType &r) const
    {
      dss_->apply(r.local(), DssMode::sum);
    }
    /// r ← D^{-1} S r. Collective.
    void
    apply_in_place(VectorType &r) const override
    {
      assemble(r);
      r.scale(inverse_diagonal_);
    }
    void
    vmult(VectorType &dst, const VectorType &src) const
    {
      dst = src;
      apply_in_place(dst);
    }
    const VectorType &
    inverse_diagonal() const
    {
      return inverse_diagonal_;
    }

  private:
    const DistributedDss *dss_;
    VectorType            inverse_diagonal_;
  };

  template <typename Number, typename Layout = CellContiguous, typename Memory = MemorySpace::Host>
  using DistributedJacobiSmoother = PointJacobiSmoother<DistributedDssJacobi<Number, Layout, Memory>>;
  template <typename Number, typename Layout = CellContiguous, typename Memory = MemorySpace::Host>
  using DistributedChebyshevSmoother = PointChebyshevSmoother<DistributedDssJacobi<Number, Layout, Memory>>;

  /// The Lanczos start vector of the serial level on the owned cells of
  /// @p mask's level (lanczos_start_value of each cell's serial index),
  /// masked: the estimate_max_eigenvalue of point_smoother_steps.h finds it
  /// for distributed vectors. Work proportional to the rank's cells.
  template <typename Number, typename Layout>
  DistributedCellVector<Number, Layout>
  lanczos_start_vector(const DistributedCellVector<Number, Layout> &mask)
  {
    DistributedCellVector<Number, Layout> r;
    r.reinit(mask);
    const LocalLevel &local = *mask.level().local;
    for (unsigned int cell = 0; cell < local.n_owned_cells(); ++cell)
      for (unsigned int i = 0; i < r.dofs_per_cell(); ++i)
        r.local()(cell, i) =
          Number(lanczos_start_value(local.serial_index[cell], i, r.dofs_per_cell())) * mask.local()(cell, i);
    return r;
  }
} // namespace cellwise
