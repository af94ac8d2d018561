#pragma once
/**
 * @file
 * An FP32 V-cycle inside the FP64 outer iteration (000 §4): the FP64 residual
 * (Dirichlet entries zeroed and, by the outer solver, rebalanced) is rounded
 * into the FP32 finest-level right-hand side, the FP32 cycle runs from a zero
 * guess, and its correction is widened. A correction whose copies agree in
 * FP32 still agrees after widening, so the FP64 iterate stays continuous.
 * Written over the vector types, for host and device vectors alike.
 */

#include <cellwise/multigrid/interfaces.h>

#include <memory>

namespace cellwise
{
  template <typename OuterVector, typename InnerVector>
  class MixedPrecisionPreconditioner : public Preconditioner<OuterVector>
  {
  public:
    MixedPrecisionPreconditioner(std::shared_ptr<const Preconditioner<InnerVector>> inner, const InnerVector &shape)
      : inner_(std::move(inner))
    {
      r_.reinit(shape);
      z_.reinit(shape);
    }

    void
    vmult(OuterVector &z, const OuterVector &r) const override
    {
      r_.copy_from(r); // rounding to the inner precision
      inner_->vmult(z_, r_);
      z.copy_from(z_); // exact widening
    }

  private:
    std::shared_ptr<const Preconditioner<InnerVector>> inner_;
    mutable InnerVector                                r_, z_;
  };
} // namespace cellwise
