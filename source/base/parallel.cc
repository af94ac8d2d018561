#include <cellwise/base/parallel.h>

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>

namespace cellwise
{
  namespace
  {
    class OpenMPLoopExecutor : public LoopExecutor
    {
    public:
      void
      run(const std::size_t n, const std::size_t grain, const RangeBody &body) const override
      {
        // One range per thread, as `omp for schedule(static)` would cut it:
        // the host operator's performance and first-touch placement stay
        // what they were before the executor existed.
        const std::size_t n_ranges =
          std::min<std::size_t>(static_cast<std::size_t>(omp_get_max_threads()), (n + grain - 1) / grain);
#pragma omp parallel for schedule(static) num_threads(static_cast<int>(n_ranges))
        for (long r = 0; r < static_cast<long>(n_ranges); ++r)
          body(n * r / n_ranges, n * (r + 1) / n_ranges);
      }

      unsigned int
      n_threads() const override
      {
        return static_cast<unsigned int>(omp_get_max_threads());
      }

      const char *
      name() const override
      {
        return "OpenMP";
      }
    };

    /// Every executor ever installed stays alive here (loops running in
    /// other threads may still use the one being replaced).
    std::mutex                                       installed_mutex;
    std::vector<std::shared_ptr<const LoopExecutor>> installed;
    std::atomic<const LoopExecutor *>                current{nullptr};

    /// Depth of loop bodies running on this thread: a loop inside one runs
    /// inline (no nested teams, no TBB task inside an OpenMP thread).
    thread_local unsigned int body_depth = 0;

    struct BodyDepth
    {
      BodyDepth()
      {
        ++body_depth;
      }
      ~BodyDepth()
      {
        --body_depth;
      }
    };
  } // namespace



  std::shared_ptr<const LoopExecutor>
  openmp_loop_executor()
  {
    static const auto executor = std::make_shared<const OpenMPLoopExecutor>();
    return executor;
  }



  void
  set_loop_executor(std::shared_ptr<const LoopExecutor> executor)
  {
    if (!executor)
      executor = openmp_loop_executor();
    std::lock_guard<std::mutex> lock(installed_mutex);
    if (std::find(installed.begin(), installed.end(), executor) == installed.end())
      installed.push_back(executor);
    current.store(executor.get(), std::memory_order_release);
  }



  const LoopExecutor &
  loop_executor()
  {
    const LoopExecutor *executor = current.load(std::memory_order_acquire);
    return executor != nullptr ? *executor : *openmp_loop_executor();
  }



  namespace internal
  {
    void
    run_parallel(const std::size_t n, const std::size_t grain, const RangeBody &body)
    {
      if (n == 0)
        return;
      if (n <= grain || body_depth > 0)
        {
          const BodyDepth depth;
          body(0, n);
          return;
        }
      std::exception_ptr first_error;
      std::mutex         error_mutex;
      loop_executor().run(n, std::max<std::size_t>(grain, 1), [&](const std::size_t begin, const std::size_t end) {
        const BodyDepth depth;
        try
          {
            body(begin, end);
          }
        catch (...)
          {
            const std::lock_guard<std::mutex> lock(error_mutex);
            if (!first_error)
              first_error = std::current_exception();
          }
      });
      if (first_error)
        std::rethrow_exception(first_error);
    }
  } // namespace internal
} // namespace cellwise
