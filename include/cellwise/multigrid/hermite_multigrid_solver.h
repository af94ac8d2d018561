#pragma once
/**
 * @file
 * Geometric multigrid for the clamped biharmonic problem Δ²u = f,
 * u = ∂ₙu = 0, with the C¹ cubic Hermite element on a uniform hierarchy
 * (host backend; 001 §3, §5.1). The components are those of the Laplace
 * solver with the Hermite element's pieces in their places:
 *
 *  - operators: HermiteBiharmonicOperator per level;
 *  - smoothers: masked Chebyshev–Jacobi over the DSS of both trace layers,
 *    3 stages on the upper decade of the spectrum (001 §5.1), or the
 *    vertex-block patch smoother (001 §5.2);
 *  - coarsest level: the same smoother with 20 stages instead of an exact
 *    solve (001 §5.1);
 *  - transfers: HermiteCellTransfer (derivative DoFs scaled by the widths);
 *  - masks: the clamped boundary, all eight DoFs of a boundary vertex.
 *
 * The outer iteration is CG preconditioned by one V-cycle (the Chebyshev
 * smoother and the forward/reverse patch cycle are symmetric) or the
 * stationary iteration, in FP64.
 */

#include <cellwise/mesh/level.h>
#include <cellwise/multigrid/interfaces.h>
#include <cellwise/multigrid/solver_control.h>
#include <cellwise/storage/cell_vector.h>

#include <memory>
#include <ostream>
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
    /// Chebyshev stages per smoothing step on levels ≥ 1.
    unsigned int chebyshev_degree = 3;
    /// λ_min = λ_max / range: the upper decade.
    double smoothing_range = 10.;
    /// Stages of the Chebyshev coarse solve on level 0.
    unsigned int coarse_chebyshev_degree = 20;
    /// Clamped boundary ids (empty: all boundary faces).
    std::vector<unsigned int> clamped_ids;

    /// Throws cellwise::Error naming a bad value.
    void
    check() const;
  };

  class HermiteMultigridSolver
  {
  public:
    using VectorType = CellVector<double>;

    /// Levels, smoothers (with their eigenvalue estimates) and transfers of
    /// @p hierarchy, which must stay alive; @p log, if given, gets a line per
    /// level.
    HermiteMultigridSolver(const LevelHierarchy &hierarchy, const HermiteMultigridParameters &parameters,
                           std::ostream *log = nullptr);
    ~HermiteMultigridSolver();

    /// CG for A u = b from u (zeroed on the clamped DoFs first); b is the
    /// unassembled load vector. Throws NoConvergence when @p control fails.
    SolveStatistics
    solve(VectorType &u, const VectorType &b, IterationControl &control) const;

    /// The clamped mask of the finest level (0 on every DoF of a boundary vertex).
    const VectorType &
    mask() const
    {
      return mask_;
    }
    /// The finest level's operator.
    const LevelOperator<VectorType> &
    fine_operator() const;
    /// The V-cycle (dual → primal).
    const Preconditioner<VectorType> &
    preconditioner() const;

  private:
    struct Components;
    std::unique_ptr<Components> components_;
    VectorType                  mask_;
    bool                        stationary_ = false;
  };
} // namespace cellwise
