#pragma once
/**
 * @file
 * The cell-wise multigrid solver on a locally refined hierarchy, CUDA
 * backend: the device twin of cellwise::AdaptiveMultigridSolver
 * (multigrid/adaptive_multigrid_solver.h) with the same MultigridParameters,
 * the same components per level and the same cycle (the shared
 * LocalSmoothingVCycle of multigrid/adaptive_v_cycle.h, instantiated for
 * device vectors), FP64, CG or the stationary iteration through the shared
 * solve_outer. See doc/adaptive.md, "The CUDA backend".
 *
 * Runs on the device: the active-mesh operator A_act, the level operators,
 * the masked Jacobi/Chebyshev smoothers or the vertex-patch smoother (generic
 * kernel), the transfers, the distribution (17) and reassembly (18)
 * (multigrid/cuda_active_mesh_transfer.h), the outer iteration. On the host: set-up
 * (active mesh, refinement-edge and Dirichlet masks, patch lists, built by the
 * host functions and uploaded) and the tiny Cholesky coarse solve of level 0.
 *
 * Refused with a clear error: mixed precision, a variable coefficient with
 * the vertex-patch smoother.
 *
 * Compiles with a plain C++ compiler (implemented in
 * source/multigrid/cuda_adaptive_multigrid_solver.cu for CellContiguous and
 * CellBlocked<32>).
 */

#include <cellwise/operators/cuda_laplace_operator.h>
#include <cellwise/mesh/level.h>
#include <cellwise/multigrid/adaptive_v_cycle.h>
#include <cellwise/multigrid/multigrid_solver.h>
#include <cellwise/multigrid/outer_solvers.h>
#include <cellwise/storage/cuda_cell_vector.h>

#include <iosfwd>
#include <memory>
#include <vector>

namespace cellwise
{
  namespace cuda
  {
    template <typename Layout = CellContiguous>
    class AdaptiveMultigridSolver
    {
    public:
      using VectorType     = CellVector<double, MemorySpace::CUDA, Layout>;
      using HostVectorType = CellVector<double, MemorySpace::Host, Layout>;

      /// Set up on @p hierarchy (kept by reference). Supported: smoother
      /// jacobi, chebyshev or patch, precision fp64, outer cg or stationary,
      /// either coarse solver; others throw cellwise::Error.
      AdaptiveMultigridSolver(const LevelHierarchy      &hierarchy,
                              unsigned int               degree,
                              const MultigridParameters &parameters,
                              std::ostream              *log = nullptr);
      /// The hierarchy is kept by reference: a temporary would dangle.
      AdaptiveMultigridSolver(const LevelHierarchy &&hierarchy, unsigned int degree, const MultigridParameters &parameters,
                              std::ostream *log = nullptr) = delete;
      /// Not copyable: the cycle refers to the active mesh held here.
      AdaptiveMultigridSolver(const AdaptiveMultigridSolver &) = delete;
      AdaptiveMultigridSolver &
      operator=(const AdaptiveMultigridSolver &) = delete;
      ~AdaptiveMultigridSolver();

      /// Solve A_act u = b on the active mesh from the given u (device
      /// vectors; u an active primal, e.g. zero; b an active dual). Dirichlet
      /// entries of u are not changed.
      SolveStatistics
      solve(VectorType &u, const VectorType &b, IterationControl &control) const;

      const ActiveMesh &
      active_mesh() const
      {
        return mesh_;
      }
      unsigned int
      n_active_cells() const
      {
        return mesh_.n_active_cells();
      }
      /// A_act on the device.
      const LaplaceOperator<double, Layout> &
      active_operator() const
      {
        return *active_operator_;
      }
      /// The adaptive V-cycle on active device vectors.
      const LocalSmoothingVCycle<VectorType> &
      preconditioner() const
      {
        return *cycle_;
      }
      /// Dirichlet mask of the active cells (1 free, 0 on Dirichlet copies).
      const VectorType &
      dirichlet_mask() const
      {
        return active_mask_;
      }
      unsigned int
      degree() const
      {
        return degree_;
      }
      const MultigridParameters &
      parameters() const
      {
        return parameters_;
      }

    private:
      /// Serializes the solves of threads that share this object (base/work_space_lock.h).
      WorkSpaceLock work_space_lock_;
      const LevelHierarchy                              &hierarchy_;
      unsigned int                                       degree_;
      MultigridParameters                                parameters_;
      ActiveMesh                                         mesh_;
      std::shared_ptr<LaplaceOperator<double, Layout>>   active_operator_;
      VectorType                                         active_mask_;
      /// The outer iteration's work vectors, kept between solves.
      mutable OuterWorkVectors<VectorType>               work_;
      std::shared_ptr<LocalSmoothingVCycle<VectorType>>  cycle_;
    };
  } // namespace cuda
} // namespace cellwise
