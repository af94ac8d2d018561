// The cell-wise Laplace operator against an assembled global stiffness matrix
// whose element matrices are computed here by full Gauss quadrature of
// ∇φ_i·∇φ_j, not by sum factorization; energy identities; layouts; bad input.

#include <cellwise/fe/lagrange_basis_1d.h>
#include <cellwise/fe/quadrature.h>
#include <cellwise/mesh/box_builder.h>
#include <cellwise/operators/function_tools.h>
#include <cellwise/operators/laplace_operator.h>

#include <gtest/gtest.h>

#include <limits>
#include <map>

#include "test_utilities.h"

using namespace cellwise;
using namespace cellwise::testing;

namespace
{
  BoxDescription
  unequal_box()
  {
    BoxDescription box;
    // cell sizes 0.5 x 0.7 x 1.1: all different, so that swapped axes show
    box.lower        = {{0., -0.5, 1.}};
    box.upper        = {{1.5, 0.9, 5.4}};
    box.subdivisions = {{3, 2, 4}};
    return box;
  }

  /// Element stiffness matrix of a box of edge lengths h by (p+1)^3-point
  /// Gauss quadrature of the full 3D gradients.
  std::vector<double>
  element_matrix_by_quadrature(const unsigned int degree, const std::array<double, 3> &h)
  {
    const LagrangeBasis1D basis(degree);
    const unsigned int    n  = degree + 1;
    const unsigned int    n3 = n * n * n;
    const Quadrature1D    q  = gauss_quadrature(n);
    const unsigned int    nq = n;
    std::vector<double>   A(n3 * n3, 0.);
    std::vector<std::array<double, 3>> grad(n3);
    for (unsigned int qz = 0; qz < nq; ++qz)
      for (unsigned int qy = 0; qy < nq; ++qy)
        for (unsigned int qx = 0; qx < nq; ++qx)
          {
            const double x = q.points[qx], y = q.points[qy], z = q.points[qz];
            for (unsigned int k = 0; k < n; ++k)
              for (unsigned int j = 0; j < n; ++j)
                for (unsigned int i = 0; i < n; ++i)
                  grad[i + n * (j + n * k)] = {{basis.derivative(i, x) / h[0] * basis.value(j, y) * basis.value(k, z),
                                                basis.value(i, x) * basis.derivative(j, y) / h[1] * basis.value(k, z),
                                                basis.value(i, x) * basis.value(j, y) * basis.derivative(k, z) / h[2]}};
            const double w = q.weights[qx] * q.weights[qy] * q.weights[qz] * h[0] * h[1] * h[2];
            for (unsigned int a = 0; a < n3; ++a)
              for (unsigned int b = 0; b < n3; ++b)
                A[a * n3 + b] += w * (grad[a][0] * grad[b][0] + grad[a][1] * grad[b][1] + grad[a][2] * grad[b][2]);
          }
    return A;
  }
} // namespace

class LaplaceAssembled : public ::testing::TestWithParam<std::tuple<unsigned int, int>>
{};

TEST_P(LaplaceAssembled, GatherTransposeOfCellOperatorEqualsAssembledMatrix)
{
  const auto [degree, n_refinements] = GetParam();
  const LevelHierarchy h             = make_box_hierarchy(unequal_box(), n_refinements);
  const Level         &level         = h.levels.back();
  const auto           numbering     = number_by_coordinates(level, degree);
  const unsigned int   n3            = numbering.dofs_per_cell;

  const std::vector<double> u_global = random_vector(numbering.n_unique, 17 + degree);
  CellVector<double>        u(level.n_cells(), degree), au;
  gather_by(numbering, u_global, u);

  LaplaceOperator<double> op(level, degree);
  op.vmult(au, u);
  const std::vector<double> cellwise_result = sum_copies_by(numbering, au);

  // assembled reference y = A_global u_global, element by element
  std::map<std::array<long, 3>, std::vector<double>> element_matrices;
  std::vector<double>                                reference(numbering.n_unique, 0.);
  for (unsigned int cell = 0; cell < level.n_cells(); ++cell)
    {
      const auto &h_cell = level.boxes[cell].size;
      const std::array<long, 3> key = {{std::lround(h_cell[0] * 1e9), std::lround(h_cell[1] * 1e9), std::lround(h_cell[2] * 1e9)}};
      auto it = element_matrices.find(key);
      if (it == element_matrices.end())
        it = element_matrices.emplace(key, element_matrix_by_quadrature(degree, h_cell)).first;
      for (unsigned int a = 0; a < n3; ++a)
        {
          double s = 0;
          for (unsigned int b = 0; b < n3; ++b)
            s += it->second[a * n3 + b] * u_global[numbering(cell, b)];
          reference[numbering(cell, a)] += s;
        }
    }
  EXPECT_LE(max_abs_difference(cellwise_result, reference), 1e-12 * max_abs(reference))
    << "degree " << degree << ", L = " << n_refinements;
}

INSTANTIATE_TEST_SUITE_P(DegreesAndLevels,
                         LaplaceAssembled,
                         ::testing::Combine(::testing::Values(1u, 2u, 3u, 4u, 5u), ::testing::Values(0, 1, 2)));

TEST(Laplace, CellMatrixMatchesSumFactorization)
{
  const LevelHierarchy h = make_box_hierarchy(unequal_box(), 0);
  for (unsigned int degree = 1; degree <= 8; ++degree)
    {
      LaplaceOperator<double> op(h.level(0), degree);
      CellVector<double>      u(h.level(0).n_cells(), degree), au;
      fill_random(u, degree);
      op.vmult(au, u);
      const DenseMatrix  A  = op.cell_matrix(5);
      const unsigned int n3 = u.dofs_per_cell();
      for (unsigned int i = 0; i < n3; ++i)
        {
          double s = 0;
          for (unsigned int j = 0; j < n3; ++j)
            s += A(i, j) * u(5, j);
          EXPECT_NEAR(au(5, i), s, 1e-12 * (1 + std::abs(s))) << "degree " << degree << " row " << i;
        }
    }
}

TEST(Laplace, EnergyOfInterpolatedPolynomialIsExact)
{
  // u = x^2 + y z on [0,a]x[0,b]x[0,c]: ∫|∇u|^2 = 4a^3bc/3 + ab^3c/3 + abc^3/3
  const double   a = 1.5, b = 1.4, c = 4.4; // cells 0.5 x 0.7 x 1.1
  BoxDescription box;
  box.upper        = {{a, b, c}};
  box.subdivisions = {{3, 2, 4}};
  const LevelHierarchy h     = make_box_hierarchy(box, 1);
  const double         exact = 4 * a * a * a * b * c / 3 + a * b * b * b * c / 3 + a * b * c * c * c / 3;
  for (unsigned int degree = 2; degree <= 6; ++degree)
    {
      CellVector<double> u, au;
      interpolate(h.levels.back(), degree, [](const Point &x) { return x[0] * x[0] + x[1] * x[2]; }, u);
      LaplaceOperator<double>(h.levels.back(), degree).vmult(au, u);
      EXPECT_NEAR(u.dot(au), exact, 1e-11 * exact) << "degree " << degree;
    }
  // degree 1: a linear function, ∫|∇(x + 2y + 3z)|^2 = 14 abc
  CellVector<double> u, au;
  interpolate(h.levels.back(), 1, [](const Point &x) { return x[0] + 2 * x[1] + 3 * x[2]; }, u);
  LaplaceOperator<double>(h.levels.back(), 1).vmult(au, u);
  EXPECT_NEAR(u.dot(au), 14 * a * b * c, 1e-11 * 14 * a * b * c);
}

TEST(Laplace, ConstantsAreInTheKernel)
{
  const LevelHierarchy h = make_box_hierarchy(unequal_box(), 1);
  for (unsigned int degree = 1; degree <= 8; ++degree)
    {
      CellVector<double> u(h.levels.back().n_cells(), degree), au;
      u.fill(1.);
      LaplaceOperator<double>(h.levels.back(), degree).vmult(au, u);
      EXPECT_LE(au.linfty_norm(), 1e-12) << "degree " << degree;
    }
}

TEST(Laplace, BlockedLayoutGivesSameResult)
{
  const LevelHierarchy h     = make_box_hierarchy(unequal_box(), 1); // 192 cells: 6 blocks of 32
  const Level         &level = h.levels.back();
  for (const unsigned int degree : {2u, 3u, 5u})
    {
      CellVector<double>                                   u(level.n_cells(), degree), au, r;
      CellVector<double, MemorySpace::Host, CellBlocked<32>> ub(level.n_cells(), degree), aub, rb;
      fill_random(u, 3);
      for (unsigned int c = 0; c < level.n_cells(); ++c)
        for (unsigned int i = 0; i < u.dofs_per_cell(); ++i)
          ub(c, i) = u(c, i);
      LaplaceOperator<double>(level, degree).vmult(au, u);
      LaplaceOperator<double, CellBlocked<32>>(level, degree).vmult(aub, ub);
      for (unsigned int c = 0; c < level.n_cells(); ++c)
        for (unsigned int i = 0; i < u.dofs_per_cell(); ++i)
          ASSERT_EQ(au(c, i), aub(c, i));
    }
}

TEST(Laplace, ResidualIsRhsMinusOperator)
{
  const LevelHierarchy    h = make_box_hierarchy(unequal_box(), 1);
  const Level            &level = h.levels.back();
  LaplaceOperator<double> op(level, 3);
  CellVector<double>      u(level.n_cells(), 3), b(level.n_cells(), 3), r, au;
  fill_random(u, 1);
  fill_random(b, 2);
  op.residual(r, b, u);
  op.vmult(au, u);
  au.sadd(-1., 1., b);
  for (unsigned int c = 0; c < level.n_cells(); ++c)
    for (unsigned int i = 0; i < u.dofs_per_cell(); ++i)
      ASSERT_DOUBLE_EQ(r(c, i), au(c, i));
}

// The fused smoother step (the reference of the device kernel and the step
// of both backends' point smoothers) against the composition it stands for:
// r.scale(D^{-1}); d.sadd(α, β, r) or d.equ(β, r); u.add(1, d) or u = d;
// residual(r, b, u). Bit for bit: the same operations per copy in the same
// order. Both layouts; vectors the step must not write stay as they were.
template <typename Layout>
void
check_smoother_step_is_the_composition()
{
  using Vector = CellVector<double, MemorySpace::Host, Layout>;
  const LevelHierarchy h     = make_box_hierarchy(unequal_box(), 1); // 192 cells
  const Level         &level = h.levels.back();
  for (const unsigned int degree : {1u, 3u})
    {
      const LaplaceOperator<double, Layout> op(level, degree);
      Vector z(level.n_cells(), degree), inverse_diagonal(level.n_cells(), degree), u0(level.n_cells(), degree),
        d0(level.n_cells(), degree), b(level.n_cells(), degree);
      fill_random(z, 40 + degree);
      fill_random(inverse_diagonal, 50 + degree);
      fill_random(u0, 60 + degree);
      fill_random(d0, 70 + degree);
      fill_random(b, 80 + degree);
      for (unsigned int cell = 0; cell < level.n_cells(); ++cell)
        for (unsigned int i = 0; i < z.dofs_per_cell(); ++i)
          inverse_diagonal(cell, i) = (7 * cell + 3 * i) % 5 == 0 ? 0. : 0.5 + std::abs(inverse_diagonal(cell, i));
      for (const SmootherStepCase &c : smoother_step_cases())
        {
          SCOPED_TRACE(::testing::Message() << c.name << ", degree " << degree);
          const SmootherStep<double> step = c.step<double>();

          Vector s = z;
          s.scale(inverse_diagonal);
          Vector d = d0;
          if (c.alpha != 0.)
            d.sadd(c.alpha, c.beta, s);
          else
            d.equ(c.beta, s);
          Vector u = u0;
          if (c.zero_initial_guess)
            u = d;
          else
            u.add(1., d);
          Vector r = z;
          if (c.compute_residual)
            op.residual(r, b, u);

          Vector fused_u = u0, fused_r = z, fused_d = d0;
          if (c.zero_initial_guess)
            fused_u.fill(std::numeric_limits<double>::quiet_NaN()); // not read
          op.smoother_step(fused_u, fused_r, step.uses_update() ? &fused_d : nullptr, b, inverse_diagonal, step);
          for (std::size_t k = 0; k < u.storage_size(); ++k)
            {
              ASSERT_EQ(fused_u.data()[k], u.data()[k]) << "u at entry " << k;
              ASSERT_EQ(fused_r.data()[k], r.data()[k]) << "r at entry " << k;
              ASSERT_EQ(fused_d.data()[k], c.store_update ? d.data()[k] : d0.data()[k]) << "d at entry " << k;
            }
        }
      Vector u = u0, r = z;
      SmootherStep<double> step;
      EXPECT_THROW(op.smoother_step(u, r, nullptr, r, inverse_diagonal, step), Error) << "b may not be r";
      EXPECT_THROW(op.smoother_step(u, u, nullptr, b, inverse_diagonal, step), Error) << "u may not be r";
      step.store_update = true;
      EXPECT_THROW(op.smoother_step(u, r, nullptr, b, inverse_diagonal, step), Error) << "a stored update needs d";
    }
}

TEST(Laplace, SmootherStepIsTheComposition)
{
  check_smoother_step_is_the_composition<CellContiguous>();
  check_smoother_step_is_the_composition<CellBlocked<32>>();
}

TEST(Laplace, BadInputIsRejectedWithMessage)
{
  const LevelHierarchy h = make_box_hierarchy(unequal_box(), 0);
  for (const unsigned int degree : {0u, 9u})
    try
      {
        LaplaceOperator<double> op(h.level(0), degree);
        FAIL() << "degree " << degree << " accepted";
      }
    catch (const Error &e)
      {
        EXPECT_NE(std::string(e.what()).find("degree " + std::to_string(degree)), std::string::npos) << e.what();
      }
  LaplaceOperator<double> op(h.level(0), 2);
  CellVector<double>      wrong_degree(h.level(0).n_cells(), 3), wrong_size(7, 2), dst;
  EXPECT_THROW(op.vmult(dst, wrong_degree), Error);
  EXPECT_THROW(op.vmult(dst, wrong_size), Error);
}

TEST(Laplace, CoefficientScalesEachCellByItsAverage)
{
  const LevelHierarchy h     = make_box_hierarchy(unequal_box(), 1);
  const Level         &level = h.levels.back();
  LaplaceOperator<double> plain(level, 2), scaled(level, 2);
  // a linear coefficient: its cell average is its value at the cell centre
  scaled.set_coefficient(level, [](const Point &x) { return 2. + x[0] + 0.5 * x[2]; }, CoefficientEvaluation::cell_average);
  CellVector<double> u(level.n_cells(), 2), a, b;
  fill_random(u, 4);
  plain.vmult(a, u);
  scaled.vmult(b, u);
  for (unsigned int c = 0; c < level.n_cells(); ++c)
    {
      const CellBox &box    = level.boxes[c];
      const double   centre = 2. + (box.lower[0] + 0.5 * box.size[0]) + 0.5 * (box.lower[2] + 0.5 * box.size[2]);
      EXPECT_NEAR(scaled.cell_coefficients()[c], centre, 1e-13);
      for (unsigned int i = 0; i < u.dofs_per_cell(); ++i)
        ASSERT_NEAR(b(c, i), centre * a(c, i), 1e-12 * std::abs(centre * a(c, i)) + 1e-13);
    }
  EXPECT_THROW(scaled.set_coefficient(level, [](const Point &x) { return x[0] - 1.; }), Error);
}
