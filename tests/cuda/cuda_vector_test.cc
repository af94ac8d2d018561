// Device CellVector against the host CellVector on the same seeded data.

#include <cellwise/storage/cuda_cell_vector.h>

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <type_traits>

#include "cuda/cuda_test_utilities.h"
#include "test_utilities.h"

using namespace cellwise;
using namespace cellwise::testing;

template <typename Pair>
class CudaCellVector : public ::testing::Test
{
public:
  using Number     = typename Pair::first_type;
  using Layout     = typename Pair::second_type;
  using HostVector = CellVector<Number, MemorySpace::Host, Layout>;
  using Vector     = CellVector<Number, MemorySpace::CUDA, Layout>;
};
TYPED_TEST_SUITE(CudaCellVector, NumberLayoutPairs);

namespace
{
  // (cells, degree): none a multiple of the cell block 32
  const std::pair<unsigned int, unsigned int> shapes[] = {{105, 1}, {192, 3}, {105, 5}, {1, 2}};
} // namespace

TYPED_TEST(CudaCellVector, elementwise_operations_match_host)
{
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  using Number     = typename TestFixture::Number;
  using HostVector = typename TestFixture::HostVector;
  using Vector     = typename TestFixture::Vector;
  const double tol = device_tolerance<Number>();
  const Number nan = std::numeric_limits<Number>::quiet_NaN();

  for (const auto &[n_cells, degree] : shapes)
    {
      SCOPED_TRACE(::testing::Message() << n_cells << " cells of degree " << degree);
      HostVector hx(n_cells, degree), hy(n_cells, degree), hd(n_cells, degree);
      fill_random(hx, 1);
      fill_random(hy, 2);
      fill_random(hd, 3);
      const Vector dx = to_device(hx), dd = to_device(hd);

      // round trip is exact and keeps the padding zero
      EXPECT_EQ(relative_difference(to_host(dx), hx), 0.);
      EXPECT_EQ(dx.storage_size(), hx.storage_size());
      EXPECT_EQ(dx.size(), hx.size());

      Vector dy;
      {
        HostVector expected = hy;
        dy                  = to_device(hy);
        expected.equ(Number(0.7), hx);
        dy.fill(nan);
        dy.equ(Number(0.7), dx);
        EXPECT_LE(relative_difference(to_host(dy), expected), tol) << "equ";
      }
      {
        HostVector expected = hy;
        dy.copy_from_host(hy);
        expected.add(Number(-1.3), hx);
        dy.add(Number(-1.3), dx);
        EXPECT_LE(relative_difference(to_host(dy), expected), tol) << "add";
      }
      {
        HostVector expected = hy;
        dy.copy_from_host(hy);
        expected.sadd(Number(0.4), Number(2.5), hx);
        dy.sadd(Number(0.4), Number(2.5), dx);
        EXPECT_LE(relative_difference(to_host(dy), expected), tol) << "sadd";
      }
      {
        HostVector expected = hy;
        dy.copy_from_host(hy);
        expected.scale(Number(-3.1));
        dy.scale(Number(-3.1));
        EXPECT_LE(relative_difference(to_host(dy), expected), tol) << "scale";
      }
      {
        HostVector expected = hy;
        dy.copy_from_host(hy);
        expected.scale(hd);
        dy.scale(dd);
        EXPECT_LE(relative_difference(to_host(dy), expected), tol) << "scale by vector";
      }
      {
        HostVector expected = hy;
        expected.fill(Number(1.25));
        dy.fill(Number(1.25));
        const HostVector result = to_host(dy);
        EXPECT_EQ(relative_difference(result, expected), 0.) << "fill";
        // the padding stays zero
        for (std::size_t k = 0; k < result.storage_size(); ++k)
          ASSERT_EQ(result.data()[k], expected.data()[k]) << "fill, storage entry " << k;
        dy.set_zero();
        expected.set_zero();
        EXPECT_EQ(relative_difference(to_host(dy), expected), 0.) << "set_zero";
      }
      {
        // deep copy and move
        Vector copy(dx);
        EXPECT_EQ(relative_difference(to_host(copy), hx), 0.) << "copy constructor";
        Vector moved(std::move(copy));
        EXPECT_EQ(relative_difference(to_host(moved), hx), 0.) << "move constructor";
        EXPECT_EQ(copy.data(), nullptr);
      }
    }
}

TYPED_TEST(CudaCellVector, conversion_matches_host)
{
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  using Number      = typename TestFixture::Number;
  using Layout      = typename TestFixture::Layout;
  using OtherNumber = std::conditional_t<std::is_same_v<Number, double>, float, double>;
  for (const auto &[n_cells, degree] : shapes)
    {
      CellVector<OtherNumber, MemorySpace::Host, Layout> h_other(n_cells, degree);
      fill_random(h_other, 4);
      CellVector<Number, MemorySpace::Host, Layout> expected;
      expected.copy_from(h_other);

      const auto                                    d_other = to_device(h_other);
      CellVector<Number, MemorySpace::CUDA, Layout> d(n_cells, degree);
      d.fill(std::numeric_limits<Number>::quiet_NaN());
      d.copy_from(d_other);
      // conversion is correctly rounded on both sides: exact agreement
      EXPECT_EQ(relative_difference(to_host(d), expected), 0.) << n_cells << " cells of degree " << degree;
    }
}

// this = s this + a x with x of the other number type (same layout): the
// host's result to the device tolerance (the device may contract to FMA), NaN
// nowhere it should not be.
TYPED_TEST(CudaCellVector, cross_precision_sadd_matches_host)
{
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  using Number      = typename TestFixture::Number;
  using Layout      = typename TestFixture::Layout;
  using OtherNumber = std::conditional_t<std::is_same_v<Number, double>, float, double>;
  for (const auto &[n_cells, degree] : shapes)
    {
      SCOPED_TRACE(::testing::Message() << n_cells << " cells of degree " << degree);
      CellVector<Number, MemorySpace::Host, Layout>      h(n_cells, degree);
      CellVector<OtherNumber, MemorySpace::Host, Layout> h_other(n_cells, degree);
      fill_random(h, 11);
      fill_random(h_other, 12);
      auto d = to_device(h);
      d.sadd(Number(-0.6), Number(1), to_device(h_other));
      h.sadd(Number(-0.6), Number(1), h_other);
      EXPECT_LE(relative_difference(to_host(d), h), device_tolerance<Number>());
    }
  CellVector<Number, MemorySpace::CUDA, Layout> v(33, 2);
  EXPECT_THROW(v.sadd(Number(1), Number(1), CellVector<OtherNumber, MemorySpace::CUDA, Layout>(33, 3)), Error);
}

// CG's fused passes, u += a p with p = s p + z (z of either number type), and
// r += a q with the copy of r rounded to FP32: the host's results to the
// device tolerance (the device may contract to FMA); the rounded copy is the
// rounding of the device's own r exactly; the padding of the blocked layout
// stays zero, and a NaN in the target of the copy does not survive.
TYPED_TEST(CudaCellVector, fused_cg_passes_match_host)
{
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  using Number      = typename TestFixture::Number;
  using Layout      = typename TestFixture::Layout;
  using HostVector  = typename TestFixture::HostVector;
  const double tol  = device_tolerance<Number>();
  for (const auto &[n_cells, degree] : shapes)
    {
      SCOPED_TRACE(::testing::Message() << n_cells << " cells of degree " << degree);
      HostVector                                   hu(n_cells, degree), hp(n_cells, degree);
      CellVector<float, MemorySpace::Host, Layout> hz(n_cells, degree);
      fill_random(hu, 31);
      fill_random(hp, 32);
      fill_random(hz, 33);
      auto du = to_device(hu), dp = to_device(hp);
      const Number a = Number(0.61), s = Number(-1.3);
      du.add_and_sadd(a, dp, s, to_device(hz)); // float z: the mixed CG's correction
      hu.add_and_sadd(a, hp, s, hz);
      EXPECT_LE(relative_difference(to_host(du), hu), tol) << "u";
      EXPECT_LE(relative_difference(to_host(dp), hp), tol) << "p";
      du.add_and_sadd(a, dp, s, to_device(hu)); // z of the vector's own type
      hu.add_and_sadd(a, hp, s, HostVector(hu));
      EXPECT_LE(relative_difference(to_host(du), hu), tol) << "u, second pass";
      EXPECT_LE(relative_difference(to_host(dp), hp), tol) << "p, second pass";

      if constexpr (std::is_same_v<Number, double>)
        {
          CellVector<float, MemorySpace::CUDA, Layout> rounded(n_cells, degree);
          rounded.fill(std::numeric_limits<float>::quiet_NaN());
          auto dr = to_device(hu);
          dr.add_and_convert(a, to_device(hp), rounded);
          hu.add(a, hp);
          EXPECT_LE(relative_difference(to_host(dr), hu), tol) << "r";
          CellVector<float, MemorySpace::Host, Layout> expected;
          expected.copy_from(to_host(dr));
          const auto host_rounded = to_host(rounded);
          for (std::size_t k = 0; k < expected.storage_size(); ++k)
            ASSERT_EQ(host_rounded.data()[k], expected.data()[k]) << "rounded r, storage entry " << k;
        }
    }
  CellVector<Number, MemorySpace::CUDA, Layout> v(33, 2), wrong(33, 3);
  EXPECT_THROW(v.add_and_sadd(Number(1), wrong, Number(1), v), Error);
}

TYPED_TEST(CudaCellVector, relayout_conversion_matches_host)
{
  // copy_from the other layout (cell-contiguous <-> blocked by 32) and either
  // number type: the host relayout of the host conversion, exactly; the
  // blocked padding stays zero (a NaN there would show in the comparison of
  // the storage); degree 8 has more DoFs than a tile chunk (729 > 32)
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  using Number      = typename TestFixture::Number;
  using Layout      = typename TestFixture::Layout;
  using OtherLayout = std::conditional_t<Layout::cell_block == 1, CellBlocked<32>, CellContiguous>;
  const std::pair<unsigned int, unsigned int> relayout_shapes[] = {{105, 1}, {192, 3}, {33, 8}, {1, 2}};
  for (const auto &[n_cells, degree] : relayout_shapes)
    {
      CellVector<double, MemorySpace::Host, OtherLayout> h_double(n_cells, degree);
      fill_random(h_double, 5);
      CellVector<float, MemorySpace::Host, OtherLayout> h_float;
      h_float.copy_from(h_double);
      CellVector<Number, MemorySpace::Host, OtherLayout> from_double, from_float;
      from_double.copy_from(h_double);
      from_float.copy_from(h_float);

      CellVector<Number, MemorySpace::CUDA, Layout> d(n_cells, degree);
      d.fill(std::numeric_limits<Number>::quiet_NaN());
      d.copy_from(to_device(h_double));
      EXPECT_EQ(relative_difference(to_host(d), relayout<Layout>(from_double)), 0.)
        << "from double, " << n_cells << " cells of degree " << degree;
      d.fill(std::numeric_limits<Number>::quiet_NaN());
      d.copy_from(to_device(h_float));
      const auto back = to_host(d);
      EXPECT_EQ(relative_difference(back, relayout<Layout>(from_float)), 0.)
        << "from float, " << n_cells << " cells of degree " << degree;
      for (std::size_t k = 0; k < back.storage_size(); ++k)
        ASSERT_FALSE(std::isnan(back.data()[k])) << "entry " << k << " of the storage (padding included) not written";
    }
}

TYPED_TEST(CudaCellVector, cross_precision_add_matches_host)
{
  // this += a x for x of the other number type, in the same layout and from
  // the other layout (the mixed-precision stationary step's u += widen(z32)):
  // the host's copy_from then add, in this layout, bit for bit over the whole
  // storage (the blocked padding stays zero); degree 8 has more DoFs than a
  // tile chunk, 33 and 105 cells are no multiple of 32, 0 cells is a no-op
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  using Number      = typename TestFixture::Number;
  using Layout      = typename TestFixture::Layout;
  using OtherNumber = std::conditional_t<std::is_same_v<Number, double>, float, double>;
  using OtherLayout = std::conditional_t<Layout::cell_block == 1, CellBlocked<32>, CellContiguous>;
  const std::pair<unsigned int, unsigned int> add_shapes[] = {{105, 1}, {192, 3}, {33, 8}, {1, 2}};
  auto check = [](auto source_layout, const auto x_number, const unsigned int n_cells, const unsigned int degree) {
    using SourceLayout = decltype(source_layout);
    using XNumber      = std::decay_t<decltype(x_number)>;
    SCOPED_TRACE(::testing::Message() << n_cells << " cells of degree " << degree << ", from block " << SourceLayout::cell_block
                                      << (std::is_same_v<XNumber, float> ? " float" : " double"));
    CellVector<Number, MemorySpace::Host, Layout>        hv(n_cells, degree);
    CellVector<XNumber, MemorySpace::Host, SourceLayout> hx(n_cells, degree);
    fill_random(hv, 9);
    fill_random(hx, 10);
    const auto dx = to_device(hx);
    for (const Number a : {Number(1), Number(-1.3)})
      {
        CellVector<Number, MemorySpace::Host, Layout> expected = hv, converted;
        converted.copy_from(relayout<Layout>(hx));
        expected.add(a, converted);
        auto dv = to_device(hv);
        dv.add(a, dx);
        const auto result = to_host(dv);
        ASSERT_EQ(result.storage_size(), expected.storage_size());
        for (std::size_t k = 0; k < result.storage_size(); ++k)
          ASSERT_EQ(result.data()[k], expected.data()[k]) << "a = " << a << ", storage entry " << k;
      }
  };
  for (const auto &[n_cells, degree] : add_shapes)
    {
      check(Layout{}, OtherNumber{}, n_cells, degree);
      check(OtherLayout{}, OtherNumber{}, n_cells, degree);
      check(OtherLayout{}, Number{}, n_cells, degree);
    }

  CellVector<Number, MemorySpace::CUDA, Layout>           empty;
  const CellVector<OtherNumber, MemorySpace::CUDA, OtherLayout> empty_other;
  EXPECT_NO_THROW(empty.add(Number(1), empty_other));
  CellVector<Number, MemorySpace::CUDA, Layout>            v(33, 2);
  const CellVector<OtherNumber, MemorySpace::CUDA, Layout> wrong_cells(34, 2), wrong_degree(33, 3);
  EXPECT_THROW(v.add(Number(1), wrong_cells), Error);
  EXPECT_THROW(v.add(Number(1), wrong_degree), Error);
}

TYPED_TEST(CudaCellVector, reductions_match_host)
{
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  using Number     = typename TestFixture::Number;
  using HostVector = typename TestFixture::HostVector;
  using Vector     = typename TestFixture::Vector;
  // reductions accumulate in double on both sides; only the order differs
  const double tol = 1e-12;

  // the last shape spans many reduction chunks
  const std::pair<unsigned int, unsigned int> reduction_shapes[] = {{105, 1}, {192, 3}, {105, 5}, {4001, 3}};
  for (const auto &[n_cells, degree] : reduction_shapes)
    {
      SCOPED_TRACE(::testing::Message() << n_cells << " cells of degree " << degree);
      HostVector hx(n_cells, degree), hy(n_cells, degree);
      fill_random(hx, 5);
      fill_random(hy, 6);
      const Vector dx = to_device(hx), dy = to_device(hy);

      const double dot = dx.dot(dy);
      EXPECT_NEAR(dot, hx.dot(hy), tol * hx.l2_norm() * hy.l2_norm());
      EXPECT_NEAR(dx.l2_norm(), hx.l2_norm(), tol * hx.l2_norm());
      EXPECT_EQ(dx.linfty_norm(), hx.linfty_norm());
      EXPECT_TRUE(dx.all_finite());
      for (int repeat = 0; repeat < 5; ++repeat)
        ASSERT_EQ(dx.dot(dy), dot) << "the device dot product is not deterministic";

      HostVector with_nan = hx;
      with_nan(n_cells - 1, with_nan.dofs_per_cell() - 1) = std::numeric_limits<Number>::quiet_NaN();
      EXPECT_FALSE(to_device(with_nan).all_finite());
      HostVector with_inf = hx;
      with_inf(0, 0) = std::numeric_limits<Number>::infinity();
      EXPECT_FALSE(to_device(with_inf).all_finite());
    }
}

TEST(CudaDevice, description_names_device_or_its_absence)
{
  // never throws, with or without a device
  const std::string description = cuda::device_description();
  EXPECT_FALSE(description.empty());
  if (!cuda::device_available())
    EXPECT_NE(description.find("no CUDA device"), std::string::npos);
}

TEST(CudaDevice, allocation_failure_names_bytes_and_free_memory)
{
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  try
    {
      void *p = cuda::allocate_bytes(std::size_t(1) << 52, "a test of the error message");
      cuda::free_bytes(p);
      FAIL() << "a 4 PiB allocation succeeded";
    }
  catch (const Error &e)
    {
      const std::string what = e.what();
      EXPECT_NE(what.find(std::to_string(std::size_t(1) << 52)), std::string::npos) << what;
      EXPECT_NE(what.find("free"), std::string::npos) << what;
    }
}
