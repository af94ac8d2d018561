#include <cellwise/dealii/threads.h>

#include <deal.II/base/multithread_info.h>
#include <deal.II/base/parallel.h>

namespace cellwise::dealii
{
  namespace
  {
    class DealIILoopExecutor : public LoopExecutor
    {
    public:
      void
      run(const std::size_t n, const std::size_t grain, const RangeBody &body) const override
      {
        // TBB splits [0, n) down to the grain and balances the ranges
        // dynamically: a core busy with other work delays its own ranges
        // only, not a barrier that every thread waits at.
        ::dealii::parallel::apply_to_subranges(
          std::size_t(0), n, [&body](const std::size_t begin, const std::size_t end) { body(begin, end); },
          static_cast<unsigned int>(grain));
      }

      unsigned int
      n_threads() const override
      {
        return ::dealii::MultithreadInfo::n_threads();
      }

      const char *
      name() const override
      {
        return "deal.II (TBB)";
      }
    };
  } // namespace



  std::shared_ptr<const LoopExecutor>
  dealii_loop_executor()
  {
    static const auto executor = std::make_shared<const DealIILoopExecutor>();
    return executor;
  }



  void
  use_dealii_threads()
  {
    if (&loop_executor() != dealii_loop_executor().get())
      set_loop_executor(dealii_loop_executor());
  }
} // namespace cellwise::dealii
