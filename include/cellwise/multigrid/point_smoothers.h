#pragma once
/**
 * @file
 * The point smoothers, written once for both backends over their DSS-Jacobi
 * preconditioner P = D^{-1} S (multigrid/dss_jacobi_preconditioner.h on the
 * host, multigrid/cuda_point_smoothers.h on the device):
 *
 *  - PointJacobiSmoother: masked damped Jacobi with DSS (003 (27),
 *    Algorithm 6), u ← u + ω D^{-1} S ι*(b − A u), n_steps times;
 *  - PointChebyshevSmoother: Chebyshev acceleration of it, as deal.II's
 *    PreconditionChebyshev: a polynomial of degree k in P A that damps the
 *    eigenvalues in [λ_max / range, λ_max], λ_max of P A estimated at set-up
 *    by a few Lanczos steps and enlarged by a safety factor.
 *
 * Both are symmetric operators (polynomials in the symmetric P A), so the
 * same object serves pre- and post-smoothing of a symmetric cycle. The steps
 * are those of multigrid/point_smoother_steps.h, each update fused with the
 * next residual (the operator's smoother_step). The backends name them
 * JacobiSmoother and ChebyshevSmoother (jacobi_smoother.h,
 * chebyshev_smoother.h; cuda::JacobiSmoother, cuda::ChebyshevSmoother).
 *
 * Preconditioner provides VectorType, OperatorType, a constructor
 * (level, operator, mask), assemble(r), inverse_diagonal() and the
 * InPlacePreconditioner interface; the operator is kept by reference.
 */

#include <cellwise/mesh/level.h>
#include <cellwise/multigrid/interfaces.h>
#include <cellwise/multigrid/point_smoother_steps.h>

#include <tuple>
#include <utility>

namespace cellwise
{
  template <typename Preconditioner>
  class PointJacobiSmoother : public LevelSmoother<typename Preconditioner::VectorType>
  {
  public:
    using VectorType   = typename Preconditioner::VectorType;
    using OperatorType = typename Preconditioner::OperatorType;
    using Parameters   = JacobiParameters;

    /// The operator (and, for the host preconditioner, the level) is kept by
    /// reference: temporaries would dangle.
    template <typename... Extra>
    PointJacobiSmoother(const Level &&level, const OperatorType &op, const VectorType &mask, const Parameters &parameters, Extra &&...extra) = delete;
    template <typename... Extra>
    PointJacobiSmoother(const Level &level, const OperatorType &&op, const VectorType &mask, const Parameters &parameters, Extra &&...extra) = delete;
    /// @p op is kept by reference; @p mask is 1 on free and 0 on masked copies.
    /// Refuses a damping with ω λ_max ≥ 2 (λ_max of P A estimated by the
    /// Chebyshev smoother's Lanczos steps), where the smoother diverges: on
    /// box cells the default ω = 0.7 is far from it, on deformed or stretched
    /// cells (the Kershaw box at ε = 0.3: λ_max ≈ 3.3 at Q2) it is not.
    /// @p extra: further arguments of the preconditioner's constructor
    /// (the device's takes the level's shared device data).
    template <typename... Extra>
    PointJacobiSmoother(const Level &level, const OperatorType &op, const VectorType &mask, const Parameters &parameters, Extra &&...extra)
      : op_(&op)
      , preconditioner_(level, op, mask, std::forward<Extra>(extra)...)
      , parameters_(parameters)
    {
      parameters.check();
      const double lambda = estimate_max_eigenvalue(op, preconditioner_, mask, ChebyshevParameters().eigenvalue_iterations);
      CELLWISE_CHECK(!(parameters.omega * lambda >= 2.),
                     "the Jacobi damping " << parameters.omega << " times the largest eigenvalue " << lambda
                                           << " of D^-1 A on a level of " << level.n_cells() << " cells is " << parameters.omega * lambda
                                           << " >= 2: the smoother would diverge (deformed or stretched cells); use a damping "
                                              "below "
                                           << 2. / lambda << " (--jacobi-omega), better about " << 1.3 / lambda
                                           << ", or the Chebyshev smoother, which adapts to the spectrum");
    }

    void
    smooth(VectorType &u, const VectorType &b, const bool zero_initial_guess, SweepDirection) const override
    {
      const auto lock = work_space_lock_.lock("cellwise::PointJacobiSmoother::smooth");
      jacobi_steps(*op_, preconditioner_, u, b, zero_initial_guess, parameters_.omega, parameters_.n_steps, residual_);
    }

    const Preconditioner &
    preconditioner() const
    {
      return preconditioner_;
    }

  private:
    const OperatorType *op_;
    Preconditioner      preconditioner_;
    Parameters          parameters_;
    mutable VectorType  residual_;
    WorkSpaceLock       work_space_lock_;
  };

  template <typename Preconditioner>
  class PointChebyshevSmoother : public LevelSmoother<typename Preconditioner::VectorType>
  {
  public:
    using VectorType   = typename Preconditioner::VectorType;
    using OperatorType = typename Preconditioner::OperatorType;
    using Parameters   = ChebyshevParameters;

    /// The operator (and, for the host preconditioner, the level) is kept by
    /// reference: temporaries would dangle.
    template <typename... Extra>
    PointChebyshevSmoother(const Level &&level, const OperatorType &op, const VectorType &mask, const Parameters &parameters, Extra &&...extra) = delete;
    template <typename... Extra>
    PointChebyshevSmoother(const Level &level, const OperatorType &&op, const VectorType &mask, const Parameters &parameters, Extra &&...extra) = delete;
    /// @p op is kept by reference; @p mask is 1 on free and 0 on masked copies.
    /// @p extra: further arguments of the preconditioner's constructor
    /// (the device's takes the level's shared device data).
    template <typename... Extra>
    PointChebyshevSmoother(const Level &level, const OperatorType &op, const VectorType &mask, const Parameters &parameters, Extra &&...extra)
      : op_(&op)
      , preconditioner_(level, op, mask, std::forward<Extra>(extra)...)
      , parameters_(parameters)
    {
      parameters.check();
      estimated_max_eigenvalue_ = estimate_max_eigenvalue(op, preconditioner_, mask, parameters.eigenvalue_iterations);
      std::tie(min_eigenvalue_, max_eigenvalue_) = parameters.eigenvalue_interval(estimated_max_eigenvalue_);
    }

    void
    smooth(VectorType &u, const VectorType &b, const bool zero_initial_guess, SweepDirection) const override
    {
      const auto lock = work_space_lock_.lock("cellwise::PointChebyshevSmoother::smooth");
      chebyshev_steps(*op_, preconditioner_, u, b, zero_initial_guess, parameters_.degree, min_eigenvalue_, max_eigenvalue_,
                      residual_, update_);
    }

    /// Estimated largest eigenvalue of P A (before the safety factor).
    double
    estimated_max_eigenvalue() const
    {
      return estimated_max_eigenvalue_;
    }

  private:
    const OperatorType *op_;
    Preconditioner      preconditioner_;
    Parameters          parameters_;
    double              estimated_max_eigenvalue_ = 0;
    double              max_eigenvalue_           = 0;
    double              min_eigenvalue_           = 0;
    mutable VectorType  residual_, update_;
    WorkSpaceLock       work_space_lock_;
  };
} // namespace cellwise
