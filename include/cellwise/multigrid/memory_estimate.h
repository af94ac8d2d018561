#pragma once
/**
 * @file
 * An estimate of the host memory of a uniform multigrid solve (the level
 * hierarchy, the solver with its level vectors, smoothers and coarse solve,
 * the right-hand side and the solution) from the size of the finest level,
 * before anything is allocated, so that a problem that cannot fit is refused
 * with a clear message instead of being killed by the operating system.
 *
 * The figures are measured, not derived: peak resident memory of
 * cellwise-poisson on uniform meshes of 2^18 cells (2026-12-01, 2-core
 * development machine) was 102–110 bytes per stored FP64 value of the finest
 * level in FP64 (Q2, Q3, Q5; Chebyshev and Jacobi; coarser levels included)
 * and 54 bytes per value with the mixed-precision patch solve, plus about 150
 * bytes per cell of mesh tables. The estimate takes the upper ends.
 *
 * The device figures are the peak of cellwise-poisson --backend cuda
 * (HostVectorSolver::memory_use(), printed by the program as "device memory") on
 * the H200, 2026-12-01, Q2 and Q3, L = 5–8: per FP64 value of the finest
 * level 105–118 bytes in FP64 (Jacobi, Chebyshev; 140 at Q2 L = 5, where
 * fixed costs show), 98 in mixed precision with CG (the FP64 CG vectors
 * dominate), 61 with the mixed stationary patch solve. The estimate takes
 * 120, 104 and 64 bytes, plus the 160 bytes per cell of the host figures.
 */

#include <cellwise/multigrid/multigrid_solver.h>

#include <cstddef>

namespace cellwise
{
  /// Estimated peak host bytes of a uniform solve whose finest level has
  /// @p finest_cells cells of FE_Q(@p degree) in @p precision.
  double
  estimate_host_solve_bytes(double finest_cells, unsigned int degree, Precision precision);

  /// Estimated peak device bytes of the CUDA backend's uniform solve (the
  /// solver's levels and tables, and the vectors of the solve) whose finest
  /// level has @p finest_cells cells of FE_Q(@p degree), with the precision
  /// and outer iteration of @p parameters.
  double
  estimate_device_solve_bytes(double finest_cells, unsigned int degree, const MultigridParameters &parameters);
} // namespace cellwise
