// The DSS-Jacobi preconditioner on the device. Only the inversion of the
// diagonal is a kernel of its own; the rest is device DSS and the vector
// scaling. The Jacobi and Chebyshev smoothers on it are the shared
// algorithms of multigrid/point_smoothers.h, whose step loops
// (point_smoother_steps.h) fuse each step's update with the residual of the
// next in cuda::LaplaceOperator::smoother_step (003 §5). Per smooth() of n
// steps, in full-vector passes (DSS counted as the 3 it measures), against
// the unfused composition of the same iterates:
//
//   unfused, step k:        [r = b − A u | r = b]  DSS  r *= D^{-1}  d, u updates
//   fused, before step 0:   r = b − A u  (3)   or   r = b (copy, 2) from zero
//   fused, step k < n − 1:  DSS (3), fused update + next residual (Jacobi 6;
//                           Chebyshev 8, 7 in step 0 which reads no d)
//   fused, step n − 1:      DSS (3), update only (Jacobi 4, Chebyshev 5)
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
#include <cellwise/multigrid/cuda_hermite_dss_jacobi_step.h>
#include <cellwise/multigrid/cuda_point_smoothers.h>
#include <cellwise/operators/cuda_general_laplace_operator.h>
#include <cellwise/operators/cuda_hermite_biharmonic_operator.h>

#include <cmath>
#include <memory>
#include <utility>

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

    template <typename Number, typename Layout, typename Operator>
    DssJacobiPreconditioner<Number, Layout, Operator>::DssJacobiPreconditioner(const Level      &level,
                                                                               const Operator   &op,
                                                                               const VectorType &mask)
      // the degree: the skeleton phase of an unstructured level
      : DssJacobiPreconditioner(level, op, mask, std::make_shared<const LevelData>(level, mask.degree()))
    {}

    template <typename Number, typename Layout, typename Operator>
    DssJacobiPreconditioner<Number, Layout, Operator>::DssJacobiPreconditioner(const Level                      &level,
                                                                               const Operator                   &op,
                                                                               const VectorType                 &mask,
                                                                               std::shared_ptr<const LevelData> level_data)
      : level_data_(std::move(level_data))
      , layers_(op.trace_layers())
    {
      CELLWISE_CHECK(level_data_ && level_data_->n_cells() == level.n_cells(),
                     "cuda Jacobi: the device data of a level of " << (level_data_ ? level_data_->n_cells() : 0)
                                                                   << " cells for a level of " << level.n_cells());
      CELLWISE_CHECK(op.n_cells() == level.n_cells(),
                     "cuda Jacobi: operator of " << op.n_cells() << " cells on a level of " << level.n_cells());
      op.compute_cell_diagonals(inverse_diagonal_);
      inverse_diagonal_.check_compatible(mask);
      apply_dss(*level_data_, inverse_diagonal_, DssMode::sum, layers_);
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

    template <typename Number, typename Layout, typename Operator>
    const LevelData &
    DssJacobiPreconditioner<Number, Layout, Operator>::level_data() const
    {
      CELLWISE_CHECK(level_data_, "cuda Jacobi: the preconditioner was not set up for a level");
      return *level_data_;
    }

    template <typename Number, typename Layout, typename Operator>
    void
    DssJacobiPreconditioner<Number, Layout, Operator>::apply_in_place(VectorType &r) const
    {
      apply_dss(level_data(), r, DssMode::sum, layers_);
      r.scale(inverse_diagonal_);
    }

    template <typename Number, typename Layout, typename Operator>
    void
    DssJacobiPreconditioner<Number, Layout, Operator>::assemble(VectorType &r) const
    {
      apply_dss(level_data(), r, DssMode::sum, layers_);
    }

    template <typename Number, typename Layout, typename Operator>
    bool
    DssJacobiPreconditioner<Number, Layout, Operator>::fuses_update() const
    {
      return layers_ == hermite_trace_layers() && hermite_dss_jacobi_update_supported(level_data());
    }

    template <typename Number, typename Layout, typename Operator>
    void
    DssJacobiPreconditioner<Number, Layout, Operator>::assemble_and_update(VectorType                 &u,
                                                                           const VectorType           &r,
                                                                           VectorType                 *update,
                                                                           const SmootherStep<Number> &step) const
    {
      CELLWISE_CHECK(fuses_update(), "cuda Jacobi: the DSS inside the update needs the cubic Hermite element on a level that "
                                     "fills a box");
      hermite_dss_jacobi_update(level_data(), u, r, update, inverse_diagonal_, step);
    }

    template <typename Number, typename Layout, typename Operator>
    void
    DssJacobiPreconditioner<Number, Layout, Operator>::vmult(VectorType &dst, const VectorType &src) const
    {
      dst = src;
      apply_in_place(dst);
    }

    CELLWISE_INSTANTIATE_NUMBERS_AND_LAYOUTS(DssJacobiPreconditioner)
    CELLWISE_INSTANTIATE_NUMBERS_AND_LAYOUTS_OF_OPERATOR(DssJacobiPreconditioner, HermiteBiharmonicOperator)
    CELLWISE_INSTANTIATE_NUMBERS_AND_LAYOUTS_OF_OPERATOR(DssJacobiPreconditioner, GeneralLaplaceOperator)
  } // namespace cuda
} // namespace cellwise
