#pragma once
// The device's parts of FE_Q levels of box cells for the shared level loop
// (lagrange_levels.h), used by cuda::MultigridSolver on uniform and on
// locally refined hierarchies (local smoothing). The mapped and
// unstructured levels' parts: cuda_general_lagrange_parts.h.
// Private: compiled by nvcc only.

#include <cellwise/multigrid/cuda_cell_transfer.h>
#include <cellwise/multigrid/cuda_coarse_solvers.h>
#include <cellwise/multigrid/cuda_laplace_residual_restriction.h>
#include <cellwise/multigrid/cuda_level_smoothers.h>
#include <cellwise/storage/cuda_dirichlet_mask.h>
#include <cellwise/storage/cuda_level_data.h>

#include "cuda_setup_stage.h"
#include "lagrange_levels.h"

#include <memory>
#include <string>
#include <vector>

namespace cellwise::cuda
{
  template <typename Number, typename Layout>
  class BoxLagrangeParts : public ::cellwise::internal::PlainLevelWords<true>, public DeviceStages
  {
  public:
    using Vector   = CellVector<Number, MemorySpace::CUDA, Layout>;
    using Operator = LaplaceOperator<Number, Layout>;
    using Cholesky = CholeskyCoarseSolver<Number, Layout>;

    /// Stages timed into @p times. @p finest_data, if given, is the finest
    /// level's device data, already built for the outer operator (at L = 8
    /// it is 0.8 GB and takes a second to build). With @p fused_restrictions
    /// every level above the coarsest restricts b − A u with A applied
    /// inside (A u never stored) where the fused kernel takes the degree.
    BoxLagrangeParts(const LevelHierarchy      &hierarchy,
                     const unsigned int         degree,
                     const MultigridParameters &parameters,
                     SetupTimes                &times,
                     const LevelData           *finest_data,
                     const bool                 fused_restrictions)
      : DeviceStages(times)
      , hierarchy_(hierarchy)
      , degree_(degree)
      , parameters_(parameters)
      , finest_data_(finest_data)
      , fused_restrictions_(fused_restrictions)
    {}

    /// Made on the device from the level's data (pure Neumann problems are
    /// refused by the device solvers).
    Vector
    dirichlet_mask(const unsigned int l) const
    {
      Vector mask;
      if (finest_data_ && l + 1 == hierarchy_.n_levels())
        make_dirichlet_mask(*finest_data_, degree_, parameters_.dirichlet_ids, mask);
      else
        make_dirichlet_mask(LevelData(hierarchy_.level(l), degree_), degree_, parameters_.dirichlet_ids, mask);
      return mask;
    }

    Vector
    free_mask(const unsigned int l) const
    {
      Vector mask;
      mask.copy_from_host(make_free_mask<Number, Layout>(hierarchy_.level(l), degree_, parameters_.dirichlet_ids));
      return mask;
    }

    std::shared_ptr<Operator>
    make_operator(const unsigned int l) const
    {
      std::shared_ptr<Operator> op;
      stage("level operators", [&] {
        op = std::make_shared<Operator>(hierarchy_.level(l), degree_, parameters_.coefficient, parameters_.coefficient_evaluation);
      });
      return op;
    }

    std::shared_ptr<const LevelSmoother<Vector>>
    make_smoother(const unsigned int l, const Operator &op, const Vector &mask) const
    {
      return make_level_smoother(hierarchy_.level(l), op, mask, parameters_);
    }

    template <typename Components>
    void
    add_transfers(Components &components, const std::vector<std::shared_ptr<Operator>> &operators) const
    {
      auto transfer       = std::make_shared<CellTransfer<Number, Layout>>(hierarchy_, degree_);
      components.transfer = transfer;
      if (!fused_restrictions_ || !LaplaceResidualRestriction<Number, Layout>::supports(degree_))
        return;
      components.residual_restrictions.assign(hierarchy_.n_levels(), nullptr);
      for (unsigned int l = 1; l < hierarchy_.n_levels(); ++l)
        components.residual_restrictions[l] = std::make_shared<LaplaceResidualRestriction<Number, Layout>>(transfer, l, operators[l]);
    }

  private:
    const LevelHierarchy      &hierarchy_;
    const unsigned int         degree_;
    const MultigridParameters &parameters_;
    const LevelData           *finest_data_;
    const bool                 fused_restrictions_;
  };
} // namespace cellwise::cuda
