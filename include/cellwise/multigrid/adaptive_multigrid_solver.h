#pragma once
/**
 * @file
 * The cell-wise multigrid solver on a locally refined hierarchy (host, FP64):
 * the active-mesh operator A_act (LaplaceOperator over the active cells), the
 * adaptive V-cycle with local smoothing (multigrid/adaptive_v_cycle.h), and the
 * FP64 outer iteration (CG or stationary) on active vectors, with a mask that
 * zeroes the Dirichlet copies (not the hanging ones). See doc/adaptive.md.
 *
 * Usage:
 *
 *   LevelHierarchy h = make_adaptive_box_hierarchy(box, L, k, make_octant_marker(box));
 *   AdaptiveMultigridSolver solver(h, degree, parameters, &std::cout);
 *   CellVector<double> b, u(solver.n_active_cells(), degree);
 *   solver.assemble_right_hand_side(f, b);
 *   SolveStatistics s = solver.solve(u, b, control);
 *   double e = solver.compute_l2_error(u, exact);
 */

#include <cellwise/base/function.h>
#include <cellwise/mesh/level.h>
#include <cellwise/multigrid/adaptive_v_cycle.h>
#include <cellwise/multigrid/multigrid_solver.h>
#include <cellwise/operators/laplace_operator.h>

#include <iosfwd>
#include <memory>
#include <vector>

namespace cellwise
{
  class AdaptiveMultigridSolver
  {
  public:
    using VectorType = CellVector<double>;

    /// Set up on @p hierarchy (kept by reference). Supported: every smoother
    /// (jacobi, chebyshev, patch), precision fp64, outer cg or stationary,
    /// either coarse solver; mixed precision throws cellwise::Error.
    AdaptiveMultigridSolver(const LevelHierarchy      &hierarchy,
                            unsigned int               degree,
                            const MultigridParameters &parameters,
                            std::ostream              *log = nullptr);
    /// The hierarchy is kept by reference: a temporary would dangle.
    AdaptiveMultigridSolver(const LevelHierarchy &&hierarchy, unsigned int degree, const MultigridParameters &parameters,
                            std::ostream *log = nullptr) = delete;

    /// Solve A_act u = b on the active mesh from the given u (an active
    /// primal vector: continuous with hanging-node constraints, e.g. zero);
    /// b an active dual (assemble_right_hand_side). Dirichlet entries of u are
    /// not changed.
    SolveStatistics
    solve(VectorType &u, const VectorType &b, IterationControl &control) const;

    /// b̃_K = ∫_K f φ_i on the active cells (an active dual).
    void
    assemble_right_hand_side(const ScalarFunction &f, VectorType &b, unsigned int n_q_points = 0) const;
    /// Nodal interpolation on the active cells. Not continuous at hanging
    /// nodes in general (use only for Dirichlet data that is polynomial on the
    /// boundary, or for post-processing).
    void
    interpolate(const ScalarFunction &f, VectorType &u) const;
    /// ‖u_h − u‖_L2 over the active cells.
    double
    compute_l2_error(const VectorType &u, const ScalarFunction &exact, unsigned int n_q_points = 0) const;

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
    /// A_act: the cell-wise operator on the active cells.
    const LaplaceOperator<double> &
    active_operator() const
    {
      return *active_operator_;
    }
    /// The adaptive V-cycle on active vectors.
    const AdaptiveVCycle<double> &
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
    /// Smoother mask of level ℓ (1 free, 0 on Dirichlet and E_ℓ).
    const VectorType &
    free_mask(const unsigned int level) const
    {
      return free_masks_.at(level);
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
    const LevelHierarchy                    &hierarchy_;
    unsigned int                             degree_;
    MultigridParameters                      parameters_;
    ActiveMesh                               mesh_;
    std::shared_ptr<LaplaceOperator<double>> active_operator_;
    VectorType                               active_mask_;
    /// The outer iteration's work vectors, kept between solves.
    mutable OuterWorkVectors<VectorType>     work_;
    std::vector<VectorType>                  free_masks_;
    std::shared_ptr<AdaptiveVCycle<double>>  cycle_;
  };
} // namespace cellwise
