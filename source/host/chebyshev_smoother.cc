#include <cellwise/multigrid/chebyshev_smoother.h>
#include <cellwise/multigrid/point_smoother_steps.h>

#include <cmath>
#include <random>

namespace cellwise
{
  template <typename Number, typename Layout>
  double
  estimate_max_eigenvalue(const LaplaceOperator<Number, Layout>               &op,
                          const DssJacobiPreconditioner<Number, Layout>       &preconditioner,
                          const CellVector<Number, MemorySpace::Host, Layout> &mask,
                          const unsigned int                                   n_iterations)
  {
    // Seeded random start: a smooth start vector has little weight on the
    // high-frequency eigenvectors that set λ_max.
    CellVector<Number, MemorySpace::Host, Layout> r;
    r.reinit(mask);
    std::mt19937                           generator(42);
    std::uniform_real_distribution<double> distribution(0.5, 1.5);
    for (unsigned int cell = 0; cell < r.n_cells(); ++cell)
      for (unsigned int i = 0; i < r.dofs_per_cell(); ++i)
        r(cell, i) = Number(distribution(generator)) * mask(cell, i);
    return estimate_max_eigenvalue<CellVector<Number, MemorySpace::Host, Layout>>(op, preconditioner, std::move(r), mask, n_iterations);
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
    CELLWISE_CHECK(parameters.degree >= 1, "Chebyshev degree must be at least 1, got " << parameters.degree);
    CELLWISE_CHECK(parameters.smoothing_range > 1, "Chebyshev smoothing range " << parameters.smoothing_range << " must exceed 1");
    CELLWISE_CHECK(parameters.eigenvalue_iterations >= 1,
                   "Chebyshev eigenvalue estimate needs at least one iteration, got " << parameters.eigenvalue_iterations);
    CELLWISE_CHECK(parameters.safety_factor >= 1, "Chebyshev safety factor " << parameters.safety_factor << " is below 1");
    estimated_max_eigenvalue_ = estimate_max_eigenvalue(op, preconditioner_, mask, parameters.eigenvalue_iterations);
    // A level without free DoFs (all Dirichlet) gets the identity as smoother
    // range; its preconditioner is zero anyway.
    if (!(estimated_max_eigenvalue_ > 0))
      estimated_max_eigenvalue_ = 1.;
    max_eigenvalue_ = parameters.safety_factor * estimated_max_eigenvalue_;
    min_eigenvalue_ = max_eigenvalue_ / parameters.smoothing_range;
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
