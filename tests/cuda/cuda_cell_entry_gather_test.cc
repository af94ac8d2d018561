// The pieces of the distributed device DSS against their host twins on
// seeded random data: the gather and scatter of listed entries
// (storage/cuda_cell_entry_gather.h), the reductions over the first cells
// (a distributed vector's owned cells), and one axis pass of the device DSS.
// Cell counts not multiples of 32, so that the blocked layout's last block is
// partly padding; NaN in the cells a reduction must not read.

#include <cellwise/base/cuda_check.h>
#include <cellwise/mesh/box_builder.h>
#include <cellwise/storage/cell_entry_gather.h>
#include <cellwise/storage/cuda_cell_entry_gather.h>
#include <cellwise/storage/cuda_dss.h>
#include <cellwise/storage/dss.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "cuda/cuda_test_utilities.h"
#include "test_utilities.h"

using namespace cellwise;
using namespace cellwise::testing;

template <typename Pair>
class CudaCellEntryGather : public ::testing::Test
{
public:
  using Number     = typename Pair::first_type;
  using Layout     = typename Pair::second_type;
  using HostVector = CellVector<Number, MemorySpace::Host, Layout>;
  using Vector     = CellVector<Number, MemorySpace::CUDA, Layout>;
};
TYPED_TEST_SUITE(CudaCellEntryGather, NumberLayoutPairs);

namespace
{
  /// @p count random entries of @p n_cells cells of @p dofs_per_cell, no
  /// entry twice (a scatter's targets are distinct).
  std::vector<std::uint64_t>
  random_entries(const unsigned int n_cells, const unsigned int dofs_per_cell, const std::size_t count, const unsigned int seed)
  {
    std::vector<std::uint64_t> all(std::size_t(n_cells) * dofs_per_cell);
    for (std::size_t k = 0; k < all.size(); ++k)
      all[k] = k;
    std::shuffle(all.begin(), all.end(), std::mt19937(seed));
    all.resize(count);
    return all;
  }
} // namespace

TYPED_TEST(CudaCellEntryGather, gather_and_scatter_match_host)
{
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  using Number     = typename TestFixture::Number;
  using HostVector = typename TestFixture::HostVector;
  using Vector     = typename TestFixture::Vector;
  for (const unsigned int degree : {1u, 3u})
    {
      const unsigned int n_cells = 77, n = (degree + 1) * (degree + 1) * (degree + 1);
      HostVector         host(n_cells, degree);
      fill_random(host, 3 + degree);
      // half of the entries (distinct: a scatter's targets are)
      const std::vector<std::uint64_t> entries = random_entries(n_cells, n, n_cells * n / 2, degree);
      std::uint64_t *const             device_entries = cuda::upload(entries, "test entries");
      Number *const                    device_buffer  = cuda::allocate<Number>(entries.size(), "test buffer");

      // gather: the host twin's buffer, value for value
      std::vector<Number> expected(entries.size()), got(entries.size());
      gather_entries(host, entries, expected.data());
      Vector v = to_device(host);
      cuda::gather_entries(v, device_entries, entries.size(), device_buffer);
      CELLWISE_CUDA_CHECK(cudaMemcpy(got.data(), device_buffer, got.size() * sizeof(Number), cudaMemcpyDeviceToHost));
      EXPECT_EQ(got, expected);
      for (std::size_t j = 0; j < entries.size(); ++j)
        ASSERT_EQ(expected[j], host(entries[j] / n, entries[j] % n)) << "entry " << entries[j];

      // scatter of other values: the host twin's vector, and nothing else changed
      std::vector<Number> values(entries.size());
      for (std::size_t j = 0; j < values.size(); ++j)
        values[j] = Number(1000 + j);
      CELLWISE_CUDA_CHECK(cudaMemcpy(device_buffer, values.data(), values.size() * sizeof(Number), cudaMemcpyHostToDevice));
      HostVector scattered = host;
      scatter_entries(scattered, entries, values.data());
      cuda::scatter_entries(v, device_entries, entries.size(), device_buffer);
      EXPECT_EQ(relative_difference(to_host(v), scattered), 0.);
      std::size_t changed = 0;
      for (unsigned int cell = 0; cell < n_cells; ++cell)
        for (unsigned int i = 0; i < n; ++i)
          changed += scattered(cell, i) != host(cell, i);
      EXPECT_EQ(changed, entries.size());
      cuda::free_bytes(device_entries);
      cuda::free_bytes(device_buffer);
    }
}

TYPED_TEST(CudaCellEntryGather, reductions_over_the_first_cells_match_host)
{
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  using Number     = typename TestFixture::Number;
  using HostVector = typename TestFixture::HostVector;
  const unsigned int n_cells = 101, degree = 2;
  HostVector         x(n_cells, degree), y(n_cells, degree);
  fill_random(x, 7);
  fill_random(y, 8);
  for (const unsigned int first : {0u, 1u, 31u, 32u, 33u, 70u, 101u})
    {
      SCOPED_TRACE(::testing::Message() << "the first " << first << " of " << n_cells << " cells");
      // the cells after the first ones NaN: neither reduction may read them
      HostVector xn = x;
      for (unsigned int cell = first; cell < n_cells; ++cell)
        xn(cell, 0) = std::numeric_limits<Number>::quiet_NaN();
      double expected = 0;
      for (unsigned int cell = 0; cell < first; ++cell)
        for (unsigned int i = 0; i < x.dofs_per_cell(); ++i)
          expected += double(x(cell, i)) * double(y(cell, i));
      const auto dx = to_device(xn), dy = to_device(y);
      EXPECT_NEAR(xn.dot(y, first), expected, 1e-13 * (1 + std::abs(expected)));
      EXPECT_NEAR(dx.dot(dy, first), expected, 1e-13 * (1 + std::abs(expected)));
      EXPECT_TRUE(xn.all_finite(first));
      EXPECT_TRUE(dx.all_finite(first));
      EXPECT_EQ(xn.all_finite(), first == n_cells);
      EXPECT_EQ(dx.all_finite(), first == n_cells);
      if (first > 0)
        {
          HostVector bad = xn;
          bad(first - 1, bad.dofs_per_cell() - 1) = std::numeric_limits<Number>::infinity();
          EXPECT_FALSE(bad.all_finite(first));
          EXPECT_FALSE(to_device(bad).all_finite(first));
        }
    }
  EXPECT_THROW(x.dot(y, n_cells + 1), Error);
  EXPECT_THROW(to_device(x).dot(to_device(y), n_cells + 1), Error);
}

TYPED_TEST(CudaCellEntryGather, one_axis_pass_matches_host)
{
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  using HostVector           = typename TestFixture::HostVector;
  const LevelHierarchy  mesh = make_box_hierarchy(BoxDescription{{0., 0., 0.}, {1.5, 1., 0.5}, {3, 2, 1}}, 1);
  const Level          &level = mesh.levels.back();
  const cuda::LevelData level_data(level);
  for (const unsigned int degree : {1u, 3u})
    for (unsigned int d = 0; d < 3; ++d)
      for (const DssMode mode : {DssMode::sum, DssMode::mean})
        {
          SCOPED_TRACE(::testing::Message() << "degree " << degree << ", axis " << d);
          HostVector expected(level.n_cells(), degree);
          fill_random(expected, 11 + d);
          auto v = to_device(expected);
          dss_axis_pass(level, expected, mode, lagrange_trace_layers(degree), d);
          cuda::dss_axis_pass(level_data, v, mode, d);
          EXPECT_EQ(relative_difference(to_host(v), expected), 0.);
        }
  auto v = to_device(HostVector(level.n_cells(), 1));
  EXPECT_THROW(cuda::dss_axis_pass(level_data, v, DssMode::sum, 3), Error);
}

TYPED_TEST(CudaCellEntryGather, axis_pass_split_at_the_owned_cells_matches_host)
{
  // the distributed DSS's overlap: the pairs between the first n_owned
  // cells, then the others; each selection alone equals the host's, and
  // both together the whole pass (a pair dropped or summed twice shows)
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  using HostVector           = typename TestFixture::HostVector;
  const LevelHierarchy  mesh = make_box_hierarchy(BoxDescription{{0., 0., 0.}, {1.5, 1., 0.5}, {3, 2, 1}}, 1);
  const Level          &level = mesh.levels.back();
  const cuda::LevelData level_data(level);
  const unsigned int    degree = 2;
  for (const unsigned int n_owned : {0u, 7u, 29u, level.n_cells()})
    for (unsigned int d = 0; d < 3; ++d)
      {
        SCOPED_TRACE(::testing::Message() << n_owned << " owned cells, axis " << d);
        const DssPairs owned{DssPairs::Kind::owned, n_owned}, rest{DssPairs::Kind::touching_ghosts, n_owned};
        HostVector     expected(level.n_cells(), degree);
        fill_random(expected, 5 + d);
        HostVector whole = expected;
        auto       v     = to_device(expected);
        dss_axis_pass(level, expected, DssMode::sum, lagrange_trace_layers(degree), d, owned);
        cuda::dss_axis_pass(level_data, v, DssMode::sum, d, owned);
        EXPECT_EQ(relative_difference(to_host(v), expected), 0.);
        dss_axis_pass(level, expected, DssMode::sum, lagrange_trace_layers(degree), d, rest);
        cuda::dss_axis_pass(level_data, v, DssMode::sum, d, rest);
        EXPECT_EQ(relative_difference(to_host(v), expected), 0.);
        dss_axis_pass(level, whole, DssMode::sum, lagrange_trace_layers(degree), d);
        EXPECT_EQ(relative_difference(whole, expected), 0.) << "the two selections are not the whole pass";
      }
}
