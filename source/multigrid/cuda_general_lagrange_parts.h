#pragma once
// The device's parts of FE_Q levels of any cells (mapped, unstructured; box
// cells with a coefficient at the quadrature points) for the shared level
// loop (lagrange_levels.h), used by cuda::MultigridSolver where the box
// parts (cuda_lagrange_parts.h) do not take the hierarchy: the general
// operator (the host's LaplaceMetric of every cell uploaded) and its point
// smoothers over the level's shared device data. Private: compiled by nvcc
// only.

#include <cellwise/base/setup_times.h>
#include <cellwise/multigrid/cuda_cell_transfer.h>
#include <cellwise/multigrid/cuda_coarse_solvers.h>
#include <cellwise/multigrid/cuda_point_smoothers.h>
#include <cellwise/multigrid/point_smoothers.h>
#include <cellwise/operators/cuda_general_laplace_operator.h>
#include <cellwise/storage/cuda_dirichlet_mask.h>
#include <cellwise/storage/cuda_level_data.h>

#include "cuda_setup_stage.h"
#include "lagrange_levels.h"

#include <memory>
#include <string>
#include <vector>

namespace cellwise::cuda
{
  namespace general_parts
  {
    template <typename Number, typename Layout>
    using LevelVector = CellVector<Number, MemorySpace::CUDA, Layout>;
    template <typename Number, typename Layout>
    using Operator = GeneralLaplaceOperator<Number, Layout>;
    template <typename Number, typename Layout>
    using DssJacobi = DssJacobiPreconditioner<Number, Layout, Operator<Number, Layout>>;

    /// The level operator: the general Laplacian with the coefficient of
    /// @p parameters where it enters, applied by @p kernel where it takes
    /// the level (planes: blocked layouts, degrees 2..4; lines elsewhere);
    /// its set-up stages added to @p times. From @p metric where given
    /// (the level's host metric, made for this operator), else from its
    /// own.
    template <typename Number, typename Layout>
    std::shared_ptr<Operator<Number, Layout>>
    make_operator(const Level                 &level,
                  const unsigned int           degree,
                  const MultigridParameters   &parameters,
                  const GeneralKernel          kernel,
                  SetupTimes                  &times,
                  const LaplaceMetric<Number> *metric = nullptr)
    {
      auto op = metric ? std::make_shared<Operator<Number, Layout>>(level, degree, *metric, parameters.coefficient,
                                                                    parameters.coefficient_evaluation)
                       : std::make_shared<Operator<Number, Layout>>(level, degree, parameters.coefficient,
                                                                    parameters.coefficient_evaluation);
      op->use_kernel(kernel == GeneralKernel::planes && !op->planes_available() ? GeneralKernel::lines : kernel);
      for (const auto &[stage, seconds] : op->setup_times().stages())
        times.add(std::string(sizeof(Number) == 4 ? "FP32" : "FP64") + " operators: " + stage, seconds);
      return op;
    }

    /// The level smoother of @p parameters (Jacobi or Chebyshev) on the
    /// general operator, over the level's shared device data.
    template <typename Number, typename Layout>
    std::shared_ptr<const LevelSmoother<LevelVector<Number, Layout>>>
    make_smoother(const Level                            &level,
                  const Operator<Number, Layout>         &op,
                  const LevelVector<Number, Layout>      &mask,
                  const MultigridParameters              &parameters,
                  const std::shared_ptr<const LevelData> &level_data)
    {
      if (parameters.smoother == SmootherType::jacobi)
        return std::make_shared<PointJacobiSmoother<DssJacobi<Number, Layout>>>(level, op, mask, parameters.jacobi_parameters(),
                                                                                level_data);
      return std::make_shared<PointChebyshevSmoother<DssJacobi<Number, Layout>>>(level, op, mask, parameters.chebyshev_parameters(),
                                                                                   level_data);
    }

    /// The device data of every level (neighbours, skeleton groups), built
    /// once and shared by the masks, the smoothers of either precision and
    /// the rebalancing: on an unstructured level each costs two DoF
    /// numberings of the level on the host.
    std::vector<std::shared_ptr<const LevelData>>
    make_level_data(const LevelHierarchy &hierarchy, const unsigned int degree)
    {
      std::vector<std::shared_ptr<const LevelData>> data;
      for (const Level &level : hierarchy.levels)
        data.push_back(std::make_shared<const LevelData>(level, degree));
      return data;
    }
  } // namespace general_parts

  /// The device's parts of FE_Q levels of any cells (mapped, unstructured)
  /// for the shared level loop (lagrange_levels.h): the general operator
  /// and its point smoothers over the level's shared device data.
  template <typename Number, typename Layout>
  class GeneralLagrangeParts : public ::cellwise::internal::PlainLevelWords<true>, public DeviceStages
  {
  public:
    using Vector   = general_parts::LevelVector<Number, Layout>;
    using Operator = general_parts::Operator<Number, Layout>;
    using Cholesky = CholeskyCoarseSolver<Number, Layout>;

    /// @p finest_metric, if given, is the finest level's host metric,
    /// made for its operator.
    GeneralLagrangeParts(const LevelHierarchy                                &hierarchy,
                         const std::vector<std::shared_ptr<const LevelData>> &level_data,
                         const unsigned int                                   degree,
                         const MultigridParameters                           &parameters,
                         const GeneralKernel                                  kernel,
                         SetupTimes                                          &times,
                         const LaplaceMetric<Number>                         *finest_metric)
      : DeviceStages(times)
      , hierarchy_(hierarchy)
      , level_data_(level_data)
      , degree_(degree)
      , parameters_(parameters)
      , kernel_(kernel)
      , times_(times)
      , finest_metric_(finest_metric)
    {}

    Vector
    dirichlet_mask(const unsigned int l) const
    {
      Vector mask;
      make_dirichlet_mask(*level_data_[l], degree_, parameters_.dirichlet_ids, mask);
      return mask;
    }

    Vector
    free_mask(unsigned int) const
    {
      CELLWISE_CHECK(false, "cellwise::cuda::MultigridSolver takes uniform levels only (no local smoothing)");
      return {};
    }

    std::shared_ptr<Operator>
    make_operator(const unsigned int l) const
    {
      return general_parts::make_operator<Number, Layout>(hierarchy_.level(l), degree_, parameters_, kernel_, times_,
                                                 l + 1 == hierarchy_.n_levels() ? finest_metric_ : nullptr);
    }

    std::shared_ptr<const LevelSmoother<Vector>>
    make_smoother(const unsigned int l, const Operator &op, const Vector &mask) const
    {
      return general_parts::make_smoother(hierarchy_.level(l), op, mask, parameters_, level_data_[l]);
    }

    /// " (N cartesian, … general), ": the cells of each metric form
    /// (in place of the plain words').
    std::string
    level_note(unsigned int, const Operator &op) const
    {
      const auto &forms = op.form_counts();
      return " (" + std::to_string(forms[0]) + " cartesian, " + std::to_string(forms[1]) + " cartesian with c(x), " +
             std::to_string(forms[2]) + " affine, " + std::to_string(forms[3]) + " general), ";
    }

    template <typename Components>
    void
    add_transfers(Components &components, const std::vector<std::shared_ptr<Operator>> &) const
    {
      components.transfer = std::make_shared<CellTransfer<Number, Layout>>(hierarchy_, degree_);
    }

  private:
    const LevelHierarchy                                &hierarchy_;
    const std::vector<std::shared_ptr<const LevelData>> &level_data_;
    const unsigned int                                   degree_;
    const MultigridParameters                           &parameters_;
    const GeneralKernel                                  kernel_;
    SetupTimes                                          &times_;
    const LaplaceMetric<Number>                         *finest_metric_;
  };
} // namespace cellwise::cuda
