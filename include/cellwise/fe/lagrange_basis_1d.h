#pragma once
/**
 * @file
 * The 1D nodal basis of FE_Q(p): Lagrange polynomials on Gauss–Lobatto points.
 */

#include <cellwise/base/dense_matrix.h>

#include <vector>

namespace cellwise
{
  /**
   * The degree-p Lagrange polynomials phi_0..phi_p on the p+1 Gauss–Lobatto
   * points of [0,1] in ascending order (deal.II's FE_Q(p) support points in
   * lexicographic 1D order): phi_i(x_j) = delta_ij, x_0 = 0, x_p = 1.
   */
  class LagrangeBasis1D
  {
  public:
    /// Throws cellwise::Error unless min_degree <= degree <= max_degree.
    explicit LagrangeBasis1D(unsigned int degree);

    /// The polynomial degree p.
    unsigned int
    degree() const
    {
      return nodes_.size() - 1;
    }

    /// The number of basis functions, p+1.
    unsigned int
    size() const
    {
      return nodes_.size();
    }

    /// The p+1 nodes, ascending.
    const std::vector<double> &
    nodes() const
    {
      return nodes_;
    }

    /// phi_i(x).
    double
    value(unsigned int i, double x) const;

    /// phi_i'(x).
    double
    derivative(unsigned int i, double x) const;

    /// The matrix (q, i) = phi_i(x_q).
    DenseMatrix
    values_at(const std::vector<double> &x) const;

    /// The matrix (q, i) = phi_i'(x_q).
    DenseMatrix
    derivatives_at(const std::vector<double> &x) const;

  private:
    std::vector<double> nodes_;
    /// 1 / prod_{k != i} (x_i - x_k), the normalisation of phi_i.
    std::vector<double> inverse_denominators;
  };

  /**
   * The collocation derivative on @p points (distinct): Dc(q, k) = ℓ_k'(x_q)
   * for the Lagrange polynomials ℓ_k on the points themselves. A polynomial
   * of degree < size given by its values at the points has its derivatives
   * there as Dc times those values; with the Gauss points of FE_Q(p) and
   * S(q, i) = φ_i(x_q), D(q, i) = φ_i'(x_q): D = Dc S (the general kernel's
   * plane phases, kernels/general_laplace_planes.h). Throws cellwise::Error
   * for fewer than 2 points or two equal ones.
   */
  DenseMatrix
  collocation_derivatives(const std::vector<double> &points);
} // namespace cellwise
