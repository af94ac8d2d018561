// The device conversions between a global numbering and cell vectors
// (storage/cuda_numbered_vector_transfer.h) against their host twins on
// seeded random data, bit for bit (each writes a value or one quotient), for
// both layouts and precisions, on 105 cells (the blocked layout's last block
// partly padding) with the unique DoFs permuted at random. The outputs are
// NaN-poisoned before: a copy or DoF the kernel did not write fails.

#include <cellwise/base/cuda_check.h>
#include <cellwise/storage/cuda_numbered_vector_transfer.h>
#include <cellwise/storage/dof_numbering.h>
#include <cellwise/storage/numbered_vector_transfer.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

#include "cuda/cuda_test_utilities.h"

using namespace cellwise;
using namespace cellwise::testing;

template <typename Pair>
class CudaNumberedVectorTransfer : public ::testing::Test
{
public:
  using Number     = typename Pair::first_type;
  using Layout     = typename Pair::second_type;
  using HostVector = CellVector<Number, MemorySpace::Host, Layout>;
  using Vector     = CellVector<Number, MemorySpace::CUDA, Layout>;
};
TYPED_TEST_SUITE(CudaNumberedVectorTransfer, NumberLayoutPairs);

namespace
{

  /// A device vector of @p n_cells cells of @p degree, every value NaN.
  template <typename Number, typename Layout>
  CellVector<Number, MemorySpace::CUDA, Layout>
  poisoned(const unsigned int n_cells, const unsigned int degree)
  {
    CellVector<Number, MemorySpace::Host, Layout> host(n_cells, degree);
    for (unsigned int cell = 0; cell < n_cells; ++cell)
      for (unsigned int i = 0; i < host.dofs_per_cell(); ++i)
        host(cell, i) = std::numeric_limits<Number>::quiet_NaN();
    return to_device(host);
  }
} // namespace

TYPED_TEST(CudaNumberedVectorTransfer, matches_host_bit_for_bit)
{
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  using Number     = typename TestFixture::Number;
  using Layout     = typename TestFixture::Layout;
  using HostVector = typename TestFixture::HostVector;
  const LevelHierarchy h = coarse_box();
  for (const unsigned int degree : {1u, 2u, 3u})
    {
      const DofNumbering           numbering = permuted_dof_numbering(h.levels.back(), degree, 5 + degree);
      const DofCopies              copies    = make_dof_copies(numbering, "test");
      const cuda::NumberedVectorTransfer transfer(numbering, copies);
      ASSERT_EQ(transfer.n_unique(), numbering.n_unique);
      const std::vector<double> global = random_vector(numbering.n_unique, 17 + degree);
      double *const             device_global = cuda::upload(global, "test global vector");

      // the balanced scatter and the gather: every copy written, each as the host's
      HostVector expected;
      auto       device = poisoned<Number, Layout>(h.levels.back().n_cells(), degree);
      scatter_balanced(numbering, copies, global.data(), expected);
      transfer.scatter_balanced(device_global, device);
      EXPECT_TRUE(values_bitwise_equal(to_host(device), expected)) << "scatter_balanced, degree " << degree;
      EXPECT_EQ(relative_difference(to_host(device), expected), 0.);

      device = poisoned<Number, Layout>(h.levels.back().n_cells(), degree);
      gather(numbering, global.data(), expected);
      transfer.gather(device_global, device);
      EXPECT_TRUE(values_bitwise_equal(to_host(device), expected)) << "gather, degree " << degree;
      EXPECT_EQ(relative_difference(to_host(device), expected), 0.);

      // the first copies of a random cell vector (copies unequal: the first
      // one must be read), into a NaN-poisoned global vector
      HostVector cells(h.levels.back().n_cells(), degree);
      fill_random(cells, 29 + degree);
      std::vector<double> expected_global(numbering.n_unique), got(numbering.n_unique, std::nan(""));
      gather_first_copies(copies, cells, expected_global.data());
      CELLWISE_CUDA_CHECK(cudaMemcpy(device_global, got.data(), got.size() * sizeof(double), cudaMemcpyHostToDevice));
      transfer.gather_first_copies(to_device(cells), device_global);
      CELLWISE_CUDA_CHECK(cudaMemcpy(got.data(), device_global, got.size() * sizeof(double), cudaMemcpyDeviceToHost));
      EXPECT_EQ(got, expected_global) << "gather_first_copies, degree " << degree;
      cuda::free_bytes(device_global);
    }
}

TEST(CudaNumberedVectorTransferRefusal, copies_of_another_numbering)
{
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  const LevelHierarchy h = coarse_box();
  const DofNumbering   q2 = make_dof_numbering(h.levels.back(), 2), q3 = make_dof_numbering(h.levels.back(), 3);
  EXPECT_THROW(cuda::NumberedVectorTransfer(q3, make_dof_copies(q2, "test")), Error);
}
