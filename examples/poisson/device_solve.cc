#include "device_solve.h"

#include <cellwise/base/cuda_check.h>
#include <cellwise/multigrid/cuda_adaptive_multigrid_solver.h>
#include <cellwise/multigrid/cuda_multigrid_solver.h>

#include <algorithm>
#include <chrono>
#include <string>

// The uniform solver keeps its FP64 vectors blocked by 32 cells (the layout
// in which the operator and the DSS stream at 0.83-0.91 of a device copy; the
// FP32 levels of the mixed-precision cycle are cell-contiguous either way).
using UniformSolver = cellwise::cuda::MultigridSolver<cellwise::CellBlocked<32>>;

struct DeviceSolve::Data
{
  DeviceMemoryUse memory;
  UniformSolver   solver;
};

std::size_t
device_free_bytes()
{
  return cellwise::cuda::free_device_memory();
}

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
{
  DeviceMemoryUse memory;
  memory.free_before = device_free_bytes();
  data_.reset(new Data{memory, UniformSolver(hierarchy, degree, parameters, log)});
  data_->memory.setup = data_->memory.free_before - std::min(data_->memory.free_before, device_free_bytes());
}

const DeviceMemoryUse &
DeviceSolve::memory_use() const
{
  return data_->memory;
}

DeviceSolve::~DeviceSolve() = default;

namespace
{
  /// Forwards to the user's control and samples the free device memory at
  /// steps 0 and 1, when the solve's vectors are all allocated (two queries
  /// per solve, so the timing stays that of the solve).
  class SamplingControl : public cellwise::IterationControl
  {
  public:
    SamplingControl(cellwise::IterationControl &control, std::size_t &min_free)
      : control_(control)
      , min_free_(min_free)
    {}
    State
    check(const unsigned int step, const double value) override
    {
      if (step < 2)
        min_free_ = std::min(min_free_, device_free_bytes());
      return control_.check(step, value);
    }
    std::string
    failure_reason() const override
    {
      return control_.failure_reason();
    }

  private:
    cellwise::IterationControl &control_;
    std::size_t                &min_free_;
  };

  /// Upload b and u, solve between two device synchronizations, download u.
  template <typename Solver>
  cellwise::SolveStatistics
  timed_device_solve(const Solver                       &solver,
                     cellwise::CellVector<double>       &u,
                     const cellwise::CellVector<double> &b,
                     cellwise::IterationControl         &control,
                     double                             &solve_seconds,
                     DeviceMemoryUse                    *memory)
  {
    // host vectors are cell-contiguous: staged in that layout on the device,
    // then turned into the solver's layout there
    using Staged       = cellwise::CellVector<double, cellwise::MemorySpace::CUDA, cellwise::CellContiguous>;
    using DeviceVector = typename Solver::VectorType;
    Staged       staged;
    DeviceVector device_u, device_b;
    staged.copy_from_host(b);
    device_b.copy_from(staged);
    staged.copy_from_host(u);
    device_u.copy_from(staged);
    // the solve alone: all uploads done before, the last kernel finished after
    CELLWISE_CUDA_CHECK(cudaDeviceSynchronize());
    std::size_t                     min_free = device_free_bytes();
    SamplingControl                 sampling(control, min_free);
    const auto                      start      = std::chrono::steady_clock::now();
    const cellwise::SolveStatistics statistics = solver.solve(device_u, device_b, sampling);
    CELLWISE_CUDA_CHECK(cudaDeviceSynchronize());
    solve_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    staged.copy_from(device_u);
    staged.copy_to_host(u);
    if (memory != nullptr)
      memory->peak = memory->free_before - std::min(memory->free_before, min_free);
    return statistics;
  }
} // namespace

cellwise::SolveStatistics
DeviceSolve::solve(cellwise::CellVector<double>       &u,
                   const cellwise::CellVector<double> &b,
                   cellwise::IterationControl         &control,
                   double                             &solve_seconds) const
{
  return timed_device_solve(data_->solver, u, b, control, solve_seconds, &data_->memory);
}

struct AdaptiveDeviceSolve::Data
{
  explicit Data(const cellwise::LevelHierarchy      &hierarchy,
                const unsigned int                   degree,
                const cellwise::MultigridParameters &parameters,
                std::ostream                        *log)
    : solver(hierarchy, degree, parameters, log)
  {}
  cellwise::cuda::AdaptiveMultigridSolver<cellwise::CellContiguous> solver;
};

AdaptiveDeviceSolve::AdaptiveDeviceSolve(const cellwise::LevelHierarchy      &hierarchy,
                                         const unsigned int                   degree,
                                         const cellwise::MultigridParameters &parameters,
                                         std::ostream                        *log)
  : data_(std::make_unique<Data>(hierarchy, degree, parameters, log))
{}

AdaptiveDeviceSolve::~AdaptiveDeviceSolve() = default;

const cellwise::ActiveMesh &
AdaptiveDeviceSolve::active_mesh() const
{
  return data_->solver.active_mesh();
}

cellwise::SolveStatistics
AdaptiveDeviceSolve::solve(cellwise::CellVector<double>       &u,
                           const cellwise::CellVector<double> &b,
                           cellwise::IterationControl         &control,
                           double                             &solve_seconds) const
{
  return timed_device_solve(data_->solver, u, b, control, solve_seconds, nullptr);
}
