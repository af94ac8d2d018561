#pragma once
/**
 * @file
 * The FP64 outer iterations on cell-wise vectors, written once over the
 * vector type (host and device):
 *
 * - preconditioned CG in primal–dual form: residual r dual, search direction p
 *   and preconditioned residual z primal, inner products by pairing ⟨r, z⟩ —
 *   no assembly (003 §4.4);
 * - the stationary iteration u ← u + V(b − A u).
 *
 * Both monitor η = ⟨r, V r⟩^{1/2} from the cycle's own correction and report
 * it to an IterationControl. The Dirichlet entries of every residual are zeroed
 * (@p mask is 0 there), so that the opposite-sign boundary fluxes of b and A u
 * never enter the cycle.
 *
 * An optional @p prepare_residual(r, step) acts on the residual before it is
 * preconditioned: the mixed-precision solver rebalances it there (000 §4.4).
 * It must keep the represented dual G^T r (then CG's iterates are unchanged,
 * since ⟨Π r, z⟩ = ⟨r, z⟩ for the primal search directions).
 */

#include <cellwise/base/exceptions.h>
#include <cellwise/multigrid/interfaces.h>
#include <cellwise/multigrid/solver_control.h>

#include <cmath>
#include <functional>
#include <memory>
#include <sstream>
#include <type_traits>
#include <utility>

namespace cellwise
{
  namespace internal
  {
    [[noreturn]] inline void
    throw_no_convergence(const char *solver, const IterationControl &control, const unsigned int step, const double value)
    {
      std::ostringstream message;
      message << solver << " stopped without convergence at step " << step << ": ";
      const std::string reason = control.failure_reason();
      if (!reason.empty())
        message << reason;
      else if (!std::isfinite(value))
        message << "the monitored value is " << value;
      else
        message << "the iteration control reported failure (monitored value " << value << ")";
      throw NoConvergence(message.str(), step, value);
    }

    /// The first pairing ⟨r_0, V r_0⟩ is not finite: a NaN or infinity in b or
    /// in u reaches it (through A u, the mask keeps NaN), so the solvers stop
    /// here whatever the control says, before u is changed; solve_outer then
    /// names the input (the inputs are checked only on this error path, which
    /// saves two passes over them per solve).
    [[noreturn]] inline void
    throw_non_finite_start(const char *solver, const double rz)
    {
      std::ostringstream message;
      message << solver << ": the initial monitor pairing ⟨r, V r⟩ is " << rz
              << " (NaN or infinity in the right-hand side or the initial guess, or an overflow)";
      throw NoConvergence(message.str(), 0, rz);
    }

    /// η from ⟨r, z⟩. A negative pairing of more than rounding size (relative to
    /// the initial one) means the preconditioner is not positive definite; a
    /// tiny negative one is the rounding of a residual the cycle no longer
    /// resolves (an FP32 cycle without rebalancing, 000 §4.3), and its
    /// magnitude is used.
    inline double
    monitor_from_pairing(const char *solver, const double rz, const double initial_rz, const unsigned int step)
    {
      CELLWISE_CHECK(!(rz < 0) || -rz <= 1e-8 * initial_rz,
                     solver << ": the preconditioned residual pairing ⟨r, V r⟩ = " << rz << " at step " << step
                            << " is negative: the preconditioner is not positive definite");
      return std::sqrt(std::abs(rz));
    }
  } // namespace internal

  template <typename VectorType>
  using ResidualHook = std::function<void(VectorType &, unsigned int)>;

  /**
   * The work vectors of the outer iterations (CG's residual, search direction
   * and operator product; the stationary iteration's residual) and the
   * preconditioner's step (which keeps z = V r: an FP64 vector, or in mixed
   * precision nothing of its own), kept by a solver between its solves. At
   * 10^8 unknowns each vector is a GB or more, and allocating, zeroing and
   * freeing them in every solve is time the GPU waits (doc/performance-log.md,
   * "Work vectors kept between solves"). Vectors that already have the
   * residual's shape are reused without a zero fill: every step writes them
   * whole before it reads them. One solve at a time per object, as for the
   * preconditioners' own work vectors.
   */
  template <typename VectorType>
  struct OuterWorkVectors
  {
    VectorType r, p, q;

    /// The step of @p V, made at the first call and again only for another
    /// preconditioner.
    StationaryStep<VectorType> &
    step_of(const Preconditioner<VectorType> &V)
    {
      if (!step_ || step_owner_ != &V)
        {
          step_       = V.make_stationary_step();
          step_owner_ = &V;
        }
      return *step_;
    }

  private:
    std::unique_ptr<StationaryStep<VectorType>> step_;
    const Preconditioner<VectorType>           *step_owner_ = nullptr;
  };

  namespace internal
  {
    /// Tells a step that the solve using it ended, however it ends (a
    /// return, a NoConvergence, an error): StationaryStep::end_of_solve.
    template <typename VectorType>
    class StepOfOneSolve
    {
    public:
      explicit StepOfOneSolve(StationaryStep<VectorType> &step)
        : step_(step)
      {}
      StepOfOneSolve(const StepOfOneSolve &) = delete;
      StepOfOneSolve &
      operator=(const StepOfOneSolve &) = delete;
      ~StepOfOneSolve()
      {
        step_.end_of_solve();
      }

    private:
      StationaryStep<VectorType> &step_;
    };

    /// Whether VectorType has has_shape_of (the cell vectors).
    template <typename VectorType, typename = void>
    struct offers_has_shape_of : std::false_type
    {};
    template <typename VectorType>
    struct offers_has_shape_of<VectorType,
                               std::void_t<decltype(std::declval<const VectorType &>().has_shape_of(std::declval<const VectorType &>()))>>
      : std::true_type
    {};

    /// @p x in the shape (and a distributed vector's partition) of @p model:
    /// reinit (zeroed) unless x is a cell vector that already has it, whose
    /// old values the caller overwrites before reading them.
    template <typename VectorType>
    void
    shape_like(VectorType &x, const VectorType &model)
    {
      if constexpr (offers_has_shape_of<VectorType>::value)
        if (x.has_shape_of(model))
          return;
      x.reinit(model);
    }
  } // namespace internal

  /// Preconditioned CG for A u = b from the given u; throws NoConvergence when
  /// @p control reports failure. @p prepare_residual, if given, is called at
  /// the steps that are multiples of @p prepare_period only (step 0, the
  /// initial residual, included); at the other steps the residual's update
  /// goes to the preconditioner's step, which may fuse it with its own first
  /// pass (the mixed-precision rounding). The iterate's update u += α p is
  /// deferred into the pass that forms the next search direction (one read
  /// of p fewer per step) and made at the end. @p work, if given, holds the
  /// work vectors and the preconditioner's step between solves.
  template <typename VectorType>
  SolveStatistics
  solve_cg(const LevelOperator<VectorType>  &A,
           const Preconditioner<VectorType> &V,
           VectorType                       &u,
           const VectorType                 &b,
           const VectorType                 &mask,
           IterationControl                 &control,
           const ResidualHook<VectorType>   &prepare_residual = {},
           const unsigned int                prepare_period   = 1,
           OuterWorkVectors<VectorType>     *work             = nullptr)
  {
    CELLWISE_CHECK(prepare_period > 0, "CG: the residual hook's period must be positive");
    using Number = typename VectorType::value_type;
    OuterWorkVectors<VectorType>  own_work;
    OuterWorkVectors<VectorType> &w = work ? *work : own_work;
    // z = V r is kept by the preconditioner's step, in whatever form it
    // computed it (a mixed-precision one: its FP32 correction, never widened
    // into a vector here)
    StationaryStep<VectorType> *const          cycle = &w.step_of(V);
    const internal::StepOfOneSolve<VectorType> step_in_use(*cycle);
    VectorType                       &r = w.r, &p = w.p, &q = w.q;
    A.masked_residual(r, b, u, mask);
    if (prepare_residual)
      prepare_residual(r, 0);
    double rz = cycle->apply(r);
    if (!std::isfinite(rz))
      internal::throw_non_finite_start("CG", rz);
    SolveStatistics statistics;
    const double    initial_rz = rz;
    statistics.monitor.push_back(internal::monitor_from_pairing("CG", rz, std::abs(rz), 0));
    IterationControl::State state = control.check(0, statistics.monitor.back());
    internal::shape_like(p, r); // written whole by the first direction
    cycle->update_direction(p, 0., true);
    internal::shape_like(q, r); // written whole by every A p
    double alpha = 0; // the step not yet added to u
    for (unsigned int step = 1; state == IterationControl::iterate; ++step)
      {
        const double pq = A.masked_vmult_dot(q, p, mask);
        CELLWISE_CHECK(pq > 0 || !std::isfinite(pq), "CG: ⟨p, A p⟩ = " << pq << " at step " << step << " is not positive: the operator is not positive definite");
        alpha = rz / pq;
        // u += α p waits for the next search direction's pass (or the end)
        double rz_new;
        if (prepare_residual && step % prepare_period == 0)
          {
            r.add(Number(-alpha), q);
            prepare_residual(r, step);
            rz_new = cycle->apply(r);
          }
        else
          rz_new = cycle->update_residual_and_apply(r, -alpha, q);
        statistics.monitor.push_back(std::isfinite(rz_new) ? internal::monitor_from_pairing("CG", rz_new, initial_rz, step) : rz_new);
        state = control.check(step, statistics.monitor.back());
        if (state != IterationControl::iterate)
          break;
        cycle->add_step_and_update_direction(u, alpha, p, rz_new / rz);
        alpha = 0;
        rz = rz_new;
      }
    if (alpha != 0)
      u.add(Number(alpha), p);
    if (state == IterationControl::failure)
      internal::throw_no_convergence("CG", control, statistics.iterations(), statistics.monitor.back());
    return statistics;
  }

  /// The stationary iteration u ← u + V(b − A u). The monitor of u_n is
  /// available only after the cycle applied to its residual; u_n is returned
  /// when η_n meets the tolerance (the correction computed with it is not
  /// added, as in 000 §7.3). With @p stop_on_extrapolated_monitor, after adding
  /// the correction the monitor of the new iterate is estimated as
  /// η̂_{n+1} = η_n² / η_{n−1} (000 eq. 14) and the iteration stops when the
  /// estimate meets the tolerance, saving the extra cycle; η̂ is an estimate,
  /// not a bound. The last monitor entry is then the estimate.
  /// @p work, if given, holds the residual and the preconditioner's step
  /// between solves (a solver that keeps them saves an allocation and a zero
  /// fill per solve: 8.6 GB at L = 8).
  ///
  /// The cycle runs through V's StationaryStep: V r stays with the
  /// preconditioner (in mixed precision the FP32 correction, paired with the
  /// FP32 residual the cycle saw and widened while it is added to u), so that
  /// no work vector of VectorType holds it; the step adds it to u together
  /// with the next residual, which a step may fuse into one pass.
  template <typename VectorType>
  SolveStatistics
  solve_stationary(const LevelOperator<VectorType>  &A,
                   const Preconditioner<VectorType> &V,
                   VectorType                       &u,
                   const VectorType                 &b,
                   const VectorType                 &mask,
                   IterationControl                 &control,
                   const ResidualHook<VectorType>   &prepare_residual             = {},
                   const bool                        stop_on_extrapolated_monitor = false,
                   OuterWorkVectors<VectorType>     *work                         = nullptr)
  {
    OuterWorkVectors<VectorType>      own_work;
    OuterWorkVectors<VectorType>     &w     = work ? *work : own_work;
    StationaryStep<VectorType> *const cycle = &w.step_of(V);
    const internal::StepOfOneSolve<VectorType> step_in_use(*cycle);
    VectorType                       &r     = w.r;
    SolveStatistics                   statistics;
    double                            initial_rz = 0;
    A.masked_residual(r, b, u, mask);
    for (unsigned int step = 0;; ++step)
      {
        if (prepare_residual)
          prepare_residual(r, step);
        const double rz = cycle->apply(r);
        if (step == 0 && !std::isfinite(rz))
          internal::throw_non_finite_start("stationary iteration", rz);
        if (step == 0)
          initial_rz = std::abs(rz);
        statistics.monitor.push_back(std::isfinite(rz) ? internal::monitor_from_pairing("stationary iteration", rz, initial_rz, step) : rz);
        const IterationControl::State state = control.check(step, statistics.monitor.back());
        if (state == IterationControl::success)
          return statistics;
        if (state == IterationControl::failure)
          internal::throw_no_convergence("stationary iteration", control, step, statistics.monitor.back());
        // The estimate depends on the monitors only, so it is checked before
        // the update: the last update then skips the residual it would not use.
        if (stop_on_extrapolated_monitor && step >= 1)
          {
            const double eta      = statistics.monitor[step];
            const double previous = statistics.monitor[step - 1];
            const double estimate = previous > 0 ? eta * eta / previous : 0.;
            if (control.check(step + 1, estimate) == IterationControl::success)
              {
                cycle->add_correction(u);
                statistics.monitor.push_back(estimate);
                return statistics;
              }
          }
        cycle->add_correction_and_residual(u, A, b, mask, r);
      }
  }
} // namespace cellwise
