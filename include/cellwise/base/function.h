#pragma once
/**
 * @file
 * Points and scalar functions of space.
 */

#include <array>
#include <functional>
#include <vector>

namespace cellwise
{
  using Point          = std::array<double, 3>;
  using ScalarFunction = std::function<double(const Point &)>;

  /// c g_x(x) g_y(y) g_z(z): a constant times a product of functions of one
  /// coordinate each.
  struct SeparableTerm
  {
    double                                              coefficient = 1.;
    std::array<std::function<double(double)>, 3>        factors;
  };

  /**
   * A function of space as a sum of SeparableTerm. Every solution u = Π s_d(x_d)
   * has a right-hand side of this form, −Δu = Σ_d (−s_d'') Π_{e≠d} s_e, and a
   * cell evaluates it at q³ quadrature points from 3q evaluations of the
   * factors per term (assemble_right_hand_side of operators/function_tools.h):
   * at L = 8 the point-wise evaluation took 18 s of the main program's set-up.
   */
  using SeparableFunction = std::vector<SeparableTerm>;

  /// The value of @p f at @p x.
  inline double
  evaluate(const SeparableFunction &f, const Point &x)
  {
    double value = 0.;
    for (const SeparableTerm &term : f)
      value += term.coefficient * term.factors[0](x[0]) * term.factors[1](x[1]) * term.factors[2](x[2]);
    return value;
  }
} // namespace cellwise
