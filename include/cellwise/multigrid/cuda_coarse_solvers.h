#pragma once
/**
 * @file
 * The exact coarse solver of the CUDA backend: level 0 is tiny (a few coarse
 * cells), so b is downloaded, solved by the host's dense Cholesky
 * (cellwise::CholeskyCoarseSolver) and u uploaded — two small copies per
 * V-cycle instead of a device factorization. (The approximate coarse solve by
 * the level smoother is the generic cellwise::SmootherCoarseSolver.)
 */

#include <cellwise/mesh/level.h>
#include <cellwise/multigrid/coarse_solvers.h>
#include <cellwise/storage/cuda_cell_vector.h>

#include <memory>

namespace cellwise
{
  namespace cuda
  {
    template <typename Number, typename Layout = CellContiguous>
    class CholeskyCoarseSolver : public CoarseSolver<CellVector<Number, MemorySpace::CUDA, Layout>>
    {
    public:
      using VectorType     = CellVector<Number, MemorySpace::CUDA, Layout>;
      using HostVectorType = CellVector<Number, MemorySpace::Host, Layout>;

      /// Factorize the assembled matrix of @p level for FE_Q(@p degree) on the
      /// copies where @p host_mask is 1 (set-up on the host).
      /// With @p coefficient, the matrix of −∇·(c∇u), c averaged per cell.
      CholeskyCoarseSolver(const Level          &level,
                           unsigned int          degree,
                           const HostVectorType &host_mask,
                           const ScalarFunction &coefficient = {});

      /// Any element: the host solver the caller factorized from its dense
      /// cell matrices (e.g. the C¹ Hermite element's), for vectors of the
      /// cells of @p level stored with @p degree.
      CholeskyCoarseSolver(const Level                                                     &level,
                           unsigned int                                                     degree,
                           std::unique_ptr<::cellwise::CholeskyCoarseSolver<Number, Layout>> host_solver);

      void
      solve(VectorType &u, const VectorType &b) const override;

      unsigned int
      n_free_dofs() const
      {
        return host_solver_->n_free_dofs();
      }

    private:
      std::unique_ptr<::cellwise::CholeskyCoarseSolver<Number, Layout>> host_solver_;
      mutable HostVectorType                                            host_u_, host_b_;
      WorkSpaceLock                                                     work_space_lock_;
    };
  } // namespace cuda
} // namespace cellwise
