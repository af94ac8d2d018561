#pragma once
/**
 * @file
 * SetupTimes: wall-clock seconds of the stages of a set-up, accumulated by
 * name and printed in the set-up log as one line per stage, so that a user
 * (and a developer looking for the slow part) sees where a set-up goes. A
 * stage timed on the device must end with a synchronization: the caller
 * passes one to measure().
 */

#include <chrono>
#include <iomanip>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace cellwise
{
  class SetupTimes
  {
  public:
    /// Runs @p work, then @p finish (e.g. a device synchronization), and adds
    /// the seconds of both to @p stage. (An exception leaves the stage out.)
    template <typename Work, typename Finish>
    void
    measure(const std::string &stage, Work &&work, Finish &&finish)
    {
      const auto start = std::chrono::steady_clock::now();
      work();
      finish();
      add(stage, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }

    /// measure() of host work.
    template <typename Work>
    void
    measure(const std::string &stage, Work &&work)
    {
      measure(stage, std::forward<Work>(work), [] {});
    }

    /// Adds @p seconds to @p stage (a new stage goes last).
    void
    add(const std::string &stage, const double seconds)
    {
      for (auto &entry : stages_)
        if (entry.first == stage)
          {
            entry.second += seconds;
            return;
          }
      stages_.emplace_back(stage, seconds);
    }

    double
    total() const
    {
      double sum = 0;
      for (const auto &entry : stages_)
        sum += entry.second;
      return sum;
    }

    /// The stages in the order they were first timed.
    const std::vector<std::pair<std::string, double>> &
    stages() const
    {
      return stages_;
    }

    /// "  <title>: 1.234 s" and one line per stage with its share.
    void
    print(std::ostream &out, const std::string &title) const
    {
      const double sum = total();
      out << "  " << title << ": " << std::fixed << std::setprecision(3) << sum << " s" << std::endl;
      for (const auto &[stage, seconds] : stages_)
        out << "    " << std::left << std::setw(40) << stage << std::right << std::setw(9) << seconds << " s "
            << std::setw(5) << std::setprecision(1) << (sum > 0 ? 100 * seconds / sum : 0.) << " %" << std::setprecision(3)
            << std::endl;
      out << std::defaultfloat;
    }

  private:
    std::vector<std::pair<std::string, double>> stages_;
  };
} // namespace cellwise
