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
