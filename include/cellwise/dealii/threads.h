#pragma once
/**
 * @file
 * The core's host loops on deal.II's threads.
 *
 * deal.II runs its vectors, assembly and MatrixFree loops on TBB's pool
 * (MultithreadInfo). The core's loops default to OpenMP, whose threads spin at
 * their barriers for a while: inside a deal.II program both pools then compete
 * for the same cores, and on a loaded machine a solve becomes many times slower
 * (measured in doc/performance.md, "Threads inside a deal.II program").
 * Running the core's loops through deal.II's parallel::apply_to_subranges puts
 * both on one pool, bounded by MultithreadInfo::n_threads() (set_thread_limit
 * and DEAL_II_NUM_THREADS apply), with no environment variable to set.
 *
 * import_dof_handler() installs this executor, so every program that uses the
 * adapters gets it; call cellwise::set_loop_executor(nullptr) afterwards to go
 * back to OpenMP.
 */

#include <cellwise/base/parallel.h>

#include <memory>

namespace cellwise::dealii
{
  /// The executor on deal.II's thread pool.
  std::shared_ptr<const LoopExecutor>
  dealii_loop_executor();

  /// Runs the core's loops on deal.II's threads from now on (idempotent).
  void
  use_dealii_threads();
} // namespace cellwise::dealii
