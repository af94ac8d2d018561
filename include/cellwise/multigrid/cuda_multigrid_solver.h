#pragma once
/**
 * @file
 * The cell-wise geometric multigrid solver of the CUDA backend: the device
 * twin of cellwise::MultigridSolver (multigrid/multigrid_solver.h) with the
 * same MultigridParameters, the same cycle (directions, smoothing steps) and
 * the same Dirichlet masks (built on the host by make_dirichlet_mask and
 * uploaded), FP64 or the FP32 hierarchy inside the FP64 outer iteration with
 * rebalancing by the device DSS. Layout is that of the FP64 vectors; the FP32
 * levels are always cell-contiguous (the register patch kernel's layout), and
 * the two conversions per cycle change the layout in the same pass, so that
 * the FP64 residual and rebalancing can run in the blocked layout (DSS 0.88
 * of a device copy there, 0.33 cell-contiguous). The whole solve runs on the device; the host
 * sees only the scalars of the inner products (and the tiny coarse level of
 * the Cholesky coarse solve). A variable coefficient (averaged per cell, as
 * on the host) scales each cell's metric factors; with the vertex-patch
 * smoother it is refused (the patch kernels assume one coefficient per level).
 *
 * Compiles with a plain C++ compiler (implemented in
 * source/multigrid/cuda_multigrid_solver.cu for CellContiguous and CellBlocked<32>).
 */

#include <cellwise/operators/cuda_laplace_operator.h>
#include <cellwise/storage/cuda_level_data.h>
#include <cellwise/mesh/level.h>
#include <cellwise/multigrid/multigrid_solver.h>
#include <cellwise/multigrid/outer_solvers.h>
#include <cellwise/multigrid/timed_components.h>
#include <cellwise/multigrid/v_cycle.h>
#include <cellwise/storage/cuda_cell_vector.h>

#include <iosfwd>
#include <memory>
#include <vector>

namespace cellwise
{
  namespace cuda
  {
    template <typename Layout = CellContiguous>
    class MultigridSolver
    {
    public:
      using VectorType = CellVector<double, MemorySpace::CUDA, Layout>;

      /// Set up on all levels of @p hierarchy (kept by reference); progress
      /// goes to @p log if given. With a @p timer (kept by reference), every
      /// component call of the solves reports its begin and end to it (000
      /// Table 11), as the parts "<smoother> smoother" (all levels but 0),
      /// "coarse solve", "transfers", "level operators" (the cycle's A u),
      /// "cycle: zero fills, vector operations" (the V-cycle's own work),
      /// "FP64/FP32 conversions" (mixed precision), "FP64 operator" (the outer
      /// iteration's residual) and "rebalancing (mean DSS)". In the
      /// stationary iteration the monitor pairing ⟨r, V r⟩ is timed with the
      /// cycle's outermost part (in mixed precision "FP64/FP32 conversions":
      /// the rounding of r and the FP32 pairing), and u += V r as "correction
      /// update (widened)" (mixed precision) or "correction update" (FP64);
      /// an update followed by the next residual is one part, that name with
      /// " and the next residual" (in mixed precision one fused pass; the
      /// "FP64 operator" then forms the first residual only).
      MultigridSolver(const LevelHierarchy      &hierarchy,
                      unsigned int               degree,
                      const MultigridParameters &parameters,
                      std::ostream              *log   = nullptr,
                      ComponentTimer            *timer = nullptr);
      /// The hierarchy is kept by reference: a temporary would dangle.
      MultigridSolver(const LevelHierarchy &&hierarchy, unsigned int degree, const MultigridParameters &parameters,
                      std::ostream *log = nullptr, ComponentTimer *timer = nullptr) = delete;

      /// Solve A u = b on the finest level from the given u (device vectors);
      /// b is the dual load vector. Dirichlet entries of u must hold the
      /// boundary values (zero for homogeneous conditions) and are not changed.
      SolveStatistics
      solve(VectorType &u, const VectorType &b, IterationControl &control) const;

      ~MultigridSolver();
      /// Not copied or moved: the fine operator keeps the address of the
      /// Dirichlet mask (LaplaceOperator::use_dirichlet_mask).
      MultigridSolver(const MultigridSolver &) = delete;
      MultigridSolver &
      operator=(const MultigridSolver &) = delete;

      const LaplaceOperator<double, Layout> &
      fine_operator() const
      {
        return *fine_operator_;
      }
      /// The cycle as the FP64 outer iteration sees it.
      const Preconditioner<VectorType> &
      preconditioner() const
      {
        return *preconditioner_;
      }
      /// Dirichlet mask of the finest level.
      const VectorType &
      dirichlet_mask() const
      {
        return mask_;
      }
      const MultigridParameters &
      parameters() const
      {
        return parameters_;
      }
      unsigned int
      degree() const
      {
        return degree_;
      }

    private:
      /// Serializes the solves of threads that share this object (base/work_space_lock.h).
      WorkSpaceLock work_space_lock_;
      const LevelHierarchy                                         &hierarchy_;
      unsigned int                                                  degree_;
      MultigridParameters                                           parameters_;
      std::unique_ptr<LevelData>                                    fine_level_data_;
      VectorType                                                    mask_;
      /// The outer iteration's work vectors, kept between solves (no
      /// allocation and zero fill of FP64 vectors per solve).
      mutable OuterWorkVectors<VectorType>                          work_;
      std::shared_ptr<LaplaceOperator<double, Layout>>              fine_operator_;
      /// The fine operator as the outer iteration calls it (timed or not).
      std::shared_ptr<const LevelOperator<VectorType>>              outer_operator_;
      ComponentTimer                                               *timer_;
      std::shared_ptr<const Preconditioner<VectorType>>             preconditioner_;
    };
  } // namespace cuda
} // namespace cellwise
