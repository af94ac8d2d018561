// The level smoother chosen by MultigridParameters, shared by the uniform and
// the adaptive device solvers. No kernels here.

#include <cellwise/multigrid/cuda_level_smoothers.h>
#include <cellwise/multigrid/cuda_point_smoothers.h>
#include <cellwise/multigrid/cuda_vertex_patch_smoother.h>

namespace cellwise
{
  namespace cuda
  {
    template <typename Number, typename Layout>
    std::shared_ptr<const LevelSmoother<CellVector<Number, MemorySpace::CUDA, Layout>>>
    make_level_smoother(const Level                                          &level,
                        const LaplaceOperator<Number, Layout>                &op,
                        const CellVector<Number, MemorySpace::CUDA, Layout> &mask,
                        const MultigridParameters                            &parameters)
    {
      switch (parameters.smoother)
        {
          case SmootherType::jacobi:
            return std::make_shared<JacobiSmoother<Number, Layout>>(level, op, mask, parameters.jacobi_parameters());
          case SmootherType::chebyshev:
            {
              return std::make_shared<ChebyshevSmoother<Number, Layout>>(level, op, mask, parameters.chebyshev_parameters());
            }
          default:
            return std::make_shared<VertexPatchSmoother<Number, Layout>>(level, op.degree(), parameters.patch_sweeps);
        }
    }

#define CELLWISE_INSTANTIATE(Number, Layout)                                                                             \
  template std::shared_ptr<const LevelSmoother<CellVector<Number, MemorySpace::CUDA, Layout>>> make_level_smoother( \
    const Level &, const LaplaceOperator<Number, Layout> &, const CellVector<Number, MemorySpace::CUDA, Layout> &,   \
    const MultigridParameters &);
    CELLWISE_INSTANTIATE(double, CellContiguous)
    CELLWISE_INSTANTIATE(float, CellContiguous)
    CELLWISE_INSTANTIATE(double, CellBlocked<32>)
    CELLWISE_INSTANTIATE(float, CellBlocked<32>)
#undef CELLWISE_INSTANTIATE
  } // namespace cuda
} // namespace cellwise
