// Exact coarse solve of the CUDA backend through the host Cholesky solver
// (no kernels: two small copies around a host solve).

#include <cellwise/multigrid/cuda_coarse_solvers.h>
#include <cellwise/operators/laplace_operator.h>

#include <utility>

namespace cellwise
{
  namespace cuda
  {
    template <typename Number, typename Layout>
    CholeskyCoarseSolver<Number, Layout>::CholeskyCoarseSolver(const Level                &level,
                                                               const unsigned int          degree,
                                                               const VectorType           &mask,
                                                               const ScalarFunction       &coefficient,
                                                               const CoefficientEvaluation evaluation,
                                                               const bool                  constant_null_space)
    {
      // the host operator is needed only for the cell matrices of the set-up
      const ::cellwise::LaplaceOperator<Number, Layout> host_op(level, degree, coefficient, evaluation);
      HostVectorType                                    host_mask;
      mask.copy_to_host(host_mask);
      host_solver_ = std::make_unique<::cellwise::CholeskyCoarseSolver<Number, Layout>>(level, host_op, host_mask, constant_null_space);
      host_u_.reinit(level.n_cells(), degree);
      host_b_.reinit(level.n_cells(), degree);
    }

    template <typename Number, typename Layout>
    CholeskyCoarseSolver<Number, Layout>::CholeskyCoarseSolver(
      const Level &level, const unsigned int degree, std::unique_ptr<::cellwise::CholeskyCoarseSolver<Number, Layout>> host_solver)
      : host_solver_(std::move(host_solver))
    {
      CELLWISE_CHECK(host_solver_, "cuda coarse solver: no host solver given");
      host_u_.reinit(level.n_cells(), degree);
      host_b_.reinit(level.n_cells(), degree);
    }

    template <typename Number, typename Layout>
    void
    CholeskyCoarseSolver<Number, Layout>::solve(VectorType &u, const VectorType &b) const
    {
      const auto lock = work_space_lock_.lock("cellwise::cuda::CholeskyCoarseSolver::solve");
      CELLWISE_CHECK(b.n_cells() == host_b_.n_cells() && b.degree() == host_b_.degree(),
                     "cuda coarse solver: right-hand side of " << b.n_cells() << " cells of degree " << b.degree()
                                                              << ", the coarse level has " << host_b_.n_cells()
                                                              << " cells of degree " << host_b_.degree());
      b.copy_to_host(host_b_);
      host_solver_->solve(host_u_, host_b_);
      u.copy_from_host(host_u_);
    }

    CELLWISE_INSTANTIATE_NUMBERS_AND_LAYOUTS(CholeskyCoarseSolver)
  } // namespace cuda
} // namespace cellwise
