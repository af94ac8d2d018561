// The two-axis even–odd decomposition of the Hermite cell matrix
// (fe/hermite_even_odd.h, 001 §4.3), the algorithm of the device's even–odd
// kernel: the sectors of cell matrices of boxes of unequal sides put back
// together give the dense matrix (A = Tᵀ E T), and applying them to random
// vectors gives A x; a matrix that does not commute with the reflections (a
// random one, or the cell matrix in a permuted order) is refused.

#include <cellwise/base/exceptions.h>
#include <cellwise/fe/hermite_even_odd.h>
#include <cellwise/operators/hermite_biharmonic_operator.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

using namespace cellwise;

namespace
{
  constexpr unsigned int n = hermite::dofs_per_cell;

  double
  largest_entry(const DenseMatrix &A)
  {
    double largest = 0;
    for (unsigned int i = 0; i < A.m(); ++i)
      for (unsigned int j = 0; j < A.n(); ++j)
        largest = std::max(largest, std::abs(A(i, j)));
    return largest;
  }
} // namespace

TEST(HermiteEvenOdd, SectorsReproduceTheCellMatrix)
{
  for (const std::array<double, 3> h : {std::array<double, 3>{1., 1., 1.}, {0.3, 0.07, 1.9}, {1. / 128, 1. / 64, 1. / 128}})
    {
      SCOPED_TRACE(::testing::Message() << "widths " << h[0] << ", " << h[1] << ", " << h[2]);
      const DenseMatrix A       = hermite_biharmonic_cell_matrix(h, 0);
      const auto        sectors = hermite::even_odd_sectors(A);
      // column j of A from the sectors applied to unit vector j
      double max_error = 0;
      std::vector<double> e(n), y(n);
      for (unsigned int j = 0; j < n; ++j)
        {
          std::fill(e.begin(), e.end(), 0.);
          e[j] = 1;
          hermite::apply_even_odd(sectors, e.data(), y.data());
          for (unsigned int i = 0; i < n; ++i)
            max_error = std::max(max_error, std::abs(y[i] - A(i, j)));
        }
      EXPECT_LE(max_error, 1e-13 * largest_entry(A));
      // no sector is trivially zero
      for (unsigned int s = 0; s < hermite::n_sectors; ++s)
        EXPECT_GT(largest_entry(sectors[s]), 1e-6 * largest_entry(A)) << "sector " << s;

      // random vectors
      std::mt19937                           rng(7);
      std::uniform_real_distribution<double> dist(-1, 1);
      std::vector<double>                    x(n), expected(n);
      for (unsigned int trial = 0; trial < 5; ++trial)
        {
          for (double &v : x)
            v = dist(rng);
          A.vmult(expected, x);
          hermite::apply_even_odd(sectors, x.data(), y.data());
          double error = 0, norm = 0;
          for (unsigned int i = 0; i < n; ++i)
            {
              error = std::max(error, std::abs(y[i] - expected[i]));
              norm  = std::max(norm, std::abs(expected[i]));
            }
          EXPECT_LE(error, 1e-13 * norm);
        }
    }
}

TEST(HermiteEvenOdd, MatricesThatMixTheSectorsAreRefused)
{
  std::mt19937                           rng(11);
  std::uniform_real_distribution<double> dist(-1, 1);
  DenseMatrix                            random(n, n);
  for (unsigned int i = 0; i < n; ++i)
    for (unsigned int j = 0; j <= i; ++j)
      random(i, j) = random(j, i) = dist(rng);
  EXPECT_THROW(hermite::even_odd_sectors(random), Error);

  // the cell matrix with x and z exchanged in the local order: still
  // symmetric, but the pairs of the decomposition are no longer mirrors
  const DenseMatrix A = hermite_biharmonic_cell_matrix({{0.5, 0.25, 2.}}, 0);
  DenseMatrix       permuted(n, n);
  const auto        swap_xz = [](const unsigned int i) { return (i / 16) + 4 * ((i / 4) % 4) + 16 * (i % 4); };
  for (unsigned int i = 0; i < n; ++i)
    for (unsigned int j = 0; j < n; ++j)
      permuted(i, j) = A(swap_xz(i), swap_xz(j));
  // the reflections in x and y of the permuted order are those of z and y
  // of the original: they still commute. Exchanging the value and the
  // derivative at x = 0 pairs a value with a derivative: they do not
  const auto shift = [](const unsigned int i) {
    const unsigned int ix = i % 4;
    return (ix < 2 ? 1 - ix : ix) + 4 * ((i / 4) % 4) + 16 * (i / 16);
  };
  DenseMatrix shifted(n, n);
  for (unsigned int i = 0; i < n; ++i)
    for (unsigned int j = 0; j < n; ++j)
      shifted(i, j) = A(shift(i), shift(j));
  EXPECT_NO_THROW(hermite::even_odd_sectors(permuted));
  EXPECT_THROW(hermite::even_odd_sectors(shifted), Error);
  EXPECT_THROW(hermite::even_odd_sectors(DenseMatrix(16, 16)), Error);
}
