// The device general Laplacian (cuda::GeneralLaplaceOperator) against the
// host LaplaceOperator (its oracle) on the same seeded data, FP64 and FP32,
// both layouts, degrees 1, 2, 3, 4 and 7: vmult (destination poisoned with
// NaN), vmult_add, residual (also with b the destination) and the cell
// diagonals (poisoned), on every metric form — boxes (cartesian), boxes with
// the coefficient at the points (cartesian_coefficient), a sheared box
// (affine), a box mapped by a smooth wobble and the Kershaw box (general),
// the ball (an unstructured coarse mesh: general and affine cells side by
// side) with the coefficient at the points and averaged — and the cell
// counts per form against the host metric's; in the blocked layout at
// degrees 2..4 with both kernels (lines, planes), and there the smoother
// step inside the plane kernel's pass against the line kernel's two.
// General cells with one coefficient per cell are checked recomputed from
// their mapping nodes (mappings of degree 1, 2, 3), stored, and as the
// default chooses (recomputed for degree 1 only); a mapping of degree 4 falls
// back to the stored metric. An operator built from a given host metric (a
// mixed solve's FP32 finest level, rounded from FP64) applies what the one
// that makes its own applies, bit for bit.

#include <cellwise/mesh/box_builder.h>
#include <cellwise/mesh/cell_mapping.h>
#include <cellwise/mesh/kershaw_map.h>
#include <cellwise/mesh/unstructured_builder.h>
#include <cellwise/operators/cuda_general_laplace_operator.h>
#include <cellwise/operators/laplace_operator.h>
#include <cellwise/operators/smoother_step.h>

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "cuda/cuda_test_utilities.h"
#include "test_utilities.h"

using namespace cellwise;
using namespace cellwise::testing;

namespace
{
  double
  coefficient(const Point &x)
  {
    return 1. + 0.5 * std::sin(3. * x[0]) * std::cos(2. * x[1] + x[2]);
  }

  struct Mesh
  {
    std::string           name;
    LevelHierarchy        hierarchy;
    bool                  with_coefficient = false;
    CoefficientEvaluation evaluation       = CoefficientEvaluation::quadrature_points;
  };

  std::vector<Mesh>
  meshes()
  {
    BoxDescription box;
    box.lower        = {{0.1, -0.2, 0.3}};
    box.upper        = {{1.1, 0.8, 0.9}};
    box.subdivisions = {{3, 2, 2}};
    std::vector<Mesh> result;
    result.push_back({"box", make_box_hierarchy(box, 1)});
    result.push_back({"box, coefficient at the points", make_box_hierarchy(box, 1), true});
    LevelHierarchy sheared = make_box_hierarchy(box, 1);
    map_hierarchy(sheared, 1, [](const Point &x) { return Point{{x[0] + 0.3 * x[1], 1.5 * x[1] - 0.2 * x[2], x[2] + 0.1 * x[0]}}; });
    result.push_back({"sheared box", std::move(sheared)});
    LevelHierarchy wobbled = make_box_hierarchy(box, 1);
    map_hierarchy(wobbled, 2, [](const Point &x) {
      return Point{{x[0] + 0.06 * std::sin(2. * x[1] + 1.) * std::cos(x[2]), x[1] + 0.06 * std::sin(3. * x[0] * x[2] + 0.5),
                    x[2] + 0.06 * std::cos(2. * x[0] + x[1])}};
    });
    result.push_back({"wobbled box, coefficient at the points", std::move(wobbled), true});
    BoxDescription unit;
    unit.subdivisions     = {{4, 4, 4}};
    LevelHierarchy kershaw = make_box_hierarchy(unit, 0);
    map_hierarchy(kershaw, 1, kershaw_map(0.3, 0.3));
    result.push_back({"Kershaw box", std::move(kershaw)});
    result.push_back({"ball, coefficient at the points", make_unstructured_hierarchy(make_ball_coarse_mesh(), 1, 2), true});
    result.push_back({"ball, averaged coefficient", make_unstructured_hierarchy(make_ball_coarse_mesh(), 1, 2), true,
                      CoefficientEvaluation::cell_average});
    // 12 cells (not a multiple of 32), mappings of degree 3 and 4
    const auto wobble = [](const Point &x) {
      return Point{{x[0] + 0.05 * std::sin(2. * x[1] + x[2]), x[1] + 0.05 * std::cos(3. * x[0]) * x[2], x[2] + 0.04 * x[0] * x[1]}};
    };
    for (const unsigned int k : {3u, 4u})
      {
        LevelHierarchy h = make_box_hierarchy(box, 0);
        map_hierarchy(h, k, wobble);
        result.push_back({"wobbled box, mapping of degree " + std::to_string(k), std::move(h)});
      }
    LevelHierarchy averaged = make_box_hierarchy(unit, 0);
    map_hierarchy(averaged, 1, kershaw_map(0.3, 0.3));
    result.push_back({"Kershaw box, averaged coefficient", std::move(averaged), true, CoefficientEvaluation::cell_average});
    return result;
  }
} // namespace

template <typename Pair>
class CudaGeneralLaplace : public ::testing::Test
{
public:
  using Number     = typename Pair::first_type;
  using Layout     = typename Pair::second_type;
  using HostVector = CellVector<Number, MemorySpace::Host, Layout>;
  using Vector     = CellVector<Number, MemorySpace::CUDA, Layout>;
};
TYPED_TEST_SUITE(CudaGeneralLaplace, NumberLayoutPairs);

TYPED_TEST(CudaGeneralLaplace, operator_and_diagonals_match_host)
{
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  using Number     = typename TestFixture::Number;
  using Layout     = typename TestFixture::Layout;
  using HostVector = typename TestFixture::HostVector;
  using Vector     = typename TestFixture::Vector;
  const double tol = device_tolerance<Number>();
  const Number nan = std::numeric_limits<Number>::quiet_NaN();

  unsigned int seed = 0;
  for (const Mesh &mesh : meshes())
    for (const unsigned int degree : {1u, 2u, 3u, 4u, 7u})
      for (const cuda::GeneralCellMetric general :
           {cuda::GeneralCellMetric::automatic, cuda::GeneralCellMetric::recomputed, cuda::GeneralCellMetric::stored})
        {
          const Level &level = mesh.hierarchy.levels.back();
          SCOPED_TRACE(::testing::Message() << mesh.name << ", " << level.n_cells() << " cells, degree " << degree << ", general cells "
                                            << (general == cuda::GeneralCellMetric::recomputed ? "recomputed"
                                                : general == cuda::GeneralCellMetric::stored     ? "stored"
                                                                                                 : "automatic"));
          LaplaceOperator<Number, Layout> host_op(level, degree);
          const ScalarFunction            c = mesh.with_coefficient ? ScalarFunction(coefficient) : ScalarFunction();
          if (mesh.with_coefficient)
            host_op.set_coefficient(level, c, mesh.evaluation);
          cuda::GeneralLaplaceOperator<Number, Layout> device_op(level, degree, c, mesh.evaluation, general);
          EXPECT_EQ(device_op.n_cells(), level.n_cells());
          EXPECT_EQ(device_op.form_counts(), host_op.metric().count());
          const unsigned int k          = level.mapping.degree;
          const unsigned int max_k      = general == cuda::GeneralCellMetric::recomputed  ? 3
                                          : general == cuda::GeneralCellMetric::automatic ? 1
                                                                                          : 0;
          const bool         recomputes = k >= 1 && k <= max_k &&
                                  (!mesh.with_coefficient || mesh.evaluation == CoefficientEvaluation::cell_average);
          EXPECT_EQ(device_op.recomputed_cells(), recomputes ? host_op.metric().count()[3] : 0u);

          HostVector hu(level.n_cells(), degree), hb(level.n_cells(), degree), hdst(level.n_cells(), degree);
          fill_random(hu, ++seed);
          fill_random(hb, ++seed);
          fill_random(hdst, ++seed);
          const Vector du = to_device(hu), db = to_device(hb);

          HostVector expected;
          // every kernel that takes the operator: lines, and planes in the
          // blocked layout at degrees 2..4
          std::vector<cuda::GeneralKernel> kernels = {cuda::GeneralKernel::lines};
          if (device_op.planes_available())
            kernels.push_back(cuda::GeneralKernel::planes);
          const bool blocked = !std::is_same_v<Layout, CellContiguous>;
          EXPECT_EQ(device_op.planes_available(), blocked && degree >= 2 && degree <= 4);
          for (const cuda::GeneralKernel kernel : kernels)
            {
              SCOPED_TRACE(kernel == cuda::GeneralKernel::planes ? "plane kernel" : "line kernel");
              device_op.use_kernel(kernel);
              ASSERT_EQ(device_op.kernel(), kernel);
              host_op.vmult(expected, hu);
              Vector ddst(level.n_cells(), degree);
              ddst.fill(nan);
              device_op.vmult(ddst, du);
              EXPECT_LE(relative_difference(to_host(ddst), expected), tol) << "vmult";

              expected = hdst;
              host_op.vmult_add(expected, hu);
              ddst.copy_from_host(hdst);
              device_op.vmult_add(ddst, du);
              EXPECT_LE(relative_difference(to_host(ddst), expected), tol) << "vmult_add";

              host_op.residual(expected, hb, hu);
              ddst.fill(nan);
              device_op.residual(ddst, db, du);
              EXPECT_LE(relative_difference(to_host(ddst), expected), tol) << "residual";
              Vector in_place = to_device(hb);
              device_op.residual(in_place, in_place, du);
              EXPECT_LE(relative_difference(to_host(in_place), expected), tol) << "residual in place of b";
            }
          if (!device_op.planes_available())
            EXPECT_THROW(device_op.use_kernel(cuda::GeneralKernel::planes), Error);
          else
            {
              // the smoother step inside the plane kernel's pass against the
              // line kernel's two passes: u, d and r after a first step from
              // zero (d stored), a Chebyshev step (d read and stored) and a
              // step that reads d without storing it; D⁻¹ random with masked
              // (zero) entries
              HostVector hinverse(level.n_cells(), degree), hd(level.n_cells(), degree);
              fill_random(hinverse, ++seed);
              fill_random(hd, ++seed);
              for (unsigned int cell = 0; cell < level.n_cells(); ++cell)
                for (unsigned int i = 0; i < hinverse.dofs_per_cell(); ++i)
                  hinverse(cell, i) = (cell + i) % 5 == 0 ? Number(0) : Number(1.5) + hinverse(cell, i);
              const Vector               dinverse = to_device(hinverse);
              SmootherStep<Number>       first, chebyshev, last;
              first.beta               = Number(0.7);
              first.zero_initial_guess = true;
              first.store_update       = true;
              chebyshev.alpha          = Number(0.3);
              chebyshev.beta           = Number(0.6);
              chebyshev.store_update   = true;
              last.alpha               = Number(0.2);
              last.beta                = Number(0.9);
              for (const SmootherStep<Number> &step : {first, chebyshev, last})
                {
                  SCOPED_TRACE(::testing::Message() << "smoother step alpha " << step.alpha << ", from zero "
                                                    << step.zero_initial_guess << ", stores d " << step.store_update);
                  Vector results[2][3]; // [kernel][u, d, r]
                  for (const int k : {0, 1})
                    {
                      device_op.use_kernel(k == 0 ? cuda::GeneralKernel::lines : cuda::GeneralKernel::planes);
                      Vector &u = results[k][0], &d = results[k][1], &r = results[k][2];
                      u = to_device(hu);
                      d = to_device(hd);
                      r = to_device(hdst); // z, assembled or not: the step only reads it
                      device_op.smoother_step(u, r, &d, db, dinverse, step);
                    }
                  EXPECT_LE(relative_difference(to_host(results[1][0]), to_host(results[0][0])), tol) << "u";
                  EXPECT_LE(relative_difference(to_host(results[1][1]), to_host(results[0][1])), tol) << "d";
                  EXPECT_LE(relative_difference(to_host(results[1][2]), to_host(results[0][2])), tol) << "r";
                }
            }

          host_op.compute_cell_diagonals(expected);
          Vector diagonal(level.n_cells(), degree);
          diagonal.fill(nan);
          device_op.compute_cell_diagonals(diagonal);
          EXPECT_LE(relative_difference(to_host(diagonal), expected), tol) << "cell diagonals";
        }
}

TEST(CudaGeneralLaplaceChecks, RefusesBadInput)
{
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  BoxDescription box;
  box.subdivisions = {{2, 2, 2}};
  LevelHierarchy folded = make_box_hierarchy(box, 0);
  map_hierarchy(folded, 1, [](const Point &x) { return Point{{-x[0], x[1], x[2]}}; });
  EXPECT_THROW(cuda::GeneralLaplaceOperator<double>(folded.levels.back(), 2), Error) << "an inverted cell";
  const LevelHierarchy h = make_box_hierarchy(box, 0);
  EXPECT_THROW(cuda::GeneralLaplaceOperator<double>(h.levels.back(), 2, [](const Point &) { return -1.; }), Error);
  EXPECT_THROW(cuda::GeneralLaplaceOperator<double>(h.levels.back(), 0), Error);
  const cuda::GeneralLaplaceOperator<double> op(h.levels.back(), 2);
  CellVector<double, MemorySpace::CUDA>      u(h.levels.back().n_cells(), 3), v(h.levels.back().n_cells(), 2);
  EXPECT_THROW(op.vmult(v, u), Error) << "wrong degree";
  EXPECT_THROW(op.vmult(v, v), Error) << "aliased";
}

// The operator of a given host metric (a mixed solve's FP32 finest level,
// from the FP64 metric rounded) applies, bit for bit, what the operator that
// makes its own metric applies; a metric made with other general values, or
// for another level, is refused.
TEST(CudaGeneralLaplaceChecks, OperatorFromAGivenMetricIsTheSame)
{
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  using Layout = CellBlocked<32>;
  for (const Mesh &mesh : meshes())
    {
      if (mesh.with_coefficient)
        continue;
      const Level &level = mesh.hierarchy.levels.back();
      SCOPED_TRACE(mesh.name);
      const unsigned int      degree = 3;
      const GeneralCellValues values =
        cuda::GeneralLaplaceOperator<float, Layout>::host_values(level, {}, CoefficientEvaluation::quadrature_points,
                                                                 cuda::GeneralCellMetric::automatic);
      const LaplaceMetric<float> rounded =
        rounded_to_float(make_laplace_metric<double>(level, degree, {}, CoefficientEvaluation::quadrature_points, values));
      const cuda::GeneralLaplaceOperator<float, Layout> own(level, degree), given(level, degree, rounded);
      EXPECT_EQ(given.form_counts(), own.form_counts());
      EXPECT_EQ(given.metric_bytes(), own.metric_bytes());
      CellVector<float, MemorySpace::Host, Layout> host_u(level.n_cells(), degree);
      fill_random(host_u, 7);
      CellVector<float, MemorySpace::CUDA, Layout> u, a, b;
      u.copy_from_host(host_u);
      own.vmult(a, u);
      given.vmult(b, u);
      const auto x = to_host(a), y = to_host(b);
      ASSERT_EQ(x.storage_size(), y.storage_size());
      for (std::size_t i = 0; i < x.storage_size(); ++i)
        ASSERT_EQ(x.data()[i], y.data()[i]) << "entry " << i;
      // the other general values than this operator takes
      const GeneralCellValues other = values == GeneralCellValues::stored ? GeneralCellValues::omitted : GeneralCellValues::stored;
      const LaplaceMetric<float> wrong = make_laplace_metric<float>(level, degree, {}, CoefficientEvaluation::quadrature_points, other);
      if (wrong.data.size() != rounded.data.size())
        EXPECT_THROW((cuda::GeneralLaplaceOperator<float, Layout>(level, degree, wrong)), Error);
      EXPECT_THROW((cuda::GeneralLaplaceOperator<float, Layout>(level, 2, rounded)), Error) << "another degree";
    }
}
