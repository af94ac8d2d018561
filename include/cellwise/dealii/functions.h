#pragma once
/**
 * @file
 * deal.II's functions as the core's ScalarFunction (a function of
 * cellwise::Point = std::array<double, 3>), for MultigridParameters::coefficient
 * and the right-hand sides of the core: step-37's Coefficient<3> or any
 * lambda of a dealii::Point<3> plugs in as it is.
 *
 *   parameters.coefficient = cellwise::dealii::to_scalar_function(Coefficient<3>());
 *   parameters.coefficient = cellwise::dealii::to_scalar_function(
 *     [](const dealii::Point<3> &p) { return 1. / (0.05 + 2. * p.square()); });
 */

#include <cellwise/base/function.h>

#include <deal.II/base/function.h>
#include <deal.II/base/point.h>

#include <functional>
#include <memory>
#include <type_traits>
#include <utility>

namespace cellwise::dealii
{
  /// @p f(dealii::Point<3>) as a function of cellwise::Point.
  ScalarFunction
  to_scalar_function(std::function<double(const ::dealii::Point<3> &)> f);

  /// Component @p component of the deal.II Function @p f (a copy is kept, so
  /// a temporary such as `Coefficient<3>()` is fine). value() is called from
  /// several threads at once, as deal.II's own parallel loops do.
  template <typename FunctionType,
            typename = std::enable_if_t<std::is_base_of_v<::dealii::Function<3>, std::decay_t<FunctionType>>>>
  ScalarFunction
  to_scalar_function(FunctionType &&f, const unsigned int component = 0)
  {
    const auto copy = std::make_shared<const std::decay_t<FunctionType>>(std::forward<FunctionType>(f));
    return [copy, component](const Point &x) { return copy->value(::dealii::Point<3>(x[0], x[1], x[2]), component); };
  }
} // namespace cellwise::dealii
