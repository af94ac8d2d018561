// The 1D cubic Hermite basis and its matrices (fe/hermite_basis_1d.h,
// fe/hermite_matrices_1d.h): the interpolation conditions, the closed forms of
// the Euler–Bernoulli beam element (mass /420, stiffness /30, bending), the
// kernels of K and B, the identity of the mixed matrix, the derivative
// scaling on a cell of width h, and the exact prolongation of cubics.

#include <cellwise/base/exceptions.h>
#include <cellwise/fe/hermite_basis_1d.h>
#include <cellwise/fe/hermite_matrices_1d.h>
#include <cellwise/fe/quadrature.h>

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <random>

using namespace cellwise;

namespace
{
  void
  expect_matrix(const DenseMatrix &A, const std::array<std::array<double, 4>, 4> &expected, const double scale, const char *name)
  {
    for (unsigned int i = 0; i < 4; ++i)
      for (unsigned int j = 0; j < 4; ++j)
        EXPECT_NEAR(A(i, j), expected[i][j] / scale, 1e-14) << name << "(" << i << "," << j << ")";
  }

  std::array<double, 4>
  times(const DenseMatrix &A, const std::array<double, 4> &x)
  {
    std::array<double, 4> y{};
    for (unsigned int i = 0; i < 4; ++i)
      for (unsigned int j = 0; j < 4; ++j)
        y[i] += A(i, j) * x[j];
    return y;
  }
} // namespace

TEST(Hermite1D, BasisInterpolatesValuesAndDerivativesAtTheEnds)
{
  for (unsigned int i = 0; i < 4; ++i)
    for (unsigned int e = 0; e < 2; ++e)
      {
        // D^k φ_i(e) = 1 exactly for i = 2e + k
        EXPECT_EQ(hermite::value(i, e), i == 2 * e ? 1. : 0.) << "φ_" << i << "(" << e << ")";
        EXPECT_EQ(hermite::derivative(i, e), i == 2 * e + 1 ? 1. : 0.) << "φ_" << i << "'(" << e << ")";
      }
  // the derivatives are those of the values (central differences)
  for (unsigned int i = 0; i < 4; ++i)
    for (const double t : {0.1, 0.45, 0.8})
      {
        const double h = 1e-5;
        EXPECT_NEAR(hermite::derivative(i, t), (hermite::value(i, t + h) - hermite::value(i, t - h)) / (2 * h), 1e-9);
        EXPECT_NEAR(hermite::second_derivative(i, t), (hermite::derivative(i, t + h) - hermite::derivative(i, t - h)) / (2 * h),
                    1e-8);
      }
  EXPECT_THROW(hermite::value(4, 0.5), Error);
}

TEST(Hermite1D, MatricesAreTheBeamElementMatrices)
{
  const hermite::Matrices1D m = hermite::make_matrices_1d();
  expect_matrix(m.mass, {{{156, 22, 54, -13}, {22, 4, 13, -3}, {54, 13, 156, -22}, {-13, -3, -22, 4}}}, 420., "M");
  expect_matrix(m.stiffness, {{{36, 3, -36, 3}, {3, 4, -3, -1}, {-36, -3, 36, -3}, {3, -1, -3, 4}}}, 30., "K");
  expect_matrix(m.bending, {{{12, 6, -12, 6}, {6, 4, -6, 2}, {-12, -6, 12, -6}, {6, 2, -6, 4}}}, 1., "B");
  // G = [φ_i' φ_j]_0^1 − K (integration by parts)
  for (unsigned int i = 0; i < 4; ++i)
    for (unsigned int j = 0; j < 4; ++j)
      {
        const double boundary = hermite::derivative(i, 1) * hermite::value(j, 1) - hermite::derivative(i, 0) * hermite::value(j, 0);
        EXPECT_NEAR(m.mixed(i, j), boundary - m.stiffness(i, j), 1e-14) << "G(" << i << "," << j << ")";
      }
}

TEST(Hermite1D, StiffnessAndBendingAnnihilateWhatTheyMust)
{
  const hermite::Matrices1D   m        = hermite::make_matrices_1d();
  const std::array<double, 4> constant = {{1, 0, 1, 0}}; // u = 1
  const std::array<double, 4> linear   = {{0, 1, 1, 1}}; // u = t
  const std::array<double, 4> square   = {{0, 0, 1, 2}}; // u = t²
  for (const double y : times(m.stiffness, constant))
    EXPECT_NEAR(y, 0., 1e-15);
  for (const auto &x : {constant, linear})
    for (const double y : times(m.bending, x))
      EXPECT_NEAR(y, 0., 1e-14);
  // and no more: t and t² have positive energies (∫1 = 1, ∫4 = 4)
  const auto k_linear = times(m.stiffness, linear);
  const auto b_square = times(m.bending, square);
  double     e_k = 0, e_b = 0;
  for (unsigned int i = 0; i < 4; ++i)
    {
      e_k += linear[i] * k_linear[i];
      e_b += square[i] * b_square[i];
    }
  EXPECT_NEAR(e_k, 1., 1e-14);
  EXPECT_NEAR(e_b, 4., 1e-13);
}

TEST(Hermite1D, PhysicalDerivativeDofsScaleTheMatricesByTheWidth)
{
  // ψ_i(x) = s_i φ_i((x − a)/h) integrated on [a, a + h] by Gauss quadrature
  // (the integrals do not depend on a)
  const hermite::Matrices1D m = hermite::make_matrices_1d();
  const double              h = 0.37;
  const Quadrature1D        quad = gauss_quadrature(5);
  for (unsigned int i = 0; i < 4; ++i)
    for (unsigned int j = 0; j < 4; ++j)
      {
        const double si = hermite::derivative_scaling(i, h), sj = hermite::derivative_scaling(j, h);
        double       mass = 0, stiffness = 0, bending = 0;
        for (unsigned int q = 0; q < quad.points.size(); ++q)
          {
            const double t = quad.points[q], w = quad.weights[q] * h;
            mass += w * si * hermite::value(i, t) * sj * hermite::value(j, t);
            stiffness += w * si * hermite::derivative(i, t) / h * sj * hermite::derivative(j, t) / h;
            bending += w * si * hermite::second_derivative(i, t) / (h * h) * sj * hermite::second_derivative(j, t) / (h * h);
          }
        EXPECT_NEAR(mass, h * si * m.mass(i, j) * sj, 1e-15);
        EXPECT_NEAR(stiffness, si * m.stiffness(i, j) * sj / h, 1e-13);
        EXPECT_NEAR(bending, si * m.bending(i, j) * sj / (h * h * h), 1e-11);
      }
}

TEST(Hermite1D, ProlongationReproducesCubicsWithTheWidthRatio)
{
  const hermite::Matrices1D              m = hermite::make_matrices_1d();
  std::mt19937                           generator(3);
  std::uniform_real_distribution<double> coefficient(-1., 1.);
  for (int sample = 0; sample < 5; ++sample)
    {
      const double c0 = coefficient(generator), c1 = coefficient(generator), c2 = coefficient(generator),
                   c3 = coefficient(generator);
      const auto p  = [&](const double t) { return c0 + t * (c1 + t * (c2 + t * c3)); };
      const auto dp = [&](const double t) { return c1 + t * (2 * c2 + t * 3 * c3); };
      // reference DoFs of the parent: values and dp/dt at 0 and 1
      const std::array<double, 4> parent = {{p(0), dp(0), p(1), dp(1)}};
      for (unsigned int c = 0; c < 2; ++c)
        {
          const auto child = times(m.prolongation[c], parent);
          // the child's reference derivative is dp/dt_child = dp/dt / 2
          const std::array<double, 4> expected = {{p(0.5 * c), 0.5 * dp(0.5 * c), p(0.5 * (c + 1)), 0.5 * dp(0.5 * (c + 1))}};
          for (unsigned int i = 0; i < 4; ++i)
            EXPECT_NEAR(child[i], expected[i], 1e-14) << "child " << c << " DoF " << i;
        }
    }
}
