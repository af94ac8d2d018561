// DenseMatrix, kronecker_product and CholeskyFactorization.

#include <cellwise/base/dense_matrix.h>
#include <cellwise/base/exceptions.h>

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>

using namespace cellwise;

namespace
{
  DenseMatrix
  random_matrix(const unsigned int m, const unsigned int n, std::mt19937 &rng)
  {
    std::uniform_real_distribution<double> dist(-1., 1.);
    DenseMatrix                            a(m, n);
    for (unsigned int i = 0; i < m; ++i)
      for (unsigned int j = 0; j < n; ++j)
        a(i, j) = dist(rng);
    return a;
  }

  /// R^T R + n I: symmetric positive definite and well conditioned.
  DenseMatrix
  random_spd(const unsigned int n, std::mt19937 &rng)
  {
    const DenseMatrix r = random_matrix(n, n, rng);
    DenseMatrix       a = r.transpose() * r;
    for (unsigned int i = 0; i < n; ++i)
      a(i, i) += n;
    return a;
  }
} // namespace

TEST(DenseMatrix, ConstructionAndAccess)
{
  DenseMatrix a(2, 3);
  EXPECT_EQ(a.m(), 2u);
  EXPECT_EQ(a.n(), 3u);
  for (unsigned int i = 0; i < 6; ++i)
    EXPECT_EQ(a.data()[i], 0.);
  a(1, 2) = 5.;
  EXPECT_EQ(a.data()[1 * 3 + 2], 5.); // row-major
  const DenseMatrix t = a.transpose();
  EXPECT_EQ(t.m(), 3u);
  EXPECT_EQ(t.n(), 2u);
  EXPECT_EQ(t(2, 1), 5.);
}

TEST(DenseMatrix, VmultTvmultAndProduct)
{
  DenseMatrix a(2, 3);
  // a = [[1 2 3], [4 5 6]]
  for (unsigned int i = 0; i < 2; ++i)
    for (unsigned int j = 0; j < 3; ++j)
      a(i, j) = 3 * i + j + 1;
  std::vector<double> dst;
  a.vmult(dst, {1., 0., -1.});
  ASSERT_EQ(dst.size(), 2u);
  EXPECT_EQ(dst[0], -2.);
  EXPECT_EQ(dst[1], -2.);
  a.Tvmult(dst, {1., 2.});
  ASSERT_EQ(dst.size(), 3u);
  EXPECT_EQ(dst[0], 9.);
  EXPECT_EQ(dst[1], 12.);
  EXPECT_EQ(dst[2], 15.);

  const DenseMatrix c = a * a.transpose(); // [[14 32], [32 77]]
  ASSERT_EQ(c.m(), 2u);
  ASSERT_EQ(c.n(), 2u);
  EXPECT_EQ(c(0, 0), 14.);
  EXPECT_EQ(c(0, 1), 32.);
  EXPECT_EQ(c(1, 0), 32.);
  EXPECT_EQ(c(1, 1), 77.);

  EXPECT_THROW(a.vmult(dst, {1., 2.}), Error);
  EXPECT_THROW(a * a, Error);
}

TEST(DenseMatrix, KroneckerProductIndices)
{
  std::mt19937      rng(1);
  const DenseMatrix a = random_matrix(2, 3, rng);
  const DenseMatrix b = random_matrix(4, 5, rng);
  const DenseMatrix c = kronecker_product(a, b);
  ASSERT_EQ(c.m(), 8u);
  ASSERT_EQ(c.n(), 15u);
  for (unsigned int i = 0; i < 2; ++i)
    for (unsigned int j = 0; j < 3; ++j)
      for (unsigned int k = 0; k < 4; ++k)
        for (unsigned int l = 0; l < 5; ++l)
          EXPECT_EQ(c(i * 4 + k, j * 5 + l), a(i, j) * b(k, l));

  // The mixed product rule (a⊗b)(x⊗y) = (a x)⊗(b y) fixes the convention too.
  const DenseMatrix x = random_matrix(3, 1, rng), y = random_matrix(5, 1, rng);
  const DenseMatrix lhs = c * kronecker_product(x, y);
  const DenseMatrix rhs = kronecker_product(a * x, b * y);
  for (unsigned int i = 0; i < 8; ++i)
    EXPECT_NEAR(lhs(i, 0), rhs(i, 0), 1e-14);
}

TEST(DenseMatrix, CholeskySolvesRandomSpdSystem)
{
  std::mt19937 rng(42);
  for (const unsigned int n : {1u, 2u, 5u, 17u, 60u})
    {
      const DenseMatrix a = random_spd(n, rng);
      std::vector<double> x_exact(n);
      for (unsigned int i = 0; i < n; ++i)
        x_exact[i] = std::sin(1. + i);
      std::vector<double> x;
      a.vmult(x, x_exact);

      const CholeskyFactorization chol(a);
      EXPECT_EQ(chol.size(), n);
      chol.solve(x);
      for (unsigned int i = 0; i < n; ++i)
        EXPECT_NEAR(x[i], x_exact[i], 1e-12) << "n = " << n << ", i = " << i;

      // L is lower triangular and L L^T = A.
      const DenseMatrix &l  = chol.lower();
      const DenseMatrix  ll = l * l.transpose();
      for (unsigned int i = 0; i < n; ++i)
        for (unsigned int j = 0; j < n; ++j)
          {
            if (j > i)
              {
                EXPECT_EQ(l(i, j), 0.);
              }
            EXPECT_NEAR(ll(i, j), a(i, j), 1e-12 * n);
          }
    }
}

TEST(DenseMatrix, CholeskyRejectsNonSpd)
{
  // Indefinite: eigenvalues 3 and -1; the second pivot is 1 - 4 = -3.
  DenseMatrix a(2, 2);
  a(0, 0) = 1;
  a(0, 1) = a(1, 0) = 2;
  a(1, 1)           = 1;
  try
    {
      CholeskyFactorization chol(a);
      FAIL() << "no exception for an indefinite matrix";
    }
  catch (const Error &e)
    {
      EXPECT_NE(std::string(e.what()).find("pivot 1"), std::string::npos) << e.what();
    }

  // Singular positive semidefinite (the 1D stiffness [[1,-1],[-1,1]]).
  DenseMatrix k(2, 2);
  k(0, 0) = k(1, 1) = 1;
  k(0, 1) = k(1, 0) = -1;
  EXPECT_THROW(CholeskyFactorization{k}, Error);

  // Negative first pivot, and a non-square matrix.
  DenseMatrix neg(1, 1);
  neg(0, 0) = -1;
  EXPECT_THROW(CholeskyFactorization{neg}, Error);
  EXPECT_THROW(CholeskyFactorization(DenseMatrix(2, 3)), Error);
}
