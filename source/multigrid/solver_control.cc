#include <cellwise/base/exceptions.h>
#include <cellwise/multigrid/solver_control.h>

#include <algorithm>
#include <cmath>

namespace cellwise
{
  MonitorControl::MonitorControl(const unsigned int max_steps,
                               const double       reduction,
                               const double       absolute_tolerance,
                               const double       divergence_factor)
    : max_steps_(max_steps)
    , reduction_(reduction)
    , absolute_tolerance_(absolute_tolerance)
    , divergence_factor_(divergence_factor)
  {
    CELLWISE_CHECK(reduction >= 0 && reduction < 1, "solver reduction " << reduction << " is not in [0, 1)");
    CELLWISE_CHECK(absolute_tolerance >= 0, "absolute tolerance " << absolute_tolerance << " is negative");
    CELLWISE_CHECK(reduction > 0 || absolute_tolerance > 0, "either the reduction or the absolute tolerance must be positive");
    CELLWISE_CHECK(divergence_factor > 1, "divergence factor " << divergence_factor << " must exceed 1");
  }

  IterationControl::State
  MonitorControl::check(const unsigned int step, const double value)
  {
    last_step_  = step;
    last_value_ = value;
    if (step == 0)
      initial_value_ = value;
    reason_.clear();

    std::ostringstream reason;
    if (!std::isfinite(value))
      {
        reason << "the monitored value is " << value << " at step " << step;
        reason_ = reason.str();
        return failure;
      }
    if (value <= std::max(absolute_tolerance_, reduction_ * initial_value_))
      return success;
    if (step > 0 && value > divergence_factor_ * initial_value_)
      {
        reason << "diverged: the monitored value grew from " << initial_value_ << " to " << value << " at step " << step;
        reason_ = reason.str();
        return failure;
      }
    if (step >= max_steps_)
      {
        reason << "the iteration limit of " << max_steps_ << " steps was reached with relative value "
               << value / initial_value_ << " (asked for " << reduction_ << ")";
        reason_ = reason.str();
        return failure;
      }
    return iterate;
  }

  double
  SolveStatistics::reduction() const
  {
    if (monitor.size() < 2 || monitor.front() == 0)
      return 0.;
    return monitor.back() / monitor.front();
  }

  double
  SolveStatistics::average_contraction() const
  {
    if (monitor.size() < 2 || monitor.front() == 0)
      return 0.;
    return std::pow(reduction(), 1. / iterations());
  }

  double
  SolveStatistics::fractional_iterations(const double tolerance) const
  {
    const unsigned int n = iterations();
    if (n == 0)
      return 0.;
    const double target = tolerance * monitor.front();
    const double before = monitor[n - 1], after = monitor[n];
    if (!(after < before) || after <= 0)
      return n;
    const double fraction = std::log(before / target) / std::log(before / after);
    return (n - 1) + std::clamp(fraction, 0., 1.);
  }
  FixedIterationControl::FixedIterationControl(const unsigned int n_steps)
    : n_steps_(n_steps)
  {}

  IterationControl::State
  FixedIterationControl::check(const unsigned int step, const double value)
  {
    if (!std::isfinite(value))
      return failure;
    return step >= n_steps_ ? success : iterate;
  }

  std::string
  FixedIterationControl::failure_reason() const
  {
    return "the monitored value is not a finite number";
  }
} // namespace cellwise
