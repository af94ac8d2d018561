// Device point smoothers against the host ones on the same seeded data: the
// DSS-Jacobi preconditioner (inverse diagonal, application), the Chebyshev
// eigenvalue estimate, and one smooth() call of the Jacobi and Chebyshev
// smoothers, from zero and from a given iterate. FP64, both layouts.

#include <cellwise/cuda/point_smoothers.h>
#include <cellwise/mesh/box_builder.h>
#include <cellwise/multigrid/chebyshev_smoother.h>
#include <cellwise/multigrid/jacobi_smoother.h>
#include <cellwise/storage/dirichlet_mask.h>

#include <gtest/gtest.h>

#include "cuda/cuda_test_utilities.h"
#include "test_utilities.h"

using namespace cellwise;
using namespace cellwise::testing;

template <typename Layout>
class CudaSmoother : public ::testing::Test
{
public:
  using HostVector = CellVector<double, MemorySpace::Host, Layout>;
  using Vector     = CellVector<double, MemorySpace::CUDA, Layout>;
};
using SmootherLayouts = ::testing::Types<CellContiguous, CellBlocked<32>>;
TYPED_TEST_SUITE(CudaSmoother, SmootherLayouts);

namespace
{
  /// Box of unequal cell sizes, refined once: 96 cells (not a multiple of 32).
  LevelHierarchy
  smoother_mesh()
  {
    BoxDescription box;
    box.upper        = {{1.5, 1.4, 2.2}};
    box.subdivisions = {{3, 2, 2}};
    return make_box_hierarchy(box, 1);
  }
  constexpr double smoother_tolerance = 1e-12;
} // namespace

TYPED_TEST(CudaSmoother, jacobi_and_chebyshev_match_host)
{
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  using Layout     = TypeParam;
  using HostVector = typename TestFixture::HostVector;
  using Vector     = typename TestFixture::Vector;
  const LevelHierarchy mesh  = smoother_mesh();
  const Level         &level = mesh.levels.back();
  for (unsigned int degree = 1; degree <= 5; ++degree)
    {
      SCOPED_TRACE(::testing::Message() << level.n_cells() << " cells of degree " << degree);
      const HostVector                            host_mask = make_dirichlet_mask<double, Layout>(level, degree);
      const Vector                                mask      = to_device(host_mask);
      const LaplaceOperator<double, Layout>       host_op(level, degree);
      const cuda::LaplaceOperator<double, Layout> device_op(level, degree);

      // preconditioner P = D^{-1} S
      const DssJacobiPreconditioner<double, Layout>       host_p(level, host_op, host_mask);
      const cuda::DssJacobiPreconditioner<double, Layout> device_p(level, device_op, mask);
      EXPECT_LE(relative_difference(to_host(device_p.inverse_diagonal()), host_p.inverse_diagonal()), 1e-13)
        << "inverse diagonal";
      HostVector r(level.n_cells(), degree);
      fill_random(r, 7 + degree);
      Vector dr = to_device(r);
      host_p.apply_in_place(r);
      device_p.apply_in_place(dr);
      EXPECT_LE(relative_difference(to_host(dr), r), 1e-13) << "apply_in_place";

      HostVector b(level.n_cells(), degree), u0(level.n_cells(), degree);
      fill_random(b, 11 + degree);
      b.scale(host_mask);
      fill_random(u0, 13 + degree);
      host_p.apply_in_place(u0); // continuous, zero on the boundary
      const Vector db = to_device(b);

      for (const bool from_zero : {true, false})
        {
          SCOPED_TRACE(from_zero ? "from zero" : "from a given iterate");
          {
            const JacobiSmoother<double, Layout>       host_s(level, host_op, host_mask, {0.7, 2});
            const cuda::JacobiSmoother<double, Layout> device_s(level, device_op, mask, {0.7, 2});
            HostVector                                 hu = u0;
            Vector                                     du = to_device(u0);
            host_s.smooth(hu, b, from_zero, SweepDirection::forward);
            device_s.smooth(du, db, from_zero, SweepDirection::forward);
            EXPECT_LE(relative_difference(to_host(du), hu), smoother_tolerance) << "Jacobi";
          }
          {
            typename ChebyshevSmoother<double, Layout>::Parameters       hp;
            typename cuda::ChebyshevSmoother<double, Layout>::Parameters dp;
            hp.degree = dp.degree = 4;
            const ChebyshevSmoother<double, Layout>       host_s(level, host_op, host_mask, hp);
            const cuda::ChebyshevSmoother<double, Layout> device_s(level, device_op, mask, dp);
            EXPECT_NEAR(device_s.estimated_max_eigenvalue(), host_s.estimated_max_eigenvalue(),
                        1e-12 * host_s.estimated_max_eigenvalue());
            HostVector hu = u0;
            Vector     du = to_device(u0);
            host_s.smooth(hu, b, from_zero, SweepDirection::reverse);
            device_s.smooth(du, db, from_zero, SweepDirection::reverse);
            EXPECT_LE(relative_difference(to_host(du), hu), smoother_tolerance) << "Chebyshev";
          }
        }
    }
}
