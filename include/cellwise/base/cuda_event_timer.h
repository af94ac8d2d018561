#pragma once
/**
 * @file
 * A ComponentTimer for the device: CUDA events recorded on the default stream
 * at every begin and end, so that the times are GPU times in stream order,
 * not host times of asynchronous launches. The interval between two
 * consecutive events belongs to the innermost part open at its start; the
 * parts are therefore exclusive and add up to the span from the first to the
 * last event. Each interval includes the launch gaps inside it: a part's time
 * is what the device timeline spends between its begin and end. Recording
 * an event costs about a microsecond of host time per call, which matters only
 * for launch-bound solves (compare with an untimed run).
 *
 * Compiles with a plain C++ compiler (implemented in source/base/cuda_event_timer.cu).
 */

#include <cellwise/base/timer.h>

#include <memory>
#include <string>
#include <vector>

namespace cellwise
{
  namespace cuda
  {
    class EventTimer : public ComponentTimer
    {
    public:
      EventTimer();
      ~EventTimer() override;
      EventTimer(const EventTimer &) = delete;
      EventTimer &
      operator=(const EventTimer &) = delete;

      void
      begin(const std::string &part) override;
      void
      end() override;

      struct Part
      {
        std::string  name;
        double       seconds = 0; ///< summed over the calls, exclusive of nested parts
        unsigned int calls   = 0;
      };

      /// The parts in the order they first began, with their times (waits
      /// for the last recorded event). Throws if a part is still open.
      std::vector<Part>
      parts() const;

      /// Seconds from the first to the last recorded event; the parts add up
      /// to it when one part encloses all others (e.g. the whole solve).
      double
      span() const;

      /// Forget all records (keeps the events for reuse).
      void
      clear();

    private:
      struct Events;
      std::unique_ptr<Events> events_;
      /// Part index of the interval starting at event k (−1: outside all parts).
      std::vector<int> interval_part_;
      /// Parts known so far and how often each began.
      std::vector<std::string>  names_;
      std::vector<unsigned int> calls_;
      /// Open parts, innermost last.
      std::vector<int> open_;

      void
      record(int part_after);
    };
  } // namespace cuda
} // namespace cellwise
