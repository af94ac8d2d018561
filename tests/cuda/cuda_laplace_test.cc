// Device Laplace operator against the host LaplaceOperator on the same seeded
// data: vmult, vmult_add, residual, cell diagonals; degrees 1..8.

#include <cellwise/cuda/laplace_operator.h>
#include <cellwise/operators/laplace_operator.h>

#include <gtest/gtest.h>

#include "cuda/cuda_test_utilities.h"
#include "test_utilities.h"

using namespace cellwise;
using namespace cellwise::testing;

template <typename Pair>
class CudaLaplace : public ::testing::Test
{
public:
  using Number     = typename Pair::first_type;
  using Layout     = typename Pair::second_type;
  using HostVector = CellVector<Number, MemorySpace::Host, Layout>;
  using Vector     = CellVector<Number, MemorySpace::CUDA, Layout>;
};
TYPED_TEST_SUITE(CudaLaplace, NumberLayoutPairs);

TYPED_TEST(CudaLaplace, operator_matches_host)
{
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  using Number     = typename TestFixture::Number;
  using Layout     = typename TestFixture::Layout;
  using HostVector = typename TestFixture::HostVector;
  using Vector     = typename TestFixture::Vector;
  const double tol = device_tolerance<Number>();
  const Number nan = std::numeric_limits<Number>::quiet_NaN();

  const LevelHierarchy meshes[] = {refined_box(), coarse_box()};
  for (const LevelHierarchy &mesh : meshes)
    for (unsigned int degree = 1; degree <= 8; ++degree)
      {
        const Level &level = mesh.levels.back();
        SCOPED_TRACE(::testing::Message() << level.n_cells() << " cells of degree " << degree);
        const LaplaceOperator<Number, Layout>       host_op(level, degree);
        const cuda::LaplaceOperator<Number, Layout> device_op(level, degree);
        EXPECT_EQ(device_op.n_cells(), level.n_cells());
        EXPECT_EQ(device_op.degree(), degree);

        HostVector hu(level.n_cells(), degree), hb(level.n_cells(), degree), hdst(level.n_cells(), degree);
        fill_random(hu, 10 + degree);
        fill_random(hb, 20 + degree);
        fill_random(hdst, 30 + degree);
        const Vector du = to_device(hu), db = to_device(hb);

        // vmult
        HostVector expected;
        host_op.vmult(expected, hu);
        Vector ddst(level.n_cells(), degree);
        ddst.fill(nan);
        device_op.vmult(ddst, du);
        EXPECT_LE(relative_difference(to_host(ddst), expected), tol) << "vmult";

        // vmult_add
        expected = hdst;
        host_op.vmult_add(expected, hu);
        ddst.copy_from_host(hdst);
        device_op.vmult_add(ddst, du);
        EXPECT_LE(relative_difference(to_host(ddst), expected), tol) << "vmult_add";

        // residual, fused b - A u
        host_op.residual(expected, hb, hu);
        ddst.fill(nan);
        device_op.residual(ddst, db, du);
        EXPECT_LE(relative_difference(to_host(ddst), expected), tol) << "residual";

        // residual in place of b
        Vector db_copy(db);
        device_op.residual(db_copy, db_copy, du);
        EXPECT_LE(relative_difference(to_host(db_copy), expected), tol) << "residual with dst = b";

        // cell diagonals
        host_op.compute_cell_diagonals(expected);
        Vector ddiag(level.n_cells(), degree);
        ddiag.fill(nan);
        device_op.compute_cell_diagonals(ddiag);
        EXPECT_LE(relative_difference(to_host(ddiag), expected), tol) << "cell diagonals";
      }
}

TYPED_TEST(CudaLaplace, rejects_mismatched_vectors)
{
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  using Number = typename TestFixture::Number;
  using Layout = typename TestFixture::Layout;
  using Vector = typename TestFixture::Vector;
  const LevelHierarchy                        mesh = coarse_box();
  const cuda::LaplaceOperator<Number, Layout> op(mesh.levels.back(), 2);
  Vector                                      wrong_degree(mesh.levels.back().n_cells(), 3), dst;
  EXPECT_THROW(op.vmult(dst, wrong_degree), Error);
  Vector u(mesh.levels.back().n_cells(), 2);
  EXPECT_THROW(op.vmult(u, u), Error);
}
