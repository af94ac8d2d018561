#pragma once
// The manufactured clamped problem of the Hermite tests: u = Π_d sin²(π x_d)
// on the unit cube (u = ∂ₙu = 0 on its boundary) and f = Δ²u.

#include <cellwise/base/function.h>

#include <cmath>

namespace cellwise::testing
{
  /// g = sin²(πt) and its derivatives up to the fourth.
  inline double
  sin_squared(const double t, const int order)
  {
    const double pi = M_PI;
    switch (order)
      {
        case 0:
          return std::pow(std::sin(pi * t), 2);
        case 1:
          return pi * std::sin(2 * pi * t);
        case 2:
          return 2 * pi * pi * std::cos(2 * pi * t);
        case 3:
          return -4 * pi * pi * pi * std::sin(2 * pi * t);
        default:
          return -8 * pi * pi * pi * pi * std::cos(2 * pi * t);
      }
  }

  /// u = Π_d g(x_d).
  inline double
  clamped_solution(const Point &x)
  {
    return sin_squared(x[0], 0) * sin_squared(x[1], 0) * sin_squared(x[2], 0);
  }

  /// Δ²u = Σ_d g''''(x_d) Π g + 2 Σ_{d<e} g''(x_d) g''(x_e) g(x_f).
  inline double
  clamped_bilaplacian(const Point &x)
  {
    double sum = 0;
    for (unsigned int d = 0; d < 3; ++d)
      sum += sin_squared(x[d], 4) * sin_squared(x[(d + 1) % 3], 0) * sin_squared(x[(d + 2) % 3], 0);
    for (unsigned int f = 0; f < 3; ++f)
      sum += 2 * sin_squared(x[(f + 1) % 3], 2) * sin_squared(x[(f + 2) % 3], 2) * sin_squared(x[f], 0);
    return sum;
  }
} // namespace cellwise::testing
