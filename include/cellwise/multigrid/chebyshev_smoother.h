#pragma once
/**
 * @file
 * Chebyshev acceleration of the masked DSS-Jacobi smoother, as deal.II's
 * PreconditionChebyshev: a polynomial of degree k in P A (P = D^{-1} S) that
 * damps the eigenvalues in [λ_max / range, λ_max]. λ_max of P A is estimated at
 * set-up by a few Lanczos steps (the coefficients of preconditioned CG) and
 * enlarged by a safety factor, as deal.II does. The smoother is a polynomial in
 * the symmetric P A, hence self-adjoint: pre- and post-smoothing with the same
 * object give a symmetric cycle.
 */

#include <cellwise/multigrid/dss_jacobi_preconditioner.h>
#include <cellwise/multigrid/interfaces.h>
#include <cellwise/multigrid/point_smoother_steps.h>

namespace cellwise
{
  template <typename Number, typename Layout = CellContiguous>
  class ChebyshevSmoother : public LevelSmoother<CellVector<Number, MemorySpace::Host, Layout>>
  {
  public:
    using VectorType = CellVector<Number, MemorySpace::Host, Layout>;

    using Parameters = ChebyshevParameters;

    ChebyshevSmoother(const Level &level, const LaplaceOperator<Number, Layout> &op, const VectorType &mask, const Parameters &parameters);

    void
    smooth(VectorType &u, const VectorType &b, bool zero_initial_guess, SweepDirection direction) const override;

    /// Estimated largest eigenvalue of P A (before the safety factor).
    double
    estimated_max_eigenvalue() const
    {
      return estimated_max_eigenvalue_;
    }

  private:
    const LaplaceOperator<Number, Layout>  *op_;
    DssJacobiPreconditioner<Number, Layout> preconditioner_;
    Parameters                              parameters_;
    double                                  estimated_max_eigenvalue_ = 0;
    double                                  max_eigenvalue_           = 0;
    double                                  min_eigenvalue_           = 0;
    mutable VectorType                      residual_, update_;
  };

  /// Largest eigenvalue of P A estimated by @p n_iterations steps of
  /// preconditioned CG (Lanczos) from a seeded random masked right-hand side.
  template <typename Number, typename Layout>
  double
  estimate_max_eigenvalue(const LaplaceOperator<Number, Layout>         &op,
                          const DssJacobiPreconditioner<Number, Layout> &preconditioner,
                          const CellVector<Number, MemorySpace::Host, Layout> &mask,
                          unsigned int                                   n_iterations);
} // namespace cellwise
