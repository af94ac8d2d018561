#pragma once
/**
 * @file
 * Time per component of a solve (000 Table 11) without touching the
 * algorithms: decorators with the interfaces of multigrid/interfaces.h that
 * tell a ComponentTimer when each call of the component they wrap begins and
 * ends. A backend supplies the timer (cuda::EventTimer records CUDA events
 * in stream order); the solver wraps its components only when it is given a
 * timer, so an untimed solve runs the plain components.
 *
 * Scopes nest: the timer attributes every interval to the innermost open
 * part, so the parts are exclusive and add up to the timed span (e.g. a
 * mixed-precision preconditioner's own time is its two conversions, the
 * cycle's own time its zero fills and vector operations; the smoothers,
 * transfers and level operators inside are their own parts).
 */

#include <cellwise/base/timer.h>
#include <cellwise/multigrid/interfaces.h>

#include <memory>
#include <string>
#include <utility>

namespace cellwise
{
  /// What the decorators share: the wrapped component, the timer, the part.
  template <typename Interface>
  class TimedComponent : public Interface
  {
  public:
    TimedComponent(std::shared_ptr<const Interface> inner, ComponentTimer &timer, std::string part)
      : inner_(std::move(inner))
      , timer_(timer)
      , part_(std::move(part))
    {}

  protected:
    const Interface &
    inner() const
    {
      return *inner_;
    }
    ComponentTimer &
    timer() const
    {
      return timer_;
    }
    const std::string &
    part() const
    {
      return part_;
    }

    /// Calls @p call on the wrapped component inside a scope of the part.
    template <typename Call>
    void
    timed(const Call &call) const
    {
      TimedScope scope(timer_, part_);
      call(*inner_);
    }

  private:
    std::shared_ptr<const Interface> inner_;
    ComponentTimer                  &timer_;
    std::string                      part_;
  };

  template <typename VectorType>
  class TimedLevelOperator : public TimedComponent<LevelOperator<VectorType>>
  {
  public:
    using TimedComponent<LevelOperator<VectorType>>::TimedComponent;
    void
    vmult(VectorType &dst, const VectorType &src) const override
    {
      this->timed([&](const LevelOperator<VectorType> &op) { op.vmult(dst, src); });
    }
    void
    residual(VectorType &dst, const VectorType &b, const VectorType &u) const override
    {
      this->timed([&](const LevelOperator<VectorType> &op) { op.residual(dst, b, u); });
    }
    void
    masked_vmult(VectorType &dst, const VectorType &src, const VectorType &mask) const override
    {
      this->timed([&](const LevelOperator<VectorType> &op) { op.masked_vmult(dst, src, mask); });
    }
    double
    masked_vmult_dot(VectorType &dst, const VectorType &src, const VectorType &mask) const override
    {
      double pairing = 0;
      this->timed([&](const LevelOperator<VectorType> &op) { pairing = op.masked_vmult_dot(dst, src, mask); });
      return pairing;
    }
    void
    masked_residual(VectorType &dst, const VectorType &b, const VectorType &u, const VectorType &mask) const override
    {
      this->timed([&](const LevelOperator<VectorType> &op) { op.masked_residual(dst, b, u, mask); });
    }
  };

  template <typename VectorType>
  class TimedLevelSmoother : public TimedComponent<LevelSmoother<VectorType>>
  {
  public:
    using TimedComponent<LevelSmoother<VectorType>>::TimedComponent;
    void
    smooth(VectorType &u, const VectorType &b, const bool zero_initial_guess, const SweepDirection direction) const override
    {
      this->timed([&](const LevelSmoother<VectorType> &s) { s.smooth(u, b, zero_initial_guess, direction); });
    }
  };

  template <typename VectorType>
  class TimedLevelTransfer : public TimedComponent<LevelTransfer<VectorType>>
  {
  public:
    using TimedComponent<LevelTransfer<VectorType>>::TimedComponent;
    void
    prolongate_add(const unsigned int to_level, VectorType &fine, const VectorType &coarse) const override
    {
      this->timed([&](const LevelTransfer<VectorType> &t) { t.prolongate_add(to_level, fine, coarse); });
    }
    void
    restrict_residual_add(const unsigned int from_level,
                          VectorType        &coarse,
                          const VectorType  &fine_b,
                          const VectorType  &fine_Au) const override
    {
      this->timed([&](const LevelTransfer<VectorType> &t) { t.restrict_residual_add(from_level, coarse, fine_b, fine_Au); });
    }
  };

  template <typename VectorType>
  class TimedResidualRestriction : public TimedComponent<ResidualRestriction<VectorType>>
  {
  public:
    using TimedComponent<ResidualRestriction<VectorType>>::TimedComponent;
    void
    restrict_residual_add(VectorType &coarse, const VectorType &fine_b, const VectorType &fine_u) const override
    {
      this->timed([&](const ResidualRestriction<VectorType> &r) { r.restrict_residual_add(coarse, fine_b, fine_u); });
    }
  };

  template <typename VectorType>
  class TimedCoarseSolver : public TimedComponent<CoarseSolver<VectorType>>
  {
  public:
    using TimedComponent<CoarseSolver<VectorType>>::TimedComponent;
    void
    solve(VectorType &u, const VectorType &b) const override
    {
      this->timed([&](const CoarseSolver<VectorType> &c) { c.solve(u, b); });
    }
  };

  /// A stationary step whose apply() and add_correction() (or CG's
  /// update_direction()) are timed as two parts.
  template <typename VectorType>
  class TimedStationaryStep : public StationaryStep<VectorType>
  {
  public:
    TimedStationaryStep(std::unique_ptr<StationaryStep<VectorType>> inner,
                        ComponentTimer                             &timer,
                        std::string                                 apply_part,
                        std::string                                 correction_part)
      : inner_(std::move(inner))
      , timer_(timer)
      , apply_part_(std::move(apply_part))
      , correction_part_(std::move(correction_part))
    {}
    double
    apply(const VectorType &r) override
    {
      TimedScope scope(timer_, apply_part_);
      return inner_->apply(r);
    }
    void
    add_correction(VectorType &u) const override
    {
      TimedScope scope(timer_, correction_part_);
      inner_->add_correction(u);
    }
    /// CG's search direction from the kept correction, timed as the
    /// correction part (the pass that reads the correction, widening it in
    /// mixed precision).
    void
    update_direction(VectorType &p, const double beta, const bool first) const override
    {
      TimedScope scope(timer_, correction_part_);
      inner_->update_direction(p, beta, first);
    }
    /// Timed as "<correction part> with the iterate": the pass that also
    /// adds CG's step to u.
    void
    add_step_and_update_direction(VectorType &u, const double alpha, VectorType &p, const double beta) const override
    {
      TimedScope scope(timer_, correction_part_ + " with the iterate");
      inner_->add_step_and_update_direction(u, alpha, p, beta);
    }
    /// Timed as "<apply part> with the residual update": the residual's
    /// update, and the step's own passes (the cycle's parts nested inside).
    double
    update_residual_and_apply(VectorType &r, const double a, const VectorType &q) override
    {
      TimedScope scope(timer_, apply_part_ + " with the residual update");
      return inner_->update_residual_and_apply(r, a, q);
    }
    /// Timed as "<correction part> and the next residual": a fused pass, or
    /// the update with the operator's own part nested inside.
    void
    add_correction_and_residual(VectorType                      &u,
                                const LevelOperator<VectorType> &A,
                                const VectorType                &b,
                                const VectorType                &mask,
                                VectorType                      &r) const override
    {
      TimedScope scope(timer_, correction_part_ + " and the next residual");
      inner_->add_correction_and_residual(u, A, b, mask, r);
    }
    void
    end_of_solve() override
    {
      inner_->end_of_solve();
    }

  private:
    std::unique_ptr<StationaryStep<VectorType>> inner_;
    ComponentTimer                             &timer_;
    std::string                                 apply_part_;
    std::string                                 correction_part_;
  };

  /// Times vmult as its part. The stationary step is the wrapped
  /// preconditioner's own (a mixed-precision one keeps its FP32 correction),
  /// with apply() timed as the part (so it includes the monitor pairing ⟨r,
  /// V r⟩ the step computes) and add_correction() as @p correction_part.
  template <typename VectorType>
  class TimedPreconditioner : public TimedComponent<Preconditioner<VectorType>>
  {
  public:
    TimedPreconditioner(std::shared_ptr<const Preconditioner<VectorType>> inner,
                        ComponentTimer                                   &timer,
                        std::string                                       part,
                        std::string                                       correction_part = "correction update")
      : TimedComponent<Preconditioner<VectorType>>(std::move(inner), timer, std::move(part))
      , correction_part_(std::move(correction_part))
    {}
    void
    vmult(VectorType &z, const VectorType &r) const override
    {
      this->timed([&](const Preconditioner<VectorType> &p) { p.vmult(z, r); });
    }
    std::unique_ptr<StationaryStep<VectorType>>
    make_stationary_step() const override
    {
      return std::make_unique<TimedStationaryStep<VectorType>>(this->inner().make_stationary_step(), this->timer(), this->part(),
                                                               correction_part_);
    }

  private:
    std::string correction_part_;
  };

  /// Wraps every component of a cycle's @p components (the operators,
  /// smoothers, transfer, coarse solver and residual restrictions of
  /// VCycle<VectorType>::Components) so that it reports to @p timer: "level
  /// operators", @p smoother_part, "transfers", "coarse solve", "residual
  /// restrictions (level operator fused)".
  template <typename VectorType, typename CycleComponents>
  void
  time_cycle_components(CycleComponents &components, ComponentTimer &timer, const std::string &smoother_part)
  {
    for (auto &op : components.operators)
      op = std::make_shared<TimedLevelOperator<VectorType>>(op, timer, "level operators");
    for (auto &smoother : components.smoothers)
      if (smoother)
        smoother = std::make_shared<TimedLevelSmoother<VectorType>>(smoother, timer, smoother_part);
    if (components.transfer)
      components.transfer = std::make_shared<TimedLevelTransfer<VectorType>>(components.transfer, timer, "transfers");
    components.coarse_solver = std::make_shared<TimedCoarseSolver<VectorType>>(components.coarse_solver, timer, "coarse solve");
    for (auto &restriction : components.residual_restrictions)
      if (restriction)
        restriction = std::make_shared<TimedResidualRestriction<VectorType>>(restriction, timer, "residual restrictions (level operator fused)");
  }
} // namespace cellwise
