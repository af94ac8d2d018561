#pragma once
/**
 * @file
 * The core's host loops over cells and values, and who runs them.
 *
 * Every parallel loop of the host backend goes through parallel_for_ranges()
 * instead of an OpenMP pragma of its own, so that the threads that run it can
 * be chosen by the program around the library. A standalone program runs them
 * on OpenMP (the default executor). A deal.II program must not: deal.II runs
 * its vectors and assembly on TBB's pool, and OpenMP threads that spin at their
 * barriers while TBB's workers look for work fight for the same cores (on a
 * loaded 2-core machine a 0.05 s solve took 4–7 s). The deal.II adapters
 * therefore install an executor on deal.II's own threads
 * (cellwise/dealii/threads.h); any program can install its own.
 *
 * Loops shorter than their grain run inline on the calling thread (the small
 * levels of a V-cycle start no threads at all), a loop inside a loop body runs
 * inline too, and an exception thrown by a body reaches the caller (the first
 * one, after every range has finished).
 */

#include <cstddef>
#include <functional>
#include <memory>
#include <vector>

namespace cellwise
{
  /// A loop body over the half-open index range [begin, end).
  using RangeBody = std::function<void(std::size_t begin, std::size_t end)>;

  /// Runs the ranges of one parallel loop, on whatever threads it owns.
  class LoopExecutor
  {
  public:
    virtual ~LoopExecutor() = default;

    /// Calls @p body on disjoint ranges that cover [0, @p n), each at least
    /// @p grain long except possibly one, possibly concurrently, and returns
    /// when all are done. @p body must not throw (the caller wraps it).
    virtual void
    run(std::size_t n, std::size_t grain, const RangeBody &body) const = 0;

    /// Threads a loop may use at most (for scratch sizing and the log).
    virtual unsigned int
    n_threads() const = 0;

    /// What runs the loops ("OpenMP", "deal.II (TBB)").
    virtual const char *
    name() const = 0;
  };

  /// The default executor: OpenMP's team, statically partitioned.
  std::shared_ptr<const LoopExecutor>
  openmp_loop_executor();

  /// Runs every later loop of the core on @p executor (nullptr: OpenMP). The
  /// executor is kept alive until the program ends, so that loops running in
  /// other threads while it is replaced finish on the old one.
  void
  set_loop_executor(std::shared_ptr<const LoopExecutor> executor);

  /// The executor the core's loops run on now.
  const LoopExecutor &
  loop_executor();

  namespace internal
  {
    /// Runs @p body over [0, @p n) on the current executor, inline where the
    /// loop is short or nested, and rethrows the first exception of a body.
    void
    run_parallel(std::size_t n, std::size_t grain, const RangeBody &body);
  } // namespace internal

  /// Grains of the core's loops: a cell of the operator costs about a
  /// thousand flops, a value of a vector operation one.
  constexpr std::size_t cell_grain  = 16;
  constexpr std::size_t value_grain = 16384;

  /// Calls @p body(begin, end) on disjoint subranges of [0, @p n), in
  /// parallel; per-range scratch belongs at the top of the body.
  template <typename Body>
  void
  parallel_for_ranges(const std::size_t n, const std::size_t grain, Body &&body)
  {
    internal::run_parallel(n, grain, RangeBody(std::forward<Body>(body)));
  }

  /// Calls @p f(i) for every i in [0, @p n), in parallel.
  template <typename Function>
  void
  parallel_for(const std::size_t n, const std::size_t grain, const Function &f)
  {
    internal::run_parallel(n, grain, [&f](const std::size_t begin, const std::size_t end) {
      for (std::size_t i = begin; i < end; ++i)
        f(i);
    });
  }

  /// Sum of @p chunk_sum(begin, end) over consecutive chunks of @p chunk
  /// indices of [0, @p n), the chunks computed in parallel and added in
  /// order: the result does not depend on the executor or the thread count.
  template <typename ChunkSum>
  double
  deterministic_sum(const std::size_t n, const std::size_t chunk, const ChunkSum &chunk_sum)
  {
    const std::size_t   n_chunks = (n + chunk - 1) / chunk;
    std::vector<double> partial(n_chunks, 0.);
    parallel_for(n_chunks, 1, [&](const std::size_t c) {
      const std::size_t begin = c * chunk;
      partial[c]              = chunk_sum(begin, begin + chunk < n ? begin + chunk : n);
    });
    double sum = 0;
    for (const double s : partial)
      sum += s;
    return sum;
  }
} // namespace cellwise
