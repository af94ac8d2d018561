// CUDA events for the component timer: one event per begin and end, recorded
// on the default stream (the stream of every kernel of the library), reused
// across clear() so that a timed solve creates events only the first time.

#include <cellwise/base/cuda_check.h>
#include <cellwise/base/exceptions.h>
#include <cellwise/base/cuda_event_timer.h>

#include <algorithm>

namespace cellwise
{
  namespace cuda
  {
    struct EventTimer::Events
    {
      std::vector<cudaEvent_t> pool;
      std::size_t              used = 0;
    };

    EventTimer::EventTimer()
      : events_(new Events)
    {}

    EventTimer::~EventTimer()
    {
      for (cudaEvent_t event : events_->pool)
        cudaEventDestroy(event); // no throwing from a destructor
    }

    void
    EventTimer::record(const int part_after)
    {
      if (events_->used == events_->pool.size())
        {
          cudaEvent_t event;
          CELLWISE_CUDA_CHECK(cudaEventCreate(&event));
          events_->pool.push_back(event);
        }
      CELLWISE_CUDA_CHECK(cudaEventRecord(events_->pool[events_->used]));
      ++events_->used;
      interval_part_.push_back(part_after);
    }

    void
    EventTimer::begin(const std::string &part)
    {
      const auto found = std::find(names_.begin(), names_.end(), part);
      const int  index = static_cast<int>(found - names_.begin());
      if (found == names_.end())
        {
          names_.push_back(part);
          calls_.push_back(0);
        }
      ++calls_[index];
      open_.push_back(index);
      record(index);
    }

    void
    EventTimer::end()
    {
      CELLWISE_CHECK(!open_.empty(), "EventTimer::end() without an open part");
      open_.pop_back();
      record(open_.empty() ? -1 : open_.back());
    }

    std::vector<EventTimer::Part>
    EventTimer::parts() const
    {
      CELLWISE_CHECK(open_.empty(), "EventTimer::parts(): the part '" << names_[open_.back()] << "' is still open");
      std::vector<Part> result(names_.size());
      for (std::size_t i = 0; i < names_.size(); ++i)
        {
          result[i].name  = names_[i];
          result[i].calls = calls_[i];
        }
      if (events_->used == 0)
        return result;
      CELLWISE_CUDA_CHECK(cudaEventSynchronize(events_->pool[events_->used - 1]));
      for (std::size_t k = 0; k + 1 < events_->used; ++k)
        {
          if (interval_part_[k] < 0)
            continue; // between two top-level parts: belongs to no part
          float ms = 0;
          CELLWISE_CUDA_CHECK(cudaEventElapsedTime(&ms, events_->pool[k], events_->pool[k + 1]));
          result[interval_part_[k]].seconds += 1e-3 * ms;
        }
      return result;
    }

    double
    EventTimer::span() const
    {
      if (events_->used < 2)
        return 0;
      CELLWISE_CUDA_CHECK(cudaEventSynchronize(events_->pool[events_->used - 1]));
      float ms = 0;
      CELLWISE_CUDA_CHECK(cudaEventElapsedTime(&ms, events_->pool[0], events_->pool[events_->used - 1]));
      return 1e-3 * ms;
    }

    void
    EventTimer::clear()
    {
      CELLWISE_CHECK(open_.empty(), "EventTimer::clear(): a part is still open");
      if (events_->used > 0)
        CELLWISE_CUDA_CHECK(cudaEventSynchronize(events_->pool[events_->used - 1]));
      events_->used = 0;
      interval_part_.clear();
      names_.clear();
      calls_.clear();
    }
  } // namespace cuda
} // namespace cellwise
