#pragma once
// What every solve of cellwise-poisson shares: the stopping test of the
// options, a control that records the monitored values (so that a failed
// solve still shows its history), and the wall-clock timer.

#include "command_line.h"

#include <cellwise/multigrid/solver_control.h>

#include <chrono>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

namespace poisson_program
{
  inline double
  seconds_since(const std::chrono::steady_clock::time_point start)
  {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }

  /// The stopping test of the options: tolerance or a fixed count.
  inline std::unique_ptr<cellwise::IterationControl>
  make_control(const ProgramOptions &options)
  {
    if (options.fixed_iterations > 0)
      return std::make_unique<cellwise::FixedIterationControl>(options.fixed_iterations);
    return std::make_unique<cellwise::MonitorControl>(options.max_iterations, options.tolerance);
  }

  /// Forwards to the control of the options and keeps the monitored values,
  /// so that a solve that fails can still show its history.
  class RecordingControl : public cellwise::IterationControl
  {
  public:
    explicit RecordingControl(cellwise::IterationControl &inner)
      : inner_(inner)
    {}
    State
    check(const unsigned int step, const double value) override
    {
      values_.push_back(value);
      return inner_.check(step, value);
    }
    std::string
    failure_reason() const override
    {
      return inner_.failure_reason();
    }
    /// Prints the values relative to the first, one line per iteration.
    void
    print_history(std::ostream &out) const
    {
      for (std::size_t k = 0; k < values_.size(); ++k)
        out << "  iteration " << k << ": η/η_0 = " << values_[k] / values_[0] << "\n";
      out << std::flush;
    }

  private:
    cellwise::IterationControl &inner_;
    std::vector<double>         values_;
  };

  /// Runs @p solve with a RecordingControl around @p control; on an
  /// exception prints the history of the failed solve and rethrows.
  template <typename Solve>
  cellwise::SolveStatistics
  solve_with_history(cellwise::IterationControl &control, const Solve &solve)
  {
    RecordingControl recorder(control);
    try
      {
        return solve(recorder);
      }
    catch (...)
      {
        std::cout << "  history of the failed solve:\n";
        recorder.print_history(std::cout);
        throw;
      }
  }

} // namespace poisson_program
