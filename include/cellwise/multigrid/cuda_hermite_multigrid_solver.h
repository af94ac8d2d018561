#pragma once
/**
 * @file
 * Geometric multigrid for the clamped biharmonic problem with the C¹ cubic
 * Hermite element on the device: the twin of cellwise::HermiteMultigridSolver
 * (multigrid/hermite_multigrid_solver.h, its oracle in the tests) with the
 * same HermiteMultigridParameters, level masks (make_hermite_free_mask, built
 * on the host and uploaded) and cycle: on a uniform hierarchy in FP64 or
 * (Precision::mixed, which the host solver does not have) with
 * the FP32 hierarchy inside the FP64 outer iteration, the residual
 * rebalanced over both trace layers as it is rounded, in one pass with
 * CG's residual update in the blocked layout (000 §4; cuda::add_rebalance_and_round,
 * storage/cuda_rebalanced_rounding.h; the findings for the h⁻⁴
 * conditioning in doc/hermite.md); on a locally
 * refined hierarchy in FP64 with local smoothing (the shared
 * LocalSmoothingVCycle, cuda::ActiveMeshTransfer; vectors on the active
 * cells in the order of make_active_mesh):
 *
 *  - operators: cuda::HermiteBiharmonicOperator per level;
 *  - smoothers: masked Chebyshev–Jacobi over the device DSS of both trace
 *    layers (cuda::DssJacobiPreconditioner on the Hermite operator, the
 *    shared PointChebyshevSmoother), eigenvalues estimated on the device;
 *    or the vertex-block patch smoother
 *    (cuda::HermiteVertexPatchSmoother, multigrid/cuda_hermite_vertex_patch_smoother.h);
 *  - level 0: the host Cholesky factorization of the Hermite cell matrices
 *    (two tiny copies per cycle), or the Chebyshev smoother;
 *  - transfers: cuda::HermiteCellTransfer;
 *  - outer iteration: CG with one V-cycle, or the stationary iteration
 *    (the shared solve_cg / solve_stationary).
 *
 * Not yet on the device, refused with a message: mixed precision with
 * local smoothing.
 *
 *   cuda::HermiteMultigridSolver solver(hierarchy, parameters, &std::cout);
 *   solver.solve(u, b, control); // device vectors
 *
 * Layout is that of every vector of the solver, FP64 and FP32 (instantiated
 * for CellContiguous and CellBlocked<32>); blocked by 32 cells the one-pass
 * DSS of both trace layers streams at 0.79 of a device copy against 0.30
 * cell-contiguous (doc/performance-log.md), so the host-vector solver takes it.
 *
 * On host vectors: make_hermite_host_vector_solver(hierarchy, parameters,
 * Backend::cuda) (multigrid/host_vector_solvers.h).
 *
 * Compiles with a plain C++ compiler (source/multigrid/cuda_hermite_multigrid_solver.cu).
 */

#include <cellwise/base/timer.h>
#include <cellwise/mesh/level.h>
#include <cellwise/multigrid/hermite_multigrid_solver.h>
#include <cellwise/multigrid/interfaces.h>
#include <cellwise/multigrid/multigrid_solver.h>
#include <cellwise/multigrid/solver_control.h>
#include <cellwise/operators/level_operator.h>
#include <cellwise/storage/cuda_cell_vector.h>

#include <memory>
#include <ostream>
#include <string>

namespace cellwise
{
  namespace cuda
  {
    template <typename Layout = CellContiguous>
    class HermiteMultigridSolver
    {
    public:
      using VectorType = CellVector<double, MemorySpace::CUDA, Layout>;

      /// Levels, smoothers (with their eigenvalue estimates) and transfers of
      /// @p hierarchy, which must stay alive; @p log, if given, gets a line
      /// per level. With a @p timer (kept by reference), every component of
      /// the solve reports to it (multigrid/timed_components.h): smoother,
      /// level operators, transfers, coarse solve, the cycle's and the outer
      /// iteration's own work, the FP64 operator, the conversions.
      HermiteMultigridSolver(const LevelHierarchy &hierarchy, const HermiteMultigridParameters &parameters,
                             std::ostream *log = nullptr, ComponentTimer *timer = nullptr);
      /// The hierarchy is kept by reference: a temporary would dangle.
      HermiteMultigridSolver(const LevelHierarchy &&hierarchy, const HermiteMultigridParameters &parameters,
                             std::ostream *log = nullptr, ComponentTimer *timer = nullptr) = delete;
      ~HermiteMultigridSolver();

      /// CG (or the stationary iteration) for A u = b on the active cells from
      /// u (a C¹ start such as zero; zeroed on the clamped DoFs first); b is
      /// the unassembled load vector. Throws NoConvergence when @p control
      /// fails.
      SolveStatistics
      solve(VectorType &u, const VectorType &b, IterationControl &control) const;

      unsigned int
      n_active_cells() const
      {
        return mask_.n_cells();
      }
      /// The clamped mask of the active cells (0 on every DoF of a boundary
      /// vertex; hanging vertices inside the domain stay free).
      const VectorType &
      mask() const
      {
        return mask_;
      }
      /// The operator on the active cells.
      const LevelOperator<VectorType> &
      fine_operator() const;
      /// The V-cycle (dual → primal).
      const Preconditioner<VectorType> &
      preconditioner() const;
      /// Level 0's solver, as the host solver names it.
      const std::string &
      coarse_solver_description() const
      {
        return coarse_description_;
      }

    private:
      /// Serializes the solves of threads that share this object (base/work_space_lock.h).
      WorkSpaceLock work_space_lock_;
      struct Components;
      std::unique_ptr<Components> components_;
      VectorType                  mask_;
      bool                        stationary_ = false;
      std::string                 coarse_description_;
    };
  } // namespace cuda
} // namespace cellwise
