#pragma once
/**
 * @file
 * The FP32 local-smoothing cycle inside the FP64 outer iteration (000 × 003):
 * an FP64 active dual in, an FP64 active correction out, every level in FP32
 * in between. Written once over the vector types, for host and device
 * vectors alike (doc/adaptive.md, "Mixed precision with local smoothing").
 *
 * Wrapping the FP32 cycle as MixedPrecisionPreconditioner wraps the uniform
 * one (round r̃, cycle, widen z) does not converge to the FP64 solution: it
 * stops 1.2e-7 from it (measured, doc/adaptive.md). Two steps of the cycle
 * live on the refinement edges E_ℓ, where the FP32 rounding does harm that the
 * FP64 iteration cannot undo; here they run in FP64:
 *
 * - *Routing the edge copies before rounding.* The active residual's copies
 *   on E_ℓ (the hanging copies among them) sum to a small number only with
 *   their masters' copies on a coarser level, where the cycle's restriction
 *   takes them; rounded where they stand, each copy keeps its O(|b|) part and
 *   its FP32 error. In FP64, from the finest level down, the E_ℓ copies of
 *   the distributed right-hand side are restricted into the parents,
 *   b_{ℓ−1} += R(e_ℓ ∘ b_ℓ), and removed from b_ℓ (the smoother never reads
 *   them: its mask is 0 on E_ℓ; the cycle's restriction is linear, so moving
 *   them before the cycle changes nothing in exact arithmetic). Then every
 *   copy group of every level sums to a residual of the conforming problem,
 *   and the mean DSS of each level (which keeps the sums, all the smoothers
 *   and restrictions read) makes each copy small before it is rounded.
 * - *Rebuilding the edge values after widening.* The FP32 correction's E_ℓ
 *   values are the FP32-rounded prolongation of the parent level's, so the
 *   hanging copies miss their masters' interpolant by 1e-7 of the correction
 *   and the FP64 iterate leaves the conforming space. From level 1 up, the
 *   widened level correction gets its E_ℓ values again as the FP64
 *   prolongation of the parent level's rebuilt correction,
 *   w_ℓ = (1 − e_ℓ) ∘ widen(u_ℓ) + e_ℓ ∘ P w_{ℓ−1}; the reassembled correction
 *   is then continuous with the hanging-node constraints to FP64 rounding.
 *   On unstructured levels (whose FP32 copies of a DoF differ in their last
 *   bits, mixed_precision.h) the widened level correction is first made
 *   consistent by the level's mean DSS.
 *
 * Cost per cycle beyond the FP32 cycle (FP64 passes over every level): the
 * distribution, two mask products and a restriction per level, the level's
 * mean DSS and rounding, the widening, a prolongation and two mask products,
 * and the reassembly.
 */

#include <cellwise/base/exceptions.h>
#include <cellwise/base/work_space_lock.h>
#include <cellwise/multigrid/adaptive_v_cycle.h>
#include <cellwise/multigrid/interfaces.h>

#include <functional>
#include <memory>
#include <utility>
#include <vector>

namespace cellwise
{
  template <typename OuterVector, typename InnerVector>
  class MixedLocalSmoothingCycle : public Preconditioner<OuterVector>
  {
  public:
    /// The FP64 pieces of the levels.
    struct Levels
    {
      /// Distribution and reassembly of FP64 active and level vectors.
      std::shared_ptr<const ActiveLevelTransfer<OuterVector>> active_transfer;
      /// FP64 restriction and prolongation between the levels.
      std::shared_ptr<const LevelTransfer<OuterVector>> transfer;
      /// Per level ℓ: 1 on the copies of E_ℓ, 0 elsewhere (edge), and its
      /// complement (kept). Level 0 has no refinement edge: its edge mask
      /// is not read (it may be empty), its kept mask (all ones) gives the
      /// shape of the level's FP64 vector, as kept[ℓ] does on every level.
      std::vector<OuterVector> edge, kept;
      /// The mean DSS of level ℓ on a level vector.
      std::function<void(unsigned int level, OuterVector &)> level_mean;
      /// Whether the widened corrections of the levels need level_mean to
      /// agree copy by copy (unstructured levels).
      bool make_corrections_consistent = false;
    };

    MixedLocalSmoothingCycle(std::shared_ptr<const LocalSmoothingVCycle<InnerVector>> cycle, Levels levels)
      : cycle_(std::move(cycle))
      , levels_(std::move(levels))
    {
      CELLWISE_CHECK(cycle_ && levels_.active_transfer && levels_.level_mean,
                     "MixedLocalSmoothingCycle: the FP32 cycle, the FP64 distribution and the level DSS are needed");
      const unsigned int n_levels = cycle_->n_levels();
      CELLWISE_CHECK(levels_.active_transfer->n_levels() == n_levels && levels_.edge.size() == n_levels &&
                       levels_.kept.size() == n_levels && (n_levels == 1 || levels_.transfer),
                     "MixedLocalSmoothingCycle: the FP64 pieces do not cover the " << n_levels << " levels of the cycle");
      const auto &shapes = cycle_->components().level_shapes;
      w_.resize(n_levels);
      t_.resize(n_levels);
      for (unsigned int l = 0; l < n_levels; ++l)
        {
          CELLWISE_CHECK(levels_.kept[l].n_cells() == shapes[l].n_cells() &&
                           (l == 0 || levels_.edge[l].n_cells() == shapes[l].n_cells()),
                         "MixedLocalSmoothingCycle: the edge masks of level " << l << " have the wrong shape");
          w_[l] = levels_.kept[l]; // (the shape; overwritten by every vmult)
          if (l > 0)
            t_[l] = levels_.kept[l];
        }
    }

    /// z = V r: r an FP64 active dual, z an FP64 active primal, continuous
    /// with the hanging-node constraints.
    void
    vmult(OuterVector &z, const OuterVector &r) const override
    {
      const auto lock = work_space_lock_.lock("cellwise::MixedLocalSmoothingCycle::vmult");
      const unsigned int L = cycle_->n_levels() - 1;
      levels_.active_transfer->distribute(r, w_);
      for (unsigned int l = L; l >= 1; --l)
        route_edge_copies(l);
      cycle_->cycle_with(
        [this](std::vector<InnerVector> &b) {
          for (unsigned int l = 0; l < w_.size(); ++l)
            {
              levels_.level_mean(l, w_[l]);
              b[l].copy_from(w_[l]); // rounding to FP32
            }
        },
        [this](const std::vector<InnerVector> &u) {
          for (unsigned int l = 0; l < w_.size(); ++l)
            {
              w_[l].copy_from(u[l]); // exact widening
              if (levels_.make_corrections_consistent)
                levels_.level_mean(l, w_[l]);
              if (l > 0)
                rebuild_edge_values(l);
            }
        });
      levels_.active_transfer->reassemble(w_, z);
    }

    unsigned int
    n_levels() const
    {
      return cycle_->n_levels();
    }

  private:
    /// b_{l−1} += R(e_l ∘ b_l), b_l ← (1 − e_l) ∘ b_l (b_l in w_[l]).
    void
    route_edge_copies(const unsigned int l) const
    {
      OuterVector &kept = t_[l];
      kept.copy_from(w_[l]);
      kept.scale(levels_.kept[l]);
      levels_.transfer->restrict_residual_add(l, w_[l - 1], w_[l], kept); // R(b − kept) = R(e ∘ b)
      std::swap(w_[l], kept);
    }

    /// w_l ← (1 − e_l) ∘ w_l + e_l ∘ P w_{l−1} (w_{l−1} already rebuilt).
    void
    rebuild_edge_values(const unsigned int l) const
    {
      OuterVector &prolongated = t_[l];
      prolongated.set_zero();
      levels_.transfer->prolongate_add(l, prolongated, w_[l - 1]);
      prolongated.scale(levels_.edge[l]);
      w_[l].scale(levels_.kept[l]);
      w_[l].add(1, prolongated);
    }

    std::shared_ptr<const LocalSmoothingVCycle<InnerVector>> cycle_;
    Levels                                                   levels_;
    /// The FP64 level vectors (right-hand sides, then corrections) and a
    /// work vector per level.
    mutable std::vector<OuterVector> w_, t_;
    WorkSpaceLock                    work_space_lock_;
  };
} // namespace cellwise
