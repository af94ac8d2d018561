// Device point smoothers against the host ones on the same seeded data: the
// DSS-Jacobi preconditioner (inverse diagonal, application), the Chebyshev
// eigenvalue estimate, and two smooth() calls of the Jacobi (1..3 steps) and
// Chebyshev (degree 1, 2, 4) smoothers, from zero and from a given iterate,
// which exercise every kind of step of the fused device step loops. FP64,
// both layouts.

#include <cellwise/multigrid/cuda_point_smoothers.h>
#include <cellwise/mesh/box_builder.h>
#include <cellwise/multigrid/chebyshev_smoother.h>
#include <cellwise/multigrid/jacobi_smoother.h>
#include <cellwise/storage/dirichlet_mask.h>
#include <cellwise/storage/dss.h>

#include <gtest/gtest.h>

#include <limits>
#include <memory>

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

  /// Two smooth() calls of each smoother (the first from zero if @p from_zero,
  /// the second from the result: the scratch vectors are reused) give the same
  /// iterates, and masked copies keep their value (zero from a zero guess).
  /// The device iterate is NaN before a call from zero: its content must be
  /// ignored.
  template <typename HostSmoother, typename DeviceSmoother, typename HostVector, typename Vector>
  void
  expect_smoothers_agree(const HostSmoother   &host_s,
                         const DeviceSmoother &device_s,
                         const HostVector     &host_mask,
                         const HostVector     &u0,
                         const HostVector     &b,
                         const Vector         &db,
                         const bool            from_zero,
                         const SweepDirection  direction)
  {
    HostVector hu = u0;
    Vector     du = to_device(u0);
    if (from_zero)
      du.fill(std::numeric_limits<double>::quiet_NaN());
    for (unsigned int call = 0; call < 2; ++call)
      {
        SCOPED_TRACE(::testing::Message() << "smooth() call " << call);
        const bool zero_guess = from_zero && call == 0;
        host_s.smooth(hu, b, zero_guess, direction);
        device_s.smooth(du, db, zero_guess, direction);
        const HostVector result = to_host(du);
        EXPECT_LE(relative_difference(result, hu), smoother_tolerance);
        unsigned int n_changed = 0;
        for (unsigned int cell = 0; cell < result.n_cells(); ++cell)
          for (unsigned int i = 0; i < result.dofs_per_cell(); ++i)
            if (host_mask(cell, i) == 0 && result(cell, i) != (from_zero ? 0. : u0(cell, i)))
              ++n_changed;
        EXPECT_EQ(n_changed, 0u) << "masked copies were updated";
      }
  }
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
      // a continuous iterate that is not zero on the boundary, so that
      // "masked copies get no update" is seen
      fill_random(u0, 13 + degree);
      apply_dss(level, u0, DssMode::mean);
      const Vector db = to_device(b);

      // Jacobi of 1..3 steps and Chebyshev of degree 1, 2, 4: the device step
      // loops have a first, middle and last step of their own
      for (const bool from_zero : {true, false})
        {
          SCOPED_TRACE(from_zero ? "from zero" : "from a given iterate");
          for (const unsigned int n_steps : {1u, 2u, 3u})
            {
              SCOPED_TRACE(::testing::Message() << "Jacobi, " << n_steps << " steps");
              const JacobiSmoother<double, Layout>       host_s(level, host_op, host_mask, {0.7, n_steps});
              const cuda::JacobiSmoother<double, Layout> device_s(level, device_op, mask, {0.7, n_steps});
              expect_smoothers_agree(host_s, device_s, host_mask, u0, b, db, from_zero, SweepDirection::forward);
            }
          for (const unsigned int chebyshev_degree : {1u, 2u, 4u})
            {
              SCOPED_TRACE(::testing::Message() << "Chebyshev of degree " << chebyshev_degree);
              typename ChebyshevSmoother<double, Layout>::Parameters       hp;
              typename cuda::ChebyshevSmoother<double, Layout>::Parameters dp;
              hp.degree = dp.degree = chebyshev_degree;
              const ChebyshevSmoother<double, Layout>       host_s(level, host_op, host_mask, hp);
              const cuda::ChebyshevSmoother<double, Layout> device_s(level, device_op, mask, dp);
              EXPECT_NEAR(device_s.estimated_max_eigenvalue(), host_s.estimated_max_eigenvalue(),
                          1e-12 * host_s.estimated_max_eigenvalue());
              expect_smoothers_agree(host_s, device_s, host_mask, u0, b, db, from_zero, SweepDirection::reverse);
            }
        }
    }
}

// The preconditioner over a caller's shared level data (the general solver
// builds one per level): data of another level, or none, is refused.
TEST(CudaSmootherChecks, SharedLevelDataOfAnotherLevelIsRefused)
{
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  const LevelHierarchy                    h     = make_box_hierarchy(BoxDescription{}, 2);
  const Level                            &fine  = h.levels.back();
  const cuda::LaplaceOperator<double>     op(fine, 2);
  CellVector<double, MemorySpace::CUDA>   mask;
  mask.copy_from_host(make_dirichlet_mask<double>(fine, 2));
  const auto coarse_data = std::make_shared<const cuda::LevelData>(h.levels[1], 2);
  EXPECT_THROW(cuda::DssJacobiPreconditioner<double>(fine, op, mask, coarse_data), Error);
  EXPECT_THROW(cuda::DssJacobiPreconditioner<double>(fine, op, mask, nullptr), Error);
  const cuda::DssJacobiPreconditioner<double> shared(fine, op, mask, std::make_shared<const cuda::LevelData>(fine, 2));
  const cuda::DssJacobiPreconditioner<double> own(fine, op, mask);
  EXPECT_EQ(relative_difference(to_host(shared.inverse_diagonal()), to_host(own.inverse_diagonal())), 0.);
}
