#include <cellwise/base/config.h>
#include <cellwise/fe/lagrange_basis_1d.h>
#include <cellwise/fe/matrices_1d.h>
#include <cellwise/fe/quadrature.h>

namespace cellwise
{
  Matrices1D
  make_matrices_1d(const unsigned int degree)
  {
    check_degree(degree);
    const LagrangeBasis1D basis(degree);
    const unsigned int    n = basis.size();

    // Integrands have degree <= 2p, and p+1 Gauss points are exact to 2p+1.
    const Quadrature1D quad   = gauss_quadrature(degree + 1);
    const DenseMatrix  values = basis.values_at(quad.points);
    const DenseMatrix  grads  = basis.derivatives_at(quad.points);

    Matrices1D result;
    result.degree    = degree;
    result.mass      = DenseMatrix(n, n);
    result.stiffness = DenseMatrix(n, n);
    // Compute the lower triangle and mirror it, so that both matrices are
    // exactly symmetric (the product w*a*b is not, in floating point).
    for (unsigned int i = 0; i < n; ++i)
      for (unsigned int j = 0; j <= i; ++j)
        {
          double m = 0, k = 0;
          for (unsigned int q = 0; q < quad.points.size(); ++q)
            {
              m += quad.weights[q] * values(q, i) * values(q, j);
              k += quad.weights[q] * grads(q, i) * grads(q, j);
            }
          result.mass(i, j) = result.mass(j, i) = m;
          result.stiffness(i, j) = result.stiffness(j, i) = k;
        }

    for (unsigned int c = 0; c < 2; ++c)
      {
        std::vector<double> child_nodes(n);
        for (unsigned int i = 0; i < n; ++i)
          child_nodes[i] = 0.5 * (c + basis.nodes()[i]);
        result.prolongation[c] = basis.values_at(child_nodes);
      }
    return result;
  }
} // namespace cellwise
