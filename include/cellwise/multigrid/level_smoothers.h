#pragma once
/**
 * @file
 * The smoother of one level as MultigridParameters choose it, for the host
 * solvers (uniform and adaptive; the CUDA twin is multigrid/cuda_level_smoothers.h):
 * DSS-Jacobi or Chebyshev–Jacobi with @p mask (Dirichlet and, on adaptive
 * levels, refinement-edge copies zero) folded into the inverse diagonal, or the
 * vertex-patch smoother. Vertex patches need all 8 cells of a vertex on the
 * level; their interior DoFs then never lie on the Dirichlet rim or the
 * refinement edge E_l (a face through such a DoF has patch cells on both
 * sides), so the patch smoother needs no mask.
 */

#include <cellwise/mesh/level.h>
#include <cellwise/multigrid/interfaces.h>
#include <cellwise/multigrid/multigrid_parameters.h>
#include <cellwise/operators/laplace_operator.h>
#include <cellwise/storage/cell_vector.h>

#include <memory>

namespace cellwise
{
  template <typename Number>
  std::shared_ptr<const LevelSmoother<CellVector<Number>>>
  make_level_smoother(const Level                   &level,
                      const LaplaceOperator<Number> &op,
                      const CellVector<Number>      &mask,
                      const MultigridParameters     &parameters);
} // namespace cellwise
