#pragma once
/**
 * @file
 * The cell-wise geometric multigrid solver of the CUDA backend: the device
 * twin of cellwise::MultigridSolver (multigrid/multigrid_solver.h, its
 * oracle in the tests) with the same MultigridParameters, the same cycle
 * (directions, smoothing steps) and the same Dirichlet masks, FP64 or the
 * FP32 hierarchy inside the FP64 outer iteration with rebalancing by the
 * device DSS. One class for every hierarchy; its parts follow from the
 * hierarchy and the coefficient (uses_general_operator()):
 *
 *  - box cells, no coefficient or its cell averages: the box parts
 *    (cuda_lagrange_parts.h): cuda::LaplaceOperator with the fused
 *    add-and-residual and residual restrictions, every smoother (the
 *    register-resident vertex-patch kernel at Q3); the FP32 levels
 *    cell-contiguous whatever the outer layout (the patch kernel's layout;
 *    the conversions change the layout in the same pass, so that the FP64
 *    residual and rebalancing run blocked: DSS 0.88 of a device copy there,
 *    0.33 cell-contiguous);
 *  - mapped cells (curved or affine, map_hierarchy: e.g. the Kershaw box),
 *    unstructured coarse meshes with skeleton faces (the ball), or a
 *    coefficient at the quadrature points: the general parts
 *    (cuda_general_lagrange_parts.h): cuda::GeneralLaplaceOperator (the
 *    host's LaplaceMetric of every cell uploaded), masked Chebyshev or
 *    Jacobi over the device DSS with its skeleton phase, levels in the
 *    outer layout. The vertex-patch smoother is refused there (its device
 *    kernels take box cells and one coefficient per level);
 *  - a locally refined hierarchy (is_locally_refined; box cells, no
 *    coefficient or its cell averages): the box parts on every level in
 *    the local-smoothing cycle of adaptive_v_cycle.h (the smoothers leave
 *    the refinement edges alone; the distribution to the levels and the
 *    reassembly on the device, cuda_active_mesh_transfer.h), the solve on
 *    the active cells with A_act; FP64 levels, or FP32 ones (cell-
 *    contiguous) in MixedLocalSmoothingCycle (mixed_local_smoothing.h,
 *    doc/adaptive.md).
 *
 * Level 0: the host Cholesky factorization of the level's cell matrices,
 * or the smoother / CG coarse solver of the parameters; transfers:
 * cuda::CellTransfer. The whole solve runs on the device; the host sees
 * only the scalars of the inner products (and the tiny coarse level of the
 * Cholesky coarse solve). Refused with a message: the pure Neumann problem;
 * on a locally refined hierarchy mapped cells and the coefficient at the
 * quadrature points (capabilities.h).
 *
 *   cuda::MultigridSolver<> solver(hierarchy, degree, parameters, &std::cout);
 *   solver.solve(u, b, control); // device vectors, cell-wise
 *
 * Compiles with a plain C++ compiler (implemented in
 * source/multigrid/cuda_multigrid_solver.cu for CellContiguous and CellBlocked<32>).
 */

#include <cellwise/operators/cuda_general_laplace_operator.h>
#include <cellwise/operators/level_operator.h>
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
      /// " and the next residual" (on box cells in mixed precision one fused
      /// pass; the "FP64 operator" then forms the first residual only).
      /// @p kernel: the general operator's kernel (GeneralKernel; planes
      /// where a level's operator takes it, lines elsewhere); the box parts
      /// do not read it.
      MultigridSolver(const LevelHierarchy      &hierarchy,
                      unsigned int               degree,
                      const MultigridParameters &parameters,
                      std::ostream              *log    = nullptr,
                      ComponentTimer            *timer  = nullptr,
                      GeneralKernel              kernel = GeneralKernel::automatic);
      /// The hierarchy is kept by reference: a temporary would dangle.
      MultigridSolver(const LevelHierarchy &&hierarchy, unsigned int degree, const MultigridParameters &parameters,
                      std::ostream *log = nullptr, ComponentTimer *timer = nullptr,
                      GeneralKernel kernel = GeneralKernel::automatic) = delete;

      /// Solve A u = b on the solve's cells (the finest level, or the active
      /// cells) from the given u (device vectors; an empty u is the zero
      /// guess); b is the dual load vector. Dirichlet
      /// entries of u must hold the boundary values (zero for homogeneous
      /// conditions) and are not changed. Throws NoConvergence when
      /// @p control fails.
      SolveStatistics
      solve(VectorType &u, const VectorType &b, IterationControl &control) const;

      ~MultigridSolver();
      /// Not copied or moved: the fine operator keeps the address of the
      /// Dirichlet mask (LaplaceOperator::use_dirichlet_mask).
      MultigridSolver(const MultigridSolver &) = delete;
      MultigridSolver &
      operator=(const MultigridSolver &) = delete;

      /// Whether the general parts were chosen (mapped or unstructured
      /// levels, or the coefficient at the quadrature points), not the box
      /// parts.
      static bool
      uses_general_operator(const LevelHierarchy &hierarchy, const MultigridParameters &parameters);
      bool
      uses_general_operator() const;
      /// Whether the hierarchy is locally refined (the solve on its active
      /// cells with local smoothing).
      bool
      locally_refined() const;
      /// The active cells of a locally refined hierarchy (cellwise::Error on
      /// a uniform one).
      const ActiveMesh &
      active_mesh() const;
      /// The cells of the solve's vectors.
      unsigned int
      n_active_cells() const;
      /// The FP64 operator of the solve's cells (cuda::LaplaceOperator on
      /// box cells and on the active cells, else
      /// cuda::GeneralLaplaceOperator).
      const LevelOperator<VectorType> &
      fine_operator() const;
      /// The cycle as the FP64 outer iteration sees it (dual → primal).
      const Preconditioner<VectorType> &
      preconditioner() const;
      /// Dirichlet mask of the solve's cells (1 free, 0 constrained).
      const VectorType &
      dirichlet_mask() const;
      const MultigridParameters &
      parameters() const;
      unsigned int
      degree() const;

    private:
      /// Serializes the solves of threads that share this object (base/work_space_lock.h).
      WorkSpaceLock work_space_lock_;
      struct Components;
      std::unique_ptr<Components> components_;
    };
  } // namespace cuda
} // namespace cellwise
