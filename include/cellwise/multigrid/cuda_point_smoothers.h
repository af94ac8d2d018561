#pragma once
/**
 * @file
 * The point smoothers of the CUDA backend, device twins of
 * multigrid/dss_jacobi_preconditioner.h, jacobi_smoother.h and
 * chebyshev_smoother.h: the masked DSS-Jacobi preconditioner P = D^{-1} S
 * (device DSS, then the entrywise scaling by the stored inverse diagonal), and
 * the Jacobi and Chebyshev smoothers. Their smooth() computes the iterates of
 * the algorithms that host and device share (multigrid/point_smoother_steps.h)
 * in a device step loop that fuses each step's update with the next residual
 * (cuda::LaplaceOperator::smoother_step, 003 §5): the same iterates in exact
 * arithmetic, the same Chebyshev scalars (ChebyshevRecurrence).
 *
 * The inverse diagonal is computed on the device: cell diagonals of the A_K,
 * DSS sum, inversion with the mask folded in (zero on masked copies). The
 * Chebyshev eigenvalue estimate starts from the host's seeded random vector
 * (std::mt19937(42), uniform on [0.5, 1.5], times the mask, generated on the
 * host in the same order and uploaded), so host and device estimates agree to
 * rounding.
 *
 * Compiles with a plain C++ compiler (implemented in
 * source/multigrid/cuda_point_smoothers.cu).
 */

#include <cellwise/operators/cuda_laplace_operator.h>
#include <cellwise/mesh/cuda_level_data.h>
#include <cellwise/multigrid/interfaces.h>
#include <cellwise/multigrid/point_smoother_steps.h>
#include <cellwise/storage/cuda_cell_vector.h>

namespace cellwise
{
  namespace cuda
  {
    template <typename Number, typename Layout = CellContiguous>
    class DssJacobiPreconditioner : public InPlacePreconditioner<CellVector<Number, MemorySpace::CUDA, Layout>>
    {
    public:
      using VectorType = CellVector<Number, MemorySpace::CUDA, Layout>;

      DssJacobiPreconditioner() = default;
      /// @p mask is 1 on free and 0 on masked copies. Throws cellwise::Error if
      /// an assembled diagonal entry is not positive.
      DssJacobiPreconditioner(const Level &level, const LaplaceOperator<Number, Layout> &op, const VectorType &mask);

      /// dst = D^{-1} S src
      void
      vmult(VectorType &dst, const VectorType &src) const;
      /// r ← S r in place: the DSS half of apply_in_place, for the fused step
      /// loops, which apply D^{-1} inside LaplaceOperator::smoother_step.
      void
      assemble(VectorType &r) const;
      /// r ← D^{-1} S r in place
      void
      apply_in_place(VectorType &r) const override;

      const VectorType &
      inverse_diagonal() const
      {
        return inverse_diagonal_;
      }

    private:
      LevelData  level_data_;
      VectorType inverse_diagonal_;
    };

    template <typename Number, typename Layout = CellContiguous>
    class JacobiSmoother : public LevelSmoother<CellVector<Number, MemorySpace::CUDA, Layout>>
    {
    public:
      using VectorType = CellVector<Number, MemorySpace::CUDA, Layout>;

      using Parameters = JacobiParameters;

      /// @p op is kept by reference.
      JacobiSmoother(const Level &level, const LaplaceOperator<Number, Layout> &op, const VectorType &mask, const Parameters &parameters);

      void
      smooth(VectorType &u, const VectorType &b, bool zero_initial_guess, SweepDirection direction) const override;

      const DssJacobiPreconditioner<Number, Layout> &
      preconditioner() const
      {
        return preconditioner_;
      }

    private:
      const LaplaceOperator<Number, Layout>  *op_;
      DssJacobiPreconditioner<Number, Layout> preconditioner_;
      Parameters                              parameters_;
      mutable VectorType                      residual_;
    };

    template <typename Number, typename Layout = CellContiguous>
    class ChebyshevSmoother : public LevelSmoother<CellVector<Number, MemorySpace::CUDA, Layout>>
    {
    public:
      using VectorType = CellVector<Number, MemorySpace::CUDA, Layout>;

      /// As cellwise::ChebyshevSmoother::Parameters.
      using Parameters = ChebyshevParameters;

      /// @p op is kept by reference.
      ChebyshevSmoother(const Level &level, const LaplaceOperator<Number, Layout> &op, const VectorType &mask, const Parameters &parameters);

      void
      smooth(VectorType &u, const VectorType &b, bool zero_initial_guess, SweepDirection direction) const override;

      /// Estimated largest eigenvalue of P A (before the safety factor).
      double
      estimated_max_eigenvalue() const
      {
        return estimated_max_eigenvalue_;
      }

    private:
      const LaplaceOperator<Number, Layout>  *op_;
      DssJacobiPreconditioner<Number, Layout> preconditioner_;
      Parameters                              parameters_;
      double                                  estimated_max_eigenvalue_ = 0;
      double                                  max_eigenvalue_           = 0;
      double                                  min_eigenvalue_           = 0;
      mutable VectorType                      residual_, update_;
    };

    /// λ_max of P A by @p n_iterations Lanczos steps from the host's seeded
    /// random masked start vector (see the file comment).
    template <typename Number, typename Layout>
    double
    estimate_max_eigenvalue(const LaplaceOperator<Number, Layout>         &op,
                            const DssJacobiPreconditioner<Number, Layout> &preconditioner,
                            const CellVector<Number, MemorySpace::CUDA, Layout> &mask,
                            unsigned int                                   n_iterations);
  } // namespace cuda
} // namespace cellwise
