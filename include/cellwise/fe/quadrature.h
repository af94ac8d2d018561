#pragma once
/**
 * @file
 * One-dimensional quadrature rules on the reference interval [0,1].
 */

#include <vector>

namespace cellwise
{
  /// A quadrature rule on [0,1]: points in ascending order and their weights.
  struct Quadrature1D
  {
    std::vector<double> points;
    std::vector<double> weights;
  };

  /**
   * The @p n_points Gauss–Legendre rule on [0,1] (deal.II's QGauss), exact for
   * polynomials of degree 2 n_points - 1. Points are the roots of the Legendre
   * polynomial, found by Newton's method in extended precision. Throws
   * cellwise::Error unless n_points >= 1.
   */
  Quadrature1D
  gauss_quadrature(unsigned int n_points);

  /**
   * The @p n_points Gauss–Lobatto rule on [0,1] (deal.II's QGaussLobatto):
   * points 0, 1 and the roots of P'_{n-1}, exact for polynomials of degree
   * 2 n_points - 3. These are the support points of FE_Q(n_points - 1).
   * Throws cellwise::Error unless n_points >= 2.
   */
  Quadrature1D
  gauss_lobatto_quadrature(unsigned int n_points);
} // namespace cellwise
