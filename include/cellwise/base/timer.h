#pragma once
/**
 * @file
 * ComponentTimer: what a timer of solver components receives (the begin and
 * end of each call, nested), and TimedScope, which pairs the two. The
 * decorators of multigrid/timed_components.h drive it; base/cuda_event_timer.h
 * implements it with CUDA events.
 */

#include <string>

namespace cellwise
{
  /// Receives the begin and end of component calls, in call order.
  class ComponentTimer
  {
  public:
    virtual ~ComponentTimer() = default;
    /// A call of part @p part begins (nested inside any open part).
    virtual void
    begin(const std::string &part) = 0;
    /// The innermost open part ends.
    virtual void
    end() = 0;
  };

  /// begin() on construction, end() on destruction (also on an exception).
  class TimedScope
  {
  public:
    TimedScope(ComponentTimer &timer, const std::string &part)
      : timer_(timer)
    {
      timer_.begin(part);
    }
    ~TimedScope()
    {
      timer_.end();
    }
    TimedScope(const TimedScope &) = delete;
    TimedScope &
    operator=(const TimedScope &) = delete;

  private:
    ComponentTimer &timer_;
  };
} // namespace cellwise
