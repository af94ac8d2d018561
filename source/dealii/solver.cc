#include <cellwise/base/exceptions.h>
#include <cellwise/dealii/solver.h>

#include <deal.II/lac/solver_control.h>

#include <cmath>
#include <functional>
#include <ostream>
#include <sstream>
#include <utility>

namespace cellwise::dealii
{
  DealiiIterationControl::DealiiIterationControl(::dealii::SolverControl &control, const double initial_residual_l2)
    : control_(control)
    , initial_residual_l2_(initial_residual_l2)
  {}

  IterationControl::State
  DealiiIterationControl::check(const unsigned int step, const double value)
  {
    // The scale is fixed at step 0: η_n ‖r₀‖₂/η₀, so that a tolerance meant
    // for ‖r‖₂ (step-37's absolute one) is met by the same reduction of η.
    if (step == 0)
      scale_ = initial_residual_l2_ >= 0 && value > 0 && std::isfinite(value) ? initial_residual_l2_ / value : 1.;
    switch (control_.check(step, value * scale_))
      {
        case ::dealii::SolverControl::iterate:
          return iterate;
        case ::dealii::SolverControl::success:
          return success;
        case ::dealii::SolverControl::failure:
          break;
      }
    return failure;
  }

  std::string
  DealiiIterationControl::failure_reason() const
  {
    std::ostringstream out;
    out << "deal.II's SolverControl reported failure at step " << control_.last_step() << " (value "
        << control_.last_value() << ", limit " << control_.max_steps() << " steps, tolerance " << control_.tolerance()
        << ")";
    return out.str();
  }

  NoConvergenceWithReason::NoConvergenceWithReason(const unsigned int last_step, const double last_value, std::string reason)
    : ::dealii::SolverControl::NoConvergence(last_step, last_value)
    , reason_(std::move(reason))
  {}

  void
  NoConvergenceWithReason::print_info(std::ostream &out) const
  {
    out << "cellwise: " << reason_ << "\n\n";
    ::dealii::SolverControl::NoConvergence::print_info(out);
  }

  namespace internal
  {
    SolveStatistics
    forward_solve(const std::function<SolveStatistics(IterationControl &)> &solve,
                  ::dealii::SolverControl                                  &control,
                  const double                                              initial_residual_l2)
    {
      DealiiIterationControl forward(control, initial_residual_l2);
      try
        {
          return solve(forward);
        }
      catch (const NoConvergence &e)
        {
          // deal.II's exception type, so that step-37-style code catches it,
          // and the cell-wise solver's reason with it
          throw NoConvergenceWithReason(e.last_step, e.last_value, e.what());
        }
    }
  } // namespace internal
} // namespace cellwise::dealii
