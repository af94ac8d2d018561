#include <cellwise/multigrid/jacobi_smoother.h>
#include <cellwise/multigrid/point_smoother_steps.h>

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
    parameters.check();
  }

  template <typename Number, typename Layout>
  void
  JacobiSmoother<Number, Layout>::smooth(VectorType &u, const VectorType &b, const bool zero_initial_guess, SweepDirection) const
  {
    jacobi_steps(*op_, preconditioner_, u, b, zero_initial_guess, parameters_.omega, parameters_.n_steps, residual_);
  }

  template class JacobiSmoother<double, CellContiguous>;
  template class JacobiSmoother<float, CellContiguous>;
  template class JacobiSmoother<double, CellBlocked<32>>;
  template class JacobiSmoother<float, CellBlocked<32>>;
} // namespace cellwise
