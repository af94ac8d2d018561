// The solvers on host vectors by backend (multigrid/host_vector_solvers.h):
// on Backend::cuda the uniform and the adaptive solve give the host backend's
// iteration counts and its solution to 1e-10 relative, FP64 and mixed, from a
// zero and from a non-zero guess, with and without a variable coefficient,
// and report the device memory they used; precondition() on the device is
// the host's cycle to 1e-12 (FP64) and 1e-5 (mixed) on seeded random
// residuals; the coefficient with the patch smoother is refused on the device.
// Mapped cells (the Kershaw box) and a coefficient at the quadrature points
// go to the general device solver and agree with the host backend as well.

#include <cellwise/base/exceptions.h>
#include <cellwise/mesh/adaptive_builder.h>
#include <cellwise/mesh/box_builder.h>
#include <cellwise/mesh/cell_mapping.h>
#include <cellwise/mesh/kershaw_map.h>
#include <cellwise/multigrid/host_vector_solvers.h>
#include <cellwise/operators/function_tools.h>

#include <gtest/gtest.h>

#include "cuda/cuda_test_utilities.h"
#include "test_utilities.h"

#include <cmath>

using namespace cellwise;
using namespace cellwise::testing;

namespace
{
  double
  rhs(const Point &x)
  {
    return 1. + x[0] * (1.5 - x[1]) * std::sin(3. * x[2]);
  }

  /// step-37's coefficient 1 / (0.05 + 2 |x|²)
  double
  step37_coefficient(const Point &x)
  {
    return 1. / (0.05 + 2. * (x[0] * x[0] + x[1] * x[1] + x[2] * x[2]));
  }

  double
  relative_difference(const CellVector<double> &a, const CellVector<double> &b)
  {
    CellVector<double> d = a;
    d.add(-1., b);
    return d.l2_norm() / b.l2_norm();
  }

  template <typename Make>
  void
  expect_backends_agree(const Make &make, const Level &rhs_level, const unsigned int degree, const MultigridParameters &base)
  {
    // the zero guess given as zeros and as an empty vector (made on the
    // device, not uploaded), and a non-zero guess
    for (const int guess : {0, 1, 2})
      {
        const bool nonzero_guess = guess == 2, empty_guess = guess == 1;
        MultigridParameters on_host = base, on_device = base;
        on_host.backend           = Backend::host;
        on_device.backend         = Backend::cuda;
        const auto host_solver   = make(on_host);
        const auto device_solver = make(on_device);
        EXPECT_EQ(device_solver->backend(), Backend::cuda);
        CellVector<double> b;
        assemble_right_hand_side(rhs_level, degree, rhs, b);
        CellVector<double> u_host(b.n_cells(), degree), u_device;
        if (nonzero_guess)
          u_host.fill(0.5); // continuous; its boundary values make the problem inhomogeneous, on both
        if (!empty_guess)
          u_device = u_host;
        MonitorControl c1(100, 1e-12), c2(100, 1e-12);
        const auto     s_host   = host_solver->solve(u_host, b, c1);
        const auto     s_device = device_solver->solve(u_device, b, c2);
        SCOPED_TRACE(::testing::Message() << "precision " << to_string(base.precision) << ", guess "
                                          << (nonzero_guess ? "0.5" : empty_guess ? "empty (zero)" : "zero"));
        ASSERT_EQ(u_device.n_cells(), b.n_cells());
        EXPECT_LE(std::abs(int(s_host.iterations()) - int(s_device.iterations())), base.precision == Precision::mixed ? 1 : 0);
        EXPECT_LE(relative_difference(u_device, u_host), 1e-10);
        EXPECT_GT(device_solver->last_solve_seconds(), 0.);
        EXPECT_GT(device_solver->memory_use().peak, 0u);
        if (guess == 0)
          {
            CellVector<double> r(b.n_cells(), degree), z_host, z_device;
            fill_random(r, 7);
            host_solver->precondition(z_host, r);
            device_solver->precondition(z_device, r);
            EXPECT_LE(relative_difference(z_device, z_host), base.precision == Precision::mixed ? 1e-5 : 1e-12);
          }
      }
  }
} // namespace

TEST(CudaHostVectorSolver, uniform_matches_host_backend)
{
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  BoxDescription box;
  box.subdivisions          = {{3, 2, 1}};
  const LevelHierarchy h    = make_box_hierarchy(box, 3);
  for (const Precision precision : {Precision::fp64, Precision::mixed})
    for (const bool with_coefficient : {false, true})
      {
        MultigridParameters parameters;
        parameters.precision = precision;
        if (with_coefficient) // averaged per cell: the form the device takes
          {
            parameters.coefficient            = step37_coefficient;
            parameters.coefficient_evaluation = CoefficientEvaluation::cell_average;
          }
        SCOPED_TRACE(with_coefficient ? "step-37 coefficient" : "constant coefficient");
        expect_backends_agree([&](const MultigridParameters &p) { return make_host_vector_solver(h, 3, p); }, h.levels.back(),
                              3, parameters);
      }
  MultigridParameters patch;
  patch.smoother    = SmootherType::patch;
  patch.outer       = OuterIteration::stationary;
  patch.coefficient = step37_coefficient;
  patch.coefficient_evaluation = CoefficientEvaluation::cell_average;
  patch.backend     = Backend::cuda;
  EXPECT_THROW(make_host_vector_solver(h, 3, patch), Error);
}

TEST(CudaHostVectorSolver, mapped_cells_and_coefficient_at_points_match_host_backend)
{
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  BoxDescription box;
  box.subdivisions = {{2, 2, 2}};
  LevelHierarchy kershaw = make_box_hierarchy(box, 2);
  map_hierarchy(kershaw, 1, kershaw_map(0.3, 0.3));
  const LevelHierarchy boxes = make_box_hierarchy(box, 2);
  for (const Precision precision : {Precision::fp64, Precision::mixed})
    {
      MultigridParameters parameters;
      parameters.precision = precision;
      {
        SCOPED_TRACE("Kershaw box");
        expect_backends_agree([&](const MultigridParameters &p) { return make_host_vector_solver(kershaw, 3, p); },
                              kershaw.levels.back(), 3, parameters);
      }
      for (const LevelHierarchy *h : {&boxes, static_cast<const LevelHierarchy *>(&kershaw)})
        {
          SCOPED_TRACE(h == &boxes ? "step-37 coefficient at the points, box" : "step-37 coefficient at the points, Kershaw box");
          MultigridParameters with_coefficient = parameters;
          with_coefficient.coefficient         = step37_coefficient; // at the quadrature points, the default
          expect_backends_agree([&](const MultigridParameters &p) { return make_host_vector_solver(*h, 2, p); },
                                h->levels.back(), 2, with_coefficient);
        }
    }
}

TEST(CudaHostVectorSolver, adaptive_matches_host_backend)
{
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  const BoxDescription box;
  const LevelHierarchy h = make_adaptive_box_hierarchy(box, 2, 2, make_octant_marker(box));
  const auto           probe = make_adaptive_host_vector_solver(h, 2, MultigridParameters{});
  for (const bool with_coefficient : {false, true})
    {
      MultigridParameters parameters;
      if (with_coefficient)
        {
          parameters.coefficient            = step37_coefficient;
          parameters.coefficient_evaluation = CoefficientEvaluation::cell_average;
        }
      SCOPED_TRACE(with_coefficient ? "step-37 coefficient" : "constant coefficient");
      expect_backends_agree([&](const MultigridParameters &p) { return make_adaptive_host_vector_solver(h, 2, p); },
                            probe->active_mesh().level, 2, parameters);
    }
}
