#pragma once
/**
 * @file
 * The cell-wise V-cycle (003 Algorithm 5, uniform hierarchy) as a
 * preconditioner z = V r from a zero initial guess: r dual on the finest level,
 * z primal. Written once over the vector type: host and device components plug
 * in through multigrid/interfaces.h.
 *
 * Per level l > 0: pre-smoothing (first step from zero: no operator
 * application), A u, restriction of b − A u fused into one pass (or A u
 * inside the restriction, where the level has a ResidualRestriction), the
 * coarse correction, prolongation added, post-smoothing. The symmetric cycle (for CG)
 * uses adjoint pre- and post-smoothers (forward then reverse sweeps); the
 * forward cycle (for the stationary iteration) uses forward sweeps in both.
 */

#include <cellwise/base/exceptions.h>
#include <cellwise/multigrid/interfaces.h>

#include <memory>
#include <vector>

namespace cellwise
{
  template <typename VectorType>
  class VCycle : public Preconditioner<VectorType>
  {
  public:
    using Parameters = VCycleParameters;

    /// Components per level 0..L; smoothers[0] is not used.
    struct Components
    {
      std::vector<std::shared_ptr<const LevelOperator<VectorType>>> operators;
      std::vector<std::shared_ptr<const LevelSmoother<VectorType>>> smoothers;
      std::shared_ptr<const LevelTransfer<VectorType>>              transfer;
      std::shared_ptr<const CoarseSolver<VectorType>>               coarse_solver;
      /// Optional, per level 0..L (empty, or null where none): the level's
      /// operator fused into its residual restriction, used in place of
      /// operators[l] and transfer->restrict_residual_add.
      std::vector<std::shared_ptr<const ResidualRestriction<VectorType>>> residual_restrictions;
      /// A vector of the shape of each level (used to size the work vectors).
      std::vector<VectorType> level_shapes;
    };

    VCycle(Components components, const Parameters &parameters)
      : components_(std::move(components))
      , parameters_(parameters)
    {
      const std::size_t n_levels = components_.operators.size();
      CELLWISE_CHECK(n_levels >= 1 && components_.smoothers.size() == n_levels &&
                       components_.level_shapes.size() == n_levels && components_.coarse_solver &&
                       (n_levels == 1 || components_.transfer) &&
                       (components_.residual_restrictions.empty() || components_.residual_restrictions.size() == n_levels),
                     "V-cycle: the components do not cover the " << n_levels << " levels");
      u_.resize(n_levels);
      b_.resize(n_levels);
      Au_.resize(n_levels);
      for (std::size_t l = 0; l < n_levels; ++l)
        {
          if (l + 1 < n_levels)
            {
              u_[l].reinit(components_.level_shapes[l]);
              b_[l].reinit(components_.level_shapes[l]);
            }
          if (l > 0 && !fused_restriction(l))
            Au_[l].reinit(components_.level_shapes[l]);
        }
    }

    unsigned int
    n_levels() const
    {
      return static_cast<unsigned int>(components_.operators.size());
    }

    /// z = V r
    void
    vmult(VectorType &z, const VectorType &r) const override
    {
      const auto lock = work_space_lock_.lock("cellwise::VCycle::vmult");
      cycle(n_levels() - 1, z, r);
    }

    const Components &
    components() const
    {
      return components_;
    }

  private:
    /// u = V_l b with u's content ignored (zero initial guess).
    void
    cycle(const unsigned int l, VectorType &u, const VectorType &b) const
    {
      if (l == 0)
        {
          components_.coarse_solver->solve(u, b);
          return;
        }
      const LevelSmoother<VectorType> &smoother = *components_.smoothers[l];
      for (unsigned int k = 0; k < parameters_.pre_smoothing; ++k)
        smoother.smooth(u, b, k == 0, parameters_.pre_direction);
      if (parameters_.pre_smoothing == 0)
        u.set_zero();

      b_[l - 1].set_zero();
      if (fused_restriction(l))
        components_.residual_restrictions[l]->restrict_residual_add(b_[l - 1], b, u);
      else
        {
          if (parameters_.pre_smoothing == 0)
            Au_[l].set_zero();
          else
            components_.operators[l]->vmult(Au_[l], u);
          components_.transfer->restrict_residual_add(l, b_[l - 1], b, Au_[l]);
        }

      cycle(l - 1, u_[l - 1], b_[l - 1]);
      components_.transfer->prolongate_add(l, u, u_[l - 1]);

      for (unsigned int k = 0; k < parameters_.post_smoothing; ++k)
        smoother.smooth(u, b, false, parameters_.post_direction);
    }

    /// Whether level l restricts its residual through a fused component
    /// (not without pre-smoothing: u is zero there and A u is not needed).
    bool
    fused_restriction(const unsigned int l) const
    {
      return parameters_.pre_smoothing > 0 && l < components_.residual_restrictions.size() &&
             components_.residual_restrictions[l] != nullptr;
    }

    Components         components_;
    Parameters         parameters_;
    mutable std::vector<VectorType> u_, b_, Au_;
    WorkSpaceLock                   work_space_lock_;
  };
} // namespace cellwise
