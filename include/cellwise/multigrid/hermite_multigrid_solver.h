#pragma once
/**
 * @file
 * Geometric multigrid for the clamped biharmonic problem Δ²u = f,
 * u = ∂ₙu = 0, with the C¹ cubic Hermite element (host backend; 001 §3, §5),
 * on a uniform or a locally refined hierarchy. The components are those of
 * the Laplace solvers with the Hermite element's pieces in their places:
 *
 *  - operators: HermiteBiharmonicOperator per level;
 *  - smoothers: masked Chebyshev–Jacobi over the DSS of both trace layers,
 *    3 stages on the upper decade of the spectrum (001 §5.1), or the
 *    vertex-block patch smoother (001 §5.2);
 *  - coarsest level: the dense Cholesky solve where it is small, else the
 *    Chebyshev smoother with 20 stages (001 §5.1's choice);
 *  - transfers: HermiteCellTransfer (derivative DoFs scaled by the widths);
 *  - masks: the clamped boundary, all eight DoFs of a boundary vertex; on a
 *    locally refined level also all eight DoFs of every vertex on its
 *    refinement edge (doc/hermite.md).
 *
 * On a locally refined hierarchy the cycle is the local-smoothing cycle of
 * the Laplace solver (LocalSmoothingVCycle, doc/adaptive.md) and vectors are
 * *active vectors*, one cell per active cell (active_mesh()); both trace
 * layers at a refinement edge come from the prolongation, so the correction
 * is C¹ with the hanging-vertex constraints and no constraint object. On a
 * uniform hierarchy the active cells are the finest level's, in its order.
 *
 * The outer iteration is CG preconditioned by one V-cycle (the Chebyshev
 * smoother and the forward/reverse patch cycle are symmetric) or the
 * stationary iteration, in FP64; on a uniform hierarchy the V-cycle may run
 * in FP32 inside it (Precision::mixed: the residual rebalanced over both
 * trace layers before it is rounded, as cuda::HermiteMultigridSolver does).
 *
 *   HermiteMultigridSolver solver(hierarchy, parameters, &std::cout);
 *   CellVector<double> b, u;
 *   solver.assemble_right_hand_side(f, b);
 *   solver.solve(u, b, control);
 *   double e = solver.compute_l2_error(u, exact);
 */

#include <cellwise/base/function.h>
#include <cellwise/mesh/level.h>
#include <cellwise/multigrid/adaptive_v_cycle.h>
#include <cellwise/multigrid/interfaces.h>
#include <cellwise/multigrid/capabilities.h>
#include <cellwise/multigrid/multigrid_solver.h>
#include <cellwise/multigrid/point_smoother_steps.h>
#include <cellwise/multigrid/solver_control.h>
#include <cellwise/storage/cell_vector.h>

#include <memory>
#include <ostream>
#include <string>
#include <vector>

namespace cellwise
{
  /// The smoother of the Hermite V-cycle on levels ≥ 1.
  enum class HermiteSmoother
  {
    chebyshev,   ///< masked Chebyshev–Jacobi over the DSS of both layers (001 §5.1)
    vertex_patch ///< the vertex-block patch smoother (001 §5.2)
  };

  struct HermiteMultigridParameters
  {
    HermiteSmoother smoother = HermiteSmoother::chebyshev;
    /// CG (default) or the stationary iteration u ← u + V(b − A u).
    bool stationary = false;
    /// Post-smoothing of the patch smoother: reverse (a symmetric cycle, for
    /// CG) or forward (001's nonsymmetric stationary cycle).
    SweepDirection post_direction = SweepDirection::reverse;
    /// Sweeps (8 colours each) of the patch smoother per smoothing step.
    unsigned int patch_sweeps = 1;
    /// Chebyshev stages per smoothing step on levels ≥ 1.
    unsigned int chebyshev_degree = 3;
    /// λ_min = λ_max / range: the upper decade.
    double smoothing_range = 10.;
    /// Level 0: automatic (Cholesky up to hermite_cholesky_max_dofs free
    /// DoFs, else the Chebyshev smoother), cholesky or smoother.
    CoarseSolverType coarse_solver = CoarseSolverType::automatic;
    /// Stages of the Chebyshev coarse solve on level 0.
    unsigned int coarse_chebyshev_degree = 20;
    /// Clamped boundary ids (empty: all boundary faces).
    std::vector<unsigned int> clamped_ids;
    /// FP64, or the FP32 hierarchy inside the FP64 outer iteration (000 §4;
    /// uniform hierarchies, both backends).
    Precision precision = Precision::fp64;
    /// Mixed precision: rebalance the FP64 residual (mean over the copies of
    /// both trace layers) before it is rounded, every k-th outer iteration;
    /// 0: never (the FP32 cycle then does not converge, doc/hermite.md); -1
    /// (default): as for Poisson, every iteration of the stationary
    /// iteration, every third of CG. The device solver on a box, in the
    /// blocked layout, rebalances in the pass that rounds the residual, at
    /// every iteration whatever k ≥ 1 or -1 (it costs no pass there); 0
    /// turns that off too.
    int rebalance_every = -1;

    /// Throws cellwise::Error naming a bad value.
    void
    check() const;
    /// The Chebyshev smoother of a level (chebyshev_degree stages), or with
    /// @p coarse of the coarse solve (coarse_chebyshev_degree); both with
    /// smoothing_range. What both backends' solvers build their smoothers from.
    ChebyshevParameters
    chebyshev_parameters(bool coarse = false) const
    {
      ChebyshevParameters chebyshev;
      chebyshev.degree          = coarse ? coarse_chebyshev_degree : chebyshev_degree;
      chebyshev.smoothing_range = smoothing_range;
      return chebyshev;
    }
  };

  /// The configuration of a biharmonic solve of @p hierarchy (box cells,
  /// uniform or locally refined) with @p parameters on @p backend, for
  /// check_supported (multigrid/capabilities.h).
  Configuration
  hermite_configuration(const LevelHierarchy &hierarchy, const HermiteMultigridParameters &parameters, Backend backend);

  /// Free DoFs up to which CoarseSolverType::automatic factorizes level 0.
  constexpr unsigned int hermite_cholesky_max_dofs = 1500;

  /// The smoother mask of @p level: 0 on all eight DoFs of every clamped
  /// vertex (faces with an id of @p clamped_ids, all if empty) and of every
  /// vertex on the level's refinement edge, 1 elsewhere; @p edge_cells, if
  /// given, gets the number of cells touching the refinement edge. Both
  /// backends' Hermite solvers build their level masks with it.
  CellVector<double>
  make_hermite_free_mask(const Level &level, const std::vector<unsigned int> &clamped_ids, unsigned int *edge_cells = nullptr);

  /// The clamped mask of the active cells of a locally refined hierarchy, in
  /// the order of @p mesh: each active cell's copies of its level's clamped
  /// mask (hanging vertices inside the domain stay free, doc/adaptive.md).
  CellVector<double>
  make_hermite_active_mask(const LevelHierarchy &hierarchy, const ActiveMesh &mesh, const std::vector<unsigned int> &clamped_ids);

  /// The coarse solver @p requested with automatic resolved: Cholesky where
  /// level 0 has at most hermite_cholesky_max_dofs free DoFs under @p mask
  /// (a DoF is free unless a copy of it is masked), else the smoother.
  CoarseSolverType
  resolve_hermite_coarse_solver(const Level &level, const CellVector<double> &mask, CoarseSolverType requested);

  class HermiteMultigridSolver
  {
  public:
    using VectorType = CellVector<double>;

    /// Levels, smoothers (with their eigenvalue estimates) and transfers of
    /// @p hierarchy, which must stay alive; @p log, if given, gets a line per
    /// level.
    HermiteMultigridSolver(const LevelHierarchy &hierarchy, const HermiteMultigridParameters &parameters,
                           std::ostream *log = nullptr);
    /// The hierarchy is kept by reference: a temporary would dangle.
    HermiteMultigridSolver(const LevelHierarchy &&hierarchy, const HermiteMultigridParameters &parameters,
                           std::ostream *log = nullptr) = delete;
    ~HermiteMultigridSolver();

    /// CG (or the stationary iteration) for A u = b on the active cells from
    /// u (a C¹ start such as zero; zeroed on the clamped DoFs first); b is
    /// the unassembled load vector. Throws NoConvergence when @p control fails.
    SolveStatistics
    solve(VectorType &u, const VectorType &b, IterationControl &control) const;

    /// Whether some level below the finest has active cells (the local-
    /// smoothing cycle runs).
    bool
    locally_refined() const
    {
      return locally_refined_;
    }
    /// The active cells as one level: the cells of solution and right-hand
    /// side vectors (the finest level on a uniform hierarchy).
    const Level &
    active_level() const;
    unsigned int
    n_active_cells() const
    {
      return active_level().n_cells();
    }
    /// The active mesh of a locally refined hierarchy (throws on a uniform one).
    const ActiveMesh &
    active_mesh() const;

    /// b~_K = ∫_K f ψ_i on the active cells.
    void
    assemble_right_hand_side(const ScalarFunction &f, VectorType &b, unsigned int n_q_points = 5) const;
    /// ‖u_h − u‖_L2 over the active cells.
    double
    compute_l2_error(const VectorType &u, const ScalarFunction &exact, unsigned int n_q_points = 5) const;

    /// The clamped mask of the active cells (0 on every DoF of a boundary
    /// vertex; hanging vertices inside the domain stay free, doc/adaptive.md).
    const VectorType &
    mask() const
    {
      return mask_;
    }
    /// The smoother mask of level @p level: clamped and refinement-edge DoFs 0.
    const VectorType &
    free_mask(unsigned int level) const;
    /// The operator on the active cells.
    const LevelOperator<VectorType> &
    fine_operator() const;
    /// The V-cycle (active dual → active primal).
    const Preconditioner<VectorType> &
    preconditioner() const;
    /// Level 0's solver: "Cholesky (N free DoFs)" or "Chebyshev (20 stages)".
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
    bool                        stationary_      = false;
    bool                        locally_refined_ = false;
    std::string                 coarse_description_;
  };
} // namespace cellwise
