// Device transfers against the host CellTransfer on the same seeded data:
// prolongation and restriction with the fused residual, on uniform
// hierarchies in both orderings and on a locally refined one, where the
// entries of parents without children must stay untouched. Both kernels
// accumulate, so instead of NaN poison the outputs start from random values.

#include <cellwise/multigrid/cuda_cell_transfer.h>
#include <cellwise/mesh/box_builder.h>
#include <cellwise/multigrid/cell_transfer.h>

#include <gtest/gtest.h>

#include "cuda/cuda_test_utilities.h"
#include "test_utilities.h"

using namespace cellwise;
using namespace cellwise::testing;

namespace
{
  /// refined_box() with a third level holding the children of every third cell.
  LevelHierarchy
  locally_refined_box(const CellOrdering ordering)
  {
    LevelHierarchy h = refined_box(ordering);
    refine_finest_level(h, ordering, [](const unsigned int cell) { return cell % 3 == 1; });
    return h;
  }

  /// coarse_box() (105 cells) refined once, all cells or every third: 105
  /// parents leave the last thread block of the device kernels partial for
  /// most degrees and layouts (refined_box's 24 and 192 parents fill them).
  LevelHierarchy
  odd_box(const bool all)
  {
    LevelHierarchy h = coarse_box();
    if (all)
      refine_finest_level(h, CellOrdering::child_major);
    else
      refine_finest_level(h, CellOrdering::child_major, [](const unsigned int cell) { return cell % 3 == 1; });
    return h;
  }
} // namespace

template <typename Pair>
class CudaTransfer : public ::testing::Test
{
public:
  using Number     = typename Pair::first_type;
  using Layout     = typename Pair::second_type;
  using HostVector = CellVector<Number, MemorySpace::Host, Layout>;
  using Vector     = CellVector<Number, MemorySpace::CUDA, Layout>;
};
TYPED_TEST_SUITE(CudaTransfer, NumberLayoutPairs);

TYPED_TEST(CudaTransfer, transfer_matches_host)
{
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  using Number     = typename TestFixture::Number;
  using Layout     = typename TestFixture::Layout;
  using HostVector = typename TestFixture::HostVector;
  using Vector     = typename TestFixture::Vector;
  const double tol = device_tolerance<Number>();

  const LevelHierarchy meshes[] = {refined_box(CellOrdering::child_major), refined_box(CellOrdering::cell_major),
                                   locally_refined_box(CellOrdering::child_major),
                                   locally_refined_box(CellOrdering::cell_major), odd_box(true), odd_box(false)};
  for (const LevelHierarchy &mesh : meshes)
    for (unsigned int degree = 1; degree <= 8; ++degree)
      {
        const CellTransfer<Number, Layout>       host(mesh, degree);
        const cuda::CellTransfer<Number, Layout> device(mesh, degree);
        for (unsigned int l = 1; l < mesh.n_levels(); ++l)
          {
            const Level &fine = mesh.level(l), &coarse = mesh.level(l - 1);
            SCOPED_TRACE(::testing::Message() << "level " << l << " of " << mesh.n_levels() << ", " << fine.n_cells()
                                              << " fine cells, degree " << degree);
            const unsigned int seed = 100 * l + degree;
            HostVector         hc(coarse.n_cells(), degree), hf(fine.n_cells(), degree);
            HostVector         hb(fine.n_cells(), degree), hau(fine.n_cells(), degree);
            fill_random(hc, seed);
            fill_random(hf, seed + 1);
            fill_random(hb, seed + 2);
            fill_random(hau, seed + 3);

            // prolongation: fine += P coarse
            HostVector expected = hf;
            host.prolongate_add(l, expected, hc);
            Vector df = to_device(hf);
            device.prolongate_add(l, df, to_device(hc));
            EXPECT_LE(relative_difference(to_host(df), expected), tol) << "prolongate_add";

            // restriction with the fused residual: coarse += R (b − Au)
            expected = hc;
            host.restrict_residual_add(l, expected, hb, hau);
            Vector dc = to_device(hc);
            device.restrict_residual_add(l, dc, to_device(hb), to_device(hau));
            const HostVector result = to_host(dc);
            EXPECT_LE(relative_difference(result, expected), tol) << "restrict_residual_add";
            // parents without children: untouched, bit for bit
            for (unsigned int cell = 0; cell < coarse.n_cells(); ++cell)
              if (!coarse.is_refined(cell))
                for (unsigned int i = 0; i < result.dofs_per_cell(); ++i)
                  ASSERT_EQ(result(cell, i), hc(cell, i)) << "parent " << cell << " without children was changed";

            // restriction of a dual vector
            expected = hc;
            host.restrict_add(l, expected, hb);
            dc = to_device(hc);
            device.restrict_add(l, dc, to_device(hb));
            EXPECT_LE(relative_difference(to_host(dc), expected), tol) << "restrict_add";
          }
      }
}

TYPED_TEST(CudaTransfer, rejects_mismatched_vectors)
{
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  using Number                 = typename TestFixture::Number;
  using Layout                 = typename TestFixture::Layout;
  using Vector                 = typename TestFixture::Vector;
  const LevelHierarchy mesh    = refined_box();
  const cuda::CellTransfer<Number, Layout> transfer(mesh, 2);
  Vector coarse(mesh.level(0).n_cells(), 2), fine(mesh.level(1).n_cells(), 2), wrong(mesh.level(1).n_cells(), 3);
  EXPECT_THROW(transfer.prolongate_add(1, wrong, coarse), Error);
  EXPECT_THROW(transfer.prolongate_add(2, fine, coarse), Error);
  EXPECT_THROW(transfer.restrict_residual_add(1, coarse, fine, wrong), Error);
  EXPECT_THROW(transfer.restrict_residual_add(1, fine, fine, fine), Error);
}
