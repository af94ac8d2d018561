#include <cellwise/multigrid/jacobi_smoother.h>

namespace cellwise
{
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
    for (unsigned int step = 0; step < parameters_.n_steps; ++step)
      {
        if (step == 0 && zero_initial_guess)
          residual_ = b;
        else
          op_->residual(residual_, b, u);
        preconditioner_.apply_in_place(residual_);
        if (step == 0 && zero_initial_guess)
          u.equ(Number(parameters_.omega), residual_);
        else
          u.add(Number(parameters_.omega), residual_);
      }
  }

  template class JacobiSmoother<double, CellContiguous>;
  template class JacobiSmoother<float, CellContiguous>;
  template class JacobiSmoother<double, CellBlocked<32>>;
  template class JacobiSmoother<float, CellBlocked<32>>;
} // namespace cellwise
