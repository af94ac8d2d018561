// The box Laplace operator fused into the residual restriction on the device
// against its host oracle, the host LaplaceOperator's vmult followed by the
// host CellTransfer's restrict_residual_add, on seeded random data: uniform
// hierarchies in both orderings, a locally refined one (parents without
// children must stay untouched) and 105 parents of cells with three different
// edge lengths (partial last blocks), with a coefficient that gives every
// cell its own factors. Against the device's
// unfused pair as well, to rounding.

#include <cellwise/mesh/box_builder.h>
#include <cellwise/multigrid/cell_transfer.h>
#include <cellwise/multigrid/cuda_laplace_residual_restriction.h>
#include <cellwise/operators/laplace_operator.h>

#include <gtest/gtest.h>

#include <cmath>
#include <memory>

#include "cuda/cuda_test_utilities.h"
#include "test_utilities.h"

using namespace cellwise;
using namespace cellwise::testing;

namespace
{
  LevelHierarchy
  locally_refined_box(const CellOrdering ordering)
  {
    LevelHierarchy h = refined_box(ordering);
    refine_finest_level(h, ordering, [](const unsigned int cell) { return cell % 3 == 1; });
    return h;
  }

  /// 5 x 3 x 7 coarse cells refined once: 105 parents, and cells of three
  /// different edge lengths, so that c_x, c_y and c_z all differ (the other
  /// boxes' cells have two equal edges).
  LevelHierarchy
  odd_box()
  {
    BoxDescription box;
    box.upper        = {{1., 0.7, 2.2}};
    box.subdivisions = {{5, 3, 7}};
    return make_box_hierarchy(box, 1);
  }

  double
  coefficient(const Point &x)
  {
    return 1. + 0.5 * std::sin(3 * x[0]) * std::cos(2 * x[1] + x[2]);
  }
} // namespace

template <typename Pair>
class CudaLaplaceResidualRestriction : public ::testing::Test
{
public:
  using Number     = typename Pair::first_type;
  using Layout     = typename Pair::second_type;
  using HostVector = CellVector<Number, MemorySpace::Host, Layout>;
  using Vector     = CellVector<Number, MemorySpace::CUDA, Layout>;
};
TYPED_TEST_SUITE(CudaLaplaceResidualRestriction, NumberLayoutPairs);

TYPED_TEST(CudaLaplaceResidualRestriction, fused_residual_restriction_matches_host)
{
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  using Number     = typename TestFixture::Number;
  using Layout     = typename TestFixture::Layout;
  using HostVector = typename TestFixture::HostVector;
  using Vector     = typename TestFixture::Vector;
  const double tol = device_tolerance<Number>();

  const LevelHierarchy meshes[] = {refined_box(CellOrdering::child_major), refined_box(CellOrdering::cell_major),
                                   locally_refined_box(CellOrdering::child_major), odd_box()};
  unsigned int         checked = 0;
  for (const LevelHierarchy &mesh : meshes)
    for (unsigned int degree = 1; degree <= 8; ++degree)
      {
        if (!cuda::LaplaceResidualRestriction<Number, Layout>::supports(degree))
          continue;
        const CellTransfer<Number, Layout> host_transfer(mesh, degree);
        auto device_transfer = std::make_shared<const cuda::CellTransfer<Number, Layout>>(mesh, degree);
        for (unsigned int l = 1; l < mesh.n_levels(); ++l)
          for (const bool with_coefficient : {false, true})
            {
              const Level &fine = mesh.level(l), &coarse = mesh.level(l - 1);
              SCOPED_TRACE(::testing::Message() << "level " << l << " of " << mesh.n_levels() << ", " << fine.n_cells()
                                                << " fine cells, degree " << degree
                                                << (with_coefficient ? ", coefficient" : ""));
              LaplaceOperator<Number, Layout> host_op(fine, degree);
              auto                            device_op = std::make_shared<cuda::LaplaceOperator<Number, Layout>>(fine, degree);
              if (with_coefficient)
                {
                  host_op.set_coefficient(fine, coefficient, CoefficientEvaluation::cell_average);
                  device_op->set_coefficient(fine, coefficient);
                }
              const unsigned int seed = 1000 * l + 10 * degree + with_coefficient;
              HostVector         hc(coarse.n_cells(), degree), hu(fine.n_cells(), degree), hb(fine.n_cells(), degree);
              fill_random(hc, seed);
              fill_random(hu, seed + 1);
              fill_random(hb, seed + 2);

              // host oracle: coarse += R (b − A u) in two steps
              HostVector hau(fine.n_cells(), degree), expected = hc;
              host_op.vmult(hau, hu);
              host_transfer.restrict_residual_add(l, expected, hb, hau);

              const cuda::LaplaceResidualRestriction<Number, Layout> fused(device_transfer, l, device_op);
              const Vector                                           du = to_device(hu), db = to_device(hb);
              Vector                                                 dc = to_device(hc);
              fused.restrict_residual_add(dc, db, du);
              const HostVector result = to_host(dc);
              EXPECT_LE(relative_difference(result, expected), tol) << "against the host";
              for (unsigned int cell = 0; cell < coarse.n_cells(); ++cell)
                if (!coarse.is_refined(cell))
                  for (unsigned int i = 0; i < result.dofs_per_cell(); ++i)
                    ASSERT_EQ(result(cell, i), hc(cell, i)) << "parent " << cell << " without children was changed";

              // the device's unfused pair
              Vector dau(fine.n_cells(), degree), unfused = to_device(hc);
              device_op->vmult(dau, du);
              device_transfer->restrict_residual_add(l, unfused, db, dau);
              EXPECT_LE(relative_difference(result, to_host(unfused)), tol) << "against the unfused pair";
              ++checked;
            }
      }
  // Q3 is the degree the solvers fuse; it must be among those checked
  EXPECT_TRUE((cuda::LaplaceResidualRestriction<Number, Layout>::supports(3)));
  EXPECT_GT(checked, 0u);
}

TYPED_TEST(CudaLaplaceResidualRestriction, rejects_mismatched_input)
{
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  using Number               = typename TestFixture::Number;
  using Layout               = typename TestFixture::Layout;
  using Vector               = typename TestFixture::Vector;
  const LevelHierarchy mesh  = refined_box();
  auto                 transfer = std::make_shared<const cuda::CellTransfer<Number, Layout>>(mesh, 2);
  auto                 op       = std::make_shared<const cuda::LaplaceOperator<Number, Layout>>(mesh.level(1), 2);
  // an operator of another level, degree or no level at all
  EXPECT_THROW((cuda::LaplaceResidualRestriction<Number, Layout>(transfer, 0, op)), Error);
  EXPECT_THROW((cuda::LaplaceResidualRestriction<Number, Layout>(transfer, 2, op)), Error);
  EXPECT_THROW((cuda::LaplaceResidualRestriction<Number, Layout>(
                 transfer, 1, std::make_shared<const cuda::LaplaceOperator<Number, Layout>>(mesh.level(1), 3))),
               Error);
  EXPECT_THROW((cuda::LaplaceResidualRestriction<Number, Layout>(
                 transfer, 1, std::make_shared<const cuda::LaplaceOperator<Number, Layout>>(mesh.level(0), 2))),
               Error);
  const cuda::LaplaceResidualRestriction<Number, Layout> fused(transfer, 1, op);
  Vector coarse(mesh.level(0).n_cells(), 2), fine(mesh.level(1).n_cells(), 2), wrong(mesh.level(1).n_cells(), 3);
  EXPECT_THROW(fused.restrict_residual_add(coarse, fine, wrong), Error);
  EXPECT_THROW(fused.restrict_residual_add(fine, fine, fine), Error);
  EXPECT_THROW(fused.restrict_residual_add(coarse, coarse, coarse), Error);
}
