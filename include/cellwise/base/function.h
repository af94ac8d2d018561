#pragma once
/**
 * @file
 * Points and scalar functions of space.
 */

#include <array>
#include <functional>

namespace cellwise
{
  using Point          = std::array<double, 3>;
  using ScalarFunction = std::function<double(const Point &)>;
} // namespace cellwise
