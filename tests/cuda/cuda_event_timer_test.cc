// cuda::EventTimer and the timed device solver: exclusive parts that add up to
// the span of an enclosing part, call counts, misuse refused; a solver given
// a timer computes bit for bit what the untimed solver computes and reports
// every part of 000 Table 11.

#include <cellwise/base/cuda_event_timer.h>
#include <cellwise/mesh/box_builder.h>
#include <cellwise/mesh/cell_mapping.h>
#include <cellwise/mesh/kershaw_map.h>
#include <cellwise/multigrid/cuda_multigrid_solver.h>
#include <cellwise/operators/function_tools.h>

#include <gtest/gtest.h>

#include "cuda/cuda_test_utilities.h"

#include <algorithm>
#include <cmath>
#include <string>

using namespace cellwise;

namespace
{
  using Vector = CellVector<double, MemorySpace::CUDA, CellContiguous>;

  const cuda::EventTimer::Part &
  find_part(const std::vector<cuda::EventTimer::Part> &parts, const std::string &name)
  {
    const auto found = std::find_if(parts.begin(), parts.end(), [&](const auto &p) { return p.name == name; });
    if (found == parts.end())
      throw std::runtime_error("no part named '" + name + "'");
    return *found;
  }
} // namespace

TEST(CudaEventTimer, parts_are_exclusive_and_add_up)
{
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  Vector x(20000, 3), y(20000, 3);
  x.fill(1.);
  cuda::EventTimer timer;
  for (int run = 0; run < 3; ++run)
    {
      TimedScope outer(timer, "outer");
      y.equ(2., x);
      {
        TimedScope inner(timer, "inner");
        for (int k = 0; k < 20; ++k)
          y.add(1., x);
      }
      y.add(1., x);
    }
  const auto parts = timer.parts();
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[0].name, "outer");
  EXPECT_EQ(parts[1].name, "inner");
  EXPECT_EQ(parts[0].calls, 3u);
  EXPECT_EQ(parts[1].calls, 3u);
  EXPECT_GT(parts[0].seconds, 0.);
  // the inner part runs ten times the kernels of the outer part's own time
  EXPECT_GT(parts[1].seconds, parts[0].seconds);
  // three outer spans with two gaps between them: the parts leave the gaps out
  EXPECT_LE(parts[0].seconds + parts[1].seconds, timer.span() * (1 + 1e-5));
  EXPECT_EQ(y.l2_norm(), std::sqrt(23. * 23. * x.storage_size()));
}

TEST(CudaEventTimer, misuse_is_refused)
{
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  cuda::EventTimer timer;
  EXPECT_THROW(timer.end(), Error);
  timer.begin("open");
  EXPECT_THROW(timer.parts(), Error);
  EXPECT_THROW(timer.clear(), Error);
  timer.end();
  EXPECT_EQ(timer.parts().size(), 1u);
  timer.clear();
  EXPECT_TRUE(timer.parts().empty());
}

TEST(CudaEventTimer, timed_solver_computes_what_the_untimed_one_does)
{
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  constexpr double     pi = 3.14159265358979323846;
  const LevelHierarchy mesh = make_box_hierarchy(BoxDescription{}, 3);
  const Level         &fine = mesh.levels.back();
  CellVector<double>   host_b;
  assemble_right_hand_side(fine, 3, [](const Point &p) { return std::sin(pi * p[0]) * std::cos(p[1]) + p[2]; }, host_b);
  Vector b;
  b.copy_from_host(host_b);

  MultigridParameters parameters;
  parameters.smoother  = SmootherType::patch;
  parameters.outer     = OuterIteration::stationary;
  parameters.precision = Precision::mixed;
  const cuda::MultigridSolver<CellContiguous> plain(mesh, 3, parameters);
  cuda::EventTimer                            timer;
  const cuda::MultigridSolver<CellContiguous> timed(mesh, 3, parameters, nullptr, &timer);

  Vector        u_plain(fine.n_cells(), 3), u_timed(fine.n_cells(), 3);
  MonitorControl control_plain(20, 1e-9), control_timed(20, 1e-9);
  const auto    plain_statistics = plain.solve(u_plain, b, control_plain);
  const auto    timed_statistics = timed.solve(u_timed, b, control_timed);
  EXPECT_EQ(plain_statistics.monitor, timed_statistics.monitor);
  u_timed.add(-1., u_plain);
  EXPECT_EQ(u_timed.linfty_norm(), 0.);

  const auto         parts  = timer.parts();
  const unsigned int cycles = timed_statistics.iterations() + 1; // one per monitor value
  EXPECT_EQ(find_part(parts, "FP64/FP32 conversions").calls, cycles);
  // every correction is followed by the next residual: the FP32 correction
  // is widened into u in the pass that forms it, once per correction added;
  // the operator alone forms the first residual only
  EXPECT_EQ(find_part(parts, "correction update (widened) and the next residual").calls, timed_statistics.iterations());
  EXPECT_EQ(find_part(parts, "cycle: zero fills, vector operations").calls, cycles);
  EXPECT_EQ(find_part(parts, "FP64 operator").calls, 1u);
  EXPECT_EQ(find_part(parts, "rebalancing (mean DSS)").calls, cycles); // every cycle when stationary
  EXPECT_EQ(find_part(parts, "coarse solve").calls, cycles);
  // pre- and post-smoothing on levels 1..3; per level one prolongation and
  // one restriction with the level operator inside it (Q3 takes the fused
  // cuda::LaplaceResidualRestriction: no separate level operator, no A u)
  EXPECT_EQ(find_part(parts, "patch smoother").calls, 2 * 3 * cycles);
  EXPECT_EQ(find_part(parts, "transfers").calls, 3 * cycles);
  EXPECT_EQ(find_part(parts, "residual restrictions (level operator fused)").calls, 3 * cycles);
  EXPECT_TRUE(std::none_of(parts.begin(), parts.end(), [](const auto &p) { return p.name == "level operators"; }));
  for (const auto &part : parts)
    EXPECT_GT(part.seconds, 0.) << part.name;
}

// The same for the general parts on mapped cells (cuda::MultigridSolver
// on the Kershaw box, Q2, L = 2, CG with the Chebyshev V-cycle, FP64 and
// mixed, both operator kernels): the timed solve gives the untimed one's
// monitors and solution, and its parts count what CG calls.
TEST(CudaEventTimer, timed_general_solver_computes_what_the_untimed_one_does)
{
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  using Blocked = CellBlocked<32>;
  BoxDescription box;
  box.subdivisions = {{6, 2, 2}};
  LevelHierarchy mesh = make_box_hierarchy(box, 2);
  map_hierarchy(mesh, 1, kershaw_map(0.3, 0.3));
  const Level       &fine = mesh.levels.back();
  CellVector<double> host_b;
  assemble_right_hand_side(fine, 2, [](const Point &p) { return 1. + p[0] * p[1] - p[2]; }, host_b);
  CellVector<double, MemorySpace::CUDA> staged;
  staged.copy_from_host(host_b);
  CellVector<double, MemorySpace::CUDA, Blocked> b;
  b.copy_from(staged);
  for (const Precision precision : {Precision::fp64, Precision::mixed})
    for (const cuda::GeneralKernel kernel : {cuda::GeneralKernel::lines, cuda::GeneralKernel::planes})
      {
        SCOPED_TRACE(::testing::Message() << (precision == Precision::fp64 ? "FP64" : "mixed") << ", "
                                          << (kernel == cuda::GeneralKernel::planes ? "planes" : "lines"));
        MultigridParameters parameters;
        parameters.precision = precision;
        const cuda::MultigridSolver<Blocked> plain(mesh, 2, parameters, nullptr, nullptr, kernel);
        cuda::EventTimer                            timer;
        const cuda::MultigridSolver<Blocked> timed(mesh, 2, parameters, nullptr, &timer, kernel);
        CellVector<double, MemorySpace::CUDA, Blocked> u_plain(fine.n_cells(), 2), u_timed(fine.n_cells(), 2);
        MonitorControl                                 control_plain(100, 1e-9), control_timed(100, 1e-9);
        const auto plain_statistics = plain.solve(u_plain, b, control_plain);
        const auto timed_statistics = timed.solve(u_timed, b, control_timed);
        EXPECT_EQ(plain_statistics.monitor, timed_statistics.monitor);
        u_timed.add(-1., u_plain);
        EXPECT_EQ(u_timed.linfty_norm(), 0.);

        const auto         parts  = timer.parts();
        const unsigned int cycles = timed_statistics.iterations() + 1; // one per monitor value
        // the initial residual, then A p per CG step
        EXPECT_EQ(find_part(parts, "FP64 operator").calls, cycles);
        // mixed CG rebalances the residuals of steps 0, k, 2k, ...; FP64 never
        if (precision == Precision::mixed)
          EXPECT_EQ(find_part(parts, "rebalancing (mean DSS)").calls,
                    timed_statistics.iterations() / parameters.effective_rebalance_period() + 1);
        EXPECT_EQ(find_part(parts, "coarse solve").calls, cycles);
        // pre- and post-smoothing on levels 1 and 2
        EXPECT_EQ(find_part(parts, "chebyshev smoother").calls, 2 * 2 * cycles);
        if (precision == Precision::mixed)
          EXPECT_GT(find_part(parts, "FP64/FP32 conversions").calls, 0u);
        for (const auto &part : parts)
          EXPECT_GT(part.seconds, 0.) << part.name;
      }
}
