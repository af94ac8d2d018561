// DistributedMultigridSolver on the device (multigrid/mpi_distributed_multigrid_solver.h,
// Backend::cuda): each rank takes a GPU of its node (in turn: one per rank
// where there are as many, shared otherwise), holds its part of every level
// in device memory, and runs the cycle of mpi_distributed_cycle.h on
// device vectors; the outer iteration is the serial solvers' solve_outer.
// Built into cellwise::mpi only with the CUDA backend.

#include <cellwise/base/cuda_check.h>
#include <cellwise/multigrid/mixed_precision.h>
#include <cellwise/multigrid/outer_solvers.h>
#include <cellwise/storage/mpi_cuda_distributed_dirichlet_mask.h>

#include <cuda_runtime_api.h>

#include <chrono>
#include <string>

#include "mpi_distributed_cycle.h"

namespace cellwise
{
  struct DistributedMultigridSolver::DeviceSolve
  {
    using Vector = DistributedCellVector<double, CellContiguous, MemorySpace::CUDA>;
    int                                                                                   device = 0;
    std::shared_ptr<const DistributedLaplaceOperator<double, CellContiguous, MemorySpace::CUDA>> fine_operator;
    Vector                                                                                fine_mask;
    std::shared_ptr<const Preconditioner<Vector>>                                         cycle;
    /// the outer iteration's work vectors, kept between solves
    OuterWorkVectors<Vector> work;
  };

  namespace
  {
    /// This rank's GPU: the ranks of a node take its GPUs in turn.
    /// Collective: a rank without a device is an error on every rank.
    int
    choose_device(const MPI_Comm comm)
    {
      MPI_Comm node;
      CELLWISE_MPI_CHECK(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
      const int node_rank = mpi_rank(node);
      CELLWISE_MPI_CHECK(MPI_Comm_free(&node));
      int               count = 0;
      const cudaError_t error = cudaGetDeviceCount(&count);
      check_collectively(comm, error == cudaSuccess && count > 0,
                         "the CUDA backend across ranks: rank " + std::to_string(mpi_rank(comm)) +
                           " finds no CUDA device (" + cuda::device_description() + ")");
      const int device = node_rank % count;
      CELLWISE_CUDA_CHECK(cudaSetDevice(device));
      return device;
    }
  } // namespace

  void
  DistributedMultigridSolver::set_up_device(std::ostream *log)
  {
    auto device    = std::make_shared<DeviceSolve>();
    device->device = choose_device(comm_);
    int count = 0, sharing = 0;
    CELLWISE_CUDA_CHECK(cudaGetDeviceCount(&count));
    // how many ranks share the most used GPU of the node of rank 0
    const int on_device0 = device->device == 0 ? 1 : 0;
    CELLWISE_MPI_CHECK(MPI_Allreduce(&on_device0, &sharing, 1, MPI_INT, MPI_SUM, comm_));
    if (log)
      *log << "  device solve: " << cuda::device_description() << "; " << count << " GPU(s) per node, " << sharing
           << " rank(s) on GPU 0; MPI " << (mpi_cuda_aware() ? "CUDA-aware (device buffers)" : "staged through pinned host buffers")
           << std::endl;
    // stages timed up to a device synchronization
    const auto synchronize = [] { CELLWISE_CUDA_CHECK(cudaDeviceSynchronize()); };
    setup_stages_.measure("outer mask and operator (device)", [&] {
      device->fine_mask = make_device_distributed_dirichlet_mask<double>(outer_level_, degree_, parameters_.dirichlet_ids);
      run_collectively(comm_, [&] {
        device->fine_operator = std::make_shared<const DistributedLaplaceOperator<double, CellContiguous, MemorySpace::CUDA>>(
          outer_level_, degree_, parameters_.coefficient, parameters_.coefficient_evaluation);
      });
    }, synchronize);
    if (parameters_.precision == Precision::fp64)
      device->cycle = make_cycle<double, MemorySpace::CUDA>(log, active_mesh_ ? nullptr : device->fine_operator,
                                                            device->fine_mask, synchronize);
    else
      device->cycle = std::make_shared<
        const MixedPrecisionPreconditioner<DeviceSolve::Vector, DistributedCellVector<float, CellContiguous, MemorySpace::CUDA>>>(
        make_cycle<float, MemorySpace::CUDA>(log, device->fine_operator, device->fine_mask, synchronize),
        DistributedCellVector<float, CellContiguous, MemorySpace::CUDA>(outer_level_, degree_));
    device_ = std::move(device);
  }

  SolveStatistics
  DistributedMultigridSolver::solve_on_device(VectorType &u, const VectorType &b, const bool zero_guess, IterationControl &control) const
  {
    DeviceSolve::Vector device_u, device_b;
    device_b.copy_from_host(b);
    if (zero_guess)
      device_u.reinit(device_b);
    else
      device_u.copy_from_host(u);
    CELLWISE_CUDA_CHECK(cudaDeviceSynchronize());
    CELLWISE_MPI_CHECK(MPI_Barrier(comm_));
    const auto   start    = std::chrono::steady_clock::now();
    const double exchange = exchange_seconds();
    const auto   mean_dss = [this](DeviceSolve::Vector &r) { outer_level_->dss.apply(r.local(), DssMode::mean); };
    const SolveStatistics statistics =
      solve_outer(parameters_, *device_->fine_operator, device_->fine_operator->n_cells(), degree_, *device_->cycle, device_u,
                  device_b, device_->fine_mask, control, mean_dss, &device_->work);
    CELLWISE_CUDA_CHECK(cudaDeviceSynchronize());
    last_solve_seconds_    = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    last_exchange_seconds_ = exchange_seconds() - exchange;
    device_u.copy_to_host(u);
    return statistics;
  }

  void
  DistributedMultigridSolver::precondition_on_device(VectorType &z, const VectorType &r) const
  {
    DeviceSolve::Vector device_z, device_r;
    device_r.copy_from_host(r);
    device_z.reinit(device_r);
    device_->cycle->vmult(device_z, device_r);
    device_z.copy_to_host(z);
  }
} // namespace cellwise
