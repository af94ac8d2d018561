#pragma once
/**
 * @file
 * The check that a solver's const solve() is safe to call from several
 * threads at once (base/work_space_lock.h): every thread's answer — monitors
 * and solution — equals, bit for bit, the answer of the same solve made
 * alone. Without the lock the threads share the outer work vectors and the
 * cycle's level vectors, and the answers come out wrong or the solve throws
 * ("⟨r, V r⟩ is negative"). Shared by the host and device solver tests; the
 * sanitizer script runs it under ThreadSanitizer.
 */

#include <cellwise/multigrid/solver_control.h>

#include <gtest/gtest.h>

#include <cstddef>
#include <exception>
#include <string>
#include <thread>
#include <vector>

namespace cellwise::testing
{
  /// A solve's answer.
  template <typename VectorType>
  struct SolveAnswer
  {
    std::vector<double> monitor;
    VectorType          u;
  };

  /// solver.solve(u, b, control) from a zero guess.
  template <typename Solver, typename VectorType>
  SolveAnswer<VectorType>
  solve_once(const Solver &solver, const VectorType &b, const unsigned int max_iterations, const double tolerance)
  {
    SolveAnswer<VectorType> answer;
    MonitorControl          control(max_iterations, tolerance);
    answer.u.reinit(b);
    answer.monitor = solver.solve(answer.u, b, control).monitor;
    return answer;
  }

  /// @p solver solves each of @p loads alone; then @p n_threads threads
  /// each solve the loads @p rounds times over, starting at different
  /// loads, all on the one @p solver; every answer must equal the lone one
  /// of its load. @p entries(u) gives a solution's values on the host.
  template <typename Solver, typename VectorType, typename Entries>
  void
  expect_concurrent_solves_as_lone_ones(const Solver                  &solver,
                                        const std::vector<VectorType> &loads,
                                        const unsigned int             max_iterations,
                                        const double                   tolerance,
                                        const Entries                 &entries,
                                        const unsigned int             n_threads = 4,
                                        const unsigned int             rounds    = 3)
  {
    std::vector<SolveAnswer<VectorType>> lone;
    for (const VectorType &b : loads)
      lone.push_back(solve_once(solver, b, max_iterations, tolerance));

    // every thread records its answers; the checks run on the main thread
    // (GoogleTest's assertions are not for other threads)
    struct Record
    {
      std::size_t         load;
      std::vector<double> monitor;
      std::vector<double> values;
    };
    std::vector<std::vector<Record>> records(n_threads);
    std::vector<std::string>         errors(n_threads);
    std::vector<std::thread>         threads;
    for (unsigned int t = 0; t < n_threads; ++t)
      threads.emplace_back([&, t] {
        try
          {
            for (unsigned int r = 0; r < rounds; ++r)
              for (std::size_t i = 0; i < loads.size(); ++i)
                {
                  const std::size_t load   = (i + t) % loads.size();
                  auto              answer = solve_once(solver, loads[load], max_iterations, tolerance);
                  records[t].push_back({load, answer.monitor, entries(answer.u)});
                }
          }
        catch (const std::exception &e)
          {
            errors[t] = e.what();
          }
      });
    for (std::thread &thread : threads)
      thread.join();

    for (unsigned int t = 0; t < n_threads; ++t)
      {
        SCOPED_TRACE("thread " + std::to_string(t));
        ASSERT_EQ(errors[t], "");
        ASSERT_EQ(records[t].size(), std::size_t(rounds) * loads.size());
        for (const Record &record : records[t])
          {
            const std::vector<double> expected = entries(lone[record.load].u);
            ASSERT_EQ(record.monitor, lone[record.load].monitor) << "load " << record.load;
            ASSERT_EQ(record.values.size(), expected.size());
            for (std::size_t k = 0; k < expected.size(); ++k)
              ASSERT_EQ(record.values[k], expected[k]) << "load " << record.load << ", entry " << k;
          }
      }
  }
} // namespace cellwise::testing
