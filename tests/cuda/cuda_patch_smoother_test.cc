// Device vertex-patch smoother against the host VertexPatchSmoother on the
// same seeded random data: one colour step and whole sweeps (forward, reverse,
// zero and non-zero initial guess), degrees 1..4, meshes whose cell counts are
// not multiples of 32; the FP32 Q3 register kernels (register_q3,
// register_q3_async, register_q3_symmetric) against the host FP64 reference.

#include <cellwise/multigrid/cuda_vertex_patch_smoother.h>
#include <cellwise/multigrid/vertex_patch_smoother.h>

#include <gtest/gtest.h>

#include <iostream>

#include "cuda/cuda_test_utilities.h"
#include "test_utilities.h"

using namespace cellwise;
using namespace cellwise::testing;

namespace
{
  /// Box [0,3]x[0,2]x[0,1] in 3x2x4 coarse cells refined twice: 1536 cells.
  LevelHierarchy
  twice_refined_box()
  {
    BoxDescription box;
    box.upper        = {{3., 2., 1.}};
    box.subdivisions = {{3, 2, 4}};
    return make_box_hierarchy(box, 2);
  }

  /// Every register-kernel test runs all of these.
  constexpr cuda::PatchKernel register_kernels[] = {cuda::PatchKernel::register_q3, cuda::PatchKernel::register_q3_async,
                                                    cuda::PatchKernel::register_q3_symmetric};

  const char *
  kernel_name(const cuda::PatchKernel kernel)
  {
    switch (kernel)
      {
        case cuda::PatchKernel::automatic:
          return "automatic";
        case cuda::PatchKernel::generic:
          return "generic";
        case cuda::PatchKernel::register_q3:
          return "register_q3";
        case cuda::PatchKernel::register_q3_async:
          return "register_q3_async";
        case cuda::PatchKernel::register_q3_symmetric:
          return "register_q3_symmetric";
      }
    return "?";
  }

  template <typename Number>
  constexpr double
  patch_tolerance()
  {
    return std::is_same_v<Number, double> ? 1e-12 : 1e-5;
  }
} // namespace

template <typename Pair>
class CudaPatchSmoother : public ::testing::Test
{
public:
  using Number     = typename Pair::first_type;
  using Layout     = typename Pair::second_type;
  using HostVector = CellVector<Number, MemorySpace::Host, Layout>;
  using Vector     = CellVector<Number, MemorySpace::CUDA, Layout>;
};
TYPED_TEST_SUITE(CudaPatchSmoother, NumberLayoutPairs);

TYPED_TEST(CudaPatchSmoother, colour_step_and_sweep_match_host)
{
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  using Number     = typename TestFixture::Number;
  using Layout     = typename TestFixture::Layout;
  using HostVector = typename TestFixture::HostVector;
  using Vector     = typename TestFixture::Vector;
  const double tol = patch_tolerance<Number>();

  const LevelHierarchy meshes[] = {refined_box(), twice_refined_box(), coarse_box()};
  for (const LevelHierarchy &mesh : meshes)
    for (unsigned int degree = 1; degree <= 4; ++degree)
      {
        const Level &level = mesh.levels.back();
        SCOPED_TRACE(::testing::Message() << level.n_cells() << " cells of degree " << degree);
        const VertexPatchSmoother<Number, Layout> host(level, degree);
        cuda::VertexPatchSmoother<Number, Layout> device(level, degree);
        device.use_kernel(cuda::PatchKernel::generic);
        ASSERT_EQ(device.n_cells(), level.n_cells());
        ASSERT_EQ(device.n_patch_inverses(), host.n_patch_inverses());
        for (unsigned int colour = 0; colour < 8; ++colour)
          ASSERT_EQ(device.n_patches(colour), host.patches().n_patches(colour));

        HostVector hu(level.n_cells(), degree), hb(level.n_cells(), degree);
        fill_random(hu, 100 + degree);
        fill_random(hb, 200 + degree);
        const Vector db = to_device(hb);

        // one colour step alone, every colour, from the same u
        for (unsigned int colour = 0; colour < 8; ++colour)
          for (const bool u_is_zero : {false, true})
            {
              HostVector expected = hu;
              if (u_is_zero)
                expected.set_zero();
              host.apply_colour(expected, hb, colour, u_is_zero);
              Vector du = to_device(u_is_zero ? HostVector(level.n_cells(), degree) : hu);
              device.apply_colour(du, db, colour, u_is_zero);
              EXPECT_LE(relative_difference(to_host(du), expected), tol)
                << "colour " << colour << (u_is_zero ? " from zero" : "");
            }

        // whole sweeps
        for (const SweepDirection direction : {SweepDirection::forward, SweepDirection::reverse})
          for (const bool zero_initial_guess : {false, true})
            {
              HostVector expected = hu;
              host.smooth(expected, hb, zero_initial_guess, direction);
              Vector du = to_device(hu);
              device.smooth(du, db, zero_initial_guess, direction);
              EXPECT_LE(relative_difference(to_host(du), expected), tol)
                << (direction == SweepDirection::forward ? "forward" : "reverse")
                << (zero_initial_guess ? ", zero initial guess" : ", non-zero initial guess");
            }
      }
}

TYPED_TEST(CudaPatchSmoother, two_sweeps_per_call_match_host)
{
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  using Number     = typename TestFixture::Number;
  using Layout     = typename TestFixture::Layout;
  using HostVector = typename TestFixture::HostVector;
  const LevelHierarchy                            mesh  = refined_box();
  const Level                                    &level = mesh.levels.back();
  const unsigned int                              degree = 5;
  const VertexPatchSmoother<Number, Layout>       host(level, degree, 2);
  cuda::VertexPatchSmoother<Number, Layout>       device(level, degree, 2);
  device.use_kernel(cuda::PatchKernel::generic);
  HostVector hu(level.n_cells(), degree), hb(level.n_cells(), degree);
  fill_random(hu, 7);
  fill_random(hb, 8);
  HostVector expected = hu;
  host.smooth(expected, hb, false, SweepDirection::reverse);
  auto du = to_device(hu);
  device.smooth(du, to_device(hb), false, SweepDirection::reverse);
  EXPECT_LE(relative_difference(to_host(du), expected), patch_tolerance<Number>());
}

TEST(CudaPatchSmootherChecks, rejects_what_it_cannot_do)
{
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  const LevelHierarchy                        mesh  = refined_box();
  const Level                                &level = mesh.levels.back();
  cuda::VertexPatchSmoother<double>           fp64(level, 3);
  EXPECT_FALSE(fp64.register_kernel_available());
  EXPECT_THROW(fp64.use_kernel(cuda::PatchKernel::register_q3), Error);
  EXPECT_FALSE(fp64.symmetric_kernel_available());
  EXPECT_THROW(fp64.use_kernel(cuda::PatchKernel::register_q3_symmetric), Error);
  cuda::VertexPatchSmoother<float>            q2(level, 2);
  EXPECT_FALSE(q2.register_kernel_available());
  EXPECT_FALSE(q2.symmetric_kernel_available());
  EXPECT_THROW(q2.use_kernel(cuda::PatchKernel::register_q3_symmetric), Error);
  cuda::VertexPatchSmoother<float>            q3(level, 3);
  EXPECT_TRUE(q3.register_kernel_available());
  EXPECT_TRUE(q3.symmetric_kernel_available());
  // automatic takes the symmetric kernel where the patches allow it
  EXPECT_EQ(q3.active_kernel(), cuda::PatchKernel::register_q3_symmetric);
  q3.use_kernel(cuda::PatchKernel::register_q3_async);
  EXPECT_EQ(q3.active_kernel(), cuda::PatchKernel::register_q3_async);
  CellVector<float, MemorySpace::CUDA> u(level.n_cells(), 3), b(level.n_cells(), 3);
  EXPECT_THROW(q3.apply_colour(u, u, 0), Error);
}

// From a continuous iterate a sweep must keep every copy of a DoF identical
// (bitwise, with every kernel): the FP64 outer iteration adds the widened FP32
// correction to its iterate.
TEST(CudaPatchSmootherFp32, sweep_keeps_copies_identical)
{
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  const LevelHierarchy mesh      = twice_refined_box();
  const Level         &level     = mesh.levels.back();
  const auto           numbering = number_by_coordinates(level, 3);
  CellVector<float, MemorySpace::Host> hu(level.n_cells(), 3), hb(level.n_cells(), 3);
  gather_by(numbering, random_vector(numbering.n_unique, 41), hu);
  fill_random(hb, 42);
  for (const cuda::PatchKernel kernel : {cuda::PatchKernel::generic, cuda::PatchKernel::register_q3,
                                         cuda::PatchKernel::register_q3_async, cuda::PatchKernel::register_q3_symmetric})
    {
      cuda::VertexPatchSmoother<float> device(level, 3);
      device.use_kernel(kernel);
      auto du = to_device(hu);
      device.smooth(du, to_device(hb), false, SweepDirection::forward);
      const double difference = max_copy_difference(numbering, to_host(du));
      std::cout << "  kernel " << kernel_name(kernel) << ": largest difference between copies after a sweep " << difference
                << std::endl;
      EXPECT_EQ(device.active_kernel(), kernel);
      EXPECT_EQ(difference, 0.) << "kernel " << kernel_name(kernel);
    }
}

// The FP32 register kernels (000 §5, §6.4) against the host sweep in FP64 on
// the same (FP32-representable) data: relative 1e-6 per colour step.
TEST(CudaPatchSmootherRegisterQ3, colour_step_matches_host_fp64)
{
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  const LevelHierarchy meshes[] = {refined_box(), twice_refined_box()};
  for (const LevelHierarchy &mesh : meshes)
    for (const cuda::PatchKernel kernel : register_kernels)
    {
      const Level &level = mesh.levels.back();
      const char  *name  = kernel_name(kernel);
      SCOPED_TRACE(::testing::Message() << level.n_cells() << " cells, " << name);
      const VertexPatchSmoother<double> host(level, 3);
      cuda::VertexPatchSmoother<float>  device(level, 3);
      ASSERT_TRUE(device.register_kernel_available());
      device.use_kernel(kernel);
      ASSERT_EQ(device.active_kernel(), kernel);

      bool odd_count = false;
      for (unsigned int colour = 0; colour < 8; ++colour)
        odd_count = odd_count || device.n_patches(colour) % 4 != 0;
      EXPECT_TRUE(odd_count) << "the mesh should have a colour whose patch count is not a multiple of 4";

      CellVector<double, MemorySpace::Host> hu(level.n_cells(), 3), hb(level.n_cells(), 3);
      fill_random(hu, 31);
      fill_random(hb, 32);
      CellVector<float, MemorySpace::Host> fu(level.n_cells(), 3), fb(level.n_cells(), 3);
      for (unsigned int cell = 0; cell < level.n_cells(); ++cell)
        for (unsigned int i = 0; i < 64; ++i)
          {
            fu(cell, i) = float(hu(cell, i));
            fb(cell, i) = float(hb(cell, i));
            hu(cell, i) = fu(cell, i); // the FP64 reference sees the FP32 data
            hb(cell, i) = fb(cell, i);
          }
      const auto db = to_device(fb);

      // relative difference in double of the device result against the FP64 reference
      auto difference = [](const CellVector<float, MemorySpace::Host> &a, const CellVector<double, MemorySpace::Host> &b) {
        double diff = 0, scale = 0;
        for (unsigned int cell = 0; cell < b.n_cells(); ++cell)
          for (unsigned int i = 0; i < b.dofs_per_cell(); ++i)
            {
              if (!std::isfinite(a(cell, i)))
                return std::numeric_limits<double>::infinity();
              diff  = std::max(diff, std::abs(double(a(cell, i)) - b(cell, i)));
              scale = std::max(scale, std::abs(b(cell, i)));
            }
        return diff / scale;
      };

      for (unsigned int colour = 0; colour < 8; ++colour)
        for (const bool u_is_zero : {false, true})
          {
            SCOPED_TRACE(::testing::Message() << "colour " << colour << " with " << device.n_patches(colour)
                                              << " patches" << (u_is_zero ? ", u = 0" : ""));
            CellVector<double, MemorySpace::Host> expected = hu;
            if (u_is_zero)
              expected.set_zero();
            host.apply_colour(expected, hb, colour, u_is_zero);
            auto du = to_device(u_is_zero ? CellVector<float, MemorySpace::Host>(level.n_cells(), 3) : fu);
            device.apply_colour(du, db, colour, u_is_zero);
            const double error = difference(to_host(du), expected);
            EXPECT_LE(error, 1e-6);
            if (colour == 0)
              std::cout << "  " << name << " colour step, " << level.n_cells() << " cells" << (u_is_zero ? ", u = 0" : "")
                        << ": relative error against FP64 " << error << std::endl;
          }

      // a whole sweep, and the traffic stub leaves u as it is
      for (const SweepDirection direction : {SweepDirection::forward, SweepDirection::reverse})
        {
          CellVector<double, MemorySpace::Host> expected = hu;
          host.smooth(expected, hb, false, direction);
          auto du = to_device(fu);
          device.smooth(du, db, false, direction);
          EXPECT_LE(difference(to_host(du), expected), 1e-5);
        }
      auto du = to_device(fu);
      device.apply_traffic_stub(du, db, 3);
      EXPECT_EQ(relative_difference(to_host(du), fu), 0.);

      // The cp.async kernels' warps loop over the groups of four patches,
      // fetching the next group's u and b~ during the solve; on these meshes
      // the full grid gives every warp one group. With one or three blocks,
      // warps take many groups (three: the last warps one fewer): the same
      // arithmetic per patch, so the same result bit for bit.
      if (kernel != cuda::PatchKernel::register_q3)
        for (const unsigned int max_blocks : {1u, 3u})
          for (const bool u_is_zero : {false, true})
            for (unsigned int colour = 0; colour < 8; ++colour)
              {
                SCOPED_TRACE(::testing::Message() << "at most " << max_blocks << " blocks, colour " << colour
                                                  << (u_is_zero ? ", u = 0" : ""));
                const auto start = u_is_zero ? CellVector<float, MemorySpace::Host>(level.n_cells(), 3) : fu;
                auto       whole = to_device(start);
                device.limit_register_grid(0);
                device.apply_colour(whole, db, colour, u_is_zero);
                auto looped = to_device(start);
                device.limit_register_grid(max_blocks);
                device.apply_colour(looped, db, colour, u_is_zero);
                device.limit_register_grid(0);
                EXPECT_EQ(relative_difference(to_host(looped), to_host(whole)), 0.);
                EXPECT_GT(relative_difference(to_host(looped), start), 0.) << "the colour step changed nothing";
              }
    }
}
