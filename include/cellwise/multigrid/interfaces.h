#pragma once
/**
 * @file
 * The narrow interfaces through which the V-cycle and the outer iterations
 * see the components of one backend. They are templates over the vector type,
 * so the algorithms are written once for host vectors
 * (CellVector<Number, MemorySpace::Host>) and device vectors
 * (CellVector<Number, MemorySpace::CUDA>); the vector type provides set_zero,
 * equ, add, sadd, scale, dot, reinit(other) and copy_from.
 *
 * Levels are numbered 0 (coarsest) to L (finest), as in deal.II. The
 * operator's interface, LevelOperator, is in operators/level_operator.h,
 * beside the operators that implement it.
 */

#include <cellwise/base/work_space_lock.h>
#include <cellwise/operators/level_operator.h>

#include <memory>
#include <type_traits>
#include <utility>

namespace cellwise
{
  /// Whether VectorType has add_and_sadd(a, x, s, z) for z an OtherVector
  /// (the cell vectors: CG's iterate and search direction in one pass).
  template <typename VectorType, typename OtherVector, typename = void>
  struct offers_add_and_sadd : std::false_type
  {};
  template <typename VectorType, typename OtherVector>
  struct offers_add_and_sadd<VectorType,
                             OtherVector,
                             std::void_t<decltype(std::declval<VectorType &>().add_and_sadd(
                               typename VectorType::value_type(), std::declval<VectorType &>(), typename VectorType::value_type(),
                               std::declval<const OtherVector &>()))>> : std::true_type
  {};

  /// Whether VectorType has add_and_convert(a, x, converted) for converted
  /// an OtherVector (the cell vectors: a residual update and its rounding in
  /// one pass).
  template <typename VectorType, typename OtherVector, typename = void>
  struct offers_add_and_convert : std::false_type
  {};
  template <typename VectorType, typename OtherVector>
  struct offers_add_and_convert<VectorType,
                                OtherVector,
                                std::void_t<decltype(std::declval<VectorType &>().add_and_convert(
                                  typename VectorType::value_type(), std::declval<const VectorType &>(),
                                  std::declval<OtherVector &>()))>> : std::true_type
  {};

  /// Order of the sub-steps of a multiplicative smoother (vertex-patch colours:
  /// sweep_colour() in vertex_patch_smoother.h, forward 7..0, reverse 0..7);
  /// additive smoothers ignore it.
  enum class SweepDirection
  {
    forward,
    reverse
  };

  /// Smoothing steps and sweep directions of a V-cycle (every cycle of the
  /// library: VCycle, LocalSmoothingVCycle and their users).
  struct VCycleParameters
  {
    unsigned int   pre_smoothing  = 1;
    unsigned int   post_smoothing = 1;
    SweepDirection pre_direction  = SweepDirection::forward;
    SweepDirection post_direction = SweepDirection::reverse;
  };

  /// A smoother of one level: consumes the residual through its assembly and
  /// returns a continuous correction (003 Assumption 1).
  template <typename VectorType>
  class LevelSmoother
  {
  public:
    virtual ~LevelSmoother() = default;
    /// u ← S(u, b). With @p zero_initial_guess the smoother may assume u = 0
    /// on entry and skip the operator application of its first step.
    virtual void
    smooth(VectorType &u, const VectorType &b, bool zero_initial_guess, SweepDirection direction) const = 0;
  };

  /// Cell-wise transfers between level l − 1 and level l.
  template <typename VectorType>
  class LevelTransfer
  {
  public:
    virtual ~LevelTransfer() = default;
    /// fine += P coarse: primal to primal, child by child.
    virtual void
    prolongate_add(unsigned int to_level, VectorType &fine, const VectorType &coarse) const = 0;
    /// coarse += R (fine_b − fine_Au): the transpose of the prolongation on the
    /// unassembled fine residual, summed over the children (003 Lemma 2); the
    /// residual is formed inside, never stored.
    virtual void
    restrict_residual_add(unsigned int      from_level,
                          VectorType       &coarse,
                          const VectorType &fine_b,
                          const VectorType &fine_Au) const = 0;
  };

  /**
   * The restricted residual of one level in one pass: coarse += R (b − A u)
   * with the level operator A applied inside, so that A u is neither stored
   * nor read back. A V-cycle that has one for level l uses it in place of
   * the level operator's vmult and LevelTransfer::restrict_residual_add (the
   * same result up to rounding).
   */
  template <typename VectorType>
  class ResidualRestriction
  {
  public:
    virtual ~ResidualRestriction() = default;
    virtual void
    restrict_residual_add(VectorType &coarse, const VectorType &fine_b, const VectorType &fine_u) const = 0;
  };

  /// Solver of the coarsest level: u = A_0^{-1} b (u overwritten, primal).
  template <typename VectorType>
  class CoarseSolver
  {
  public:
    virtual ~CoarseSolver() = default;
    virtual void
    solve(VectorType &u, const VectorType &b) const = 0;
  };

  /// A dual-to-primal map applied in place, r ← P r (the DSS-Jacobi
  /// preconditioner D^{-1} S of the point smoothers).
  template <typename VectorType>
  class InPlacePreconditioner
  {
  public:
    virtual ~InPlacePreconditioner() = default;
    virtual void
    apply_in_place(VectorType &r) const = 0;
  };

  /**
   * One step u ← u + V r of the stationary iteration with the monitor pairing
   * ⟨r, V r⟩, split so that the preconditioner keeps the correction V r in
   * whatever form it computed it. A mixed-precision preconditioner then never
   * widens the correction into an outer-precision work vector: it pairs the
   * residual and correction it actually saw and adds the correction to u,
   * widening on the fly, in one pass (000 §7).
   *
   * CG takes its steps too: apply() gives the pairing ⟨r, z⟩, and
   * update_direction() forms the search direction from the kept correction,
   * so that a mixed-precision CG reads its FP32 correction where it adds it
   * and keeps no FP64 copy of it.
   *
   * A step holds work vectors of its own or of its preconditioner (which must
   * outlive it) and serves one iteration at a time.
   */
  template <typename VectorType>
  class StationaryStep
  {
  public:
    virtual ~StationaryStep() = default;
    /// Computes and keeps the correction V r; returns the pairing ⟨r, V r⟩.
    virtual double
    apply(const VectorType &r) = 0;
    /// u += the correction kept by the last apply().
    virtual void
    add_correction(VectorType &u) const = 0;
    /// CG's search direction from the correction z kept by the last apply():
    /// p ← z + β p, or p ← z with @p first (p's content is not read).
    virtual void
    update_direction(VectorType &p, double beta, bool first) const = 0;
    /// CG's deferred update of its iterate with the next search direction:
    /// u += α p, then update_direction(p, β) — two passes over p that a
    /// step may fuse into one (the cell vectors' add_and_sadd).
    virtual void
    add_step_and_update_direction(VectorType &u, const double alpha, VectorType &p, const double beta) const
    {
      u.add(typename VectorType::value_type(alpha), p);
      update_direction(p, beta, false);
    }
    /// CG's residual update r += a q, then apply(r): a step that converts r
    /// (a mixed-precision one rounds it to FP32) may do so in the update's
    /// pass (the cell vectors' add_and_convert).
    virtual double
    update_residual_and_apply(VectorType &r, const double a, const VectorType &q)
    {
      r.add(typename VectorType::value_type(a), q);
      return apply(r);
    }
    /// add_correction(u), then r = mask ∘ (b − A u) with the new u: the update
    /// of this step and the residual of the next. The default makes the two
    /// calls; a step that can add its correction inside the residual pass
    /// overrides it (000 §7: one pass over u instead of two).
    virtual void
    add_correction_and_residual(VectorType                      &u,
                                const LevelOperator<VectorType> &A,
                                const VectorType                &b,
                                const VectorType                &mask,
                                VectorType                      &r) const
    {
      add_correction(u);
      A.masked_residual(r, b, u, mask);
    }
    /// The outer iteration's solve that used this step ended (normally or
    /// by an exception). A step that keeps its preconditioner's work space
    /// from one call to the next (the mixed-precision one: the FP32
    /// correction) holds the preconditioner's WorkSpaceLock from its first
    /// apply to here, so that no other caller of that preconditioner
    /// overwrites the kept correction in between.
    virtual void
    end_of_solve()
    {}
  };

  /// A preconditioner: z = M^{-1} r, r dual, z primal.
  template <typename VectorType>
  class Preconditioner
  {
  public:
    virtual ~Preconditioner() = default;
    virtual void
    vmult(VectorType &z, const VectorType &r) const = 0;
    /// The step of the stationary iteration with this preconditioner (which
    /// must outlive it). The default keeps z = V r in a vector of VectorType:
    /// vmult, ⟨r, z⟩ and u += z, as an outer iteration would do itself.
    virtual std::unique_ptr<StationaryStep<VectorType>>
    make_stationary_step() const;
  };

  /// The default step of Preconditioner: z = V r in an outer work vector.
  template <typename VectorType>
  class PreconditionerStep : public StationaryStep<VectorType>
  {
  public:
    explicit PreconditionerStep(const Preconditioner<VectorType> &V)
      : V_(V)
    {}
    double
    apply(const VectorType &r) override
    {
      if (z_.n_cells() != r.n_cells() || z_.degree() != r.degree())
        z_.reinit(r); // zeroed once, on the first step
      V_.vmult(z_, r);
      return r.dot(z_);
    }
    void
    add_correction(VectorType &u) const override
    {
      u.add(typename VectorType::value_type(1), z_);
    }
    void
    update_direction(VectorType &p, const double beta, const bool first) const override
    {
      using Number = typename VectorType::value_type;
      if (first)
        p = z_;
      else
        p.sadd(Number(beta), Number(1), z_);
    }
    void
    add_step_and_update_direction(VectorType &u, const double alpha, VectorType &p, const double beta) const override
    {
      using Number = typename VectorType::value_type;
      if constexpr (offers_add_and_sadd<VectorType, VectorType>::value)
        u.add_and_sadd(Number(alpha), p, Number(beta), z_);
      else
        StationaryStep<VectorType>::add_step_and_update_direction(u, alpha, p, beta);
    }

  private:
    const Preconditioner<VectorType> &V_;
    VectorType                        z_;
  };

  template <typename VectorType>
  std::unique_ptr<StationaryStep<VectorType>>
  Preconditioner<VectorType>::make_stationary_step() const
  {
    return std::make_unique<PreconditionerStep<VectorType>>(*this);
  }
} // namespace cellwise
