// The Lanczos start vector made on the device (multigrid/cuda_lanczos_start.h)
// is the host's lanczos_start_vector bit for bit, padding included, on a
// seeded random 0/1 mask, both layouts and precisions, cell counts not
// multiples of the cell block (an entry the kernel missed would stay zero,
// where the host's is in [0.5, 1.5) on free copies).

#include <cellwise/multigrid/cuda_lanczos_start.h>
#include <cellwise/multigrid/point_smoother_steps.h>
#include <cellwise/storage/cuda_cell_vector.h>

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "cuda/cuda_test_utilities.h"
#include "test_utilities.h"

using namespace cellwise;
using namespace cellwise::testing;

template <typename Pair>
class CudaLanczosStart : public ::testing::Test
{
public:
  using Number     = typename Pair::first_type;
  using Layout     = typename Pair::second_type;
  using HostVector = CellVector<Number, MemorySpace::Host, Layout>;
  using Vector     = CellVector<Number, MemorySpace::CUDA, Layout>;
};
TYPED_TEST_SUITE(CudaLanczosStart, NumberLayoutPairs);

TYPED_TEST(CudaLanczosStart, start_vector_matches_host)
{
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  using Number     = typename TestFixture::Number;
  using HostVector = typename TestFixture::HostVector;
  for (const auto &[n_cells, degree] : {std::pair<unsigned int, unsigned int>{105, 1}, {77, 3}, {1, 2}, {300, 4}})
    {
      SCOPED_TRACE(::testing::Message() << n_cells << " cells of degree " << degree);
      HostVector                mask(n_cells, degree);
      const std::vector<double> r = random_vector(mask.size(), 7 * n_cells + degree);
      std::size_t               k = 0, free = 0;
      for (unsigned int cell = 0; cell < n_cells; ++cell)
        for (unsigned int i = 0; i < mask.dofs_per_cell(); ++i)
          {
            mask(cell, i) = r[k++] > -0.6 ? Number(1) : Number(0);
            free += mask(cell, i) != Number(0);
          }
      ASSERT_GT(free, 0u);
      ASSERT_LT(free, mask.size());
      const HostVector expected = lanczos_start_vector(mask);

      const HostVector result = to_host(cuda::lanczos_start_vector(to_device(mask)));
      ASSERT_EQ(result.storage_size(), expected.storage_size());
      EXPECT_EQ(std::memcmp(result.data(), expected.data(), expected.storage_size() * sizeof(Number)), 0);
      std::size_t differing = 0;
      for (std::size_t j = 0; j < expected.storage_size(); ++j)
        differing += !(result.data()[j] == expected.data()[j]);
      EXPECT_EQ(differing, 0u);
      // and through the smoothers' entry point, which picks it for device vectors
      EXPECT_EQ(relative_difference(to_host(lanczos_start_like(to_device(mask))), expected), 0.);
    }
}
