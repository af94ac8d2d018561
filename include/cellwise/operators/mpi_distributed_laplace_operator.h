#pragma once
/**
 * @file
 * The cell-wise Laplace operator on a level distributed over MPI ranks: the
 * host LaplaceOperator of the rank's local level applied to the local cells
 * of distributed vectors. The operator is cell-local, so it needs no
 * exchange (DSS, the only one, happens in the smoothers and the outer
 * iteration's preconditioner); it also computes the ghost cells, whose
 * results no owned value reads (a few per cent of the cells at the sizes a
 * rank holds; restricting it to the owned cells is an optimization left).
 * On device vectors (@p Memory = MemorySpace::CUDA) it is the device
 * LaplaceOperator of the local level.
 *
 * Built only with MPI (library cellwise::mpi).
 */

#include <cellwise/base/exceptions.h>
#include <cellwise/operators/cuda_laplace_operator.h>
#include <cellwise/operators/laplace_operator.h>
#include <cellwise/operators/level_operator.h>
#include <cellwise/operators/smoother_step.h>
#include <cellwise/storage/mpi_distributed_cell_vector.h>

#include <memory>
#include <type_traits>

namespace cellwise
{
  template <typename Number, typename Layout = CellContiguous, typename Memory = MemorySpace::Host>
  class DistributedLaplaceOperator : public LevelOperator<DistributedCellVector<Number, Layout, Memory>>
  {
  public:
    using value_type = Number;
    using VectorType = DistributedCellVector<Number, Layout, Memory>;
    /// The operator of the rank's local level: host or device.
    using LocalOperator = std::conditional_t<std::is_same_v<Memory, MemorySpace::Host>,
                                             LaplaceOperator<Number, Layout>,
                                             cuda::LaplaceOperator<Number, Layout>>;

    /// A variable @p coefficient c of −∇·(c∇u) (empty: 1) is evaluated on
    /// the rank's owned and ghost cells as the serial operator evaluates it
    /// on the same cells, so the ranks' operators are the serial one's
    /// restrictions. The device operator takes it as cell averages only.
    DistributedLaplaceOperator(std::shared_ptr<const DistributedLevel> level,
                               const unsigned int                      degree,
                               const ScalarFunction                   &coefficient = {},
                               const CoefficientEvaluation evaluation = CoefficientEvaluation::quadrature_points)
      : level_(std::move(level))
      , operator_(make_local_operator(level_->local->level, degree, coefficient, evaluation))
    {
      if constexpr (!std::is_same_v<Memory, MemorySpace::Host>)
        if (coefficient)
          {
            CELLWISE_CHECK(evaluation == CoefficientEvaluation::cell_average,
                           "the device operator takes a coefficient as its cell averages only "
                           "(CoefficientEvaluation::cell_average)");
            operator_.set_coefficient(level_->local->level, coefficient);
          }
    }

    /// dst = A src
    void
    vmult(VectorType &dst, const VectorType &src) const override
    {
      shape_like(dst, src);
      operator_.vmult(dst.local(), src.local());
    }
    /// dst = b − A u
    void
    residual(VectorType &dst, const VectorType &b, const VectorType &u) const override
    {
      shape_like(dst, b);
      operator_.residual(dst.local(), b.local(), u.local());
    }
    /// The point smoothers' fused step (operators/smoother_step.h).
    void
    smoother_step(VectorType                 &u,
                  VectorType                 &r,
                  VectorType                 *update,
                  const VectorType           &b,
                  const VectorType           &inverse_diagonal,
                  const SmootherStep<Number> &step) const
    {
      operator_.smoother_step(u.local(), r.local(), update ? &update->local() : nullptr, b.local(), inverse_diagonal.local(),
                              step);
    }

    unsigned int
    n_cells() const
    {
      return operator_.n_cells();
    }
    unsigned int
    degree() const
    {
      return operator_.degree();
    }
    TraceLayers
    trace_layers() const
    {
      return lagrange_trace_layers(operator_.degree());
    }
    /// The operator of the local level.
    const LocalOperator &
    local_operator() const
    {
      return operator_;
    }
    const std::shared_ptr<const DistributedLevel> &
    level() const
    {
      return level_;
    }

  private:
    /// The rank's operator, on the host with the coefficient from the start
    /// (its metric made once); the device operator takes the coefficient's
    /// cell averages afterwards (constructor). A prvalue either way: the
    /// operators need not be movable.
    static LocalOperator
    make_local_operator(const Level &level, const unsigned int degree, const ScalarFunction &coefficient,
                        const CoefficientEvaluation evaluation)
    {
      if constexpr (std::is_same_v<Memory, MemorySpace::Host>)
        return LocalOperator(level, degree, coefficient, evaluation);
      else
        return LocalOperator(level, degree);
    }

    static void
    shape_like(VectorType &dst, const VectorType &src)
    {
      if (dst.n_cells() != src.n_cells() || dst.degree() != src.degree() || dst.level_pointer() != src.level_pointer())
        dst.reinit(src);
    }

    std::shared_ptr<const DistributedLevel> level_;
    LocalOperator                           operator_;
  };
} // namespace cellwise
