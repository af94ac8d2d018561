#pragma once
// The --backend cuda path of cellwise-poisson: the device multigrid solvers
// (uniform: DeviceSolve; locally refined, --adaptive-steps: AdaptiveDeviceSolve)
// behind a host-vector interface, so that the program assembles b and
// evaluates the error on the host as for --backend host. Compiled only where
// the library has the CUDA backend (CELLWISE_WITH_CUDA).

#include <cellwise/mesh/level.h>
#include <cellwise/multigrid/adaptive_v_cycle.h>
#include <cellwise/multigrid/multigrid_solver.h>
#include <cellwise/storage/cell_vector.h>

#include <cstddef>
#include <iosfwd>
#include <memory>
#include <string>

/// Empty if the device can run the solve, otherwise one line saying why not.
std::string
device_unavailable_reason();

/// "device: <name, SMs, memory, ...>"
std::string
device_line();

/// Free bytes of the device's memory now.
std::size_t
device_free_bytes();

/// The device memory a solve used: allocated by the set-up (the solver's
/// constructor), and at its peak, the set-up and the vectors of the solve
/// (sampled at the first two checks of the iteration, when all are live).
struct DeviceMemoryUse
{
  std::size_t free_before = 0;
  std::size_t setup       = 0;
  std::size_t peak        = 0;
};

class DeviceSolve
{
public:
  DeviceSolve(const cellwise::LevelHierarchy &hierarchy, unsigned int degree, const cellwise::MultigridParameters &parameters, std::ostream *log);
  ~DeviceSolve();

  /// Upload b and u, solve on the device, download u. @p solve_seconds: the
  /// solve alone, between two device synchronizations (no transfers).
  cellwise::SolveStatistics
  solve(cellwise::CellVector<double> &u, const cellwise::CellVector<double> &b, cellwise::IterationControl &control, double &solve_seconds) const;

  /// What the set-up and the last solve used of the device memory.
  const DeviceMemoryUse &
  memory_use() const;

private:
  struct Data;
  std::unique_ptr<Data> data_;
};

/// The device solver on a locally refined hierarchy (local smoothing,
/// cellwise::cuda::AdaptiveMultigridSolver); vectors are active vectors in the
/// order of active_mesh().
class AdaptiveDeviceSolve
{
public:
  AdaptiveDeviceSolve(const cellwise::LevelHierarchy      &hierarchy,
                      unsigned int                         degree,
                      const cellwise::MultigridParameters &parameters,
                      std::ostream                        *log);
  ~AdaptiveDeviceSolve();

  const cellwise::ActiveMesh &
  active_mesh() const;

  /// As DeviceSolve::solve, on active vectors.
  cellwise::SolveStatistics
  solve(cellwise::CellVector<double> &u, const cellwise::CellVector<double> &b, cellwise::IterationControl &control, double &solve_seconds) const;

private:
  struct Data;
  std::unique_ptr<Data> data_;
};
