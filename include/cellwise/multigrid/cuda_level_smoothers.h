#pragma once
/**
 * @file
 * The smoother of one level as MultigridParameters choose it, for the device
 * solvers (uniform and adaptive): DSS-Jacobi, Chebyshev–Jacobi (both with the
 * free mask folded into the inverse diagonal) or the vertex-patch smoother.
 * The patches are those whose 8 cells lie on the level (the host's
 * make_vertex_patches); their interior DoFs are never on the Dirichlet rim or
 * the refinement edge, so the patch smoother needs no mask.
 *
 * Compiles with a plain C++ compiler (implemented in
 * source/multigrid/cuda_level_smoothers.cu for FP64/FP32 and both layouts).
 */

#include <cellwise/operators/cuda_laplace_operator.h>
#include <cellwise/mesh/level.h>
#include <cellwise/multigrid/interfaces.h>
#include <cellwise/multigrid/multigrid_parameters.h>
#include <cellwise/storage/cuda_cell_vector.h>

#include <memory>

namespace cellwise
{
  namespace cuda
  {
    template <typename Number, typename Layout>
    std::shared_ptr<const LevelSmoother<CellVector<Number, MemorySpace::CUDA, Layout>>>
    make_level_smoother(const Level                                          &level,
                        const LaplaceOperator<Number, Layout>                &op,
                        const CellVector<Number, MemorySpace::CUDA, Layout> &mask,
                        const MultigridParameters                            &parameters);
  } // namespace cuda
} // namespace cellwise
