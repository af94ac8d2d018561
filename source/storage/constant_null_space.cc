#include <cellwise/base/exceptions.h>
#include <cellwise/storage/constant_null_space.h>
#include <cellwise/storage/dss.h>

namespace cellwise
{
  template <typename Number, typename Layout>
  ConstantNullSpace<Number, Layout>::ConstantNullSpace(const Level &level, const unsigned int degree)
    : weights_(level.n_cells(), degree)
  {
    // valence of every copy: the sum of a one on each copy of the DoF
    weights_.fill(Number(1));
    apply_dss(level, weights_, DssMode::sum);
    for (std::size_t k = 0; k < weights_.storage_size(); ++k)
      weights_.data()[k] = weights_.data()[k] != Number(0) ? Number(1) / weights_.data()[k] : Number(0);
    n_dofs_ = dual_sum(weights_);
  }

  template <typename Number, typename Layout>
  double
  ConstantNullSpace<Number, Layout>::dual_sum(const VectorType &b) const
  {
    VectorType ones;
    ones.reinit(b);
    ones.fill(Number(1));
    return b.dot(ones);
  }

  template <typename Number, typename Layout>
  void
  ConstantNullSpace<Number, Layout>::make_compatible(VectorType &b) const
  {
    b.check_compatible(weights_);
    b.add(Number(-dual_sum(b) / n_dofs_), weights_);
  }

  template <typename Number, typename Layout>
  void
  ConstantNullSpace<Number, Layout>::subtract_mean(VectorType &u) const
  {
    u.check_compatible(weights_);
    VectorType shift;
    shift.reinit(u);
    shift.fill(Number(1));
    u.add(Number(-u.dot(weights_) / n_dofs_), shift);
  }

  template class ConstantNullSpace<double, CellContiguous>;
  template class ConstantNullSpace<float, CellContiguous>;
  template class ConstantNullSpace<double, CellBlocked<32>>;
  template class ConstantNullSpace<float, CellBlocked<32>>;
} // namespace cellwise
