// Device Laplace operator against the host LaplaceOperator on the same seeded
// data: vmult, vmult_add, residual, the masked vmult and residual (bit for bit
// the unmasked ones followed by scale), cell diagonals; degrees 1..8. The fused
// point-smoother step against the composition of the host operations it
// replaces (scale, sadd / equ, add, residual); the corrected residual of the
// mixed-precision outer iteration against the update and residual it fuses.

#include <cellwise/operators/cuda_laplace_operator.h>
#include <cellwise/operators/laplace_operator.h>
#include <cellwise/storage/dirichlet_mask.h>

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

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

        // masked vmult and residual: bit for bit the device operation followed
        // by the separate scale (a 0/1 mask with zeros on the boundary)
        {
          const HostVector hmask = make_dirichlet_mask<Number, Layout>(level, degree);
          const Vector     dmask = to_device(hmask);
          Vector           separate(level.n_cells(), degree);
          device_op.vmult(separate, du);
          separate.scale(dmask);
          ddst.fill(nan);
          device_op.masked_vmult(ddst, du, dmask);
          EXPECT_EQ(relative_difference(to_host(ddst), to_host(separate)), 0.) << "masked_vmult";
          device_op.residual(separate, db, du);
          separate.scale(dmask);
          ddst.fill(nan);
          device_op.masked_residual(ddst, db, du, dmask);
          EXPECT_EQ(relative_difference(to_host(ddst), to_host(separate)), 0.) << "masked_residual";
          Vector mask_copy(dmask);
          EXPECT_THROW(device_op.masked_residual(mask_copy, db, du, mask_copy), Error);

          // a registered mask is read as bits (degree 8: 729 DoFs, 12 words
          // per cell): the same results bit for bit, for the boundary mask
          // and for a random 0/1 mask with interior zeros; another vector is
          // still read as a vector, and NaN · 0 stays NaN
          cuda::LaplaceOperator<Number, Layout> registered(level, degree);
          HostVector                            hrandom(level.n_cells(), degree);
          fill_random(hrandom, 40 + degree);
          for (unsigned int cell = 0; cell < level.n_cells(); ++cell)
            for (unsigned int i = 0; i < hrandom.dofs_per_cell(); ++i)
              hrandom(cell, i) = hrandom(cell, i) > 0 ? Number(1) : Number(0);
          const Vector drandom = to_device(hrandom);
          for (const Vector *mask : {&dmask, &drandom})
            {
              registered.use_dirichlet_mask(*mask);
              for (const Vector *read : {mask, static_cast<const Vector *>(&mask_copy)})
                {
                  device_op.residual(separate, db, du);
                  separate.scale(*read);
                  ddst.fill(nan);
                  registered.masked_residual(ddst, db, du, *read);
                  EXPECT_EQ(relative_difference(to_host(ddst), to_host(separate)), 0.) << "registered masked_residual";
                  device_op.vmult(separate, du);
                  separate.scale(*read);
                  ddst.fill(nan);
                  registered.masked_vmult(ddst, du, *read);
                  EXPECT_EQ(relative_difference(to_host(ddst), to_host(separate)), 0.) << "registered masked_vmult";
                }
            }
          HostVector hnan = hu;
          hnan(0, 0)      = nan; // a boundary DoF: masked to 0 · NaN
          ddst.fill(0);
          registered.use_dirichlet_mask(dmask);
          registered.masked_vmult(ddst, to_device(hnan), dmask);
          EXPECT_TRUE(std::isnan(to_host(ddst)(0, 0))) << "NaN must survive the mask";
          HostVector hhalf = hmask;
          hhalf(0, 1)      = Number(0.5);
          const Vector dhalf = to_device(hhalf); // kept by address: a temporary is refused at compile time
          EXPECT_THROW(registered.use_dirichlet_mask(dhalf), Error);
        }

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

namespace
{
  /// True if the stored entries (padding included) of @p a and @p b are the
  /// same bits.
  template <typename Number, typename Layout>
  bool
  bitwise_equal(const CellVector<Number, MemorySpace::Host, Layout> &a, const CellVector<Number, MemorySpace::Host, Layout> &b)
  {
    return a.storage_size() == b.storage_size() &&
           std::memcmp(a.data(), b.data(), a.storage_size() * sizeof(Number)) == 0;
  }

  /// True if the layout padding of @p v (entries of no cell) is zero.
  template <typename Number, typename Layout>
  bool
  padding_is_zero(const CellVector<Number, MemorySpace::Host, Layout> &v)
  {
    std::vector<bool> is_value(v.storage_size(), false);
    for (unsigned int cell = 0; cell < v.n_cells(); ++cell)
      for (unsigned int i = 0; i < v.dofs_per_cell(); ++i)
        is_value[Layout::index(cell, i, v.dofs_per_cell())] = true;
    for (std::size_t k = 0; k < v.storage_size(); ++k)
      if (!is_value[k] && v.data()[k] != Number(0))
        return false;
    return true;
  }
} // namespace

TYPED_TEST(CudaLaplace, corrected_residual_equals_update_then_residual)
{
  // add_and_masked_residual against u.add(1, z) (the cross-precision,
  // cross-layout add) followed by masked_residual: u and the residual bit for
  // bit, with the mask read as bits (registered) and as a vector; 105 cells
  // leave a partial block of the blocked layout.
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  using Number     = typename TestFixture::Number;
  using Layout     = typename TestFixture::Layout;
  using HostVector = typename TestFixture::HostVector;
  using Vector     = typename TestFixture::Vector;
  using Correction = CellVector<float, MemorySpace::CUDA, CellContiguous>;
  const Number nan = std::numeric_limits<Number>::quiet_NaN();

  const LevelHierarchy meshes[] = {refined_box(), coarse_box()};
  for (const LevelHierarchy &mesh : meshes)
    for (unsigned int degree = 1; degree <= 8; ++degree)
      {
        const Level &level = mesh.levels.back();
        SCOPED_TRACE(::testing::Message() << level.n_cells() << " cells of degree " << degree);
        cuda::LaplaceOperator<Number, Layout> op(level, degree);
        HostVector                            hu(level.n_cells(), degree), hb(level.n_cells(), degree);
        CellVector<float, MemorySpace::Host, CellContiguous> hz(level.n_cells(), degree);
        fill_random(hu, 50 + degree);
        fill_random(hb, 60 + degree);
        fill_random(hz, 70 + degree);
        const Vector     db = to_device(hb);
        const Correction dz = to_device(hz);
        const Vector     mask = to_device(make_dirichlet_mask<Number, Layout>(level, degree));
        const Vector     unregistered(mask);
        op.use_dirichlet_mask(mask);
        for (const Vector *m : {&mask, &unregistered})
          {
            Vector expected_u = to_device(hu), expected_r(level.n_cells(), degree);
            expected_u.add(Number(1), dz);
            op.masked_residual(expected_r, db, expected_u, *m);

            Vector u = to_device(hu), r(level.n_cells(), degree);
            r.fill(nan);
            op.add_and_masked_residual(r, db, u, *m, dz);
            EXPECT_TRUE(bitwise_equal(to_host(u), to_host(expected_u))) << (m == &mask ? "bits" : "vector") << ": u";
            EXPECT_TRUE(bitwise_equal(to_host(r), to_host(expected_r))) << (m == &mask ? "bits" : "vector") << ": residual";
          }
        Vector     u = to_device(hu), r;
        Correction wrong(level.n_cells(), degree + 1);
        EXPECT_THROW(op.add_and_masked_residual(r, db, u, mask, wrong), Error);
        EXPECT_THROW(op.add_and_masked_residual(u, db, u, mask, dz), Error);
      }
}

TYPED_TEST(CudaLaplace, smoother_step_matches_host)
{
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  using Number     = typename TestFixture::Number;
  using Layout     = typename TestFixture::Layout;
  using HostVector = typename TestFixture::HostVector;
  using Vector     = typename TestFixture::Vector;
  using Step       = typename cuda::LaplaceOperator<Number, Layout>::SmootherStep;
  const double tol = device_tolerance<Number>();
  const Number nan = std::numeric_limits<Number>::quiet_NaN();

  // 192 cells (6 blocks of 32) and 105 (not a multiple of 32)
  const LevelHierarchy meshes[] = {refined_box(), coarse_box()};
  for (const LevelHierarchy &mesh : meshes)
    for (unsigned int degree = 1; degree <= 8; ++degree)
      {
        const Level &level = mesh.levels.back();
        SCOPED_TRACE(::testing::Message() << level.n_cells() << " cells of degree " << degree);
        const LaplaceOperator<Number, Layout>       host_op(level, degree);
        const cuda::LaplaceOperator<Number, Layout> device_op(level, degree);
        const unsigned int                          n_cells = level.n_cells();

        // z = S r_old (any dual values here), D^{-1} > 0 with about one copy
        // in five masked (zero), d zero on the masked copies (as in the
        // smoothers, where every d is D^{-1} times something).
        HostVector z(n_cells, degree), inverse_diagonal(n_cells, degree), u0(n_cells, degree), d0(n_cells, degree),
          b(n_cells, degree);
        fill_random(z, 40 + degree);
        fill_random(inverse_diagonal, 50 + degree);
        fill_random(u0, 60 + degree);
        fill_random(d0, 70 + degree);
        fill_random(b, 80 + degree);
        auto masked = [](const unsigned int cell, const unsigned int i) { return (7 * cell + 3 * i) % 5 == 0; };
        for (unsigned int cell = 0; cell < n_cells; ++cell)
          for (unsigned int i = 0; i < z.dofs_per_cell(); ++i)
            {
              inverse_diagonal(cell, i) = masked(cell, i) ? Number(0) : Number(0.5) + std::abs(inverse_diagonal(cell, i));
              if (masked(cell, i))
                d0(cell, i) = Number(0);
            }
        const Vector device_inverse_diagonal = to_device(inverse_diagonal), device_b = to_device(b);

        for (const SmootherStepCase &c : smoother_step_cases())
          {
            SCOPED_TRACE(c.name);
            const Step step = c.step<Number>();

            // the host reference of the fused step (itself checked against the
            // unfused composition in Laplace.SmootherStepIsTheComposition)
            HostVector u = u0, r = z, d = d0;
            host_op.smoother_step(u, r, step.uses_update() ? &d : nullptr, b, inverse_diagonal, step);

            // device: outputs that are not read are poisoned
            Vector device_u = to_device(u0), device_r = to_device(z), device_d = to_device(d0);
            if (c.zero_initial_guess)
              device_u.fill(nan);
            if (c.alpha == 0. && c.store_update)
              device_d.fill(nan);
            const bool uses_d = c.alpha != 0. || c.store_update;
            device_op.smoother_step(device_u, device_r, uses_d ? &device_d : nullptr, device_b, device_inverse_diagonal,
                                    step);
            const HostVector result_u = to_host(device_u), result_r = to_host(device_r), result_d = to_host(device_d);

            EXPECT_LE(relative_difference(result_u, u), tol) << "u";
            if (c.compute_residual)
              EXPECT_LE(relative_difference(result_r, r), tol) << "r = b - A u";
            else
              EXPECT_TRUE(bitwise_equal(result_r, z)) << "r must not be touched by an update-only step";
            if (c.store_update)
              EXPECT_LE(relative_difference(result_d, d), tol) << "d";
            else if (uses_d)
              EXPECT_TRUE(bitwise_equal(result_d, d0)) << "d must not be written";
            EXPECT_TRUE(padding_is_zero(result_u) && padding_is_zero(result_r) && padding_is_zero(result_d))
              << "layout padding";

            // masked copies: no update (u kept, or zero from a zero guess; d zero)
            unsigned int n_wrong = 0;
            for (unsigned int cell = 0; cell < n_cells; ++cell)
              for (unsigned int i = 0; i < z.dofs_per_cell(); ++i)
                if (masked(cell, i))
                  {
                    if (result_u(cell, i) != (c.zero_initial_guess ? Number(0) : u0(cell, i)))
                      ++n_wrong;
                    if (c.store_update && result_d(cell, i) != Number(0))
                      ++n_wrong;
                  }
            EXPECT_EQ(n_wrong, 0u) << "masked copies changed";
          }

        // z may not be b, and the written vectors must be distinct
        Vector device_u = to_device(u0), device_r = to_device(z);
        Step   step;
        EXPECT_THROW(device_op.smoother_step(device_u, device_r, nullptr, device_r, device_inverse_diagonal, step), Error);
        EXPECT_THROW(device_op.smoother_step(device_u, device_u, nullptr, device_b, device_inverse_diagonal, step), Error);
        step.store_update = true;
        EXPECT_THROW(device_op.smoother_step(device_u, device_r, nullptr, device_b, device_inverse_diagonal, step), Error)
          << "a stored update needs the vector";
      }
}
