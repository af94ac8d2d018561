// Point smoothers on the device: the DSS-Jacobi preconditioner and the Jacobi
// and Chebyshev smoothers. Only the inversion of the diagonal is a kernel of
// its own; the rest is device DSS, vector operations and the shared algorithms
// of multigrid/point_smoother_steps.h.
//
// Thread mapping of invert_diagonal_kernel: one thread per value (padding
// excluded), t = 256 blockIdx.x + threadIdx.x -> (cell t / n3, DoF t % n3),
// stored at Layout::index(cell, DoF).

#include <cellwise/base/cuda_check.h>
#include <cellwise/cuda/dss.h>
#include <cellwise/cuda/point_smoothers.h>
#include <cellwise/multigrid/point_smoother_steps.h>

#include <cmath>
#include <limits>
#include <random>

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
      CELLWISE_CHECK(parameters.omega > 0 && parameters.omega < 2, "Jacobi damping " << parameters.omega << " is not in (0, 2)");
      CELLWISE_CHECK(parameters.n_steps >= 1, "Jacobi smoother needs at least one step, got " << parameters.n_steps);
    }

    template <typename Number, typename Layout>
    void
    JacobiSmoother<Number, Layout>::smooth(VectorType &u, const VectorType &b, const bool zero_initial_guess, SweepDirection) const
    {
      jacobi_steps(*op_, preconditioner_, u, b, zero_initial_guess, parameters_.omega, parameters_.n_steps, residual_);
    }

    template <typename Number, typename Layout>
    double
    estimate_max_eigenvalue(const LaplaceOperator<Number, Layout>               &op,
                            const DssJacobiPreconditioner<Number, Layout>       &preconditioner,
                            const CellVector<Number, MemorySpace::CUDA, Layout> &mask,
                            const unsigned int                                   n_iterations)
    {
      // The host's start vector, value for value (source/host/chebyshev_smoother.cc).
      CellVector<Number, MemorySpace::Host, Layout> host_mask, host_r;
      mask.copy_to_host(host_mask);
      host_r.reinit(host_mask);
      std::mt19937                           generator(42);
      std::uniform_real_distribution<double> distribution(0.5, 1.5);
      for (unsigned int cell = 0; cell < host_r.n_cells(); ++cell)
        for (unsigned int i = 0; i < host_r.dofs_per_cell(); ++i)
          host_r(cell, i) = Number(distribution(generator)) * host_mask(cell, i);
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
      CELLWISE_CHECK(parameters.degree >= 1, "Chebyshev degree must be at least 1, got " << parameters.degree);
      CELLWISE_CHECK(parameters.smoothing_range > 1, "Chebyshev smoothing range " << parameters.smoothing_range << " must exceed 1");
      CELLWISE_CHECK(parameters.eigenvalue_iterations >= 1,
                     "Chebyshev eigenvalue estimate needs at least one iteration, got " << parameters.eigenvalue_iterations);
      CELLWISE_CHECK(parameters.safety_factor >= 1, "Chebyshev safety factor " << parameters.safety_factor << " is below 1");
      estimated_max_eigenvalue_ = estimate_max_eigenvalue(op, preconditioner_, mask, parameters.eigenvalue_iterations);
      // As the host: a level without free DoFs gets a harmless range.
      if (!(estimated_max_eigenvalue_ > 0))
        estimated_max_eigenvalue_ = 1.;
      max_eigenvalue_ = parameters.safety_factor * estimated_max_eigenvalue_;
      min_eigenvalue_ = max_eigenvalue_ / parameters.smoothing_range;
    }

    template <typename Number, typename Layout>
    void
    ChebyshevSmoother<Number, Layout>::smooth(VectorType &u, const VectorType &b, const bool zero_initial_guess, SweepDirection) const
    {
      chebyshev_steps(*op_, preconditioner_, u, b, zero_initial_guess, parameters_.degree, min_eigenvalue_, max_eigenvalue_,
                      residual_, update_);
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
