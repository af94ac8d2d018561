// The solvers on host vectors by backend (multigrid/host_vector_solvers.h), on
// the host: Backend::host is MultigridSolver itself (uniform or locally refined)
// (the same iterates, bit for bit), precondition() is the solver's cycle,
// symmetric and positive as an outer CG needs, and Backend::cuda without a
// device is refused with the reason (the device half is tested in tests/cuda).

#include <cellwise/base/exceptions.h>
#include <cellwise/mesh/adaptive_builder.h>
#include <cellwise/mesh/box_builder.h>
#include <cellwise/multigrid/multigrid_solver.h>
#include <cellwise/multigrid/host_vector_solvers.h>
#include <cellwise/operators/function_tools.h>

#include <gtest/gtest.h>

#include "test_utilities.h"

#include <string>

using namespace cellwise;

namespace
{
  double
  one(const Point &)
  {
    return 1.;
  }
} // namespace

TEST(HostVectorSolver, HostBackendIsTheHostSolver)
{
  const LevelHierarchy h = make_box_hierarchy(BoxDescription{}, 3);
  const MultigridParameters parameters;
  const auto            solver = make_host_vector_solver(h, 2, parameters);
  const MultigridSolver reference(h, 2, parameters);
  EXPECT_EQ(solver->backend(), Backend::host);
  EXPECT_EQ(solver->memory_use().peak, 0u);
  CellVector<double> b, u, v;
  assemble_right_hand_side(h.levels.back(), 2, one, b);
  MonitorControl c1(50, 1e-10), c2(50, 1e-10);
  EXPECT_EQ(solver->solve(u, b, c1).iterations(), reference.solve(v, b, c2).iterations());
  for (std::size_t k = 0; k < u.storage_size(); ++k)
    ASSERT_EQ(u.data()[k], v.data()[k]);
  EXPECT_GT(solver->last_solve_seconds(), 0.);

  const BoxDescription    box;
  const LevelHierarchy    a        = make_adaptive_box_hierarchy(box, 1, 2, make_octant_marker(box));
  const auto              adaptive = make_adaptive_host_vector_solver(a, 2, parameters);
  const MultigridSolver adaptive_reference(a, 2, parameters);
  EXPECT_EQ(adaptive->active_mesh().n_active_cells(), adaptive_reference.n_active_cells());
}

TEST(HostVectorSolver, PreconditionIsTheSymmetricPositiveCycle)
{
  const LevelHierarchy h = make_box_hierarchy(BoxDescription{}, 3);
  for (const Precision precision : {Precision::fp64, Precision::mixed})
    {
      SCOPED_TRACE(to_string(precision));
      MultigridParameters parameters;
      parameters.precision = precision;
      const auto            solver = make_host_vector_solver(h, 2, parameters);
      const MultigridSolver reference(h, 2, parameters);
      CellVector<double>    r(h.levels.back().n_cells(), 2), s = r, vr, vs, expected = r;
      cellwise::testing::fill_random(r, 1);
      cellwise::testing::fill_random(s, 2);
      solver->precondition(vr, r);
      solver->precondition(vs, s);
      reference.preconditioner().vmult(expected, r);
      for (std::size_t k = 0; k < vr.storage_size(); ++k)
        ASSERT_EQ(vr.data()[k], expected.data()[k]);
      // <s, V r> = <r, V s> (the pairing of a dual with a primal), <r, V r> > 0;
      // FP32 levels: symmetric to their rounding
      const double tolerance = precision == Precision::fp64 ? 1e-12 : 1e-5;
      EXPECT_NEAR(s.dot(vr), r.dot(vs), tolerance * std::abs(s.dot(vr)));
      EXPECT_GT(r.dot(vr), 0.);
    }
}

TEST(HostVectorSolver, CudaWithoutADeviceIsRefusedWithTheReason)
{
  const std::string reason = backend_unavailable_reason(Backend::cuda);
  if (reason.empty())
    GTEST_SKIP() << "a CUDA device is present: tests/cuda runs the device backend";
  MultigridParameters parameters;
  parameters.backend     = Backend::cuda;
  const LevelHierarchy h = make_box_hierarchy(BoxDescription{}, 1);
  try
    {
      make_host_vector_solver(h, 2, parameters);
      ADD_FAILURE() << "no error without a CUDA device";
    }
  catch (const Error &e)
    {
      EXPECT_NE(std::string(e.what()).find(reason), std::string::npos) << e.what();
    }
  EXPECT_EQ(backend_unavailable_reason(Backend::host), "");
  EXPECT_EQ(parse_backend("cuda"), Backend::cuda);
  EXPECT_THROW(parse_backend("gpu"), Error);
}
