#pragma once
/**
 * @file
 * An estimate of the memory of a uniform multigrid solve (the level
 * hierarchy, the solver with its level vectors, smoothers and coarse solve,
 * the right-hand side and the solution) from the size of the finest level,
 * before anything is allocated, so that a problem that cannot fit is refused
 * with a clear message instead of being killed by the operating system or
 * running out of device memory deep in its set-up.
 *
 * The figures for boxes are measured, not derived. Host: peak resident
 * memory of cellwise-poisson on the unit cube at Q3, L = 6 (2^18 cells,
 * 2026-12-05, 2-core development machine), in bytes per stored value of the
 * finest level (coarser levels included), the largest over the smoothers:
 * 105.5 in FP64 (Chebyshev CG), 81.9 in mixed precision with CG (Chebyshev;
 * 69.4 with the patch smoother), 65.9 with the mixed stationary iteration
 * (Chebyshev; 53.4 with the patch smoother). The estimate takes 112, 92 and
 * 70 bytes, plus about 160 bytes per cell of mesh tables. (Until 2026-12-05
 * it took 58 for every mixed solve, the mixed stationary patch solve's
 * figure: a mixed CG solve 40 % larger than that was let through.)
 *
 * The device figures are the peak of cellwise-poisson --backend cuda
 * (HostVectorSolver::memory_use(), printed by the program as "device memory") on
 * the H200, 2026-12-01, Q2 and Q3, L = 5–8: per FP64 value of the finest
 * level 105–118 bytes in FP64 (Jacobi, Chebyshev; 140 at Q2 L = 5, where
 * fixed costs show), 98 in mixed precision with CG (the FP64 CG vectors
 * dominate), 61 with the mixed stationary patch solve. The estimate takes
 * 120, 104 and 64 bytes, plus the 160 bytes per cell of the host figures.
 *
 * A mapped hierarchy (curved or deformed cells: Level::mapping), and a
 * coefficient at the quadrature points, add what the geometry takes, derived
 * from what the code stores (host_geometry_bytes and device_geometry_bytes
 * in the source say how) and checked against the host's measured peaks on
 * the ball (mapping degree 3, Q3: 191 and 190 bytes per value in FP64 and
 * mixed at L = 5, estimate 194 and 195) and the Kershaw box (147 and 138 at
 * L = 4, estimate 170 and 171).
 */

#include <cellwise/multigrid/multigrid_parameters.h>

#include <cstddef>

namespace cellwise
{
  /// Estimated peak host bytes of a uniform solve whose finest level has
  /// @p finest_cells cells of FE_Q(@p degree), with the precision and outer
  /// iteration of @p parameters, its levels mapped with degree
  /// @p mapping_degree (0: boxes, no mapping).
  double
  estimate_host_solve_bytes(double finest_cells, unsigned int degree, const MultigridParameters &parameters,
                            unsigned int mapping_degree = 0);

  /// Estimated peak device bytes of the CUDA backend's uniform solve (the
  /// solver's levels and tables, and the vectors of the solve) whose finest
  /// level has @p finest_cells cells of FE_Q(@p degree), with the precision
  /// and outer iteration of @p parameters, its levels mapped with degree
  /// @p mapping_degree (0: boxes).
  double
  estimate_device_solve_bytes(double finest_cells, unsigned int degree, const MultigridParameters &parameters,
                              unsigned int mapping_degree = 0);
} // namespace cellwise
