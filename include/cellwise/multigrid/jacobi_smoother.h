#pragma once
/**
 * @file
 * Masked damped Jacobi with DSS (003 (27), Algorithm 6):
 * u ← u + ω D^{-1} S ι*(b − A u), repeated n_steps times. The step is a
 * symmetric operator, so the same smoother serves pre- and post-smoothing of
 * a symmetric cycle.
 */

#include <cellwise/multigrid/dss_jacobi_preconditioner.h>
#include <cellwise/multigrid/interfaces.h>
#include <cellwise/multigrid/point_smoother_steps.h>

namespace cellwise
{
  template <typename Number, typename Layout = CellContiguous>
  class JacobiSmoother : public LevelSmoother<CellVector<Number, MemorySpace::Host, Layout>>
  {
  public:
    using VectorType = CellVector<Number, MemorySpace::Host, Layout>;

    using Parameters = JacobiParameters;

    JacobiSmoother(const Level &level, const LaplaceOperator<Number, Layout> &op, const VectorType &mask, const Parameters &parameters);

    void
    smooth(VectorType &u, const VectorType &b, bool zero_initial_guess, SweepDirection direction) const override;

    const DssJacobiPreconditioner<Number, Layout> &
    preconditioner() const
    {
      return preconditioner_;
    }

  private:
    const LaplaceOperator<Number, Layout> *op_;
    DssJacobiPreconditioner<Number, Layout> preconditioner_;
    Parameters                              parameters_;
    mutable VectorType                      residual_;
  };
} // namespace cellwise
