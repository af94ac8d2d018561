#pragma once
/**
 * @file
 * An FP32 V-cycle inside the FP64 outer iteration (000 §4): the FP64 residual
 * (Dirichlet entries zeroed and, by the outer solver, rebalanced) is rounded
 * into the FP32 finest-level right-hand side, the FP32 cycle runs from a zero
 * guess, and its correction is widened. A correction whose copies agree in
 * FP32 still agrees after widening, so the FP64 iterate stays continuous.
 * Written over the vector types, for host and device vectors alike.
 *
 * In the stationary iteration (make_stationary_step) the correction is never
 * widened into an FP64 vector: the monitor pairs the FP32 residual and
 * correction (accumulated in double: 8 B per entry instead of 16 for the FP64
 * pair), and u += widen(z32) reads the FP32 correction and updates u in one
 * pass (20 B per entry instead of the widening copy and u += z, 36 B), with no
 * FP64 work vector (8.6 GB at 455 M DoFs, 000 §7). The monitor then is
 * ⟨fl32(r), V32 fl32(r)⟩, the pairing of the vectors the cycle actually saw; it
 * differs from ⟨r, widen(V32 fl32(r))⟩ by the rounding of r only.
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

    /// The fused step; it works in this preconditioner's FP32 vectors, as
    /// vmult does (a vmult between its apply and add_correction would
    /// overwrite the kept correction).
    std::unique_ptr<StationaryStep<OuterVector>>
    make_stationary_step() const override
    {
      return std::make_unique<Step>(*this);
    }

  private:
    class Step : public StationaryStep<OuterVector>
    {
    public:
      explicit Step(const MixedPrecisionPreconditioner &V)
        : V_(V)
      {}
      double
      apply(const OuterVector &r) override
      {
        V_.r_.copy_from(r); // rounding to the inner precision
        V_.inner_->vmult(V_.z_, V_.r_);
        return V_.r_.dot(V_.z_);
      }
      void
      add_correction(OuterVector &u) const override
      {
        u.add(typename OuterVector::value_type(1), V_.z_); // widened entry by entry (and relaid out on the device)
      }

    private:
      const MixedPrecisionPreconditioner &V_;
    };

    std::shared_ptr<const Preconditioner<InnerVector>> inner_;
    mutable InnerVector                                r_, z_;
  };
} // namespace cellwise
