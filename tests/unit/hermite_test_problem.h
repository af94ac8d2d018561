#pragma once
// The manufactured clamped problem of the Hermite tests: u = Π_d sin²(π x_d)
// on the unit cube (u = ∂ₙu = 0 on its boundary) and f = Δ²u; and a smooth
// field made mostly of its affine part, on which an FP32 operator loses its
// digits unless it subtracts that part (fe/hermite_affine_part.h).

#include <cellwise/base/function.h>
#include <cellwise/operators/hermite_function_tools.h>

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

  /// The jet of 10 + 3x − 2y + z + 0.1 Π_d sin(π x_d): on a fine cell its
  /// values are the affine part up to a few per cent, what an FP32 cycle's
  /// finest level applies A to after the coarse correction.
  inline HermiteJet
  affine_dominated_jet(const Point &x)
  {
    const double pi = M_PI, a = 0.1;
    double       s[3], c[3];
    for (unsigned int d = 0; d < 3; ++d)
      {
        s[d] = std::sin(pi * x[d]);
        c[d] = pi * std::cos(pi * x[d]);
      }
    // u, ∂x, ∂y, ∂xy, ∂z, ∂xz, ∂yz, ∂xyz (hermite_element.h)
    return {{10 + 3 * x[0] - 2 * x[1] + x[2] + a * s[0] * s[1] * s[2], 3 + a * c[0] * s[1] * s[2],
             -2 + a * s[0] * c[1] * s[2], a * c[0] * c[1] * s[2], 1 + a * s[0] * s[1] * c[2], a * c[0] * s[1] * c[2],
             a * s[0] * c[1] * c[2], a * c[0] * c[1] * c[2]}};
  }
} // namespace cellwise::testing
