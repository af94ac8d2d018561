#pragma once
// The level loop of the host solvers, written once: MultigridSolver (uniform
// levels, FP64 or FP32) and AdaptiveMultigridSolver (the levels of local
// smoothing) build their V-cycle's components here. What differs between
// them is an argument: which mask a level's smoother and the coarse solver
// work on, whether the finest operator exists already, and what a level's
// log line adds. Private to source/multigrid (the first of the solvers'
// level loops folded into one; the device and distributed ones follow).

#include <cellwise/mesh/level.h>
#include <cellwise/multigrid/coarse_solvers.h>
#include <cellwise/multigrid/level_smoothers.h>
#include <cellwise/multigrid/multigrid_solver.h>
#include <cellwise/multigrid/v_cycle.h>
#include <cellwise/operators/laplace_operator.h>
#include <cellwise/storage/cell_vector.h>

#include <functional>
#include <iomanip>
#include <memory>
#include <ostream>
#include <string>
#include <utility>

namespace cellwise::internal
{
  /// What a level contributes besides its operator.
  template <typename Number>
  struct HostLevelMasks
  {
    /// 1 on the copies the level's smoother may change (0 on Dirichlet
    /// copies and, on a locally refined level, on the refinement edge).
    CellVector<Number> smoothing;
    /// 1 on the free copies of level 0 for its coarse solver (0 on
    /// Dirichlet copies; all ones for the pure Neumann problem).
    CellVector<Number> coarse;
  };

  /**
   * The components of a V-cycle on the levels of @p hierarchy in precision
   * Number: per level the Laplace operator (@p finest for the finest level
   * where given), the smoother of the parameters on the level's smoothing
   * mask, level 0's coarse solver (Cholesky, or the smoother's CG or
   * applications) on its coarse mask, the cell-wise transfer. @p masks(l)
   * gives level l's masks (the uniform solver's are both the Dirichlet mask;
   * the adaptive solver's smoothing mask also zeroes the refinement edge).
   * With @p log one line per level, "  level  l:  N cells, <note><coarse
   * solver or smoother><suffix>", @p note(l) and @p suffix as the caller
   * words them.
   */
  template <typename Number>
  typename VCycle<CellVector<Number>>::Components
  assemble_host_levels(const LevelHierarchy                                          &hierarchy,
                       const unsigned int                                             degree,
                       const MultigridParameters                                     &parameters,
                       const std::function<HostLevelMasks<Number>(unsigned int)>      &masks,
                       const std::shared_ptr<LaplaceOperator<Number>>                &finest,
                       std::ostream                                                  *log,
                       const std::function<std::string(unsigned int)>                &note,
                       const std::string                                             &suffix)
  {
    using V = CellVector<Number>;
    typename VCycle<V>::Components components;
    for (unsigned int l = 0; l < hierarchy.n_levels(); ++l)
      {
        const Level                             &level = hierarchy.level(l);
        const HostLevelMasks<Number>             mask  = masks(l);
        std::shared_ptr<LaplaceOperator<Number>> op    = finest;
        if (l + 1 < hierarchy.n_levels() || !finest)
          op = std::make_shared<LaplaceOperator<Number>>(level, degree, parameters.coefficient, parameters.coefficient_evaluation);
        components.operators.push_back(op);
        components.level_shapes.push_back(V(level.n_cells(), degree));
        if (l == 0)
          {
            components.smoothers.push_back(nullptr);
            const CoarseSolverType coarse = coarse_solver_for(parameters, level, degree);
            if (coarse == CoarseSolverType::cholesky)
              components.coarse_solver = std::make_shared<CholeskyCoarseSolver<Number>>(level, *op, mask.coarse, parameters.pure_neumann);
            else
              components.coarse_solver =
                make_smoother_coarse_solver<V>(parameters, coarse, op, make_level_smoother(level, *op, mask.smoothing, parameters),
                                               mask.coarse, parameters.coarse_smoother_applications);
          }
        else
          components.smoothers.push_back(make_level_smoother(level, *op, mask.smoothing, parameters));
        if (log)
          *log << "  level " << std::setw(2) << l << ": " << std::setw(10) << level.n_cells() << " cells, " << note(l)
               << (l == 0 ? describe_coarse_solver(parameters, level, degree) : "smoother " + to_string(parameters.smoother))
               << suffix << std::endl;
      }
    if (hierarchy.n_levels() > 1)
      components.transfer = std::make_shared<CellTransfer<Number>>(hierarchy, degree);
    return components;
  }
} // namespace cellwise::internal
