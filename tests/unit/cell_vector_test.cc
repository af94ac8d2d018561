// CellVector: layouts, padding, algebra, deterministic reductions, bad input.

#include <cellwise/storage/cell_vector.h>

#include <gtest/gtest.h>

#include <omp.h>

#include "test_utilities.h"

using namespace cellwise;
using namespace cellwise::testing;

TEST(CellVector, BlockedLayoutIndexIsCellFastestWithinBlocks)
{
  using L = CellBlocked<32>;
  EXPECT_EQ(L::index(0, 0, 8), 0u);
  EXPECT_EQ(L::index(1, 0, 8), 1u);
  EXPECT_EQ(L::index(0, 1, 8), 32u);
  EXPECT_EQ(L::index(33, 2, 8), 32u * 8 + 2 * 32 + 1);
  EXPECT_EQ(storage_size<L>(33, 8), 64u * 8);
  EXPECT_EQ(CellContiguous::index(3, 2, 8), 26u);
}

TEST(CellVector, CellOfAndDofOfInvertTheIndex)
{
  // every (cell, i) of both layouts comes back from its storage index
  const auto check = [](auto layout) {
    using L = decltype(layout);
    for (const unsigned int n : {1u, 8u, 27u, 64u})
      for (std::size_t cell = 0; cell < 70; ++cell)
        for (unsigned int i = 0; i < n; ++i)
          {
            const std::size_t k = L::index(cell, i, n);
            ASSERT_EQ(L::cell_of(k, n), cell) << "n " << n << ", cell " << cell << ", i " << i;
            ASSERT_EQ(L::dof_of(k, n), i) << "n " << n << ", cell " << cell << ", i " << i;
          }
  };
  check(CellContiguous());
  check(CellBlocked<32>());
  check(CellBlocked<4>());
}

TEST(CellVector, PaddingStaysOutOfReductions)
{
  CellVector<double, MemorySpace::Host, CellBlocked<32>> v(33, 2), w(33, 2);
  v.fill(1.);
  w.fill(2.);
  EXPECT_EQ(v.size(), 33u * 27);
  EXPECT_EQ(v.storage_size(), 64u * 27);
  EXPECT_DOUBLE_EQ(v.dot(w), 2. * 33 * 27);
  v.sadd(2., 1., w);
  EXPECT_DOUBLE_EQ(v.l2_norm(), std::sqrt(16. * 33 * 27));
}

TEST(CellVector, ReinitWithoutZeroingStillZeroesThePadding)
{
  // 64 cells fill two blocks of 32; 45 cells need the same storage, so the
  // values of cells 45..63 stay in memory where the padding now is
  CellVector<double, MemorySpace::Host, CellBlocked<32>> v(64, 2);
  v.fill(1.);
  v.reinit(45, 2, true);
  ASSERT_EQ(v.storage_size(), 64u * 27u);
  for (unsigned int cell = 45; cell < 64; ++cell)
    for (unsigned int i = 0; i < 27; ++i)
      ASSERT_EQ(v.data()[CellBlocked<32>::index(cell, i, 27)], 0.) << "padding of cell slot " << cell;
  for (unsigned int cell = 0; cell < 45; ++cell)
    for (unsigned int i = 0; i < 27; ++i)
      v(cell, i) = 2.;
  EXPECT_DOUBLE_EQ(v.l2_norm(), std::sqrt(45. * 27. * 4.));
  // the plain reinit zeroes everything
  v.reinit(45, 2);
  EXPECT_EQ(v.l2_norm(), 0.);
}

TEST(CellVector, AlgebraMatchesLoops)
{
  CellVector<double> a(50, 3), b(50, 3);
  fill_random(a, 1);
  fill_random(b, 2);
  CellVector<double> c = a;
  c.sadd(0.5, -2., b);
  for (unsigned int k = 0; k < 50; ++k)
    for (unsigned int i = 0; i < 64; ++i)
      ASSERT_DOUBLE_EQ(c(k, i), 0.5 * a(k, i) - 2 * b(k, i));
  c.equ(3., a);
  c.add(1., b);
  c.scale(b);
  for (unsigned int k = 0; k < 50; ++k)
    for (unsigned int i = 0; i < 64; ++i)
      ASSERT_DOUBLE_EQ(c(k, i), (3 * a(k, i) + b(k, i)) * b(k, i));
  CellVector<float> f;
  f.copy_from(a);
  EXPECT_EQ(f.n_cells(), 50u);
  EXPECT_FLOAT_EQ(f(7, 9), float(a(7, 9)));
}

namespace
{
  /// this += a x across number types against copy_from then add, bit for bit
  /// over the whole storage (the padding of the blocked layout included).
  template <typename Number, typename OtherNumber, typename Layout>
  void
  check_cross_precision_add(const unsigned int n_cells, const unsigned int degree)
  {
    SCOPED_TRACE(::testing::Message() << n_cells << " cells of degree " << degree << ", block " << Layout::cell_block);
    CellVector<Number, MemorySpace::Host, Layout>      v(n_cells, degree);
    CellVector<OtherNumber, MemorySpace::Host, Layout> x(n_cells, degree);
    fill_random(v, 7);
    fill_random(x, 8);
    for (const Number a : {Number(1), Number(-1.3), Number(0.7)})
      {
        CellVector<Number, MemorySpace::Host, Layout> expected = v, converted, result = v;
        converted.copy_from(x);
        expected.add(a, converted);
        result.add(a, x);
        ASSERT_EQ(result.storage_size(), expected.storage_size());
        for (std::size_t k = 0; k < result.storage_size(); ++k)
          ASSERT_EQ(result.data()[k], expected.data()[k]) << "a = " << a << ", storage entry " << k;
      }
    CellVector<OtherNumber, MemorySpace::Host, Layout> other_shape(n_cells + 1, degree);
    EXPECT_THROW(v.add(Number(1), other_shape), Error);
  }

  /// this = s this + a x across number types against copy_from then sadd,
  /// bit for bit over the whole storage.
  template <typename Number, typename OtherNumber, typename Layout>
  void
  check_cross_precision_sadd(const unsigned int n_cells, const unsigned int degree)
  {
    SCOPED_TRACE(::testing::Message() << n_cells << " cells of degree " << degree << ", block " << Layout::cell_block);
    CellVector<Number, MemorySpace::Host, Layout>      v(n_cells, degree);
    CellVector<OtherNumber, MemorySpace::Host, Layout> x(n_cells, degree);
    fill_random(v, 9);
    fill_random(x, 10);
    for (const Number s : {Number(0.25), Number(-1.7)})
      {
        CellVector<Number, MemorySpace::Host, Layout> expected = v, converted, result = v;
        converted.copy_from(x);
        expected.sadd(s, Number(1), converted);
        result.sadd(s, Number(1), x);
        for (std::size_t k = 0; k < result.storage_size(); ++k)
          ASSERT_EQ(result.data()[k], expected.data()[k]) << "s = " << s << ", storage entry " << k;
      }
    CellVector<OtherNumber, MemorySpace::Host, Layout> other_shape(n_cells, degree + 1);
    EXPECT_THROW(v.sadd(Number(1), Number(1), other_shape), Error);
  }

  /// CG's fused passes against the two operations each replaces, bit for
  /// bit over the whole storage: u += a p, then p = s p + z (z of @p
  /// OtherNumber); r += a q, then the copy of r in @p OtherNumber.
  template <typename Number, typename OtherNumber, typename Layout>
  void
  check_fused_cg_passes(const unsigned int n_cells, const unsigned int degree)
  {
    SCOPED_TRACE(::testing::Message() << n_cells << " cells of degree " << degree << ", block " << Layout::cell_block);
    using Vector = CellVector<Number, MemorySpace::Host, Layout>;
    Vector                                             u(n_cells, degree), p(n_cells, degree);
    CellVector<OtherNumber, MemorySpace::Host, Layout> z(n_cells, degree);
    fill_random(u, 21);
    fill_random(p, 22);
    fill_random(z, 23);
    const Number a = Number(-0.37), s = Number(1.9);
    Vector       u_expected = u, p_expected = p, converted;
    u_expected.add(a, p_expected);
    converted.copy_from(z);
    p_expected.sadd(s, Number(1), converted);
    u.add_and_sadd(a, p, s, z);
    for (std::size_t k = 0; k < u.storage_size(); ++k)
      {
        ASSERT_EQ(u.data()[k], u_expected.data()[k]) << "u, storage entry " << k;
        ASSERT_EQ(p.data()[k], p_expected.data()[k]) << "p, storage entry " << k;
      }

    Vector r = u, r_expected = u;
    r_expected.add(a, p);
    CellVector<OtherNumber, MemorySpace::Host, Layout> rounded, rounded_expected;
    rounded_expected.copy_from(r_expected);
    r.add_and_convert(a, p, rounded); // rounded takes r's shape
    ASSERT_TRUE(rounded.has_shape_of(r));
    for (std::size_t k = 0; k < r.storage_size(); ++k)
      {
        ASSERT_EQ(r.data()[k], r_expected.data()[k]) << "r, storage entry " << k;
        ASSERT_EQ(rounded.data()[k], rounded_expected.data()[k]) << "rounded r, storage entry " << k;
      }

    Vector other_shape(n_cells + 1, degree);
    EXPECT_THROW(u.add_and_sadd(a, other_shape, s, z), Error);
    EXPECT_THROW(r.add_and_convert(a, other_shape, rounded), Error);
  }
} // namespace

TEST(CellVector, FusedCgPassesEqualTheSeparateOperations)
{
  check_fused_cg_passes<double, double, CellContiguous>(45, 2);
  check_fused_cg_passes<double, float, CellContiguous>(45, 3);
  check_fused_cg_passes<double, float, CellBlocked<32>>(45, 3);
  check_fused_cg_passes<float, float, CellBlocked<32>>(45, 1);
  check_fused_cg_passes<double, float, CellBlocked<32>>(0, 1);
}

TEST(CellVector, CrossPrecisionAddEqualsCopyThenAdd)
{
  // 45 cells: not a multiple of the cell block 32
  check_cross_precision_add<double, float, CellContiguous>(45, 2);
  check_cross_precision_add<float, double, CellContiguous>(45, 2);
  check_cross_precision_add<double, float, CellBlocked<32>>(45, 3);
  check_cross_precision_add<float, double, CellBlocked<32>>(45, 3);
  check_cross_precision_add<double, float, CellContiguous>(0, 1);
}

TEST(CellVector, CrossPrecisionSaddEqualsCopyThenSadd)
{
  check_cross_precision_sadd<double, float, CellContiguous>(45, 2);
  check_cross_precision_sadd<float, double, CellBlocked<32>>(45, 3);
  check_cross_precision_sadd<double, float, CellBlocked<32>>(0, 1);
}

TEST(CellVector, DotIsIndependentOfThreadCount)
{
  CellVector<double> a(2000, 3), b(2000, 3);
  fill_random(a, 1);
  fill_random(b, 2);
  const int old = omp_get_max_threads();
  omp_set_num_threads(1);
  const double one = a.dot(b);
  omp_set_num_threads(2);
  const double two = a.dot(b);
  omp_set_num_threads(old);
  EXPECT_EQ(one, two);
}

TEST(CellVector, NonFiniteValuesAreDetected)
{
  CellVector<double> a(3, 1);
  EXPECT_TRUE(a.all_finite());
  a(1, 2) = std::nan("");
  EXPECT_FALSE(a.all_finite());
}

TEST(CellVector, MismatchedShapesAreRejected)
{
  CellVector<double> a(3, 2), b(3, 3), c(4, 2);
  EXPECT_THROW(a.add(1., b), Error);
  EXPECT_THROW(a.dot(c), Error);
  EXPECT_THROW(CellVector<double>(3, 0), Error);
}
