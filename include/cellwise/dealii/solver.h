#pragma once
/**
 * @file
 * What the deal.II front door (cellwise::dealii::MultigridPreconditioner,
 * dealii/multigrid_preconditioner.h) takes and throws: its vector type
 * DealiiVector, the forwarding of the cell-wise outer iteration to deal.II's
 * SolverControl (DealiiIterationControl), and NoConvergenceWithReason.
 *
 * The outer iteration of MultigridPreconditioner::solve reports to the
 * user's ::dealii::SolverControl through DealiiIterationControl. The cycle
 * monitors its own η = ⟨r, V r⟩^{1/2} (no
 * assembly needed), not deal.II's ‖r‖₂; the values reported are η scaled so
 * that step 0 reports ‖r₀‖₂ = ‖b − A u₀‖₂ of deal.II's numbering (Dirichlet
 * entries left out), the value deal.II's own solvers start from. Step n then
 * reports ‖r₀‖₂ η_n/η₀: a ReductionControl reduces η as it would reduce
 * ‖r‖₂, and step-37's absolute SolverControl(100, 1e-12 ‖b‖₂) becomes the
 * reduction 1e-12 ‖b‖₂/‖r₀‖₂ of η (1e-12 from a zero guess). η and ‖r‖₂ are
 * equivalent norms of the residual, not equal ones: the final ‖r‖₂ may differ
 * from the reported value by a modest factor either way.
 */

#include <cellwise/multigrid/solver_control.h>

#include <deal.II/lac/solver_control.h>

#include <functional>
#include <iosfwd>
#include <string>

namespace dealii
{
  namespace LinearAlgebra::distributed
  {
    template <typename Number, typename MemorySpace>
    class Vector;
  }
  namespace MemorySpace
  {
    struct Host;
  }
} // namespace dealii

namespace cellwise::dealii
{
  /// The deal.II vector the front door takes and returns.
  using DealiiVector = ::dealii::LinearAlgebra::distributed::Vector<double, ::dealii::MemorySpace::Host>;

  /// cellwise::IterationControl that forwards check() to a deal.II
  /// SolverControl (so deal.II's logging, history and limits apply).
  class DealiiIterationControl : public IterationControl
  {
  public:
    /// Keeps a reference to @p control. With @p initial_residual_l2 ≥ 0 the
    /// values are scaled so that step 0 reports it (see the file comment);
    /// with a negative one they are forwarded as they are.
    explicit DealiiIterationControl(::dealii::SolverControl &control, double initial_residual_l2 = -1.);

    State
    check(unsigned int step, double value) override;

    std::string
    failure_reason() const override;

  private:
    ::dealii::SolverControl &control_;
    double                   initial_residual_l2_;
    double                   scale_ = 1.;
  };

  /**
   * deal.II's SolverControl::NoConvergence, as the front door's solve throws it
   * (catch it as that), with the reason the cell-wise solver stopped: the
   * iteration limit, divergence, or a monitored value that is not finite (an
   * overflow), which deal.II's exception alone reduces to "the residual in
   * the last step was inf". print_info() gives the reason first.
   */
  class NoConvergenceWithReason : public ::dealii::SolverControl::NoConvergence
  {
  public:
    NoConvergenceWithReason(unsigned int last_step, double last_value, std::string reason);

    void
    print_info(std::ostream &out) const override;

    /// Why the cell-wise solver stopped (a complete sentence).
    const std::string &
    reason() const
    {
      return reason_;
    }

  private:
    std::string reason_;
  };

  namespace internal
  {
    /// @p solve run with a DealiiIterationControl on @p control (η scaled to
    /// @p initial_residual_l2 at step 0); cellwise's NoConvergence rethrown
    /// as NoConvergenceWithReason. Shared by the front door's solvers.
    SolveStatistics
    forward_solve(const std::function<SolveStatistics(IterationControl &)> &solve,
                  ::dealii::SolverControl                                  &control,
                  double                                                    initial_residual_l2);
  } // namespace internal
} // namespace cellwise::dealii
