#include <cellwise/multigrid/chebyshev_smoother.h>
#include <cellwise/multigrid/point_smoother_steps.h>

#include <cmath>
#include <tuple>

namespace cellwise
{
  template <typename Number, typename Layout>
  double
  estimate_max_eigenvalue(const LaplaceOperator<Number, Layout>               &op,
                          const DssJacobiPreconditioner<Number, Layout>       &preconditioner,
                          const CellVector<Number, MemorySpace::Host, Layout> &mask,
                          const unsigned int                                   n_iterations)
  {
    return estimate_max_eigenvalue<CellVector<Number, MemorySpace::Host, Layout>>(op, preconditioner, lanczos_start_vector(mask), mask, n_iterations);
  }

  template <typename Number, typename Layout>
  ChebyshevSmoother<Number, Layout>::ChebyshevSmoother(const Level                           &level,
                                                       const LaplaceOperator<Number, Layout> &op,
                                                       const VectorType                      &mask,
                                                       const Parameters                      &parameters)
    : op_(&op)
    , preconditioner_(level, op, mask)
    , parameters_(parameters)
  {
    parameters.check();
    estimated_max_eigenvalue_                  = estimate_max_eigenvalue(op, preconditioner_, mask, parameters.eigenvalue_iterations);
    std::tie(min_eigenvalue_, max_eigenvalue_) = parameters.eigenvalue_interval(estimated_max_eigenvalue_);
  }

  template <typename Number, typename Layout>
  void
  ChebyshevSmoother<Number, Layout>::smooth(VectorType &u, const VectorType &b, const bool zero_initial_guess, SweepDirection) const
  {
    chebyshev_steps(*op_, preconditioner_, u, b, zero_initial_guess, parameters_.degree, min_eigenvalue_, max_eigenvalue_, residual_, update_);
  }

#define CELLWISE_INSTANTIATE(Number, Layout)                                                                   \
  template class ChebyshevSmoother<Number, Layout>;                                                           \
  template double estimate_max_eigenvalue(const LaplaceOperator<Number, Layout> &,                            \
                                          const DssJacobiPreconditioner<Number, Layout> &,                    \
                                          const CellVector<Number, MemorySpace::Host, Layout> &,              \
                                          unsigned int);
  CELLWISE_INSTANTIATE(double, CellContiguous)
  CELLWISE_INSTANTIATE(float, CellContiguous)
  CELLWISE_INSTANTIATE(double, CellBlocked<32>)
  CELLWISE_INSTANTIATE(float, CellBlocked<32>)
#undef CELLWISE_INSTANTIATE
} // namespace cellwise
