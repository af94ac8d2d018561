#include "device_solve.h"

#include <cellwise/base/cuda_check.h>
#include <cellwise/cuda/multigrid_solver.h>

#include <chrono>

struct DeviceSolve::Data
{
  cellwise::cuda::MultigridSolver<cellwise::CellContiguous> solver;
};

std::string
device_unavailable_reason()
{
  if (cellwise::cuda::device_available())
    return {};
  return "--backend cuda needs a CUDA device: " + cellwise::cuda::device_description();
}

std::string
device_line()
{
  return "device: " + cellwise::cuda::device_description();
}

DeviceSolve::DeviceSolve(const cellwise::LevelHierarchy      &hierarchy,
                         const unsigned int                   degree,
                         const cellwise::MultigridParameters &parameters,
                         std::ostream                        *log)
  : data_(new Data{cellwise::cuda::MultigridSolver<cellwise::CellContiguous>(hierarchy, degree, parameters, log)})
{}

DeviceSolve::~DeviceSolve() = default;

cellwise::SolveStatistics
DeviceSolve::solve(cellwise::CellVector<double>       &u,
                   const cellwise::CellVector<double> &b,
                   cellwise::IterationControl         &control,
                   double                             &solve_seconds) const
{
  using DeviceVector = cellwise::CellVector<double, cellwise::MemorySpace::CUDA, cellwise::CellContiguous>;
  DeviceVector device_u, device_b;
  device_b.copy_from_host(b);
  device_u.copy_from_host(u);
  // the solve alone: all uploads done before, the last kernel finished after
  CELLWISE_CUDA_CHECK(cudaDeviceSynchronize());
  const auto                      start      = std::chrono::steady_clock::now();
  const cellwise::SolveStatistics statistics = data_->solver.solve(device_u, device_b, control);
  CELLWISE_CUDA_CHECK(cudaDeviceSynchronize());
  solve_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  device_u.copy_to_host(u);
  return statistics;
}
