#pragma once
/**
 * @file
 * Runtime-to-compile-time dispatch over the polynomial degree: hot cell
 * kernels take the degree as a template parameter; a front end validates the
 * runtime degree once and calls dispatch_degree.
 */

#include <cellwise/base/config.h>

#include <type_traits>

namespace cellwise
{
  /// Calls f(std::integral_constant<int, p>{}) for the runtime degree p.
  template <typename F>
  decltype(auto)
  dispatch_degree(const unsigned int degree, F &&f)
  {
    check_degree(degree);
    switch (degree)
      {
        case 1:
          return f(std::integral_constant<int, 1>{});
        case 2:
          return f(std::integral_constant<int, 2>{});
        case 3:
          return f(std::integral_constant<int, 3>{});
        case 4:
          return f(std::integral_constant<int, 4>{});
        case 5:
          return f(std::integral_constant<int, 5>{});
        case 6:
          return f(std::integral_constant<int, 6>{});
        case 7:
          return f(std::integral_constant<int, 7>{});
        default:
          return f(std::integral_constant<int, 8>{});
      }
  }
} // namespace cellwise
