// Device Hermite biharmonic operator against the host operator (its oracle)
// on the same seeded data: vmult, vmult_add and residual (also with b the
// destination) in every realisation (sum factorization; even–odd and dense
// where the cells are copies of one box, scaled or not), the cell diagonals
// and the point-smoother
// step, FP64 and FP32, both layouts; the destination poisoned with NaN where
// the kernel must write every value. Meshes: a box of 105 cells of aspect
// ratio != 1 (not a multiple of the block's 8 or 32 cells), a refined box of
// 192 cells, a box of 65 · 33 · 31 = 66495 cells (more groups of 32 cells
// than the persistent grid of the even–odd and dense kernels has blocks on an
// H200, the last group partial), the active cells of a locally refined box
// (cells of three sizes side by side: scaled copies of one cube, so every
// realisation, even–odd and dense with a scale per cell), and the 105 cells
// with one cell stretched along y (sum factorization only, the others
// refused).

#include <cellwise/mesh/adaptive_builder.h>
#include <cellwise/mesh/box_builder.h>
#include <cellwise/mesh/cell_mapping.h>
#include <cellwise/multigrid/adaptive_v_cycle.h>
#include <cellwise/operators/cuda_hermite_biharmonic_operator.h>
#include <cellwise/operators/hermite_biharmonic_operator.h>

#include <gtest/gtest.h>

#include <initializer_list>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "cuda/cuda_test_utilities.h"
#include "test_utilities.h"
#include "unit/hermite_test_problem.h"

using namespace cellwise;
using namespace cellwise::testing;

template <typename Pair>
class CudaHermite : public ::testing::Test
{
public:
  using Number     = typename Pair::first_type;
  using Layout     = typename Pair::second_type;
  using HostVector = CellVector<Number, MemorySpace::Host, Layout>;
  using Vector     = CellVector<Number, MemorySpace::CUDA, Layout>;
};
TYPED_TEST_SUITE(CudaHermite, NumberLayoutPairs);

namespace
{
  /// 7 × 5 × 3 = 105 box cells (not a multiple of 32) of one size, and the
  /// same with every third cell halved: scaled copies of one box, which the
  /// even–odd and dense kernels take with a scale per cell (sizes only:
  /// what the operators read).
  std::pair<Level, Level>
  box_cells_of_one_and_two_sizes()
  {
    BoxDescription box;
    box.subdivisions    = {{7, 5, 3}};
    const Level uniform = make_box_hierarchy(box, 0).levels.back();
    Level       scaled  = uniform;
    for (unsigned int c = 0; c < scaled.n_cells(); c += 3)
      for (unsigned int d = 0; d < 3; ++d)
        scaled.boxes[c].size[d] *= 0.5;
    return {uniform, scaled};
  }
} // namespace

TYPED_TEST(CudaHermite, biharmonic_operator_matches_host)
{
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  using Number     = typename TestFixture::Number;
  using Layout     = typename TestFixture::Layout;
  using HostVector = typename TestFixture::HostVector;
  using Vector     = typename TestFixture::Vector;
  const double       tol = device_tolerance<Number>();
  const Number       nan = std::numeric_limits<Number>::quiet_NaN();
  const unsigned int p   = hermite::storage_degree;

  const ActiveMesh adaptive = make_active_mesh(make_adaptive_box_hierarchy(BoxDescription{}, 1, 2, make_octant_marker(BoxDescription{})));
  BoxDescription box;
  box.upper        = {{0.9, 0.45, 0.4}};
  box.subdivisions = {{65, 33, 31}};
  Level two_shapes = coarse_box().levels.back(); // (sizes only: what the operators read)
  two_shapes.boxes[5].size[1] *= 1.5;
  const std::vector<std::pair<std::string, Level>> meshes = {{"coarse box", coarse_box().levels.back()},
                                                             {"refined box", refined_box().levels.back()},
                                                             {"box of 66495 cells", make_box_hierarchy(box, 0).levels.back()},
                                                             {"active cells of an octant refinement", adaptive.level},
                                                             {"cells of two shapes", two_shapes}};
  using Kernel      = cuda::HermiteOperatorKernel;
  unsigned int seed = 0;
  for (const auto &[name, level] : meshes)
    for (const Kernel kernel : {Kernel::automatic, Kernel::sum_factorization, Kernel::even_odd, Kernel::dense})
      {
        SCOPED_TRACE(::testing::Message() << name << ", " << level.n_cells() << " cells, " << cuda::to_string(kernel));
        // one cell matrix: cells of one size, or scaled copies of one box
        // (the octant's active cells: the matrix scaled per cell)
        const bool one_matrix = common_box_shape(level).has_value();
        if (!one_matrix && (kernel == Kernel::even_odd || kernel == Kernel::dense))
          {
            EXPECT_THROW((cuda::HermiteBiharmonicOperator<Number, Layout>(level, kernel)), Error);
            continue;
          }
        const HermiteBiharmonicOperator<Number, Layout>       host_op(level);
        const cuda::HermiteBiharmonicOperator<Number, Layout> device_op(level, kernel);
        EXPECT_EQ(device_op.n_cells(), level.n_cells());
        if (kernel == Kernel::automatic)
          EXPECT_EQ(device_op.kernel(), one_matrix ? Kernel::even_odd : Kernel::sum_factorization);
        else
          EXPECT_EQ(device_op.kernel(), kernel);

        HostVector hu(level.n_cells(), p), hb(level.n_cells(), p), hdst(level.n_cells(), p);
        fill_random(hu, ++seed);
        fill_random(hb, ++seed);
        fill_random(hdst, ++seed);
        const Vector du = to_device(hu), db = to_device(hb);

        HostVector expected;
        host_op.vmult(expected, hu);
        Vector ddst(level.n_cells(), p);
        ddst.fill(nan);
        device_op.vmult(ddst, du);
        EXPECT_LE(relative_difference(to_host(ddst), expected), tol) << "vmult";

        expected = hdst;
        host_op.vmult_add(expected, hu);
        ddst.copy_from_host(hdst);
        device_op.vmult_add(ddst, du);
        EXPECT_LE(relative_difference(to_host(ddst), expected), tol) << "vmult_add";

        host_op.residual(expected, hb, hu);
        ddst.fill(nan);
        device_op.residual(ddst, db, du);
        EXPECT_LE(relative_difference(to_host(ddst), expected), tol) << "residual";
        Vector in_place = to_device(hb); // b is the destination
        device_op.residual(in_place, in_place, du);
        EXPECT_LE(relative_difference(to_host(in_place), expected), tol) << "residual in place of b";
      }
}

// On a smooth field that is mostly affine on each cell (what the finest
// level of an FP32 cycle applies A to after the coarse correction), every
// realisation in FP32 keeps its digits: it subtracts the cell's affine part
// before the product (fe/hermite_affine_part.h), without which the
// cancellation leaves it 8e-4 and 1.5e-4 off on these meshes (the host's
// FP32 operator of before). Against FP64 on the same rounded values: 512
// cells of one size and the active cells of an octant refinement (the
// even–odd and dense kernels with a scale per cell); FP64 to 1e-11.
TYPED_TEST(CudaHermite, products_keep_their_digits_on_fields_mostly_affine)
{
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  using Number     = typename TestFixture::Number;
  using Layout     = typename TestFixture::Layout;
  using HostVector = typename TestFixture::HostVector;
  using Vector     = typename TestFixture::Vector;
  const double tol = std::is_same_v<Number, float> ? 1e-5 : 1e-11;
  BoxDescription cube;
  cube.subdivisions = {{2, 2, 2}};
  const ActiveMesh adaptive = make_active_mesh(make_adaptive_box_hierarchy(BoxDescription{}, 1, 2, make_octant_marker(BoxDescription{})));
  const std::vector<std::pair<std::string, Level>> meshes = {{"unit cube, 512 cells", make_box_hierarchy(cube, 2).levels.back()},
                                                             {"active cells of an octant refinement", adaptive.level}};
  for (const auto &[name, level] : meshes)
    {
      const unsigned int n = level.n_cells(), p = hermite::storage_degree;
      HostVector         hu;
      interpolate_hermite(level, affine_dominated_jet, hu);
      CellVector<double> u, expected;
      u.copy_from(relayout<CellContiguous>(hu));
      HermiteBiharmonicOperator<double>(level).vmult(expected, u);
      const Vector du = to_device(hu), zero(n, p);
      using Kernel    = cuda::HermiteOperatorKernel;
      for (const Kernel kernel : {Kernel::even_odd, Kernel::dense, Kernel::sum_factorization})
        {
          SCOPED_TRACE(::testing::Message() << name << ", " << cuda::to_string(kernel));
          const cuda::HermiteBiharmonicOperator<Number, Layout> op(level, kernel);
          Vector                                                Au(n, p), r(n, p);
          op.vmult(Au, du);
          op.residual(r, zero, du);
          const HostVector h_Au = to_host(Au), h_r = to_host(r);
          double           error = 0, residual_error = 0, scale = 0;
          for (unsigned int c = 0; c < n; ++c)
            for (unsigned int i = 0; i < hermite::dofs_per_cell; ++i)
              {
                error          = std::max(error, std::abs(double(h_Au(c, i)) - expected(c, i)));
                residual_error = std::max(residual_error, std::abs(double(h_r(c, i)) + expected(c, i)));
                scale          = std::max(scale, std::abs(expected(c, i)));
              }
          EXPECT_LE(error, tol * scale) << "vmult";
          EXPECT_LE(residual_error, tol * scale) << "residual";
        }
    }
}

// The outer iteration's masked operator: with the registered mask
// (use_dirichlet_mask) masked_vmult and masked_residual equal vmult or
// residual followed by scale(mask) bit for bit, with NaN in the output
// before, on 105 cells (not a multiple of 32), of one size and of two (the
// kernels with a scale per cell). The even–odd and dense
// kernels read the mask's bits in their pass: changed after registration, a
// mask is still read as registered there (which shows that the pass reads
// the bits), while sum factorization and an unregistered vector take the
// separate pass. A mask with a value other than 0 and 1 is refused.
TYPED_TEST(CudaHermite, masked_operator_equals_the_scaled_result)
{
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  using Number     = typename TestFixture::Number;
  using Layout     = typename TestFixture::Layout;
  using HostVector = typename TestFixture::HostVector;
  using Vector     = typename TestFixture::Vector;
  const Number       nan = std::numeric_limits<Number>::quiet_NaN();
  const unsigned int p   = hermite::storage_degree;
  const auto [uniform, scaled] = box_cells_of_one_and_two_sizes();
  for (const Level *level_pointer : std::initializer_list<const Level *>{&uniform, &scaled})
    {
      const Level &level = *level_pointer;
      SCOPED_TRACE(level_pointer == &uniform ? "cells of one size" : "cells of two sizes");
      const unsigned int n = level.n_cells();
      HostVector         hu(n, p), hb(n, p), hmask(n, p);
      fill_random(hu, 71);
      fill_random(hb, 72);
      fill_random(hmask, 73);
      for (unsigned int c = 0; c < n; ++c)
        for (unsigned int i = 0; i < hermite::dofs_per_cell; ++i)
          hmask(c, i) = hmask(c, i) > 0 ? Number(1) : Number(0);
      const Vector du = to_device(hu), db = to_device(hb);
      using Kernel = cuda::HermiteOperatorKernel;
      for (const Kernel kernel : {Kernel::even_odd, Kernel::dense, Kernel::sum_factorization})
        {
          SCOPED_TRACE(cuda::to_string(kernel));
          cuda::HermiteBiharmonicOperator<Number, Layout> op(level, kernel);
          Vector mask = to_device(hmask), copy = to_device(hmask);
          op.use_dirichlet_mask(mask);

          Vector expected, got(n, p);
          op.vmult(expected, du);
          expected.scale(mask);
          for (const Vector *m : {&mask, &copy})
            {
              got.fill(nan);
              op.masked_vmult(got, du, *m);
              EXPECT_TRUE(values_bitwise_equal(to_host(got), to_host(expected))) << "masked_vmult, " << (m == &mask ? "registered" : "copy");
            }
          op.residual(expected, db, du);
          expected.scale(mask);
          for (const Vector *m : {&mask, &copy})
            {
              got.fill(nan);
              op.masked_residual(got, db, du, *m);
              EXPECT_TRUE(values_bitwise_equal(to_host(got), to_host(expected))) << "masked_residual, " << (m == &mask ? "registered" : "copy");
            }

          // every entry of the registered vector set to 1 after registration
          mask.fill(Number(1));
          got.fill(nan);
          op.masked_vmult(got, du, mask);
          op.vmult(expected, du);
          EXPECT_EQ(values_bitwise_equal(to_host(got), to_host(expected)), kernel == Kernel::sum_factorization)
            << "the even-odd and dense kernels read the bits of the registration";

          HostVector half = hmask;
          half(3, 5)      = Number(0.5);
          const Vector bad = to_device(half);
          EXPECT_THROW(op.use_dirichlet_mask(bad), Error);
        }
    }
}

// CG's fused pairing: masked_vmult_dot gives masked_vmult's result bit for
// bit (NaN in the output before) and ⟨src, dst⟩ within rounding of the sum
// over all values (taken on the host in double from the device's result),
// with the registered mask (the kernel's pass: even–odd and dense) and
// without (an unregistered copy, sum factorization: masked_vmult and a
// dot). Meshes: 105 cells (a partial group), cells of two sizes, and 66495
// cells (more groups than the persistent grid has blocks, so each block
// sums several groups). A zero mask gives a zero pairing.
TYPED_TEST(CudaHermite, masked_vmult_dot_pairs_the_masked_result)
{
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  using Number     = typename TestFixture::Number;
  using Layout     = typename TestFixture::Layout;
  using HostVector = typename TestFixture::HostVector;
  using Vector     = typename TestFixture::Vector;
  const Number       nan = std::numeric_limits<Number>::quiet_NaN();
  const unsigned int p   = hermite::storage_degree;
  const auto [uniform, scaled] = box_cells_of_one_and_two_sizes();
  BoxDescription box;
  box.upper        = {{0.9, 0.45, 0.4}};
  box.subdivisions = {{65, 33, 31}};
  const Level  large = make_box_hierarchy(box, 0).levels.back();
  unsigned int seed  = 80;
  for (const Level *level_pointer : std::initializer_list<const Level *>{&uniform, &scaled, &large})
    {
      const Level       &level = *level_pointer;
      const unsigned int n     = level.n_cells();
      HostVector         hu(n, p), hmask(n, p);
      fill_random(hu, ++seed);
      fill_random(hmask, ++seed);
      for (unsigned int c = 0; c < n; ++c)
        for (unsigned int i = 0; i < hermite::dofs_per_cell; ++i)
          hmask(c, i) = hmask(c, i) > 0 ? Number(1) : Number(0);
      const Vector du = to_device(hu);
      using Kernel    = cuda::HermiteOperatorKernel;
      for (const Kernel kernel : {Kernel::even_odd, Kernel::dense, Kernel::sum_factorization})
        {
          SCOPED_TRACE(::testing::Message() << n << " cells, " << cuda::to_string(kernel));
          cuda::HermiteBiharmonicOperator<Number, Layout> op(level, kernel);
          Vector mask = to_device(hmask), copy = to_device(hmask);
          op.use_dirichlet_mask(mask);
          Vector expected, got(n, p);
          op.masked_vmult(expected, du, mask);
          const HostVector host_expected = to_host(expected);
          // the pairing over every value, and the size of its terms
          double pairing = 0, magnitude = 0;
          for (unsigned int c = 0; c < n; ++c)
            for (unsigned int i = 0; i < hermite::dofs_per_cell; ++i)
              {
                const double term = double(hu(c, i)) * double(host_expected(c, i));
                pairing += term;
                magnitude += std::abs(term);
              }
          ASSERT_GT(magnitude, 0.);
          for (const Vector *m : {&mask, &copy})
            {
              SCOPED_TRACE(m == &mask ? "registered" : "an unregistered copy");
              got.fill(nan);
              const double fused = op.masked_vmult_dot(got, du, *m);
              EXPECT_TRUE(values_bitwise_equal(to_host(got), host_expected));
              EXPECT_LE(std::abs(fused - pairing), (sizeof(Number) == 8 ? 1e-12 : 1e-5) * magnitude)
                << "pairing " << fused << " against " << pairing;
            }
          Vector zero = to_device(hmask);
          zero.set_zero();
          op.use_dirichlet_mask(zero);
          got.fill(nan);
          EXPECT_EQ(op.masked_vmult_dot(got, du, zero), 0.);
        }
    }
}

// The cell diagonals and the point-smoother step (update, then the residual
// with the new u) against the host operator, every kind of step: from zero or from a given
// u, with and without the previous update d, storing d or not, with or
// without the residual after it, on boxes of 192 and 105 cells with every
// realisation. NaN in the outputs the step must write (u from zero, d when
// only stored, r when a residual follows).
TYPED_TEST(CudaHermite, diagonals_and_smoother_step_match_host)
{
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  using Number     = typename TestFixture::Number;
  using Layout     = typename TestFixture::Layout;
  using HostVector = typename TestFixture::HostVector;
  using Vector     = typename TestFixture::Vector;
  const double       tol = device_tolerance<Number>();
  const Number       nan = std::numeric_limits<Number>::quiet_NaN();
  const unsigned int p   = hermite::storage_degree;

  using Kernel = cuda::HermiteOperatorKernel;
  for (const Level &level : {refined_box().levels.back(), coarse_box().levels.back()})
    for (const Kernel kernel : {Kernel::even_odd, Kernel::dense, Kernel::sum_factorization})
      {
        SCOPED_TRACE(::testing::Message() << level.n_cells() << " cells, " << cuda::to_string(kernel));
        const HermiteBiharmonicOperator<Number, Layout>       host_op(level);
        const cuda::HermiteBiharmonicOperator<Number, Layout> device_op(level, kernel);
        HostVector                                            expected;
        Vector                                                diagonal;
        host_op.compute_cell_diagonals(expected);
        device_op.compute_cell_diagonals(diagonal);
        EXPECT_LE(relative_difference(to_host(diagonal), expected), tol) << "cell diagonals";

        HostVector u0(level.n_cells(), p), z(level.n_cells(), p), d0(level.n_cells(), p), b(level.n_cells(), p),
          w(level.n_cells(), p);
        fill_random(u0, 31);
        fill_random(z, 32);
        fill_random(d0, 33);
        fill_random(b, 34);
        fill_random(w, 35);
        for (unsigned int cell = 0; cell < level.n_cells(); cell += 3)
          w(cell, 5) = 0; // masked copies: no update from D^{-1} z
        const Vector dw = to_device(w), db = to_device(b);
        for (const bool zero_initial_guess : {true, false})
          for (const Number alpha : {Number(0), Number(0.3)})
            for (const bool store_update : {false, true})
              for (const bool compute_residual : {false, true})
                {
                  SCOPED_TRACE(::testing::Message() << "zero guess " << zero_initial_guess << ", alpha " << alpha << ", store "
                                                    << store_update << ", residual " << compute_residual);
                  SmootherStep<Number> step;
                  step.alpha              = alpha;
                  step.beta               = Number(0.8);
                  step.zero_initial_guess = zero_initial_guess;
                  step.store_update       = store_update;
                  step.compute_residual   = compute_residual;
                  HostVector hu = u0, hr = z, hd = d0;
                  host_op.smoother_step(hu, hr, &hd, b, w, step);
                  Vector du = to_device(u0), dr = to_device(z), dd = to_device(d0);
                  if (zero_initial_guess)
                    du.fill(nan);
                  if (alpha == Number(0) && store_update)
                    dd.fill(nan);
                  device_op.smoother_step(du, dr, &dd, db, dw, step);
                  EXPECT_LE(relative_difference(to_host(du), hu), tol) << "u";
                  EXPECT_LE(relative_difference(to_host(dr), hr), tol) << "r";
                  if (step.uses_update())
                    EXPECT_LE(relative_difference(to_host(dd), hd), tol) << "d";
                }
      }
}

TEST(CudaHermiteChecks, biharmonic_operator_rejects_wrong_shapes)
{
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  const Level                                 level = coarse_box().levels.back();
  const cuda::HermiteBiharmonicOperator<double> op(level);
  CellVector<double, MemorySpace::CUDA>       lagrange(level.n_cells(), 2), other(level.n_cells() + 1, 3), dst;
  EXPECT_THROW(op.vmult(dst, lagrange), Error);
  EXPECT_THROW(op.vmult(dst, other), Error);
  CellVector<double, MemorySpace::CUDA> u(level.n_cells(), 3);
  EXPECT_THROW(op.vmult(u, u), Error);
}
