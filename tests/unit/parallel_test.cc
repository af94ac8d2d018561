// The core's parallel loops (base/parallel.h): every index is visited once on
// any executor and grain, an installed executor runs the loops, nested loops
// and short loops run inline, a body's exception reaches the caller, and the
// reductions give the same bits on every executor.

#include <cellwise/base/parallel.h>
#include <cellwise/mesh/box_builder.h>
#include <cellwise/operators/function_tools.h>
#include <cellwise/storage/cell_vector.h>

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <stdexcept>
#include <thread>

#include "test_utilities.h"

using namespace cellwise;
using namespace cellwise::testing;

namespace
{
  void
  expect_each_index_once(const std::size_t n, const std::size_t grain)
  {
    std::vector<std::atomic<int>> visits(n);
    parallel_for_ranges(n, grain, [&](const std::size_t begin, const std::size_t end) {
      ASSERT_LE(begin, end);
      ASSERT_LE(end, n);
      for (std::size_t i = begin; i < end; ++i)
        ++visits[i];
    });
    for (std::size_t i = 0; i < n; ++i)
      ASSERT_EQ(visits[i].load(), 1) << "index " << i << " of " << n << ", grain " << grain;
  }
} // namespace

TEST(ParallelLoops, OpenMPIsTheDefault)
{
  EXPECT_STREQ(loop_executor().name(), "OpenMP");
}

TEST(ParallelLoops, EveryIndexOnceOnOpenMP)
{
  for (const std::size_t n : {0, 1, 7, 16, 17, 1000, 100003})
    for (const std::size_t grain : {1, 3, 16, 4096})
      expect_each_index_once(n, grain);
}

TEST(ParallelLoops, EveryIndexOnceOnAnInstalledExecutor)
{
  const auto     executor = std::make_shared<ReversedSerialExecutor>();
  ScopedExecutor scope(executor);
  EXPECT_STREQ(loop_executor().name(), "reversed serial");
  for (const std::size_t n : {1, 7, 17, 1000})
    for (const std::size_t grain : {1, 3, 16})
      expect_each_index_once(n, grain);
  EXPECT_GT(executor->loops.load(), 0u);
}

TEST(ParallelLoops, ShortAndNestedLoopsRunInline)
{
  const auto     executor = std::make_shared<ReversedSerialExecutor>();
  ScopedExecutor scope(executor);
  // a loop no longer than its grain never reaches the executor
  parallel_for(16, 16, [](std::size_t) {});
  EXPECT_EQ(executor->loops.load(), 0u);
  // the inner loop runs inline on the thread of the outer body
  std::atomic<int> inner_ranges{0};
  parallel_for(8, 1, [&](std::size_t) {
    parallel_for_ranges(1000, 1, [&](std::size_t begin, std::size_t end) {
      EXPECT_EQ(begin, 0u);
      EXPECT_EQ(end, 1000u);
      ++inner_ranges;
    });
  });
  EXPECT_EQ(executor->loops.load(), 1u);
  EXPECT_EQ(inner_ranges.load(), 8);
}

TEST(ParallelLoops, ExceptionOfABodyReachesTheCaller)
{
  // under OpenMP an exception leaving a parallel region terminates the
  // program; here it is carried to the caller after the loop
  for (const bool openmp : {true, false})
    {
      ScopedExecutor scope(openmp ? openmp_loop_executor() : std::make_shared<ReversedSerialExecutor>());
      std::atomic<int> visited{0};
      EXPECT_THROW(parallel_for(10000, 1, [&](const std::size_t i) {
                     ++visited;
                     if (i == 5000)
                       throw std::runtime_error("bad value at 5000");
                   }),
                   std::runtime_error);
      EXPECT_GT(visited.load(), 0);
    }
}

TEST(ParallelLoops, ReductionsAreTheSameOnEveryExecutor)
{
  CellVector<double> a(3001, 3), b(3001, 3);
  fill_random(a, 1);
  fill_random(b, 2);
  BoxDescription box;
  box.subdivisions             = {{3, 2, 1}};
  const LevelHierarchy hierarchy = make_box_hierarchy(box, 2);
  const Level         &fine      = hierarchy.level(hierarchy.max_level());
  CellVector<double> u;
  interpolate(fine, 2, [](const Point &x) { return std::sin(3 * x[0]) * x[1] + x[2]; }, u);
  const auto exact = [](const Point &x) { return std::sin(3 * x[0]) * x[1]; };

  const double dot_openmp   = a.dot(b);
  const double norm_openmp  = a.l2_norm();
  const double error_openmp = compute_l2_error(fine, u, exact);
  {
    ScopedExecutor scope(std::make_shared<ReversedSerialExecutor>());
    EXPECT_EQ(a.dot(b), dot_openmp);
    EXPECT_EQ(a.l2_norm(), norm_openmp);
    EXPECT_EQ(compute_l2_error(fine, u, exact), error_openmp);
  }
  EXPECT_GT(error_openmp, 0.1); // the reduction summed something
}

TEST(ParallelLoops, ReplacingTheExecutorWhileLoopsRunIsSafe)
{
  std::atomic<bool> stop{false};
  std::thread       worker([&] {
    CellVector<double> v(5000, 2);
    while (!stop)
      v.fill(1.);
  });
  for (int k = 0; k < 200; ++k)
    set_loop_executor(k % 2 ? nullptr : std::make_shared<ReversedSerialExecutor>());
  stop = true;
  worker.join();
  set_loop_executor(nullptr);
  EXPECT_STREQ(loop_executor().name(), "OpenMP");
}
