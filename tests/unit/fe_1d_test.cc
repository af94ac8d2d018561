// 1D finite element data: quadrature, Gauss–Lobatto Lagrange basis, mass,
// stiffness and prolongation matrices, generalized eigenproblem.

#include <cellwise/base/config.h>
#include <cellwise/base/dense_matrix.h>
#include <cellwise/base/exceptions.h>
#include <cellwise/fe/generalized_eigenproblem.h>
#include <cellwise/fe/lagrange_basis_1d.h>
#include <cellwise/fe/matrices_1d.h>
#include <cellwise/fe/quadrature.h>

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>
#include <string>

using namespace cellwise;

namespace
{
  void
  expect_matrix_near(const DenseMatrix &a, const DenseMatrix &b, const double tol)
  {
    ASSERT_EQ(a.m(), b.m());
    ASSERT_EQ(a.n(), b.n());
    for (unsigned int i = 0; i < a.m(); ++i)
      for (unsigned int j = 0; j < a.n(); ++j)
        EXPECT_NEAR(a(i, j), b(i, j), tol) << "entry (" << i << "," << j << ")";
  }

  DenseMatrix
  from_rows(const std::vector<std::vector<double>> &rows, const double factor)
  {
    DenseMatrix a(rows.size(), rows[0].size());
    for (unsigned int i = 0; i < a.m(); ++i)
      for (unsigned int j = 0; j < a.n(); ++j)
        a(i, j) = factor * rows[i][j];
    return a;
  }

  /// Expects @p f() to throw cellwise::Error whose message contains @p text.
  void
  expect_error_containing(const std::function<void()> &f, const std::string &text)
  {
    try
      {
        f();
        ADD_FAILURE() << "no cellwise::Error thrown, expected one mentioning '" << text << "'";
      }
    catch (const Error &e)
      {
        EXPECT_NE(std::string(e.what()).find(text), std::string::npos)
          << "message '" << e.what() << "' does not mention '" << text << "'";
      }
  }

  /// Checks sum w_q x_q^k = 1/(k+1) for k = 0..exact_degree, and that the next
  /// degree is not integrated exactly (so the stated degree is sharp).
  void
  check_exactness(const Quadrature1D &q, const unsigned int exact_degree)
  {
    for (unsigned int k = 0; k <= exact_degree + 1; ++k)
      {
        double sum = 0;
        for (unsigned int i = 0; i < q.points.size(); ++i)
          sum += q.weights[i] * std::pow(q.points[i], k);
        if (k <= exact_degree)
          EXPECT_NEAR(sum, 1. / (k + 1), 1e-15) << "n = " << q.points.size() << ", monomial degree " << k;
        else
          EXPECT_GT(std::abs(sum - 1. / (k + 1)), 1e-12) << "n = " << q.points.size() << ", degree " << k;
      }
  }

  void
  check_rule_shape(const Quadrature1D &q, const unsigned int n)
  {
    ASSERT_EQ(q.points.size(), n);
    ASSERT_EQ(q.weights.size(), n);
    double sum = 0;
    for (unsigned int i = 0; i < n; ++i)
      {
        sum += q.weights[i];
        EXPECT_GT(q.weights[i], 0.);
        EXPECT_GE(q.points[i], 0.);
        EXPECT_LE(q.points[i], 1.);
        if (i > 0)
          {
            EXPECT_LT(q.points[i - 1], q.points[i]);
          }
        EXPECT_NEAR(q.points[i] + q.points[n - 1 - i], 1., 1e-16) << "n = " << n;
        EXPECT_NEAR(q.weights[i], q.weights[n - 1 - i], 1e-16) << "n = " << n;
      }
    EXPECT_NEAR(sum, 1., 1e-15) << "n = " << n;
  }
} // namespace

// ---------------------------------------------------------------- quadrature

TEST(Quadrature, GaussShapeAndExactness)
{
  for (unsigned int n = 1; n <= 9; ++n)
    {
      const Quadrature1D q = gauss_quadrature(n);
      check_rule_shape(q, n);
      check_exactness(q, 2 * n - 1);
    }
}

TEST(Quadrature, GaussLobattoShapeEndpointsAndExactness)
{
  for (unsigned int n = 2; n <= 9; ++n)
    {
      const Quadrature1D q = gauss_lobatto_quadrature(n);
      check_rule_shape(q, n);
      EXPECT_EQ(q.points.front(), 0.);
      EXPECT_EQ(q.points.back(), 1.);
      check_exactness(q, 2 * n - 3);
    }
}

TEST(Quadrature, KnownPoints)
{
  // Gauss 2: (1 -+ 1/sqrt 3)/2; Lobatto 4: (1 -+ 1/sqrt 5)/2 inside.
  const Quadrature1D g = gauss_quadrature(2);
  EXPECT_NEAR(g.points[0], 0.5 - 0.5 / std::sqrt(3.), 1e-16);
  const Quadrature1D gl = gauss_lobatto_quadrature(4);
  EXPECT_NEAR(gl.points[1], 0.5 - 0.5 / std::sqrt(5.), 1e-16);
  EXPECT_NEAR(gl.weights[0], 1. / 12., 1e-16);
  const Quadrature1D gl3 = gauss_lobatto_quadrature(3);
  EXPECT_EQ(gl3.points[1], 0.5);
}

TEST(Quadrature, BadNumberOfPointsThrows)
{
  expect_error_containing([] { gauss_quadrature(0); }, "0");
  expect_error_containing([] { gauss_lobatto_quadrature(1); }, "1");
  expect_error_containing([] { gauss_lobatto_quadrature(0); }, "0 points");
}

// --------------------------------------------------------------- basis

TEST(FeLagrangeBasis1D, LagrangePropertyAndNodes)
{
  for (unsigned int p = 1; p <= max_degree; ++p)
    {
      const LagrangeBasis1D basis(p);
      EXPECT_EQ(basis.degree(), p);
      ASSERT_EQ(basis.size(), p + 1);
      EXPECT_EQ(basis.nodes(), gauss_lobatto_quadrature(p + 1).points);
      const DenseMatrix v = basis.values_at(basis.nodes());
      for (unsigned int i = 0; i <= p; ++i)
        for (unsigned int j = 0; j <= p; ++j)
          EXPECT_NEAR(v(j, i), i == j ? 1. : 0., 1e-14) << "p = " << p;
    }
}

TEST(FeLagrangeBasis1D, DerivativesMatchFiniteDifferencesAndSumToZero)
{
  for (unsigned int p = 1; p <= max_degree; ++p)
    {
      const LagrangeBasis1D     basis(p);
      const std::vector<double> x = {0., 0.137, 0.5, 0.81, 1.};
      const DenseMatrix         d = basis.derivatives_at(x);
      const double              h = 1e-5;
      for (unsigned int q = 0; q < x.size(); ++q)
        {
          double sum = 0;
          for (unsigned int i = 0; i <= p; ++i)
            {
              const double fd = (basis.value(i, x[q] + h) - basis.value(i, x[q] - h)) / (2 * h);
              EXPECT_NEAR(d(q, i), fd, 1e-6 * (1 + std::abs(fd))) << "p = " << p;
              sum += d(q, i);
            }
          EXPECT_NEAR(sum, 0., 1e-11) << "p = " << p; // derivative of the partition of unity
        }
    }
}

// The collocation derivative on the Gauss points: derivatives of polynomials
// of degree < n exact at the points, D = Dc S for the FE_Q(p) tables there
// (the identity the general kernel's plane phases rest on), bad points refused.
TEST(FeCollocationDerivatives, ExactOnPolynomialsAndFactorsTheGradientTable)
{
  for (unsigned int p = 1; p <= max_degree; ++p)
    {
      const unsigned int  n  = p + 1;
      const Quadrature1D  g  = gauss_quadrature(n);
      const DenseMatrix   Dc = collocation_derivatives(g.points);
      // x^j, j < n, at the points: Dc gives j x^(j-1)
      for (unsigned int j = 0; j < n; ++j)
        for (unsigned int q = 0; q < n; ++q)
          {
            double derivative = 0;
            for (unsigned int k = 0; k < n; ++k)
              derivative += Dc(q, k) * std::pow(g.points[k], j);
            const double exact = j == 0 ? 0. : j * std::pow(g.points[q], j - 1.);
            EXPECT_NEAR(derivative, exact, 1e-11 * (1 + j * n)) << "p = " << p << ", x^" << j << " at point " << q;
          }
      const LagrangeBasis1D basis(p);
      expect_matrix_near(Dc * basis.values_at(g.points), basis.derivatives_at(g.points), 1e-11 * n * n);
    }
  EXPECT_THROW(collocation_derivatives({0.5}), Error);
  EXPECT_THROW(collocation_derivatives({0.1, 0.4, 0.1}), Error);
}

// --------------------------------------------------------------- matrices

TEST(FeMatrices1D, ClosedFormsDegreeOneAndTwo)
{
  const Matrices1D m1 = make_matrices_1d(1);
  EXPECT_EQ(m1.degree, 1u);
  expect_matrix_near(m1.mass, from_rows({{2, 1}, {1, 2}}, 1. / 6.), 1e-15);
  expect_matrix_near(m1.stiffness, from_rows({{1, -1}, {-1, 1}}, 1.), 1e-14);

  const Matrices1D m2 = make_matrices_1d(2);
  expect_matrix_near(m2.mass, from_rows({{4, 2, -1}, {2, 16, 2}, {-1, 2, 4}}, 1. / 30.), 1e-15);
  expect_matrix_near(m2.stiffness, from_rows({{7, -8, 1}, {-8, 16, -8}, {1, -8, 7}}, 1. / 3.), 1e-13);

  // p = 1 prolongation: linear interpolation to the child nodes.
  expect_matrix_near(m1.prolongation[0], from_rows({{1, 0}, {0.5, 0.5}}, 1.), 1e-15);
  expect_matrix_near(m1.prolongation[1], from_rows({{0.5, 0.5}, {0, 1}}, 1.), 1e-15);
}

TEST(FeMatrices1D, MassAndStiffnessProperties)
{
  for (unsigned int p = 1; p <= max_degree; ++p)
    {
      const Matrices1D   mats = make_matrices_1d(p);
      const unsigned int n    = p + 1;
      ASSERT_EQ(mats.mass.m(), n);
      ASSERT_EQ(mats.stiffness.n(), n);

      std::vector<double> ones(n, 1.), k_ones;
      mats.stiffness.vmult(k_ones, ones);
      double total_mass = 0;
      for (unsigned int i = 0; i < n; ++i)
        {
          EXPECT_NEAR(k_ones[i], 0., 1e-11) << "p = " << p;
          for (unsigned int j = 0; j < n; ++j)
            {
              total_mass += mats.mass(i, j);
              EXPECT_EQ(mats.mass(i, j), mats.mass(j, i));
              EXPECT_EQ(mats.stiffness(i, j), mats.stiffness(j, i));
            }
        }
      EXPECT_NEAR(total_mass, 1., 1e-14) << "p = " << p;
      // Positive definite: Cholesky succeeds.
      EXPECT_NO_THROW(CholeskyFactorization{mats.mass}) << "p = " << p;

      // Exactness: x^T M y = \int u v for u = x (interpolated exactly), v = x^2 (p >= 2).
      const LagrangeBasis1D basis(p);
      std::vector<double>   u(n), v(n), mv, kv;
      for (unsigned int i = 0; i < n; ++i)
        {
          const double x = basis.nodes()[i];
          u[i]           = x;
          v[i]           = std::pow(x, p);
        }
      mats.mass.vmult(mv, v);
      mats.stiffness.vmult(kv, v);
      double uMv = 0, uKv = 0;
      for (unsigned int i = 0; i < n; ++i)
        {
          uMv += u[i] * mv[i];
          uKv += u[i] * kv[i];
        }
      EXPECT_NEAR(uMv, 1. / (p + 2), 1e-13) << "p = " << p; // \int x * x^p
      EXPECT_NEAR(uKv, 1., 1e-12) << "p = " << p;           // \int 1 * p x^{p-1}
    }
}

TEST(FeMatrices1D, ProlongationReproducesPolynomials)
{
  for (unsigned int p = 1; p <= max_degree; ++p)
    {
      const Matrices1D      mats = make_matrices_1d(p);
      const LagrangeBasis1D basis(p);
      const unsigned int    n = p + 1;
      for (unsigned int c = 0; c < 2; ++c)
        {
          const DenseMatrix &pc = mats.prolongation[c];
          ASSERT_EQ(pc.m(), n);
          ASSERT_EQ(pc.n(), n);
          for (unsigned int i = 0; i < n; ++i)
            {
              double row_sum = 0;
              for (unsigned int j = 0; j < n; ++j)
                row_sum += pc(i, j);
              EXPECT_NEAR(row_sum, 1., 1e-13) << "p = " << p << ", child " << c;
            }
          for (unsigned int k = 0; k <= p; ++k)
            {
              std::vector<double> coarse(n), fine;
              for (unsigned int j = 0; j < n; ++j)
                coarse[j] = std::pow(basis.nodes()[j], k);
              pc.vmult(fine, coarse);
              for (unsigned int i = 0; i < n; ++i)
                EXPECT_NEAR(fine[i], std::pow(0.5 * (c + basis.nodes()[i]), k), 1e-13)
                  << "p = " << p << ", child " << c << ", x^" << k;
            }
        }
      // The shared midpoint: last fine node of child 0 = first of child 1.
      for (unsigned int j = 0; j < n; ++j)
        EXPECT_EQ(mats.prolongation[0](p, j), mats.prolongation[1](0, j));
    }
}

// --------------------------------------------------------------- eigenproblem

TEST(GeneralizedEigenproblem, StiffnessMassPairs)
{
  for (unsigned int p = 1; p <= max_degree; ++p)
    {
      const Matrices1D            mats = make_matrices_1d(p);
      const unsigned int          n    = p + 1;
      const GeneralizedEigenpairs eig  = solve_generalized_eigenproblem(mats.stiffness, mats.mass);
      ASSERT_EQ(eig.eigenvalues.size(), n);
      ASSERT_EQ(eig.eigenvectors.m(), n);
      ASSERT_EQ(eig.eigenvectors.n(), n);

      const DenseMatrix &q   = eig.eigenvectors;
      const DenseMatrix  qmq = q.transpose() * mats.mass * q;
      const DenseMatrix  qkq = q.transpose() * mats.stiffness * q;
      const double       mu_max = eig.eigenvalues.back();
      for (unsigned int i = 0; i < n; ++i)
        for (unsigned int j = 0; j < n; ++j)
          {
            EXPECT_NEAR(qmq(i, j), i == j ? 1. : 0., 1e-12) << "p = " << p;
            EXPECT_NEAR(qkq(i, j), i == j ? eig.eigenvalues[i] : 0., 1e-12 * mu_max) << "p = " << p;
          }

      for (unsigned int k = 0; k < n; ++k)
        {
          if (k > 0)
            {
              EXPECT_LE(eig.eigenvalues[k - 1], eig.eigenvalues[k]) << "p = " << p;
            }
          std::vector<double> qk(n), kq, mq;
          for (unsigned int i = 0; i < n; ++i)
            qk[i] = q(i, k);
          mats.stiffness.vmult(kq, qk);
          mats.mass.vmult(mq, qk);
          for (unsigned int i = 0; i < n; ++i)
            EXPECT_NEAR(kq[i], eig.eigenvalues[k] * mq[i], 1e-11 * mu_max) << "p = " << p << ", k = " << k;
        }

      // The smallest mode is the constant, with mu = 0 and |q| = 1 in the M norm.
      EXPECT_NEAR(eig.eigenvalues[0], 0., 1e-12 * mu_max) << "p = " << p;
      for (unsigned int i = 0; i < n; ++i)
        EXPECT_NEAR(q(i, 0), 1., 1e-12) << "p = " << p;
      EXPECT_GT(eig.eigenvalues[1], 1.) << "p = " << p;
    }
  // p = 1: mu = 0 and 12 (K = [[1,-1],[-1,1]], M = [[2,1],[1,2]]/6).
  const Matrices1D m1 = make_matrices_1d(1);
  EXPECT_NEAR(solve_generalized_eigenproblem(m1.stiffness, m1.mass).eigenvalues[1], 12., 1e-12);
}

TEST(GeneralizedEigenproblem, RandomSpdAgainstDenseCheck)
{
  std::mt19937                           rng(7);
  std::uniform_real_distribution<double> dist(-1., 1.);
  for (const unsigned int n : {1u, 3u, 9u, 25u})
    {
      DenseMatrix a(n, n), r(n, n);
      for (unsigned int i = 0; i < n; ++i)
        for (unsigned int j = 0; j <= i; ++j)
          a(i, j) = a(j, i) = dist(rng);
      for (unsigned int i = 0; i < n; ++i)
        for (unsigned int j = 0; j < n; ++j)
          r(i, j) = dist(rng);
      DenseMatrix b = r.transpose() * r;
      for (unsigned int i = 0; i < n; ++i)
        b(i, i) += 0.5;

      const GeneralizedEigenpairs eig = solve_generalized_eigenproblem(a, b);
      const DenseMatrix &         q   = eig.eigenvectors;
      const DenseMatrix           qbq = q.transpose() * b * q;
      const DenseMatrix           qaq = q.transpose() * a * q;
      // Dense check of the full decomposition: B Q diag(mu) = A Q.
      const DenseMatrix aq = a * q, bq = b * q;
      for (unsigned int i = 0; i < n; ++i)
        for (unsigned int j = 0; j < n; ++j)
          {
            EXPECT_NEAR(qbq(i, j), i == j ? 1. : 0., 1e-11) << "n = " << n;
            EXPECT_NEAR(qaq(i, j), i == j ? eig.eigenvalues[i] : 0., 1e-11) << "n = " << n;
            EXPECT_NEAR(aq(i, j), eig.eigenvalues[j] * bq(i, j), 1e-11) << "n = " << n;
          }
      for (unsigned int k = 1; k < n; ++k)
        EXPECT_LE(eig.eigenvalues[k - 1], eig.eigenvalues[k]);
      // Trace invariant: sum mu = trace(B^{-1} A).
      double trace = 0;
      const CholeskyFactorization chol(b);
      for (unsigned int j = 0; j < n; ++j)
        {
          std::vector<double> col(n);
          for (unsigned int i = 0; i < n; ++i)
            col[i] = a(i, j);
          chol.solve(col);
          trace += col[j];
        }
      double sum = 0;
      for (const double mu : eig.eigenvalues)
        sum += mu;
      EXPECT_NEAR(sum, trace, 1e-10 * (1 + std::abs(trace))) << "n = " << n;
    }

  // A diagonal case with known, unsorted eigenvalues comes back sorted.
  DenseMatrix a(3, 3), b(3, 3);
  a(0, 0) = 3, a(1, 1) = -1, a(2, 2) = 2;
  b(0, 0) = 1, b(1, 1) = 2, b(2, 2) = 4;
  const GeneralizedEigenpairs eig = solve_generalized_eigenproblem(a, b);
  EXPECT_NEAR(eig.eigenvalues[0], -0.5, 1e-15);
  EXPECT_NEAR(eig.eigenvalues[1], 0.5, 1e-15);
  EXPECT_NEAR(eig.eigenvalues[2], 3., 1e-15);
  EXPECT_NEAR(eig.eigenvectors(1, 0), 1. / std::sqrt(2.), 1e-15);
}

TEST(GeneralizedEigenproblem, BadInputThrows)
{
  DenseMatrix a(2, 2), b(2, 2), c(3, 3);
  b(0, 0) = b(1, 1) = 1;
  c(0, 0) = c(1, 1) = c(2, 2) = 1;
  a(0, 1)                     = 1; // not symmetric
  expect_error_containing([&] { solve_generalized_eigenproblem(a, b); }, "not symmetric");
  a(1, 0) = 1;
  expect_error_containing([&] { solve_generalized_eigenproblem(a, c); }, "3x3");
  expect_error_containing([&] { solve_generalized_eigenproblem(b, a); }, "positive definite");
  expect_error_containing([&] { solve_generalized_eigenproblem(DenseMatrix(2, 3), b); }, "2x3");
}

// --------------------------------------------------------------- bad degree

TEST(FeBadInput, DegreeOutOfRangeThrows)
{
  for (const unsigned int p : {0u, 9u})
    {
      const std::string value = "degree " + std::to_string(p);
      expect_error_containing([p] { LagrangeBasis1D basis(p); }, value);
      expect_error_containing([p] { make_matrices_1d(p); }, value);
    }
}
