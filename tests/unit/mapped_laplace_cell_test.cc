// The metric recomputed from a cell's mapping nodes (kernels/
// mapped_laplace_cell.h) against the stored one (make_laplace_metric, the
// host LaplaceOperator): the general kernel with metric_from_nodes gives the
// host operator's A_K u on every cell of the Kershaw box (trilinear), a
// wobbled box (mapping of degree 2), a sheared box (affine cells) and the
// ball (an unstructured coarse mesh, mapping of degree 2), degrees 1..4, and
// with a coefficient averaged per cell (CoefficientEvaluation::cell_average:
// the metric scaled by the cell's average c, also on curved cells); and
// inverse_metric is det J J⁻¹ J⁻ᵀ (G Jᵀ J = det J · I); make_laplace_metric
// without the general cells' values keeps everything else; and nodes read
// where the mapping keeps them, with the first as the origin, give the
// metric of the nodes made relative on the host, bit for bit; and the FP64
// metric rounded to FP32 is make_laplace_metric<float>, bit for bit.

#include <cellwise/base/degree_dispatch.h>
#include <cellwise/fe/lagrange_basis_1d.h>
#include <cellwise/fe/quadrature.h>
#include <cellwise/kernels/general_laplace_cell.h>
#include <cellwise/kernels/mapped_laplace_cell.h>
#include <cellwise/mesh/box_builder.h>
#include <cellwise/mesh/cell_mapping.h>
#include <cellwise/mesh/kershaw_map.h>
#include <cellwise/mesh/unstructured_builder.h>
#include <cellwise/operators/laplace_metric.h>
#include <cellwise/operators/laplace_operator.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "test_utilities.h"

using namespace cellwise;
using namespace cellwise::testing;

namespace
{
  struct Mesh
  {
    std::string    name;
    LevelHierarchy hierarchy;
  };

  std::vector<Mesh>
  meshes()
  {
    BoxDescription box;
    box.lower        = {{0.1, -0.2, 0.3}};
    box.upper        = {{1.1, 0.8, 0.9}};
    box.subdivisions = {{3, 2, 2}};
    std::vector<Mesh> result;
    BoxDescription    unit;
    unit.subdivisions      = {{4, 4, 4}};
    LevelHierarchy kershaw = make_box_hierarchy(unit, 0);
    map_hierarchy(kershaw, 1, kershaw_map(0.3, 0.3));
    result.push_back({"Kershaw box", std::move(kershaw)});
    LevelHierarchy wobbled = make_box_hierarchy(box, 1);
    map_hierarchy(wobbled, 2, [](const Point &x) {
      return Point{{x[0] + 0.06 * std::sin(2. * x[1] + 1.) * std::cos(x[2]), x[1] + 0.06 * std::sin(3. * x[0] * x[2] + 0.5),
                    x[2] + 0.06 * std::cos(2. * x[0] + x[1])}};
    });
    result.push_back({"wobbled box", std::move(wobbled)});
    LevelHierarchy sheared = make_box_hierarchy(box, 0);
    map_hierarchy(sheared, 1, [](const Point &x) { return Point{{x[0] + 0.3 * x[1], 1.5 * x[1] - 0.2 * x[2], x[2] + 0.1 * x[0]}}; });
    result.push_back({"sheared box", std::move(sheared)});
    result.push_back({"ball", make_unstructured_hierarchy(make_ball_coarse_mesh(), 1, 2)});
    return result;
  }
} // namespace

TEST(MappedLaplaceCell, RecomputedMetricGivesTheStoredOperator)
{
  unsigned int seed = 0;
  for (const Mesh &mesh : meshes())
    for (const unsigned int degree : {1u, 2u, 3u, 4u})
      for (const bool averaged : {false, true})
        {
          const Level &level = mesh.hierarchy.levels.back();
          SCOPED_TRACE(::testing::Message() << mesh.name << ", " << level.n_cells() << " cells, degree " << degree
                                            << ", mapping degree " << level.mapping.degree
                                            << (averaged ? ", coefficient averaged per cell" : ""));
          ASSERT_FALSE(level.mapping.empty());
          LaplaceOperator<double> op(level, degree);
          if (averaged)
            op.set_coefficient(level, [](const Point &x) { return 1. + 0.5 * std::sin(3. * x[0] + x[1]) * x[2] * x[2]; },
                               CoefficientEvaluation::cell_average);
          const unsigned int            n = degree + 1, n3 = n * n * n;
          // the element's tables and weights at the Gauss points, as the host operator's
          const LagrangeBasis1D basis(degree);
          const Quadrature1D    gauss = gauss_quadrature(n);
          const DenseMatrix     S = basis.values_at(gauss.points), D = basis.derivatives_at(gauss.points);
          std::vector<double>   s(n * n), d(n * n), weights(n3);
          for (unsigned int q = 0; q < n; ++q)
            for (unsigned int i = 0; i < n; ++i)
              {
                s[q * n + i] = S(q, i);
                d[q * n + i] = D(q, i);
              }
          for (unsigned int k = 0; k < n; ++k)
            for (unsigned int j = 0; j < n; ++j)
              for (unsigned int i = 0; i < n; ++i)
                weights[(k * n + j) * n + i] = gauss.weights[i] * gauss.weights[j] * gauss.weights[k];
          const MappingTables tables = make_mapping_tables(level.mapping.degree, n);
          const int           k      = static_cast<int>(level.mapping.degree);

          CellVector<double> u(level.n_cells(), degree);
          fill_random(u, ++seed);
          double worst = 0;
          for (unsigned int cell = 0; cell < level.n_cells(); ++cell)
            {
              std::vector<double> nodes(3 * level.mapping.nodes_per_cell());
              for (unsigned int i = 0; i < level.mapping.nodes_per_cell(); ++i)
                for (unsigned int a = 0; a < 3; ++a)
                  nodes[3 * i + a] = level.mapping.cell_nodes(cell)[i][a];
              std::vector<double> expected(n3), recomputed(n3);
              op.cell_vmult(cell, u.data() + std::size_t(cell) * n3, expected.data());
              dispatch_degree(degree, [&](auto constant) {
                constexpr int p = decltype(constant)::value;
                std::vector<double> scratch(6 * (p + 1) * (p + 1) * (p + 1));
                kernels::apply_general_laplace_cell<p, p + 1>(
                  s.data(), d.data(),
                  [&](const int q, double *G) {
                    kernels::metric_from_nodes(tables.values.data(), tables.derivatives.data(), k, p + 1, nodes.data(),
                                               weights[q] * op.metric().coefficient_averages[cell], q, G);
                  },
                  u.data() + std::size_t(cell) * n3, recomputed.data(), scratch.data());
              });
              // written so that a NaN (a singular recomputed J) propagates
              double difference = 0, scale = 0;
              for (unsigned int i = 0; i < n3; ++i)
                {
                  const double e = std::abs(recomputed[i] - expected[i]);
                  if (!(e <= difference))
                    difference = e;
                  scale = std::max(scale, std::abs(expected[i]));
                }
              const double ratio = difference / scale;
              if (!(ratio <= worst))
                worst = ratio;
            }
          EXPECT_LE(worst, 1e-12);
        }
}

TEST(MappedLaplaceCell, OmittedGeneralValuesKeepEverythingElse)
{
  // GeneralCellValues::omitted (for a caller that recomputes the general
  // cells' metric from their nodes): the same forms, factors, averages and
  // values of every other cell; no values of general cells
  const ScalarFunction c = [](const Point &x) { return 1. + 0.5 * std::sin(3. * x[0] + x[1]) * x[2] * x[2]; };
  std::size_t          all_general = 0;
  for (const Mesh &mesh : meshes())
    for (const bool with_coefficient : {false, true})
      {
        const Level &level = mesh.hierarchy.levels.back();
        SCOPED_TRACE(::testing::Message() << mesh.name << (with_coefficient ? ", coefficient averaged per cell" : ""));
        const ScalarFunction         coefficient = with_coefficient ? c : ScalarFunction();
        const LaplaceMetric<double> stored =
          make_laplace_metric<double>(level, 3, coefficient, CoefficientEvaluation::cell_average, GeneralCellValues::stored);
        const LaplaceMetric<double> omitted =
          make_laplace_metric<double>(level, 3, coefficient, CoefficientEvaluation::cell_average, GeneralCellValues::omitted);
        EXPECT_EQ(omitted.form, stored.form);
        EXPECT_EQ(omitted.factors, stored.factors);
        EXPECT_EQ(omitted.coefficient_averages, stored.coefficient_averages);
        ASSERT_EQ(omitted.offset.size(), level.n_cells());
        std::size_t general = 0;
        for (unsigned int cell = 0; cell < level.n_cells(); ++cell)
          {
            const auto size = [&](const LaplaceMetric<double> &m) {
              return (cell + 1 < level.n_cells() ? m.offset[cell + 1] : m.data.size()) - m.offset[cell];
            };
            if (stored.form[cell] == MetricForm::general)
              {
                ++general;
                EXPECT_EQ(size(omitted), 0u) << "cell " << cell;
                continue;
              }
            ASSERT_EQ(size(omitted), size(stored)) << "cell " << cell;
            for (std::size_t i = 0; i < size(stored); ++i)
              EXPECT_EQ(omitted.data[omitted.offset[cell] + i], stored.data[stored.offset[cell] + i]) << "cell " << cell;
          }
        EXPECT_EQ(omitted.data.size(), stored.data.size() - general * 6 * 64);
        all_general += general;
      }
  EXPECT_GT(all_general, 0u) << "the meshes must have general cells";
}

TEST(MappedLaplaceCell, StoredValuesOfEveryCellLieAtItsOffset)
{
  // make_laplace_metric writes the general cells' values in a second pass,
  // where they end up, and copies the others' from buffers per chunk: on the
  // ball at L = 2 (448 cells, two chunks; cartesian and general cells) with a
  // coefficient at the points that varies on some cells (cartesian_coefficient,
  // general cells scaled point by point) and is constant on others (general
  // cells scaled by the average), every cell's values are w_q c(x_q) G(x_q)
  // made here from the mapping, at the cell's offset.
  const LevelHierarchy hierarchy = make_unstructured_hierarchy(make_ball_coarse_mesh(), 2, 3);
  const Level         &level     = hierarchy.levels.back();
  const ScalarFunction c         = [](const Point &x) { return 1.5 + (x[0] > 0.1 ? x[0] * x[1] + 0.3 * x[2] : 0.); };
  for (const unsigned int degree : {2u, 3u})
    {
      SCOPED_TRACE(::testing::Message() << "degree " << degree);
      const LaplaceMetric<double> metric = make_laplace_metric<double>(level, degree, c);
      const unsigned int          n_q = degree + 1, q3 = n_q * n_q * n_q;
      const Quadrature1D          gauss = gauss_quadrature(n_q);
      std::array<std::size_t, 2>  general_kinds{{0, 0}}; // constant, varying
      std::vector<Point>                 x;
      std::vector<std::array<double, 9>> J;
      for (unsigned int cell = 0; cell < level.n_cells(); ++cell)
        {
          const std::size_t end = cell + 1 < level.n_cells() ? metric.offset[cell + 1] : metric.data.size();
          if (metric.form[cell] == MetricForm::cartesian)
            {
              EXPECT_EQ(end, metric.offset[cell]) << "cell " << cell;
              continue;
            }
          evaluate_mapping(level.mapping, cell, gauss.points, x, J);
          bool varying = false;
          for (unsigned int q = 0; q < q3; ++q)
            varying = varying || c(x[q]) != c(x[0]);
          if (metric.form[cell] == MetricForm::cartesian_coefficient)
            {
              ASSERT_EQ(end - metric.offset[cell], q3) << "cell " << cell;
              continue; // its values: CoefficientAtThePointsOnBoxesEqualsTheQuadrature
            }
          ASSERT_EQ(metric.form[cell], MetricForm::general) << "cell " << cell;
          ASSERT_EQ(end - metric.offset[cell], 6 * q3) << "cell " << cell;
          ++general_kinds[varying];
          for (unsigned int qz = 0; qz < n_q; ++qz)
            for (unsigned int qy = 0; qy < n_q; ++qy)
              for (unsigned int qx = 0; qx < n_q; ++qx)
                {
                  const unsigned int q = (qz * n_q + qy) * n_q + qx;
                  double             G[6];
                  kernels::inverse_metric(J[q].data(), G);
                  const double scale = gauss.weights[qx] * gauss.weights[qy] * gauss.weights[qz] *
                                       (varying ? c(x[q]) : metric.coefficient_averages[cell]);
                  for (unsigned int e = 0; e < 6; ++e)
                    EXPECT_NEAR(metric.data[metric.offset[cell] + 6 * q + e], scale * G[e], 1e-14 * std::abs(scale * G[e]) + 1e-300)
                      << "cell " << cell << ", point " << q << ", entry " << e;
                }
        }
      EXPECT_GT(general_kinds[0], 0u) << "general cells with a constant coefficient";
      EXPECT_GT(general_kinds[1], 0u) << "general cells with a varying coefficient";
    }
}

TEST(MappedLaplaceCell, InverseMetricIsDetTimesTheInverseOfJtJ)
{
  const double J[9] = {1.3, 0.2, -0.4, 0.1, 0.9, 0.3, -0.2, 0.5, 1.7};
  double       G[6];
  const double det = kernels::inverse_metric(J, G);
  EXPECT_NEAR(det, determinant({{J[0], J[1], J[2], J[3], J[4], J[5], J[6], J[7], J[8]}}), 1e-14);
  const double full[3][3] = {{G[0], G[3], G[4]}, {G[3], G[1], G[5]}, {G[4], G[5], G[2]}};
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c)
      {
        double sum = 0; // (G Jᵀ J)_{rc}
        for (int m = 0; m < 3; ++m)
          {
            double jtj = 0;
            for (int a = 0; a < 3; ++a)
              jtj += J[3 * a + m] * J[3 * a + c];
            sum += full[r][m] * jtj;
          }
        EXPECT_NEAR(sum, r == c ? det : 0., 1e-13) << "entry (" << r << ", " << c << ")";
      }
}

// The device's set-up reads a cell's nodes where the mapping keeps them and
// passes the first as the origin: that must be, bit for bit, the metric of
// the nodes made relative on the host (and shifting the cell must not
// change it beyond rounding: the origin is what makes J independent of the
// cell's position).
TEST(MappedLaplaceCell, NodesWithAnOriginGiveTheMetricOfRelativeNodes)
{
  for (const Mesh &mesh : meshes())
    for (const unsigned int degree : {2u, 3u})
      {
        const Level &level = mesh.hierarchy.levels.back();
        SCOPED_TRACE(::testing::Message() << mesh.name << ", degree " << degree);
        const unsigned int  n = degree + 1, n3 = n * n * n, nodes_per_cell = level.mapping.nodes_per_cell();
        const MappingTables tables = make_mapping_tables(level.mapping.degree, n);
        const int           k      = static_cast<int>(level.mapping.degree);
        for (unsigned int cell = 0; cell < level.n_cells(); ++cell)
          {
            const Point        *X = level.mapping.cell_nodes(cell);
            std::vector<double> relative(3 * nodes_per_cell), shifted(3 * nodes_per_cell);
            for (unsigned int i = 0; i < nodes_per_cell; ++i)
              for (unsigned int a = 0; a < 3; ++a)
                {
                  relative[3 * i + a] = X[i][a] - X[0][a];
                  shifted[3 * i + a]  = X[i][a] + 1000. * (a + 1);
                }
            const double shifted_origin[3] = {shifted[0], shifted[1], shifted[2]};
            for (unsigned int q = 0; q < n3; ++q)
              {
                double expected[6], got[6], moved[6];
                kernels::metric_from_nodes(tables.values.data(), tables.derivatives.data(), k, int(n), relative.data(), 0.7, int(q),
                                           expected);
                kernels::metric_from_nodes(tables.values.data(), tables.derivatives.data(), k, int(n), &X[0][0], &X[0][0], 0.7,
                                           int(q), got);
                kernels::metric_from_nodes(tables.values.data(), tables.derivatives.data(), k, int(n), shifted.data(),
                                           shifted_origin, 0.7, int(q), moved);
                for (unsigned int e = 0; e < 6; ++e)
                  {
                    ASSERT_EQ(got[e], expected[e]) << "cell " << cell << ", point " << q << ", entry " << e;
                    ASSERT_NEAR(moved[e], expected[e], 1e-9 * (std::abs(expected[0]) + std::abs(expected[1]) + std::abs(expected[2])))
                      << "cell " << cell << ", point " << q << ", entry " << e;
                  }
              }
          }
      }
}

// A mixed-precision solve takes its FP32 finest metric rounded from the FP64
// one: that must be make_laplace_metric<float> bit for bit (no coefficient),
// with general values stored or omitted, on mapped meshes and a plain box;
// and a cell too small for FP32 is refused as make_laplace_metric<float>
// refuses it.
TEST(MappedLaplaceCell, MetricRoundedToFloatIsTheFp32Metric)
{
  std::vector<Mesh> all = meshes();
  BoxDescription    box;
  box.subdivisions = {{3, 2, 4}};
  box.upper        = {{1.5, 1., 0.7}};
  all.push_back({"box", make_box_hierarchy(box, 1)});
  for (const Mesh &mesh : all)
    for (const unsigned int degree : {2u, 3u})
      for (const GeneralCellValues values : {GeneralCellValues::stored, GeneralCellValues::omitted})
        {
          const Level &level = mesh.hierarchy.levels.back();
          SCOPED_TRACE(::testing::Message() << mesh.name << ", degree " << degree
                                            << (values == GeneralCellValues::stored ? ", values stored" : ", values omitted"));
          const LaplaceMetric<float> expected = make_laplace_metric<float>(level, degree, {}, CoefficientEvaluation::quadrature_points, values);
          const LaplaceMetric<float> rounded =
            rounded_to_float(make_laplace_metric<double>(level, degree, {}, CoefficientEvaluation::quadrature_points, values));
          EXPECT_EQ(rounded.degree, expected.degree);
          EXPECT_EQ(rounded.n_q, expected.n_q);
          EXPECT_EQ(rounded.form, expected.form);
          EXPECT_EQ(rounded.offset, expected.offset);
          EXPECT_EQ(rounded.factors, expected.factors); // float ==: bit for bit (no NaN here)
          EXPECT_EQ(rounded.coefficient_averages, expected.coefficient_averages);
          ASSERT_EQ(rounded.data.size(), expected.data.size());
          for (std::size_t i = 0; i < expected.data.size(); ++i)
            ASSERT_EQ(rounded.data[i], expected.data[i]) << "value " << i;
        }
  // cells of width 1e-39: normal in FP64, their factors subnormal in FP32
  BoxDescription tiny;
  tiny.upper        = {{2e-39, 2e-39, 2e-39}};
  tiny.subdivisions = {{2, 2, 2}};
  const LevelHierarchy        tiny_hierarchy = make_box_hierarchy(tiny, 0);
  const Level                &level          = tiny_hierarchy.levels.back();
  const LaplaceMetric<double> fp64           = make_laplace_metric<double>(level, 2);
  EXPECT_THROW(make_laplace_metric<float>(level, 2), Error);
  EXPECT_THROW(rounded_to_float(fp64), Error);
}
