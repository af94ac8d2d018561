#include <cellwise/base/exceptions.h>
#include <cellwise/base/parallel.h>
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
    // the padding of the blocked layout holds zeros: a sum over the storage
    const Number *v = b.data();
    return deterministic_sum(b.storage_size(), 4096, [v](const std::size_t begin, const std::size_t end) {
      double s = 0;
      for (std::size_t k = begin; k < end; ++k)
        s += double(v[k]);
      return s;
    });
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
    const Number  mean = Number(u.dot(weights_) / n_dofs_);
    Number       *v    = u.data();
    const Number *w    = weights_.data();
    // every stored copy, not the padding (its weight is zero)
    parallel_for_ranges(u.storage_size(), value_grain, [=](const std::size_t begin, const std::size_t end) {
      for (std::size_t k = begin; k < end; ++k)
        if (w[k] != Number(0))
          v[k] -= mean;
    });
  }

  CELLWISE_INSTANTIATE_NUMBERS_AND_LAYOUTS(ConstantNullSpace)
} // namespace cellwise
