// Point smoothers on the device: the DSS-Jacobi preconditioner and the Jacobi
// and Chebyshev smoothers. Only the inversion of the diagonal is a kernel of
// its own; the rest is device DSS, vector operations, the fused smoother step
// of cuda::LaplaceOperator and the Lanczos estimate of
// multigrid/point_smoother_steps.h.
//
// The step loops of smooth() compute the iterates of the shared jacobi_steps
// and chebyshev_steps (exact arithmetic; the same scalars, from
// ChebyshevRecurrence for Chebyshev), regrouped so that each step's update is
// fused with the residual of the next (003 §5). Per smooth() of n steps, in
// full-vector passes (DSS counted as the 3 it measures):
//
//   shared algorithm, step k:     [r = b − A u | r = b]  DSS  r *= D^{-1}  d, u updates
//   device loop, before step 0:   r = b − A u  (3)   or   r = b (copy, 2) from zero
//   device loop, step k < n − 1:  DSS (3), fused update + next residual (Jacobi 6;
//                                 Chebyshev 8, 7 in step 0 which reads no d)
//   device loop, step n − 1:      DSS (3), update only (Jacobi 4, Chebyshev 5)
//   (a step from zero reads no u: one pass less)
//
// Jacobi, 2 steps: 24 → 19 passes from a given iterate, 22 → 17 from zero;
// Chebyshev of degree k ≥ 2: 15k − 1 → 11k − 1 from a given iterate,
// 15k − 3 → 11k − 3 from zero.
//
// Thread mapping of invert_diagonal_kernel: one thread per value (padding
// excluded), t = 256 blockIdx.x + threadIdx.x -> (cell t / n3, DoF t % n3),
// stored at Layout::index(cell, DoF).

#include <cellwise/base/cuda_check.h>
#include <cellwise/storage/cuda_dss.h>
#include <cellwise/multigrid/cuda_point_smoothers.h>
#include <cellwise/multigrid/point_smoother_steps.h>

#include <cmath>
#include <limits>
#include <tuple>

namespace cellwise
{
  namespace cuda
  {
    namespace
    {
      /// d ← 1/d on free copies, 0 on masked ones; NaN where the assembled
      /// diagonal is not positive, so that one all_finite() check finds it.
      template <typename Number, typename Layout>
      __global__ void
      invert_diagonal_kernel(Number *diagonal, const Number *mask, const unsigned int n_cells, const unsigned int n3)
      {
        const std::size_t t    = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
        const std::size_t cell = t / n3;
        if (cell >= n_cells)
          return;
        const std::size_t index = Layout::index(cell, static_cast<unsigned int>(t % n3), n3);
        const Number      d     = diagonal[index];
        diagonal[index] = !(d > Number(0)) ? Number(NAN) : (mask[index] != Number(0) ? Number(1) / d : Number(0));
      }
    } // namespace

    template <typename Number, typename Layout>
    DssJacobiPreconditioner<Number, Layout>::DssJacobiPreconditioner(const Level                           &level,
                                                                     const LaplaceOperator<Number, Layout> &op,
                                                                     const VectorType                      &mask)
      : level_data_(level)
    {
      CELLWISE_CHECK(op.n_cells() == level.n_cells(),
                     "cuda Jacobi: operator of " << op.n_cells() << " cells on a level of " << level.n_cells());
      op.compute_cell_diagonals(inverse_diagonal_);
      inverse_diagonal_.check_compatible(mask);
      apply_dss(level_data_, inverse_diagonal_, DssMode::sum);
      const unsigned int n3      = inverse_diagonal_.dofs_per_cell();
      const std::size_t  threads = static_cast<std::size_t>(level.n_cells()) * n3;
      if (threads > 0)
        {
          invert_diagonal_kernel<Number, Layout><<<static_cast<unsigned int>((threads + 255) / 256), 256>>>(
            inverse_diagonal_.data(), mask.data(), level.n_cells(), n3);
          CELLWISE_CUDA_CHECK_LAUNCH();
        }
      CELLWISE_CHECK(inverse_diagonal_.all_finite(),
                     "cuda Jacobi: an assembled diagonal entry on a level of " << level.n_cells()
                                                                               << " cells is not positive");
    }

    template <typename Number, typename Layout>
    void
    DssJacobiPreconditioner<Number, Layout>::apply_in_place(VectorType &r) const
    {
      apply_dss(level_data_, r, DssMode::sum);
      r.scale(inverse_diagonal_);
    }

    template <typename Number, typename Layout>
    void
    DssJacobiPreconditioner<Number, Layout>::assemble(VectorType &r) const
    {
      apply_dss(level_data_, r, DssMode::sum);
    }

    template <typename Number, typename Layout>
    void
    DssJacobiPreconditioner<Number, Layout>::vmult(VectorType &dst, const VectorType &src) const
    {
      dst = src;
      apply_in_place(dst);
    }

    template <typename Number, typename Layout>
    JacobiSmoother<Number, Layout>::JacobiSmoother(const Level                           &level,
                                                   const LaplaceOperator<Number, Layout> &op,
                                                   const VectorType                      &mask,
                                                   const Parameters                      &parameters)
      : op_(&op)
      , preconditioner_(level, op, mask)
      , parameters_(parameters)
    {
      parameters.check();
    }

    namespace
    {
      /// The residual of the first step: r = b − A u, or r = b from zero (no
      /// operator application, as the shared algorithms).
      template <typename Number, typename Layout>
      void
      initial_residual(const LaplaceOperator<Number, Layout>               &op,
                       const CellVector<Number, MemorySpace::CUDA, Layout> &u,
                       const CellVector<Number, MemorySpace::CUDA, Layout> &b,
                       const bool                                           zero_initial_guess,
                       CellVector<Number, MemorySpace::CUDA, Layout>       &residual)
      {
        if (zero_initial_guess)
          residual = b;
        else
          op.residual(residual, b, u);
      }
    } // namespace

    template <typename Number, typename Layout>
    void
    JacobiSmoother<Number, Layout>::smooth(VectorType &u, const VectorType &b, const bool zero_initial_guess, SweepDirection) const
    {
      // jacobi_steps with each update fused with the next residual: the
      // residual_ holds r_k, then S r_k (in place), then r_{k+1}.
      initial_residual(*op_, u, b, zero_initial_guess, residual_);
      typename LaplaceOperator<Number, Layout>::SmootherStep step;
      step.alpha = Number(0);
      step.beta  = Number(parameters_.omega);
      for (unsigned int k = 0; k < parameters_.n_steps; ++k)
        {
          preconditioner_.assemble(residual_);
          step.zero_initial_guess = k == 0 && zero_initial_guess;
          step.compute_residual   = k + 1 < parameters_.n_steps;
          op_->smoother_step(u, residual_, nullptr, b, preconditioner_.inverse_diagonal(), step);
        }
    }

    template <typename Number, typename Layout>
    double
    estimate_max_eigenvalue(const LaplaceOperator<Number, Layout>               &op,
                            const DssJacobiPreconditioner<Number, Layout>       &preconditioner,
                            const CellVector<Number, MemorySpace::CUDA, Layout> &mask,
                            const unsigned int                                   n_iterations)
    {
      // the host's start vector, value for value
      CellVector<Number, MemorySpace::Host, Layout> host_mask;
      mask.copy_to_host(host_mask);
      const auto host_r = lanczos_start_vector(host_mask);
      CellVector<Number, MemorySpace::CUDA, Layout> r;
      r.copy_from_host(host_r);
      return ::cellwise::estimate_max_eigenvalue<CellVector<Number, MemorySpace::CUDA, Layout>>(op, preconditioner, std::move(r),
                                                                                             mask, n_iterations);
    }

    template <typename Number, typename Layout>
    ChebyshevSmoother<Number, Layout>::ChebyshevSmoother(const Level                           &level,
                                                         const LaplaceOperator<Number, Layout> &op,
                                                         const VectorType                      &mask,
                                                         const Parameters                      &parameters)
      : op_(&op)
      , preconditioner_(level, op, mask)
      , parameters_(parameters)
    {
      parameters.check();
      estimated_max_eigenvalue_                  = estimate_max_eigenvalue(op, preconditioner_, mask, parameters.eigenvalue_iterations);
      std::tie(min_eigenvalue_, max_eigenvalue_) = parameters.eigenvalue_interval(estimated_max_eigenvalue_);
    }

    template <typename Number, typename Layout>
    void
    ChebyshevSmoother<Number, Layout>::smooth(VectorType &u, const VectorType &b, const bool zero_initial_guess, SweepDirection) const
    {
      // chebyshev_steps with each update fused with the next residual; the
      // first step (α = 0) writes d without reading it, the last one updates u
      // only (d is not needed after it).
      initial_residual(*op_, u, b, zero_initial_guess, residual_);
      if (update_.n_cells() != residual_.n_cells() || update_.degree() != residual_.degree())
        update_.reinit(residual_);
      ChebyshevRecurrence                                      coefficients(min_eigenvalue_, max_eigenvalue_);
      typename LaplaceOperator<Number, Layout>::SmootherStep step;
      for (unsigned int k = 0; k < parameters_.degree; ++k)
        {
          if (k > 0)
            coefficients.advance();
          preconditioner_.assemble(residual_);
          const bool last         = k + 1 == parameters_.degree;
          step.alpha              = Number(coefficients.alpha());
          step.beta               = Number(coefficients.beta());
          step.zero_initial_guess = k == 0 && zero_initial_guess;
          step.store_update       = !last;
          step.compute_residual   = !last;
          op_->smoother_step(u, residual_, &update_, b, preconditioner_.inverse_diagonal(), step);
        }
    }

#define CELLWISE_INSTANTIATE(Number, Layout)                                                             \
  template class DssJacobiPreconditioner<Number, Layout>;                                               \
  template class JacobiSmoother<Number, Layout>;                                                        \
  template class ChebyshevSmoother<Number, Layout>;                                                     \
  template double estimate_max_eigenvalue(const LaplaceOperator<Number, Layout> &,                      \
                                          const DssJacobiPreconditioner<Number, Layout> &,              \
                                          const CellVector<Number, MemorySpace::CUDA, Layout> &, unsigned int);
    CELLWISE_INSTANTIATE(double, CellContiguous)
    CELLWISE_INSTANTIATE(float, CellContiguous)
    CELLWISE_INSTANTIATE(double, CellBlocked<32>)
    CELLWISE_INSTANTIATE(float, CellBlocked<32>)
#undef CELLWISE_INSTANTIATE
  } // namespace cuda
} // namespace cellwise
