#pragma once
/**
 * @file
 * The stopping decision of the outer iterations. IterationControl has the
 * interface of deal.II's SolverControl::check(step, value), so that the deal.II
 * adapters can forward to deal.II's own object; MonitorControl is cellwise's
 * implementation: relative reduction of the monitored value (the cycle's η,
 * doc/method.md), an iteration limit, and divergence detection. It is not
 * called SolverControl, so that a program with `using namespace dealii;` and
 * cellwise names finds deal.II's SolverControl unambiguously.
 */

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

namespace cellwise
{
  class IterationControl
  {
  public:
    enum State
    {
      iterate, ///< go on
      success, ///< converged
      failure  ///< give up: limit reached, diverged or not a number
    };

    virtual ~IterationControl() = default;

    /// Decide on step @p step (0 = initial value) with monitored @p value.
    virtual State
    check(unsigned int step, double value) = 0;

    /// Why the last check() returned failure (empty if unknown).
    virtual std::string
    failure_reason() const
    {
      return {};
    }
  };

  class MonitorControl : public IterationControl
  {
  public:
    /**
     * @param max_steps iteration limit
     * @param reduction success when value <= reduction * initial value
     * @param absolute_tolerance success also when value <= absolute_tolerance
     * @param divergence_factor failure when value > divergence_factor * initial
     */
    explicit MonitorControl(unsigned int max_steps          = 100,
                           double       reduction          = 1e-9,
                           double       absolute_tolerance = 0.,
                           double       divergence_factor  = 1e3);

    State
    check(unsigned int step, double value) override;

    std::string
    failure_reason() const override
    {
      return reason_;
    }

    unsigned int
    last_step() const
    {
      return last_step_;
    }
    double
    last_value() const
    {
      return last_value_;
    }
    double
    initial_value() const
    {
      return initial_value_;
    }
    double
    reduction() const
    {
      return reduction_;
    }
    unsigned int
    max_steps() const
    {
      return max_steps_;
    }

  private:
    unsigned int max_steps_;
    double       reduction_;
    double       absolute_tolerance_;
    double       divergence_factor_;
    unsigned int last_step_     = 0;
    double       last_value_    = 0;
    double       initial_value_ = 0;
    std::string  reason_;
  };

  /// Success after exactly n steps, whatever the monitored value (for timed
  /// solves with a fixed number of cycles, 000 Table 12, and --iterations);
  /// a value that is not a finite number still fails.
  class FixedIterationControl : public IterationControl
  {
  public:
    explicit FixedIterationControl(unsigned int n_steps);

    State
    check(unsigned int step, double value) override;

    std::string
    failure_reason() const override;

  private:
    unsigned int n_steps_;
  };

  /// What an outer iteration did: the monitor η_k = ⟨r_k, M^{-1} r_k⟩^{1/2}
  /// per iteration (index 0: initial).
  struct SolveStatistics
  {
    std::vector<double> monitor;

    /// Iterations performed until the stopping test succeeded.
    unsigned int
    iterations() const
    {
      return monitor.empty() ? 0 : static_cast<unsigned int>(monitor.size() - 1);
    }
    /// η_n / η_0
    double
    reduction() const;
    /// Average contraction (η_n / η_0)^{1/n}.
    double
    average_contraction() const;
    /// The fractional iteration count (000 eq. 15): the iteration at which
    /// η/η_0 crosses @p tolerance, interpolated logarithmically within the last
    /// step: (n − 1) + log(η_{n−1} / (tol η_0)) / log(η_{n−1} / η_n).
    double
    fractional_iterations(double tolerance) const;
  };
} // namespace cellwise
