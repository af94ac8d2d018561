#include <cellwise/multigrid/chebyshev_smoother.h>
#include <cellwise/multigrid/jacobi_smoother.h>
#include <cellwise/multigrid/level_smoothers.h>
#include <cellwise/multigrid/vertex_patch_smoother.h>

namespace cellwise
{
  template <typename Number>
  std::shared_ptr<const LevelSmoother<CellVector<Number>>>
  make_level_smoother(const Level                   &level,
                      const LaplaceOperator<Number> &op,
                      const CellVector<Number>      &mask,
                      const MultigridParameters     &parameters)
  {
    switch (parameters.smoother)
      {
        case SmootherType::jacobi:
          return std::make_shared<JacobiSmoother<Number>>(level, op, mask, parameters.jacobi_parameters());
        case SmootherType::chebyshev:
          {
            return std::make_shared<ChebyshevSmoother<Number>>(level, op, mask, parameters.chebyshev_parameters());
          }
        default:
          return std::make_shared<VertexPatchSmoother<Number>>(level, op, parameters.patch_sweeps, &mask);
      }
  }

  template std::shared_ptr<const LevelSmoother<CellVector<double>>>
  make_level_smoother(const Level &, const LaplaceOperator<double> &, const CellVector<double> &, const MultigridParameters &);
  template std::shared_ptr<const LevelSmoother<CellVector<float>>>
  make_level_smoother(const Level &, const LaplaceOperator<float> &, const CellVector<float> &, const MultigridParameters &);
} // namespace cellwise
