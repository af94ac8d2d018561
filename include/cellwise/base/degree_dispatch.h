#pragma once
/**
 * @file
 * Runtime-to-compile-time dispatch over the polynomial degree: hot cell
 * kernels take the degree as a template parameter; a front end validates the
 * runtime degree once and calls dispatch_degree. dispatch_constant does the
 * same over any small range (e.g. the mapping degrees a kernel recomputes).
 */

#include <cellwise/base/config.h>

#include <type_traits>
#include <utility>

namespace cellwise
{
  /// Calls f(std::integral_constant<int, v>{}) for the runtime @p value = v in
  /// first..last; a value outside the range takes last (the caller checks).
  template <int first, int last, typename F>
  decltype(auto)
  dispatch_constant(const unsigned int value, F &&f)
  {
    static_assert(first <= last, "dispatch_constant: empty range");
    if constexpr (first == last)
      return f(std::integral_constant<int, last>{});
    else
      {
        if (value == static_cast<unsigned int>(first))
          return f(std::integral_constant<int, first>{});
        return dispatch_constant<first + 1, last>(value, std::forward<F>(f));
      }
  }

  /// Calls f(std::integral_constant<int, p>{}) for the runtime degree p
  /// (1..8; another degree throws cellwise::Error).
  template <typename F>
  decltype(auto)
  dispatch_degree(const unsigned int degree, F &&f)
  {
    check_degree(degree);
    return dispatch_constant<1, 8>(degree, std::forward<F>(f));
  }
} // namespace cellwise
