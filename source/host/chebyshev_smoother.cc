#include <cellwise/base/dense_matrix.h>
#include <cellwise/fe/generalized_eigenproblem.h>
#include <cellwise/multigrid/chebyshev_smoother.h>

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
    using VectorType = CellVector<Number, MemorySpace::Host, Layout>;
    VectorType r, z, p, q;
    r.reinit(mask);
    std::mt19937                           generator(42);
    std::uniform_real_distribution<double> distribution(0.5, 1.5);
    for (unsigned int cell = 0; cell < r.n_cells(); ++cell)
      for (unsigned int i = 0; i < r.dofs_per_cell(); ++i)
        r(cell, i) = Number(distribution(generator)) * mask(cell, i);

    // Preconditioned CG on A x = r from x = 0; its coefficients α_k, β_k give
    // the Lanczos tridiagonal matrix of P A.
    std::vector<double> alpha, beta;
    preconditioner.vmult(z, r);
    p           = z;
    double rz   = r.dot(z);
    if (!(rz > 0))
      return 0.;
    for (unsigned int k = 0; k < n_iterations; ++k)
      {
        op.vmult(q, p);
        q.scale(mask);
        const double pq = p.dot(q);
        if (!(pq > 0))
          break;
        alpha.push_back(rz / pq);
        r.add(Number(-alpha.back()), q);
        preconditioner.vmult(z, r);
        const double rz_new = r.dot(z);
        if (!(rz_new > 0))
          break;
        beta.push_back(rz_new / rz);
        rz = rz_new;
        p.sadd(Number(beta.back()), Number(1), z);
      }
    const unsigned int m = static_cast<unsigned int>(alpha.size());
    CELLWISE_CHECK(m > 0, "eigenvalue estimate of the Chebyshev smoother failed: no Lanczos step possible");
    DenseMatrix T(m, m), identity(m, m);
    for (unsigned int k = 0; k < m; ++k)
      {
        identity(k, k) = 1.;
        T(k, k)        = 1. / alpha[k] + (k > 0 ? beta[k - 1] / alpha[k - 1] : 0.);
        if (k + 1 < m)
          T(k, k + 1) = T(k + 1, k) = std::sqrt(beta[k]) / alpha[k];
      }
    return solve_generalized_eigenproblem(T, identity).eigenvalues.back();
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
    // Three-term recurrence of the Chebyshev iteration (Saad, Alg. 12.1), as in
    // deal.II's PreconditionChebyshev.
    const double theta = 0.5 * (max_eigenvalue_ + min_eigenvalue_);
    const double delta = 0.5 * (max_eigenvalue_ - min_eigenvalue_);
    const double sigma = theta / delta;
    double       rho   = 1. / sigma;

    if (zero_initial_guess)
      residual_ = b;
    else
      op_->residual(residual_, b, u);
    preconditioner_.apply_in_place(residual_);
    update_.reinit(residual_, true);
    update_.equ(Number(1. / theta), residual_);
    if (zero_initial_guess)
      u = update_;
    else
      u.add(Number(1), update_);

    for (unsigned int k = 1; k < parameters_.degree; ++k)
      {
        const double rho_new = 1. / (2. * sigma - rho);
        op_->residual(residual_, b, u);
        preconditioner_.apply_in_place(residual_);
        update_.sadd(Number(rho_new * rho), Number(2. * rho_new / delta), residual_);
        u.add(Number(1), update_);
        rho = rho_new;
      }
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
