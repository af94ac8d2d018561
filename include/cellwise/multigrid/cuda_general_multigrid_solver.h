#pragma once
/**
 * @file
 * Geometric multigrid on mapped hierarchies (curved or affine cells,
 * map_hierarchy: e.g. the Kershaw box; unstructured coarse meshes with
 * skeleton faces: e.g. the ball) and with a coefficient at the
 * quadrature points, on the device: the twin of cellwise::MultigridSolver
 * (host, its oracle in the tests) where cuda::MultigridSolver, whose fused
 * kernels take box cells and one coefficient per cell, refuses. Per level:
 *
 *  - operator: cuda::GeneralLaplaceOperator (the host's LaplaceMetric of
 *    every cell uploaded: operators/cuda_general_laplace_operator.h);
 *  - smoother: masked Chebyshev or Jacobi over the device DSS, with its
 *    skeleton phase on unstructured levels (cuda::DssJacobiPreconditioner
 *    on the general operator, the shared point smoothers), eigenvalues
 *    estimated on the device;
 *  - level 0: the host Cholesky factorization of the host operator's cell
 *    matrices (with the same coefficient evaluation), or the smoother / CG
 *    coarse solver of the parameters;
 *  - transfers: cuda::CellTransfer (reference-cell interpolation: topology
 *    only, the same on a mapped level);
 *  - outer iteration: CG or the stationary iteration, FP64 or mixed (the
 *    FP32 hierarchy in the same layout, the residual rebalanced as for
 *    boxes), the shared solve_outer.
 *
 * Refused with a message: the vertex-patch smoother (its surrogate device
 * kernels are not built), the pure Neumann problem.
 *
 *   cuda::GeneralMultigridSolver<> solver(hierarchy, degree, parameters, &std::cout);
 *   solver.solve(u, b, control); // device vectors, cell-wise
 *
 * Compiles with a plain C++ compiler (source/multigrid/cuda_general_multigrid_solver.cu).
 */

#include <cellwise/base/timer.h>
#include <cellwise/mesh/level.h>
#include <cellwise/multigrid/interfaces.h>
#include <cellwise/multigrid/multigrid_solver.h>
#include <cellwise/multigrid/solver_control.h>
#include <cellwise/operators/cuda_general_laplace_operator.h>
#include <cellwise/operators/level_operator.h>
#include <cellwise/storage/cuda_cell_vector.h>

#include <memory>
#include <ostream>

namespace cellwise
{
  namespace cuda
  {
    template <typename Layout = CellContiguous>
    class GeneralMultigridSolver
    {
    public:
      using VectorType = CellVector<double, MemorySpace::CUDA, Layout>;

      /// Levels, smoothers (with their eigenvalue estimates), coarse solver
      /// and transfers of @p hierarchy (kept by reference) for FE_Q(@p
      /// degree); @p log, if given, gets a line per level and the set-up by
      /// stage. With a @p timer (kept by reference) every component of the
      /// solve reports to it, as cuda::MultigridSolver's (benchmarks).
      /// @p kernel: the operators' kernel (GeneralKernel; planes where a
      /// level's operator takes it, lines elsewhere).
      GeneralMultigridSolver(const LevelHierarchy      &hierarchy,
                             unsigned int               degree,
                             const MultigridParameters &parameters,
                             std::ostream              *log    = nullptr,
                             ComponentTimer            *timer  = nullptr,
                             GeneralKernel              kernel = GeneralKernel::automatic);
      /// The hierarchy is kept by reference: a temporary would dangle.
      GeneralMultigridSolver(const LevelHierarchy &&hierarchy, unsigned int degree, const MultigridParameters &parameters,
                             std::ostream *log = nullptr, ComponentTimer *timer = nullptr,
                             GeneralKernel kernel = GeneralKernel::automatic) = delete;
      ~GeneralMultigridSolver();

      /// Solve A u = b on the finest level from the given u (device vectors;
      /// an empty u is the zero guess); b is the dual load vector; Dirichlet
      /// entries of u hold the boundary values and are not changed. Throws
      /// NoConvergence when @p control fails.
      SolveStatistics
      solve(VectorType &u, const VectorType &b, IterationControl &control) const;

      /// The finest level's Dirichlet mask (1 free, 0 constrained).
      const VectorType &
      mask() const;
      /// The FP64 operator of the finest level.
      const LevelOperator<VectorType> &
      fine_operator() const;
      /// The V-cycle (dual → primal).
      const Preconditioner<VectorType> &
      preconditioner() const;

    private:
      /// Serializes the solves of threads that share this object (base/work_space_lock.h).
      WorkSpaceLock work_space_lock_;
      struct Components;
      std::unique_ptr<Components> components_;
    };
  } // namespace cuda
} // namespace cellwise
