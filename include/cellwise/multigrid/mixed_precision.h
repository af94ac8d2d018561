#pragma once
/**
 * @file
 * An FP32 V-cycle inside the FP64 outer iteration (000 §4): the FP64 residual
 * (Dirichlet entries zeroed and, by the outer solver, rebalanced) is rounded
 * into the FP32 finest-level right-hand side, the FP32 cycle runs from a zero
 * guess, and its correction is widened. A correction whose copies agree in
 * FP32 still agrees after widening, so the FP64 iterate stays continuous.
 * Where the cycle's corrections do not agree bit for bit (unstructured
 * levels: the prolongation from blocks in other frames rounds a DoF's copies
 * in different orders), the solver makes them agree first
 * (make_corrections_consistent); else the widened FP32 jumps between copies
 * add up in u, which the FP64 iteration never removes: the stationary
 * iteration then stops at a discontinuous u 4e-11 (the ball, Q2) to 2e-9
 * (deal.II's hyper_ball, MappingQ(2)) from the FP64 solution.
 * Written over the vector types, for host and device vectors alike.
 *
 * In the stationary iteration (make_stationary_step) the correction is never
 * widened into an FP64 vector: the monitor pairs the FP32 residual and
 * correction (accumulated in double: 8 B per entry instead of 16 for the FP64
 * pair), and u += widen(z32) reads the FP32 correction and updates u in one
 * pass (20 B per entry instead of the widening copy and u += z, 36 B), with no
 * FP64 work vector (8.6 GB at 455 M DoFs, 000 §7). The monitor then is
 * ⟨fl32(r), V32 fl32(r)⟩, the pairing of the vectors the cycle actually saw; it
 * differs from ⟨r, widen(V32 fl32(r))⟩ by the rounding of r only. A backend
 * may fuse the update into the next residual (fuse_correction_into_residual:
 * 36 instead of 44 bytes per entry for the two on the device).
 *
 * CG takes the same step: it pairs fl32(r) with the FP32 correction and forms
 * its search direction p ← widen(z32) + β p in one pass (update_direction), so
 * that an iteration moves 2.5 fewer FP64 vectors than widening z into a work
 * vector, pairing and adding it, and holds no FP64 z. Its pairings (monitor,
 * α, β) then differ from ⟨r, widen(z32)⟩ by more than the rounding of r:
 * between rebalancings the copies of r cancel in the pairing (up to 5e-4
 * relative measured on the unit cube); the iteration counts did not change.
 *
 * A backend may also fuse the rebalancing into the rounding
 * (fuse_rebalancing_into_rounding: the device Hermite solver on box levels).
 * Every residual the cycle sees is then rebalanced, fl32(Π r), in the pass
 * that rounds it, and CG's update r += a q, the averaging and the rounding
 * are one pass (r and q read, r and fl32(r) written), whatever the step:
 * the outer iteration needs no rebalancing of its own.
 */

#include <cellwise/base/exceptions.h>
#include <cellwise/multigrid/interfaces.h>

#include <functional>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>

namespace cellwise
{
  /// Whether OuterVector has sadd(s, a, x) for x an InnerVector.
  template <typename OuterVector, typename InnerVector, typename = void>
  struct offers_mixed_sadd : std::false_type
  {};
  template <typename OuterVector, typename InnerVector>
  struct offers_mixed_sadd<OuterVector,
                           InnerVector,
                           std::void_t<decltype(std::declval<OuterVector &>().sadd(typename OuterVector::value_type(),
                                                                                  typename OuterVector::value_type(),
                                                                                  std::declval<const InnerVector &>()))>>
    : std::true_type
  {};

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
      const auto lock = work_space_lock_.lock("cellwise::MixedPrecisionPreconditioner::vmult");
      round(r);
      inner_cycle();
      z.copy_from(z_); // exact widening
    }

    /// @p make_consistent(z32) gives every copy of a DoF one value (a mean
    /// DSS of the finest level); it is run on every correction of the FP32
    /// cycle before the outer iteration pairs and widens it.
    void
    make_corrections_consistent(std::function<void(InnerVector &)> make_consistent)
    {
      consistent_ = std::move(make_consistent);
    }

    /// A pass that adds the inner correction @p z to u and forms the next
    /// residual r = mask ∘ (b − A u) with the new u (a backend's fused
    /// kernel); it returns false, having done nothing, when it does not serve
    /// the operator @p A the outer iteration passes.
    using CorrectedResidual = std::function<bool(const LevelOperator<OuterVector> &A,
                                                 OuterVector                       &r,
                                                 const OuterVector                 &b,
                                                 OuterVector                       &u,
                                                 const OuterVector                 &mask,
                                                 const InnerVector                 &z)>;

    /// The stationary step then calls @p corrected_residual for the update
    /// and the next residual (bit for bit the two separate passes).
    void
    fuse_correction_into_residual(CorrectedResidual corrected_residual)
    {
      corrected_residual_ = std::move(corrected_residual);
    }

    /// A backend's rounding with the rebalancing Π inside: round(r, r32)
    /// sets r32 = fl32(Π r) and leaves r; update_and_round(r, a, q, r32)
    /// sets r ← Π(r + a q) and r32 = fl32(r). Both must be given.
    struct RebalancedRounding
    {
      std::function<void(const OuterVector &r, InnerVector &rounded)>                            round;
      std::function<void(OuterVector &r, double a, const OuterVector &q, InnerVector &rounded)> update_and_round;
    };

    /// Every rounding of the residual (vmult and the steps) then rebalances
    /// it in the same pass; the outer iteration should not rebalance too
    /// (that would be a pass for nothing: Π is idempotent).
    void
    fuse_rebalancing_into_rounding(RebalancedRounding rebalanced_rounding)
    {
      CELLWISE_CHECK(rebalanced_rounding.round && rebalanced_rounding.update_and_round,
                     "MixedPrecisionPreconditioner: the rebalanced rounding needs both its forms");
      rebalanced_rounding_ = std::move(rebalanced_rounding);
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
        hold_work_space();
        V_.round(r);
        return cycle_and_pairing();
      }
      void
      add_correction(OuterVector &u) const override
      {
        u.add(typename OuterVector::value_type(1), V_.z_); // widened entry by entry (and relaid out on the device)
      }
      /// p ← widen(z) + β p from the FP32 correction: one pass where the
      /// vectors offer the mixed sadd (the cell vectors, in one layout),
      /// else scale and the widening add.
      void
      update_direction(OuterVector &p, const double beta, const bool first) const override
      {
        using Number = typename OuterVector::value_type;
        if (first)
          p.copy_from(V_.z_); // exact widening
        else if constexpr (offers_mixed_sadd<OuterVector, InnerVector>::value)
          p.sadd(Number(beta), Number(1), V_.z_);
        else
          {
            p.scale(Number(beta));
            p.add(Number(1), V_.z_);
          }
      }
      /// u += α p and p ← widen(z) + β p in one pass where the vectors
      /// offer it (the cell vectors, in one layout).
      void
      add_step_and_update_direction(OuterVector &u, const double alpha, OuterVector &p, const double beta) const override
      {
        using Number = typename OuterVector::value_type;
        if constexpr (offers_add_and_sadd<OuterVector, InnerVector>::value)
          u.add_and_sadd(Number(alpha), p, Number(beta), V_.z_);
        else
          StationaryStep<OuterVector>::add_step_and_update_direction(u, alpha, p, beta);
      }
      /// r += a q, rounded (and rebalanced, where the backend fused it)
      /// into the cycle's right-hand side in the same pass where the
      /// vectors offer it, then the cycle and the pairing.
      double
      update_residual_and_apply(OuterVector &r, const double a, const OuterVector &q) override
      {
        hold_work_space();
        if (V_.rebalanced_rounding_.update_and_round)
          {
            V_.rebalanced_rounding_.update_and_round(r, a, q, V_.r_);
            return cycle_and_pairing();
          }
        if constexpr (offers_add_and_convert<OuterVector, InnerVector>::value)
          {
            r.add_and_convert(typename OuterVector::value_type(a), q, V_.r_);
            return cycle_and_pairing();
          }
        else
          return StationaryStep<OuterVector>::update_residual_and_apply(r, a, q);
      }
      void
      add_correction_and_residual(OuterVector                      &u,
                                  const LevelOperator<OuterVector> &A,
                                  const OuterVector                &b,
                                  const OuterVector                &mask,
                                  OuterVector                      &r) const override
      {
        if (!V_.corrected_residual_ || !V_.corrected_residual_(A, r, b, u, mask, V_.z_))
          StationaryStep<OuterVector>::add_correction_and_residual(u, A, b, mask, r);
      }

      void
      end_of_solve() override
      {
        held_.reset();
      }

    private:
      /// The correction is kept in V's FP32 vectors from one call to the
      /// next: V's lock is held from the first apply of a solve to its end.
      void
      hold_work_space()
      {
        if (!held_)
          held_.emplace(V_.work_space_lock_.lock("cellwise::MixedPrecisionPreconditioner (the step of an outer iteration)"));
      }

      /// The FP32 cycle on the rounded residual, and ⟨fl32(r), z⟩.
      double
      cycle_and_pairing() const
      {
        V_.inner_cycle();
        return V_.r_.dot(V_.z_);
      }

      const MixedPrecisionPreconditioner      &V_;
      std::optional<WorkSpaceLock::Holder> held_;
    };

    /// z_ = the FP32 cycle on r_, made consistent where the solver asked for
    /// it (make_corrections_consistent).
    void
    inner_cycle() const
    {
      inner_->vmult(z_, r_);
      if (consistent_)
        consistent_(z_);
    }

    /// r_ = fl32(r), or fl32(Π r) where the backend fused the rebalancing.
    void
    round(const OuterVector &r) const
    {
      if (rebalanced_rounding_.round)
        rebalanced_rounding_.round(r, r_);
      else
        r_.copy_from(r); // rounding to the inner precision
    }

    std::shared_ptr<const Preconditioner<InnerVector>> inner_;
    mutable InnerVector                                r_, z_;
    WorkSpaceLock                                      work_space_lock_;
    CorrectedResidual                                  corrected_residual_;
    RebalancedRounding                                 rebalanced_rounding_;
    std::function<void(InnerVector &)>                 consistent_;
  };
} // namespace cellwise
