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

      /// Factorize the assembled matrix of @p level for the device Laplace
      /// operator @p op (cuda::LaplaceOperator or GeneralLaplaceOperator:
      /// its degree and coefficient) on the copies where @p mask is 1, with
      /// @p constant_null_space as the host solver takes it — the host
      /// solver's arguments, whose set-up this is (on the host, from the host
      /// operator's cell matrices).
      template <typename Operator>
      CholeskyCoarseSolver(const Level      &level,
                           const Operator   &op,
                           const VectorType &mask,
                           const bool        constant_null_space = false)
        : CholeskyCoarseSolver(level, op.degree(), mask, op.coefficient(), op.coefficient_evaluation(), constant_null_space)
      {}

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
      CholeskyCoarseSolver(const Level           &level,
                           unsigned int           degree,
                           const VectorType      &mask,
                           const ScalarFunction  &coefficient,
                           CoefficientEvaluation  evaluation,
                           bool                   constant_null_space);

      std::unique_ptr<::cellwise::CholeskyCoarseSolver<Number, Layout>> host_solver_;
      mutable HostVectorType                                            host_u_, host_b_;
      WorkSpaceLock                                                     work_space_lock_;
    };
  } // namespace cuda
} // namespace cellwise
