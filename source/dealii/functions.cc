#include <cellwise/base/exceptions.h>
#include <cellwise/dealii/functions.h>

namespace cellwise::dealii
{
  ScalarFunction
  to_scalar_function(std::function<double(const ::dealii::Point<3> &)> f)
  {
    CELLWISE_CHECK(static_cast<bool>(f), "cellwise::dealii::to_scalar_function: the function is empty");
    return [f = std::move(f)](const Point &x) { return f(::dealii::Point<3>(x[0], x[1], x[2])); };
  }
} // namespace cellwise::dealii
