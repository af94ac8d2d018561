// The general cell-wise Laplacian (operators/laplace_metric.h,
// kernels/general_laplace_cell.h): on deformed (trilinear), affine and box
// cells, with a coefficient at the quadrature points or averaged, the
// operator equals the quadrature of ∫ c ∇φ_i · ∇φ_j built here from the
// cell's eight corners with the analytic Jacobian of the trilinear map (not
// from the library's mapping evaluation or metric); each cell gets the most
// compact metric form; the cell matrices, the diagonals and the cell action
// agree; inverted cells and bad coefficients are refused naming the cell.

#include <cellwise/fe/lagrange_basis_1d.h>
#include <cellwise/fe/quadrature.h>
#include <cellwise/mesh/box_builder.h>
#include <cellwise/mesh/cell_mapping.h>
#include <cellwise/mesh/kershaw_map.h>
#include <cellwise/operators/laplace_operator.h>

#include <gtest/gtest.h>

#include "test_utilities.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <string>

using namespace cellwise;
using namespace cellwise::testing;

namespace
{
  /// A smooth deformation of space that keeps cells convex for |δ| < 0.1.
  Point
  wobble(const Point &x, const double delta)
  {
    return {{x[0] + delta * std::sin(2. * x[1] + 1.) * std::cos(x[2]), x[1] + delta * std::sin(3. * x[0] * x[2] + 0.5),
             x[2] + delta * std::cos(2. * x[0] + x[1])}};
  }

  double
  coefficient(const Point &x)
  {
    return 1. + 0.5 * std::sin(3. * x[0]) * std::cos(2. * x[1] + x[2]) + x[2] * x[2];
  }

  /// The corners of @p cell as the degree-1 mapping holds them.
  std::array<Point, 8>
  corners(const Level &level, const unsigned int cell)
  {
    std::array<Point, 8> v;
    for (unsigned int c = 0; c < 8; ++c)
      v[c] = level.mapping.cell_nodes(cell)[c];
    return v;
  }

  /// The dense matrix ∫ c ∇φ_i · ∇φ_j over the trilinear cell with corners
  /// @p v (corner c at ξ = (c&1, c&2, c&4)), by Gauss quadrature with n_q
  /// points per axis; c = 1 where @p coefficient is empty.
  DenseMatrix
  reference_matrix(const std::array<Point, 8> &v, const unsigned int degree, const unsigned int n_q, const ScalarFunction &c)
  {
    const LagrangeBasis1D basis(degree);
    const Quadrature1D    gauss = gauss_quadrature(n_q);
    const unsigned int    n = degree + 1, n3 = n * n * n;
    DenseMatrix           A(n3, n3);
    for (unsigned int qz = 0; qz < n_q; ++qz)
      for (unsigned int qy = 0; qy < n_q; ++qy)
        for (unsigned int qx = 0; qx < n_q; ++qx)
          {
            const double xi[3] = {gauss.points[qx], gauss.points[qy], gauss.points[qz]};
            double       x[3] = {0, 0, 0}, J[3][3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
            for (unsigned int corner = 0; corner < 8; ++corner)
              {
                double shape = 1, d_shape[3] = {1, 1, 1};
                for (unsigned int d = 0; d < 3; ++d)
                  {
                    const bool   upper = (corner >> d) & 1;
                    const double value = upper ? xi[d] : 1. - xi[d], slope = upper ? 1. : -1.;
                    shape *= value;
                    for (unsigned int e = 0; e < 3; ++e)
                      d_shape[e] *= e == d ? slope : value;
                  }
                for (unsigned int a = 0; a < 3; ++a)
                  {
                    x[a] += shape * v[corner][a];
                    for (unsigned int e = 0; e < 3; ++e)
                      J[a][e] += d_shape[e] * v[corner][a];
                  }
              }
            const double det = J[0][0] * (J[1][1] * J[2][2] - J[1][2] * J[2][1]) - J[0][1] * (J[1][0] * J[2][2] - J[1][2] * J[2][0]) +
                               J[0][2] * (J[1][0] * J[2][1] - J[1][1] * J[2][0]);
            // inverse by the adjugate: (J^{-1})_{e a}
            double inv[3][3];
            for (unsigned int a = 0; a < 3; ++a)
              for (unsigned int e = 0; e < 3; ++e)
                {
                  const unsigned int r0 = (a + 1) % 3, r1 = (a + 2) % 3, c0 = (e + 1) % 3, c1 = (e + 2) % 3;
                  inv[e][a] = (J[r0][c0] * J[r1][c1] - J[r0][c1] * J[r1][c0]) / det;
                }
            const double weight = gauss.weights[qx] * gauss.weights[qy] * gauss.weights[qz] * det * (c ? c({{x[0], x[1], x[2]}}) : 1.);
            // physical gradients of all basis functions at this point
            std::vector<std::array<double, 3>> grad(n3);
            for (unsigned int i = 0; i < n3; ++i)
              {
                const unsigned int ix = i % n, iy = (i / n) % n, iz = i / (n * n);
                const double       ref[3] = {basis.derivative(ix, xi[0]) * basis.value(iy, xi[1]) * basis.value(iz, xi[2]),
                                             basis.value(ix, xi[0]) * basis.derivative(iy, xi[1]) * basis.value(iz, xi[2]),
                                             basis.value(ix, xi[0]) * basis.value(iy, xi[1]) * basis.derivative(iz, xi[2])};
                for (unsigned int a = 0; a < 3; ++a)
                  grad[i][a] = inv[0][a] * ref[0] + inv[1][a] * ref[1] + inv[2][a] * ref[2];
              }
            for (unsigned int i = 0; i < n3; ++i)
              for (unsigned int j = 0; j < n3; ++j)
                A(i, j) += weight * (grad[i][0] * grad[j][0] + grad[i][1] * grad[j][1] + grad[i][2] * grad[j][2]);
          }
    return A;
  }

  /// A 2 × 2 × 1 box deformed by @p map (degree-1 mapping: the cells are the
  /// trilinear cells through the images of their corners).
  LevelHierarchy
  mapped_box(const PointMap &map, const int n_refinements = 0)
  {
    BoxDescription box;
    box.lower        = {{0.1, -0.2, 0.3}};
    box.upper        = {{1.1, 0.8, 0.9}};
    box.subdivisions = {{2, 2, 1}};
    LevelHierarchy h = make_box_hierarchy(box, n_refinements);
    map_hierarchy(h, 1, map);
    return h;
  }

  double
  max_difference(const DenseMatrix &a, const DenseMatrix &b)
  {
    double d = 0;
    for (unsigned int i = 0; i < a.m(); ++i)
      for (unsigned int j = 0; j < a.n(); ++j)
        d = std::max(d, std::abs(a(i, j) - b(i, j)));
    return d;
  }

  double
  max_entry(const DenseMatrix &a)
  {
    double d = 0;
    for (unsigned int i = 0; i < a.m(); ++i)
      for (unsigned int j = 0; j < a.n(); ++j)
        d = std::max(d, std::abs(a(i, j)));
    return d;
  }
} // namespace

TEST(LaplaceGeometry, DeformedCellsEqualTheQuadratureOfTheWeakForm)
{
  const LevelHierarchy h     = mapped_box([](const Point &x) { return wobble(x, 0.08); });
  const Level         &level = h.levels.back();
  for (unsigned int degree = 1; degree <= 4; ++degree)
    for (const bool with_coefficient : {false, true})
      {
        SCOPED_TRACE(::testing::Message() << "degree " << degree << (with_coefficient ? ", coefficient at the points" : ""));
        LaplaceOperator<double> op(level, degree);
        if (with_coefficient)
          op.set_coefficient(level, coefficient);
        EXPECT_EQ(op.metric().count()[static_cast<unsigned int>(MetricForm::general)], level.n_cells());
        CellVector<double> u(level.n_cells(), degree), Au, diagonal;
        fill_random(u, 20 + degree);
        op.vmult(Au, u);
        op.compute_cell_diagonals(diagonal);
        const unsigned int n3 = u.dofs_per_cell();
        for (unsigned int cell = 0; cell < level.n_cells(); ++cell)
          {
            const DenseMatrix reference = reference_matrix(corners(level, cell), degree, degree + 1, with_coefficient ? coefficient : ScalarFunction());
            const double      scale     = max_entry(reference);
            EXPECT_LT(max_difference(op.cell_matrix(cell), reference), 1e-12 * scale);
            for (unsigned int i = 0; i < n3; ++i)
              {
                double expected = 0;
                for (unsigned int j = 0; j < n3; ++j)
                  expected += reference(i, j) * u(cell, j);
                ASSERT_NEAR(Au(cell, i), expected, 1e-12 * scale * n3) << "cell " << cell << ", value " << i;
                ASSERT_NEAR(diagonal(cell, i), reference(i, i), 1e-12 * scale) << "cell " << cell << ", value " << i;
              }
          }
        // constants are in the kernel of every cell's operator
        CellVector<double> ones(level.n_cells(), degree), A1;
        ones.fill(1.);
        op.vmult(A1, ones);
        EXPECT_LT(A1.linfty_norm(), 1e-12 * op.cell_matrix(0)(0, 0));
      }
}

TEST(LaplaceGeometry, EachCellGetsTheMostCompactForm)
{
  const auto count = [](const LaplaceOperator<double> &op, const MetricForm form) {
    return op.metric().count()[static_cast<unsigned int>(form)];
  };
  const LevelHierarchy boxes = make_box_hierarchy(BoxDescription{}, 1);
  const Level         &level = boxes.levels.back();
  LaplaceOperator<double> plain(level, 3);
  EXPECT_EQ(count(plain, MetricForm::cartesian), level.n_cells());
  EXPECT_EQ(plain.metric().bytes(), level.n_cells() * (1 + 3 * sizeof(double)));

  // a coefficient at the points on boxes: the factors and one value per point
  LaplaceOperator<double> at_points(level, 3);
  at_points.set_coefficient(level, coefficient);
  EXPECT_EQ(count(at_points, MetricForm::cartesian_coefficient), level.n_cells());
  // the same averaged, or a constant one: Cartesian, the coefficient scaled in
  LaplaceOperator<double> averaged(level, 3), constant(level, 3);
  averaged.set_coefficient(level, coefficient, CoefficientEvaluation::cell_average);
  constant.set_coefficient(level, [](const Point &) { return 2.5; });
  EXPECT_EQ(count(averaged, MetricForm::cartesian), level.n_cells());
  EXPECT_EQ(count(constant, MetricForm::cartesian), level.n_cells());
  for (unsigned int d = 0; d < 3; ++d)
    EXPECT_DOUBLE_EQ(constant.metric().factors[3][d], 2.5 * plain.metric().factors[3][d]);

  // a linear map: parallelepipeds (affine); an axis-aligned scaling: boxes
  const LevelHierarchy sheared = mapped_box([](const Point &x) { return Point{{x[0] + 0.3 * x[1], 1.5 * x[1] - 0.2 * x[2], x[2] + 0.1 * x[0]}}; });
  LaplaceOperator<double> affine(sheared.levels.back(), 2);
  EXPECT_EQ(count(affine, MetricForm::affine), sheared.levels.back().n_cells());
  const LevelHierarchy scaled = mapped_box([](const Point &x) { return Point{{-2. * x[0], -0.5 * x[1], x[2]}}; });
  LaplaceOperator<double> box(scaled.levels.back(), 2);
  EXPECT_EQ(count(box, MetricForm::cartesian), scaled.levels.back().n_cells()) << "a reflected, scaled box is still a box";
  // and each equals the quadrature
  for (const LevelHierarchy *mesh : {&sheared, &scaled})
    {
      const Level            &l = mesh->levels.back();
      LaplaceOperator<double> op(l, 2);
      for (unsigned int cell = 0; cell < l.n_cells(); ++cell)
        {
          const DenseMatrix reference = reference_matrix(corners(l, cell), 2, 3, {});
          EXPECT_LT(max_difference(op.cell_matrix(cell), reference), 1e-12 * max_entry(reference));
        }
    }
  // the description names the forms
  EXPECT_NE(affine.metric().describe().find("affine"), std::string::npos);
}

TEST(LaplaceGeometry, CoefficientAtThePointsOnBoxesEqualsTheQuadrature)
{
  const LevelHierarchy h     = make_box_hierarchy(BoxDescription{}, 1);
  const Level         &level = h.levels.back();
  for (unsigned int degree = 1; degree <= 3; ++degree)
    {
      LaplaceOperator<double> op(level, degree);
      op.set_coefficient(level, coefficient);
      CellVector<double> u(level.n_cells(), degree), Au;
      fill_random(u, 3);
      op.vmult(Au, u);
      for (unsigned int cell = 0; cell < level.n_cells(); ++cell)
        {
          const CellBox       &b = level.boxes[cell];
          std::array<Point, 8> v;
          for (unsigned int c = 0; c < 8; ++c)
            for (unsigned int d = 0; d < 3; ++d)
              v[c][d] = b.lower[d] + (((c >> d) & 1) ? b.size[d] : 0.);
          const DenseMatrix reference = reference_matrix(v, degree, degree + 1, coefficient);
          EXPECT_LT(max_difference(op.cell_matrix(cell), reference), 1e-12 * max_entry(reference));
          for (unsigned int i = 0; i < u.dofs_per_cell(); ++i)
            {
              double expected = 0;
              for (unsigned int j = 0; j < u.dofs_per_cell(); ++j)
                expected += reference(i, j) * u(cell, j);
              ASSERT_NEAR(Au(cell, i), expected, 1e-11 * max_entry(reference));
            }
        }
      // the patch smoother's surrogate of such a cell: its factors times the
      // coefficient's average
      const auto f = op.metric().surrogate_factors(0);
      for (unsigned int d = 0; d < 3; ++d)
        EXPECT_NEAR(f[d], op.metric().factors[0][d] * op.cell_coefficients()[0], 1e-14 * f[d]);
    }
}

TEST(LaplaceGeometry, CoefficientGivenAtConstructionEqualsSetCoefficient)
{
  // the constructor with a coefficient makes the metric once; it must be
  // the metric of the constructor without one followed by set_coefficient
  // (deformed cells and boxes, both evaluations, and an empty coefficient)
  const ScalarFunction c = coefficient;
  const LevelHierarchy deformed = mapped_box(kershaw_map(0.3, 0.3), 1);
  const LevelHierarchy boxes    = make_box_hierarchy(BoxDescription{}, 1);
  for (const Level *level : {&deformed.levels.back(), &boxes.levels.back()})
    for (const CoefficientEvaluation evaluation : {CoefficientEvaluation::quadrature_points, CoefficientEvaluation::cell_average})
      for (const bool with_coefficient : {false, true})
        {
          SCOPED_TRACE(::testing::Message() << (level->mapping.empty() ? "boxes" : "deformed cells") << ", " << to_string(evaluation)
                                            << (with_coefficient ? "" : ", no coefficient"));
          LaplaceOperator<double> later(*level, 2);
          if (with_coefficient)
            later.set_coefficient(*level, c, evaluation);
          const LaplaceOperator<double> given(*level, 2, with_coefficient ? c : ScalarFunction(), evaluation);
          EXPECT_EQ(given.metric().form, later.metric().form);
          EXPECT_EQ(given.metric().offset, later.metric().offset);
          EXPECT_EQ(given.metric().factors, later.metric().factors);
          EXPECT_EQ(given.metric().coefficient_averages, later.metric().coefficient_averages);
          ASSERT_EQ(given.metric().data.size(), later.metric().data.size());
          EXPECT_TRUE(std::equal(given.metric().data.begin(), given.metric().data.end(), later.metric().data.begin()));
          EXPECT_EQ(given.metric().count()[static_cast<unsigned int>(MetricForm::general)] > 0, !level->mapping.empty());
        }
}

TEST(LaplaceGeometry, Fp32OperatorFromTheRoundedFp64MetricIsTheFp32Operator)
{
  // what a mixed solve's FP32 finest operator takes: the FP64 metric
  // rounded gives the FP32 operator bit for bit (deformed cells, boxes); a
  // metric of another level or degree, or without the general cells'
  // values, is refused
  const LevelHierarchy deformed = mapped_box(kershaw_map(0.3, 0.3), 1);
  const LevelHierarchy boxes    = make_box_hierarchy(BoxDescription{}, 1);
  for (const Level *level : {&deformed.levels.back(), &boxes.levels.back()})
    {
      SCOPED_TRACE(level->mapping.empty() ? "boxes" : "deformed cells");
      const LaplaceOperator<double> fp64(*level, 3);
      const LaplaceOperator<float>  made(*level, 3);
      const LaplaceOperator<float>  rounded(*level, 3, rounded_to_float(fp64.metric()));
      CellVector<float>             u(level->n_cells(), 3), a(level->n_cells(), 3), b(level->n_cells(), 3);
      fill_random(u, 5);
      made.vmult(a, u);
      rounded.vmult(b, u);
      ASSERT_EQ(a.storage_size(), b.storage_size());
      EXPECT_TRUE(std::equal(a.data(), a.data() + a.storage_size(), b.data()));
      CellVector<float> da(level->n_cells(), 3), db(level->n_cells(), 3);
      made.compute_cell_diagonals(da);
      rounded.compute_cell_diagonals(db);
      EXPECT_TRUE(std::equal(da.data(), da.data() + da.storage_size(), db.data()));
    }
  const LaplaceOperator<double> fp64(deformed.levels.back(), 3);
  EXPECT_THROW(LaplaceOperator<float>(deformed.levels.back(), 2, rounded_to_float(fp64.metric())), Error);
  EXPECT_THROW(LaplaceOperator<float>(deformed.levels.front(), 3, rounded_to_float(fp64.metric())), Error);
  EXPECT_THROW(LaplaceOperator<float>(deformed.levels.back(), 3,
                                      rounded_to_float(make_laplace_metric<double>(deformed.levels.back(), 3, {},
                                                                                   CoefficientEvaluation::quadrature_points,
                                                                                   GeneralCellValues::omitted))),
               Error);
}

TEST(LaplaceGeometry, InvertedCellsAndBadCoefficientsAreRefusedNamingTheCell)
{
  // a map that folds the box: x → −x along one axis inverts every cell
  const LevelHierarchy folded = mapped_box([](const Point &x) { return Point{{-x[0], x[1], x[2]}}; });
  try
    {
      LaplaceOperator<double> op(folded.levels.back(), 2);
      FAIL() << "an inverted cell was accepted";
    }
  catch (const Error &e)
    {
      EXPECT_NE(std::string(e.what()).find("inverted"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("cell "), std::string::npos) << e.what();
    }
  const LevelHierarchy h = mapped_box([](const Point &x) { return wobble(x, 0.05); });
  LaplaceOperator<double> op(h.levels.back(), 2);
  EXPECT_THROW(op.set_coefficient(h.levels.back(), [](const Point &x) { return x[0] - 0.5; }), Error);
  EXPECT_THROW(op.set_coefficient(h.levels.back(), [](const Point &) { return std::nan(""); }), Error);
  EXPECT_THROW(parse_coefficient_evaluation("somewhere"), Error);
  EXPECT_EQ(parse_coefficient_evaluation("cell-average"), CoefficientEvaluation::cell_average);
  EXPECT_EQ(to_string(CoefficientEvaluation::quadrature_points), "quadrature-points");
  // code that takes the boxes as the geometry refuses a mapped level
  EXPECT_THROW(check_box_cells(h.levels.back(), "a box-only solver"), Error);
  LevelHierarchy again = mapped_box([](const Point &x) { return x; });
  EXPECT_THROW(map_hierarchy(again, 1, [](const Point &x) { return x; }), Error) << "mapped twice";
}
