// The distributed components on device vectors (one GPU shared by all
// ranks) against the serial device ones: the DSS across ranks on device
// vectors (packed and unpacked by device kernels, through pinned host
// buffers or, where MPI is CUDA-aware, device buffers) equals the serial
// device DSS on the owned cells bit for bit on every level; the device
// distributed vector's reductions equal the host's; the device Dirichlet
// mask of a distributed level equals the host one on the owned cells (a
// box and an octant refinement, all ids and two of six); the Chebyshev and
// Jacobi smoothers on device vectors give the serial device smoothers'
// result on the owned cells; the whole device solve across ranks
// (DistributedMultigridSolver on Backend::cuda: transfers on whole local
// families, the gathered coarse solve; Chebyshev, Jacobi and the
// vertex-patch smoother with its halo; local smoothing on locally refined
// levels) gives the serial device solvers'
// iteration counts and solution (FP64 to 1e-12, mixed to 1e-7). Ghost cells start as NaN, so that a value the
// exchange fails to deliver shows. Skipped, on every rank, without a GPU.

#include <cellwise/base/cuda_check.h>
#include <cellwise/base/mpi_check.h>
#include <cellwise/mesh/adaptive_builder.h>
#include <cellwise/mesh/box_builder.h>
#include <cellwise/storage/cuda_level_data.h>
#include <cellwise/mesh/partition.h>
#include <cellwise/mesh/partitioned_hierarchy.h>
#include <cellwise/multigrid/cuda_cell_transfer.h>
#include <cellwise/multigrid/cuda_point_smoothers.h>
#include <cellwise/multigrid/mpi_cuda_distributed_cell_transfer.h>
#include <cellwise/multigrid/host_vector_solvers.h>
#include <cellwise/multigrid/mpi_distributed_multigrid_solver.h>
#include <cellwise/multigrid/mpi_distributed_point_smoothers.h>
#include <cellwise/operators/cuda_laplace_operator.h>
#include <cellwise/operators/mpi_distributed_laplace_operator.h>
#include <cellwise/storage/cuda_dss.h>
#include <cellwise/storage/dirichlet_mask.h>
#include <cellwise/storage/mpi_distributed_cell_vector.h>
#include <cellwise/storage/mpi_cuda_distributed_dirichlet_mask.h>
#include <cellwise/storage/mpi_distributed_dirichlet_mask.h>
#include <cellwise/storage/mpi_distributed_dss.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <string>

#include "cuda/cuda_test_utilities.h"
#include "mpi_test_utilities.h"
#include "test_utilities.h"

using namespace cellwise;
using namespace cellwise::testing;

namespace
{
  /// Device distributed against serial device DSS on every level of @p h.
  template <typename Number, typename Layout>
  void
  check_dss_on_every_level(const LevelHierarchy &h, const unsigned int degree, const char *what)
  {
    const int  rank = mpi_rank(MPI_COMM_WORLD), size = mpi_size(MPI_COMM_WORLD);
    const auto owner = morton_partition(h, size);
    for (unsigned int l = 0; l < h.n_levels(); ++l)
      {
        const Level          &serial_level = h.level(l);
        const cuda::LevelData serial_data(serial_level);
        const LocalLevel      local = make_local_level(serial_level, owner[l], rank);
        const DistributedDss  dss(local, MPI_COMM_WORLD, lagrange_trace_layers(degree));
        for (const DssMode mode : {DssMode::sum, DssMode::mean})
          {
            CellVector<Number, MemorySpace::Host, Layout> serial(serial_level.n_cells(), degree);
            fill_random(serial, 100 + l);
            auto distributed = to_device(local_part(local, serial));
            auto expected    = to_device(serial);
            cuda::apply_dss(serial_data, expected, mode, cuda::DssSchedule::axis_passes);
            dss.apply(distributed, mode);
            EXPECT_EQ(owned_mismatches(local, to_host(distributed), to_host(expected)), 0u)
              << what << ", degree " << degree << ", level " << l << ", mode " << (mode == DssMode::sum ? "sum" : "mean")
              << ", rank " << rank << " of " << size;
            // and the host's distributed DSS, from the same values
            auto host = local_part(local, serial);
            dss.apply(host, mode);
            const auto  got   = to_host(distributed);
            std::size_t wrong = 0;
            for (unsigned int k = 0; k < local.n_owned_cells(); ++k)
              for (unsigned int i = 0; i < got.dofs_per_cell(); ++i)
                wrong += !(got(k, i) == host(k, i));
            EXPECT_EQ(wrong, 0u) << what << ", level " << l << ": device and host DSS across ranks";
          }
      }
  }

  /// Runs @p body once with the exchange staged through pinned host
  /// buffers and once as mpi_cuda_aware() decides (the same where MPI is
  /// not CUDA-aware).
  template <typename Body>
  void
  with_both_exchange_paths(const Body &body)
  {
    setenv("CELLWISE_MPI_STAGING", "1", 1);
    EXPECT_FALSE(mpi_cuda_aware());
    body("staged");
    unsetenv("CELLWISE_MPI_STAGING");
    if (mpi_cuda_aware())
      body("CUDA-aware");
    else if (mpi_rank(MPI_COMM_WORLD) == 0)
      std::cout << "  MPI does not report CUDA support: only the staged exchange was run" << std::endl;
  }
} // namespace

TEST(DistributedDeviceDss, EqualsTheSerialDeviceDssOnEveryLevelOfABox)
{
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  const LevelHierarchy h = make_box_hierarchy(unequal_mpi_box(), 2);
  with_both_exchange_paths([&](const char *path) {
    for (const unsigned int degree : {1u, 2u, 3u})
      check_dss_on_every_level<double, CellContiguous>(h, degree, path);
    check_dss_on_every_level<float, CellContiguous>(h, 3, path);
    check_dss_on_every_level<double, CellBlocked<32>>(h, 3, path);
    check_dss_on_every_level<float, CellBlocked<32>>(h, 2, path);
  });
}

TEST(DistributedDeviceDss, EqualsTheSerialDeviceDssOnLocallyRefinedLevels)
{
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  const BoxDescription box = unequal_mpi_box();
  const LevelHierarchy h   = make_adaptive_box_hierarchy(box, 1, 2, make_octant_marker(box));
  check_dss_on_every_level<double, CellContiguous>(h, 3, "octant");
  check_dss_on_every_level<double, CellBlocked<32>>(h, 2, "octant, blocked");
}

TEST(DistributedDeviceDss, RefusesTheHermiteLayersOnDeviceVectors)
{
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  const LevelHierarchy h     = make_box_hierarchy(unequal_mpi_box(), 1);
  const auto           owner = morton_partition(h, mpi_size(MPI_COMM_WORLD));
  const LocalLevel     local = make_local_level(h.levels.back(), owner.back(), mpi_rank(MPI_COMM_WORLD));
  const DistributedDss dss(local, MPI_COMM_WORLD, hermite_trace_layers());
  CellVector<double, MemorySpace::CUDA> v(local.level.n_cells(), 3);
  EXPECT_THROW(dss.apply(v), Error); // before any message: no rank waits
}

TEST(DistributedDeviceDirichletMask, EqualsTheHostMaskOnEveryLevel)
{
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  const int            rank = mpi_rank(MPI_COMM_WORLD);
  const BoxDescription box  = unequal_mpi_box();
  const LevelHierarchy uniform = make_box_hierarchy(box, 2), octant = make_adaptive_box_hierarchy(box, 1, 2, make_octant_marker(box));
  std::size_t          compared = 0, dirichlet = 0;
  for (const LevelHierarchy *h : {&uniform, &octant})
    {
      const auto owner = morton_partition(*h, mpi_size(MPI_COMM_WORLD));
      for (unsigned int l = 0; l < h->n_levels(); ++l)
        {
          const LocalLevel local = make_local_level(h->level(l), owner[l], rank);
          for (const unsigned int degree : {2u, 3u})
            for (const std::vector<unsigned int> &ids : {std::vector<unsigned int>{}, std::vector<unsigned int>{0, 3}})
              {
                const auto level =
                  std::make_shared<const DistributedLevel>(local, MPI_COMM_WORLD, h->level(l).n_cells(), lagrange_trace_layers(degree));
                const DistributedCellVector<float> host = make_distributed_dirichlet_mask<float>(level, degree, ids);
                DistributedCellVector<float>       back;
                make_device_distributed_dirichlet_mask<float>(level, degree, ids).copy_to_host(back);
                const DistributedCellVector<double> host64 = make_distributed_dirichlet_mask<double>(level, degree, ids);
                DistributedCellVector<double>       back64;
                make_device_distributed_dirichlet_mask<double>(level, degree, ids).copy_to_host(back64);
                for (unsigned int k = 0; k < local.n_owned_cells(); ++k)
                  for (unsigned int i = 0; i < host.dofs_per_cell(); ++i)
                    {
                      ASSERT_EQ(back.local()(k, i), host.local()(k, i)) << "level " << l << ", cell " << k << ", DoF " << i;
                      ASSERT_EQ(back64.local()(k, i), host64.local()(k, i)) << "level " << l << ", cell " << k << ", DoF " << i;
                      dirichlet += host.local()(k, i) == 0.f;
                      ++compared;
                    }
              }
        }
    }
  EXPECT_GT(compared, 1000u);
  EXPECT_GT(dirichlet, 0u);
}

TEST(DistributedDeviceVector, ReductionsEqualTheHostOnes)
{
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  const LevelHierarchy h     = make_box_hierarchy(unequal_mpi_box(), 2);
  const int            rank  = mpi_rank(MPI_COMM_WORLD);
  const auto           owner = morton_partition(h, mpi_size(MPI_COMM_WORLD));
  const LocalLevel     local = make_local_level(h.levels.back(), owner.back(), rank);
  const auto level = std::make_shared<const DistributedLevel>(local, MPI_COMM_WORLD, h.levels.back().n_cells(),
                                                              lagrange_trace_layers(2));
  CellVector<double> serial_x(h.levels.back().n_cells(), 2), serial_y(h.levels.back().n_cells(), 2);
  fill_random(serial_x, 1);
  fill_random(serial_y, 2);
  DistributedCellVector<double> x(level, 2), y(level, 2);
  x.local() = local_part(local, serial_x); // ghosts NaN: no reduction reads them
  y.local() = local_part(local, serial_y);
  DistributedCellVector<double, CellContiguous, MemorySpace::CUDA> dx, dy;
  dx.copy_from_host(x);
  dy.copy_from_host(y);
  const double expected = serial_x.dot(serial_y);
  const double host = x.dot(y), device = dx.dot(dy);
  const bool   finite = dx.all_finite();
  // a non-finite owned value on the last rank only: false on every rank
  if (rank == mpi_size(MPI_COMM_WORLD) - 1)
    x.local()(0, 0) = std::nan("");
  dx.copy_from_host(x);
  const bool finite_after = dx.all_finite();
  DistributedCellVector<double> back;
  dy.copy_to_host(back);
  EXPECT_NEAR(host, expected, 1e-13 * std::abs(expected));
  EXPECT_NEAR(device, expected, 1e-13 * std::abs(expected));
  EXPECT_TRUE(finite);
  EXPECT_FALSE(finite_after);
  EXPECT_EQ(owned_mismatches(local, back.local(), serial_y), 0u);
}

namespace
{
  /// One smooth() of the distributed device smoother against the serial
  /// device smoother, from a zero and from a random guess; relative
  /// difference on the owned cells. Collective.
  template <typename DistributedSmoother, typename SerialSmoother, typename Parameters>
  double
  smoother_difference(const LevelHierarchy &h, const unsigned int degree, const Parameters &parameters)
  {
    using Device = CellVector<double, MemorySpace::CUDA>;
    using DV     = DistributedCellVector<double, CellContiguous, MemorySpace::CUDA>;
    const int          rank = mpi_rank(MPI_COMM_WORLD), size = mpi_size(MPI_COMM_WORLD);
    const Level       &serial_level = h.levels.back();
    const auto         owner        = morton_partition(h, size);
    const LocalLevel   local        = make_local_level(serial_level, owner.back(), rank);
    const auto level = std::make_shared<const DistributedLevel>(local, MPI_COMM_WORLD, serial_level.n_cells(),
                                                                lagrange_trace_layers(degree));

    // serial device smoother
    const auto           serial_mask_host = make_dirichlet_mask<double>(serial_level, degree);
    const Device         serial_mask      = to_device(serial_mask_host);
    const cuda::LaplaceOperator<double> serial_op(serial_level, degree);
    const SerialSmoother serial(serial_level, serial_op, serial_mask, parameters);
    // distributed device smoother
    DV mask;
    mask.copy_from_host(make_distributed_dirichlet_mask<double>(level, degree));
    const DistributedLaplaceOperator<double, CellContiguous, MemorySpace::CUDA> op(level, degree);
    const DistributedSmoother distributed(local.level, op, mask, parameters);

    CellVector<double> b(serial_level.n_cells(), degree), u0(serial_level.n_cells(), degree);
    fill_random(b, 21);
    fill_random(u0, 22);
    b.scale(serial_mask_host);
    u0.scale(serial_mask_host);
    double worst = 0;
    for (const bool zero_guess : {true, false})
      {
        Device serial_u = to_device(zero_guess ? CellVector<double>(serial_level.n_cells(), degree) : u0);
        serial.smooth(serial_u, to_device(b), zero_guess, SweepDirection::forward);
        DistributedCellVector<double> host_b(level, degree), host_u(level, degree);
        host_b.local() = local_part(local, b);
        host_u.local() = local_part(local, zero_guess ? CellVector<double>(serial_level.n_cells(), degree) : u0);
        DV u, bb;
        u.copy_from_host(host_u);
        bb.copy_from_host(host_b);
        distributed.smooth(u, bb, zero_guess, SweepDirection::forward);
        const CellVector<double> expected = to_host(serial_u);
        const CellVector<double> got      = to_host(u.local());
        // a NaN (a ghost value the exchange failed to deliver, read)
        // counts as an infinite difference: std::max would drop it
        double difference = 0, largest = 0;
        for (unsigned int k = 0; k < local.n_owned_cells(); ++k)
          for (unsigned int i = 0; i < got.dofs_per_cell(); ++i)
            {
              const double e = std::abs(got(k, i) - expected(local.serial_index[k], i));
              difference     = std::isnan(e) ? std::numeric_limits<double>::infinity() : std::max(difference, e);
              largest        = std::max(largest, std::abs(expected(local.serial_index[k], i)));
            }
        double all[2] = {0, 0}, mine[2] = {difference, largest};
        CELLWISE_MPI_CHECK(MPI_Allreduce(mine, all, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
        worst = std::max(worst, all[0] / all[1]);
      }
    return worst;
  }
} // namespace

TEST(DistributedDeviceSmoothers, ChebyshevAndJacobiEqualTheSerialDeviceSmoothers)
{
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  const LevelHierarchy h = make_box_hierarchy(unequal_mpi_box(), 2);
  for (const unsigned int degree : {2u, 3u})
    {
      const double chebyshev =
        smoother_difference<DistributedChebyshevSmoother<double, CellContiguous, MemorySpace::CUDA>,
                            cuda::ChebyshevSmoother<double>>(h, degree, ChebyshevParameters());
      const double jacobi = smoother_difference<DistributedJacobiSmoother<double, CellContiguous, MemorySpace::CUDA>,
                                                cuda::JacobiSmoother<double>>(h, degree, JacobiParameters());
      // the Lanczos estimate's global sums round differently: 1e-12, not 0
      EXPECT_LE(chebyshev, 1e-12) << "Q" << degree;
      EXPECT_LE(jacobi, 1e-14) << "Q" << degree;
      if (mpi_rank(MPI_COMM_WORLD) == 0)
        std::cout << "  Q" << degree << " on " << mpi_size(MPI_COMM_WORLD)
                  << " ranks, one device: Chebyshev difference " << chebyshev << ", Jacobi " << jacobi << std::endl;
    }
}

namespace
{
  /// compare_with_serial_solver on the device (all ranks share the GPU), on
  /// the row whose partitions cut families (the transfers exchange cells).
  void
  compare_device_solvers(MultigridParameters parameters, const unsigned int degree, const double tolerance, const std::string &what)
  {
    parameters.backend = Backend::cuda;
    compare_with_serial_solver(parameters, degree, tolerance, "device, " + what, family_cutting_mpi_row());
  }
} // namespace

TEST(DistributedDeviceSolver, SolvesAsTheSerialDeviceSolver)
{
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  for (const unsigned int degree : {2u, 3u, 4u})
    {
      MultigridParameters parameters; // Chebyshev, CG, FP64
      compare_device_solvers(parameters, degree, 1e-12, "Chebyshev, CG");
    }
  MultigridParameters jacobi;
  jacobi.smoother = SmootherType::jacobi;
  compare_device_solvers(jacobi, 2, 1e-12, "Jacobi, CG");
  MultigridParameters stationary;
  stationary.outer = OuterIteration::stationary;
  compare_device_solvers(stationary, 3, 1e-12, "Chebyshev, stationary");
}

TEST(DistributedDeviceSolver, MixedPrecisionSolvesAsTheSerialDeviceSolver)
{
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  MultigridParameters parameters;
  parameters.precision = Precision::mixed;
  compare_device_solvers(parameters, 3, 1e-7, "mixed, Chebyshev, CG");
  parameters.outer = OuterIteration::stationary;
  compare_device_solvers(parameters, 3, 1e-7, "mixed, Chebyshev, stationary");
}

TEST(DistributedDeviceSolver, VertexPatchSmootherSolvesAsTheSerialDeviceSolver)
{
  // patches across ranks solved redundantly from the vertex halo, the
  // halo exchanges packed on the device after each colour
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  MultigridParameters stationary;
  stationary.smoother = SmootherType::patch;
  stationary.outer    = OuterIteration::stationary;
  for (const unsigned int degree : {2u, 3u})
    compare_device_solvers(stationary, degree, 1e-12, "patch, stationary");
  MultigridParameters cg;
  cg.smoother = SmootherType::patch;
  compare_device_solvers(cg, 3, 1e-12, "patch, CG");
  // 000's method: FP32 patch-smoothed levels in the FP64 stationary
  // iteration (the register kernel where the serial solver runs it)
  stationary.precision = Precision::mixed;
  compare_device_solvers(stationary, 3, 1e-7, "mixed, patch, stationary");
}

TEST(DistributedDeviceSolver, CoefficientPerCellSolvesAsTheSerialDeviceSolver)
{
  // step-37's coefficient, averaged per cell (the device operators' form):
  // the ranks' level operators, diagonals and eigenvalue estimates are the
  // serial device solver's
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  MultigridParameters parameters;
  parameters.coefficient            = [](const Point &x) { return 1. / (0.05 + 2. * (x[0] * x[0] + x[1] * x[1] + x[2] * x[2])); };
  parameters.coefficient_evaluation = CoefficientEvaluation::cell_average;
  for (const unsigned int degree : {2u, 3u})
    compare_device_solvers(parameters, degree, 1e-12, "coefficient, Chebyshev, CG");
  parameters.precision = Precision::mixed;
  compare_device_solvers(parameters, 3, 1e-7, "coefficient, mixed, Chebyshev, CG");
  parameters.precision = Precision::fp64;
  parameters.smoother  = SmootherType::jacobi;
  compare_device_solvers(parameters, 2, 1e-12, "coefficient, Jacobi, CG");
}

TEST(DistributedDeviceSolver, RefusesWhatTheSerialDeviceSolverRefusesOfACoefficient)
{
  // refused in the set-up's checks, before any device call: also without a GPU
  const LevelHierarchy h = make_box_hierarchy(unequal_mpi_box(), 1);
  MultigridParameters  parameters;
  parameters.backend     = Backend::cuda;
  parameters.coefficient = [](const Point &x) { return 1. + x[0]; };
  const auto message     = [&] {
    try
      {
        const DistributedMultigridSolver solver(h, 2, parameters, MPI_COMM_WORLD);
      }
    catch (const Error &e)
      {
        return std::string(e.what());
      }
    return std::string("no error");
  };
  EXPECT_NE(message().find("coefficient at the quadrature points on the device"), std::string::npos) << message();
  parameters.coefficient_evaluation = CoefficientEvaluation::cell_average;
  parameters.smoother               = SmootherType::patch;
  parameters.outer                  = OuterIteration::stationary;
  EXPECT_NE(message().find("coefficient with the vertex-patch smoother on the device"), std::string::npos) << message();
}

TEST(DistributedDeviceSolver, FromABoxPartitionSolvesAsTheReplicatedAndTheSerialDeviceSolver)
{
  // no rank holds the serial hierarchy: local levels, family ghosts and the
  // transfers' families from the lattice, on the row whose cuts split
  // families
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  MultigridParameters chebyshev;
  chebyshev.backend = Backend::cuda;
  compare_box_partition_solver(chebyshev, 2, 1e-12, "device, Chebyshev, CG, row", family_cutting_mpi_row());
  MultigridParameters patch;
  patch.backend   = Backend::cuda;
  patch.smoother  = SmootherType::patch;
  patch.outer     = OuterIteration::stationary;
  patch.precision = Precision::mixed;
  compare_box_partition_solver(patch, 3, 1e-7, "device, mixed, patch, stationary, row", family_cutting_mpi_row());
  compare_box_partition_solver(patch, 3, 1e-7, "device, mixed, patch, stationary, L-shape", make_lshape_description());
}

TEST(DistributedDeviceSolver, RanksWithoutCellsSolveAsTheSerialDeviceSolver)
{
  // ranks without cells (row_cuts_with_empty_ranks): their device levels,
  // vectors and exchanges are empty
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  const int size = mpi_size(MPI_COMM_WORLD);
  if (size < 2)
    GTEST_SKIP() << "needs 2 ranks or more for a rank without cells";
  const std::vector<std::uint64_t> cuts = row_cuts_with_empty_ranks(size);
  MultigridParameters chebyshev;
  chebyshev.backend = Backend::cuda;
  compare_box_partition_solver(chebyshev, 2, 1e-12, "device, Chebyshev, CG, row, empty ranks", family_cutting_mpi_row(), {}, cuts);
  MultigridParameters patch;
  patch.backend   = Backend::cuda;
  patch.smoother  = SmootherType::patch;
  patch.outer     = OuterIteration::stationary;
  patch.precision = Precision::mixed;
  compare_box_partition_solver(patch, 3, 1e-7, "device, mixed, patch, stationary, row, empty ranks", family_cutting_mpi_row(), {},
                               cuts);
}

TEST(DistributedDeviceSolver, LocalSmoothingSolvesAsTheSerialDeviceAdaptiveSolver)
{
  // locally refined levels on the device across ranks: the free masks,
  // transfers on families cut by the partition, and the active mesh's
  // distribution and reassembly through device entry lists
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  MultigridParameters parameters;
  parameters.backend = Backend::cuda;
  compare_with_serial_adaptive_solver(parameters, 2, 1e-12, "device, Chebyshev, CG", unequal_mpi_box(), "octant");
  compare_with_serial_adaptive_solver(parameters, 3, 1e-12, "device, Chebyshev, CG", family_cutting_mpi_row(), "octant");
  parameters.smoother = SmootherType::patch;
  parameters.outer    = OuterIteration::stationary;
  compare_with_serial_adaptive_solver(parameters, 3, 1e-12, "device, patch, stationary", unequal_mpi_box(), "ball");
  parameters.smoother = SmootherType::jacobi;
  parameters.outer    = OuterIteration::cg;
  compare_with_serial_adaptive_solver(parameters, 2, 1e-12, "device, Jacobi, CG", family_cutting_mpi_row(), "ball");
}

TEST(DistributedDeviceTransfer, EqualsTheSerialDeviceTransferOnEveryLevel)
{
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  using DV                 = DistributedCellVector<double, CellContiguous, MemorySpace::CUDA>;
  const MPI_Comm       comm = MPI_COMM_WORLD;
  const int            rank = mpi_rank(comm), size = mpi_size(comm);
  const LevelHierarchy h     = make_box_hierarchy(family_cutting_mpi_row(), 2);
  const auto           owner = morton_partition(h, size);
  std::vector<LocalLevel> local;
  for (unsigned int l = 0; l < h.n_levels(); ++l)
    local.push_back(make_local_level(h.level(l), owner[l], rank, GhostLayer::faces, family_ghosts(h, owner, l, rank)));
  for (const unsigned int degree : {2u, 3u})
    {
      std::vector<std::shared_ptr<const DistributedLevel>> levels;
      for (unsigned int l = 0; l < h.n_levels(); ++l)
        levels.push_back(std::make_shared<const DistributedLevel>(local[l], comm, h.level(l).n_cells(), lagrange_trace_layers(degree)));
      const cuda::DistributedLevelTransfer<double> distributed(ReplicatedHierarchy(h, owner, size), local, comm, degree);
      const cuda::CellTransfer<double>             serial(h, degree);
      // a distributed device vector of level l from a serial one, ghosts NaN
      const auto part = [&](const unsigned int l, const CellVector<double> &v) {
        DistributedCellVector<double> host(levels[l], degree);
        host.local() = local_part(local[l], v);
        DV device;
        device.copy_from_host(host);
        return device;
      };
      for (unsigned int l = 1; l < h.n_levels(); ++l)
        {
          CellVector<double> coarse(h.level(l - 1).n_cells(), degree), fine(h.level(l).n_cells(), degree),
            fine_au(h.level(l).n_cells(), degree);
          fill_random(coarse, 31 + l);
          fill_random(fine, 32 + l);
          fill_random(fine_au, 33 + l);

          auto serial_fine = to_device(fine);
          serial.prolongate_add(l, serial_fine, to_device(coarse));
          DV distributed_fine = part(l, fine);
          distributed.prolongate_add(l, distributed_fine, part(l - 1, coarse));
          EXPECT_EQ(owned_mismatches(local[l], to_host(distributed_fine.local()), to_host(serial_fine)), 0u)
            << "prolongation to level " << l << ", Q" << degree << ", rank " << rank << " of " << size;

          auto serial_coarse = to_device(coarse);
          serial.restrict_residual_add(l, serial_coarse, to_device(fine), to_device(fine_au));
          DV distributed_coarse = part(l - 1, coarse);
          distributed.restrict_residual_add(l, distributed_coarse, part(l, fine), part(l, fine_au));
          EXPECT_EQ(owned_mismatches(local[l - 1], to_host(distributed_coarse.local()), to_host(serial_coarse)), 0u)
            << "restriction from level " << l << ", Q" << degree << ", rank " << rank << " of " << size;
        }
    }
  const cuda::DistributedLevelTransfer<double> transfer_for_counts(ReplicatedHierarchy(h, owner, size), local, comm, 3);
  // local levels without their families are refused on every rank: on 2
  // or more ranks, the last rank owns only the slot-7 child of the first
  // cell of the level below the finest (a partition of our own): with
  // face ghosts alone its parent and its corner sibling are not local
  if (size > 1)
    {
      std::vector<std::vector<int>> lopsided(h.n_levels());
      for (unsigned int l = 0; l < h.n_levels(); ++l)
        lopsided[l].assign(h.level(l).n_cells(), 0);
      const unsigned int L = h.n_levels() - 1;
      lopsided[L][h.level(L - 1).children[0][7]] = size - 1;
      std::vector<LocalLevel> plain, whole;
      for (unsigned int l = 0; l < h.n_levels(); ++l)
        {
          plain.push_back(make_local_level(h.level(l), lopsided[l], rank));
          whole.push_back(make_local_level(h.level(l), lopsided[l], rank, GhostLayer::faces, family_ghosts(h, lopsided, l, rank)));
        }
      const ReplicatedHierarchy partitioned(h, lopsided, size);
      EXPECT_THROW(cuda::DistributedLevelTransfer<double>(partitioned, plain, comm, 2), Error);
      EXPECT_NO_THROW(cuda::DistributedLevelTransfer<double>(partitioned, whole, comm, 2));
    }
  // cells travelled in both directions somewhere
  std::size_t mine = 0, all = 0;
  for (unsigned int l = 1; l < h.n_levels(); ++l)
    mine += transfer_for_counts.cells_sent_per_prolongation(l) + transfer_for_counts.cells_sent_per_restriction(l);
  CELLWISE_MPI_CHECK(MPI_Allreduce(&mine, &all, 1, MPI_UNSIGNED_LONG, MPI_SUM, comm));
  EXPECT_EQ(all > 0, size > 1) << "the row's partitions cut families on 2 to 4 ranks: the exchange is tested";
  if (rank == 0)
    std::cout << "  " << size << " ranks: " << all << " cells travel per pair of transfers over all levels" << std::endl;
}

TEST(DistributedDeviceDss, AStagingVariableOtherThan0Or1IsAnError)
{
  // read alike on every rank (the environment of mpirun): no GPU needed
  setenv("CELLWISE_MPI_STAGING", "yes", 1);
  EXPECT_THROW(mpi_cuda_aware(), Error);
  setenv("CELLWISE_MPI_STAGING", "1", 1);
  EXPECT_FALSE(mpi_cuda_aware());
  setenv("CELLWISE_MPI_STAGING", "0", 1);
  EXPECT_NO_THROW(mpi_cuda_aware());
  unsetenv("CELLWISE_MPI_STAGING");
}
