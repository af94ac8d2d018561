// The distributed device components with 1, 2, 4 ranks sharing one GPU:
// time of the fine level's DSS across ranks and of one Chebyshev smooth
// (degree 5: five DSS and five fused steps), and of the whole device solve
// (DistributedMultigridSolver, Chebyshev CG to 1e-10: per iteration, one
// V-cycle and one operator), the exchange's share of each
// (ExchangeTimer: packing, copies to and from pinned host buffers or
// CUDA-aware messages, waiting, unpacking), and what a rank sends. Ranks
// sharing a device time-slice it, so the kernel time grows with the ranks
// while the work per rank shrinks: the table shows what the exchange adds,
// not a scaling. A table, not pass/fail.
//
//   mpirun -n R cellwise-benchmark-mpi-smoothing [L=6] [degree=3] [runs=20]

#include <cellwise/base/cuda_check.h>
#include <cellwise/base/mpi_check.h>
#include <cellwise/mesh/box_builder.h>
#include <cellwise/mesh/partition.h>
#include <cellwise/multigrid/solver_control.h>
#include <cellwise/multigrid/mpi_distributed_multigrid_solver.h>
#include <cellwise/multigrid/mpi_distributed_point_smoothers.h>
#include <cellwise/operators/mpi_distributed_laplace_operator.h>
#include <cellwise/storage/mpi_distributed_cell_vector.h>
#include <cellwise/storage/mpi_distributed_dirichlet_mask.h>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

using namespace cellwise;

namespace
{
  /// Median over @p runs of the slowest rank's wall time of @p f (all ranks
  /// start together), and the slowest rank's exchange seconds per call.
  template <typename F>
  std::pair<double, double>
  wall_time(const F &f, const int runs)
  {
    f(); // warm-up: buffers, first messages
    CELLWISE_CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<double> times;
    double              exchange = 0;
    for (int r = 0; r < runs; ++r)
      {
        CELLWISE_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
        const double start = MPI_Wtime(), exchange_start = exchange_seconds();
        f();
        CELLWISE_CUDA_CHECK(cudaDeviceSynchronize());
        double mine[2] = {MPI_Wtime() - start, exchange_seconds() - exchange_start}, slowest[2];
        CELLWISE_MPI_CHECK(MPI_Allreduce(mine, slowest, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
        times.push_back(slowest[0]);
        exchange += slowest[1];
      }
    std::sort(times.begin(), times.end());
    return {times[times.size() / 2], exchange / runs};
  }

  /// Same-run device copy bandwidth (read + written) of a 2 GiB
  /// cudaMemcpy on the device, rank 0 alone, median of 10.
  double
  copy_bandwidth()
  {
    const std::size_t bytes = std::size_t(1) << 31;
    void *in = cuda::allocate_bytes(bytes, "copy source"), *out = cuda::allocate_bytes(bytes, "copy target");
    std::vector<double> times;
    for (int r = 0; r < 13; ++r)
      {
        CELLWISE_CUDA_CHECK(cudaDeviceSynchronize());
        const double start = MPI_Wtime();
        CELLWISE_CUDA_CHECK(cudaMemcpy(out, in, bytes, cudaMemcpyDeviceToDevice));
        CELLWISE_CUDA_CHECK(cudaDeviceSynchronize());
        if (r >= 3)
          times.push_back(MPI_Wtime() - start);
      }
    cuda::free_bytes(in);
    cuda::free_bytes(out);
    std::sort(times.begin(), times.end());
    return 2. * double(bytes) / times[times.size() / 2];
  }
} // namespace

int
main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  std::setvbuf(stdout, nullptr, _IOLBF, 0); // a run stopped by a time limit keeps its rows
  const int          rank = mpi_rank(MPI_COMM_WORLD), size = mpi_size(MPI_COMM_WORLD);
  const unsigned int L      = argc > 1 ? std::atoi(argv[1]) : 6;
  const unsigned int degree = argc > 2 ? std::atoi(argv[2]) : 3;
  const int          runs   = argc > 3 ? std::atoi(argv[3]) : 20;
  try
    {
      if (!cuda::device_available())
        {
          if (rank == 0)
            std::printf("no CUDA device: %s\n", cuda::device_description().c_str());
          MPI_Finalize();
          return 0;
        }
      double copy = 0;
      if (rank == 0)
        copy = copy_bandwidth();
      CELLWISE_MPI_CHECK(MPI_Bcast(&copy, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD));

      const LevelHierarchy h     = make_box_hierarchy(BoxDescription{}, L);
      const auto           owner = morton_partition(h, size);
      const LocalLevel     local = make_local_level(h.levels.back(), owner.back(), rank);
      const auto           level = std::make_shared<const DistributedLevel>(local, MPI_COMM_WORLD, h.levels.back().n_cells(),
                                                                  lagrange_trace_layers(degree));
      using Vector = DistributedCellVector<double, CellContiguous, MemorySpace::CUDA>;
      Vector mask, u, b;
      mask.copy_from_host(make_distributed_dirichlet_mask<double>(level, degree));
      u.reinit(mask);
      b.reinit(mask);
      b.fill(1.);
      b.scale(mask);
      const DistributedLaplaceOperator<double, CellContiguous, MemorySpace::CUDA>           op(level, degree);
      const DistributedChebyshevSmoother<double, CellContiguous, MemorySpace::CUDA> smoother(local.level, op, mask,
                                                                                               ChebyshevParameters());
      const auto [dss, dss_exchange] = wall_time([&] { level->dss.apply(u.local()); }, runs);
      const auto [smooth, smooth_exchange] =
        wall_time([&] { smoother.smooth(u, b, true, SweepDirection::forward); }, runs);

      // bytes counted of one smooth: per step the fused step reads u, z, D^{-1}, b and writes u, r (6 vectors)
      // and the DSS moves the three face-layer pairs (about 3/2 of the vector each way, Q3)
      const double cells  = double(h.levels.back().n_cells());
      const double values = cells * (degree + 1) * (degree + 1) * (degree + 1);
      const double bytes  = 5. * (6. + 3.) * values * sizeof(double);
      const double sent   = double(level->dss.values_sent_per_apply()) * sizeof(double);
      double       most_sent = 0;
      CELLWISE_MPI_CHECK(MPI_Allreduce(&sent, &most_sent, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
      if (rank == 0)
        {
          std::printf("# %s\n# device copy (cudaMemcpy) %.3f TB/s (rank 0 alone); Q%u, L = %u, %.0f cells, %.3g DoF copies; MPI %s\n",
                      cuda::device_description().c_str(), copy * 1e-12, degree, L, cells, values,
                      mpi_cuda_aware() ? "CUDA-aware (device buffers)" : "staged through pinned host buffers");
          std::printf("| ranks | DSS [ms] | its exchange [ms] | sent per DSS, most [MB] | Chebyshev smooth [ms] | its exchange [ms] | "
                      "smooth GB/s (counted) | of copy |\n|---:|---:|---:|---:|---:|---:|---:|---:|\n");
          std::printf("| %d | %.3f | %.3f | %.2f | %.3f | %.3f | %.0f | %.2f |\n", size, 1e3 * dss, 1e3 * dss_exchange,
                      most_sent * 1e-6, 1e3 * smooth, 1e3 * smooth_exchange, bytes / smooth * 1e-9, bytes / smooth / copy);
        }

      // the whole device solve: Chebyshev CG to 1e-10, the second of two
      // solves (the first allocates the cycle's vectors)
      MultigridParameters parameters;
      parameters.backend = Backend::cuda;
      const DistributedMultigridSolver solver(h, degree, parameters, MPI_COMM_WORLD);
      auto                             rhs = solver.vector();
      rhs.fill(1.);
      rhs.scale(make_distributed_dirichlet_mask<double>(solver.outer_level(), degree));
      SolveStatistics statistics;
      for (int k = 0; k < 2; ++k)
        {
          DistributedMultigridSolver::VectorType solution;
          MonitorControl                         control(100, 1e-10);
          statistics = solver.solve(solution, rhs, control);
        }
      double mine[2] = {solver.last_solve_seconds(), solver.last_exchange_seconds()}, most[2];
      CELLWISE_MPI_CHECK(MPI_Allreduce(mine, most, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
      const double dofs = std::pow(double(degree) * std::pow(2., L) + 1., 3.); // the unit cube's DoFs, boundary included
      if (rank == 0)
        std::printf("| ranks | solve [s] | CG iterations | per iteration [ms] | exchange, most on a rank [s] | MDoF/s |\n"
                    "|---:|---:|---:|---:|---:|---:|\n| %d | %.4f | %u | %.3f | %.4f | %.0f |\n",
                    size, most[0], statistics.iterations(), 1e3 * most[0] / statistics.iterations(), most[1],
                    dofs / most[0] * 1e-6);
    }
  catch (const std::exception &e)
    {
      std::fprintf(stderr, "[rank %d] %s\n", rank, e.what());
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
  MPI_Finalize();
  return 0;
}
