#include <cellwise/base/config.h>
#include <cellwise/fe/lagrange_basis_1d.h>
#include <cellwise/fe/quadrature.h>

namespace cellwise
{
  LagrangeBasis1D::LagrangeBasis1D(const unsigned int degree)
  {
    check_degree(degree);
    nodes_ = gauss_lobatto_quadrature(degree + 1).points;
    inverse_denominators.resize(nodes_.size());
    for (unsigned int i = 0; i < nodes_.size(); ++i)
      {
        double d = 1;
        for (unsigned int k = 0; k < nodes_.size(); ++k)
          if (k != i)
            d *= nodes_[i] - nodes_[k];
        inverse_denominators[i] = 1. / d;
      }
  }



  double
  LagrangeBasis1D::value(const unsigned int i, const double x) const
  {
    CELLWISE_CHECK(i < size(), "basis function index " << i << " is not below the basis size " << size());
    double v = inverse_denominators[i];
    for (unsigned int k = 0; k < size(); ++k)
      if (k != i)
        v *= x - nodes_[k];
    return v;
  }



  double
  LagrangeBasis1D::derivative(const unsigned int i, const double x) const
  {
    CELLWISE_CHECK(i < size(), "basis function index " << i << " is not below the basis size " << size());
    // Product rule: sum over the dropped factor k of the product of the others.
    // Written without division by (x - x_k) so that it is exact at the nodes.
    double sum = 0;
    for (unsigned int k = 0; k < size(); ++k)
      {
        if (k == i)
          continue;
        double product = 1;
        for (unsigned int m = 0; m < size(); ++m)
          if (m != i && m != k)
            product *= x - nodes_[m];
        sum += product;
      }
    return sum * inverse_denominators[i];
  }



  DenseMatrix
  LagrangeBasis1D::values_at(const std::vector<double> &x) const
  {
    DenseMatrix result(x.size(), size());
    for (unsigned int q = 0; q < x.size(); ++q)
      for (unsigned int i = 0; i < size(); ++i)
        result(q, i) = value(i, x[q]);
    return result;
  }



  DenseMatrix
  LagrangeBasis1D::derivatives_at(const std::vector<double> &x) const
  {
    DenseMatrix result(x.size(), size());
    for (unsigned int q = 0; q < x.size(); ++q)
      for (unsigned int i = 0; i < size(); ++i)
        result(q, i) = derivative(i, x[q]);
    return result;
  }



  DenseMatrix
  collocation_derivatives(const std::vector<double> &points)
  {
    const unsigned int n = static_cast<unsigned int>(points.size());
    CELLWISE_CHECK(n >= 2, "collocation_derivatives: " << n << " points; at least 2 are needed");
    for (unsigned int k = 0; k < n; ++k)
      for (unsigned int m = k + 1; m < n; ++m)
        CELLWISE_CHECK(points[k] != points[m], "collocation_derivatives: points " << k << " and " << m << " are equal");
    DenseMatrix result(n, n);
    for (unsigned int k = 0; k < n; ++k)
      {
        // ℓ_k = Π_{m≠k} (x − x_m) / Π_{m≠k} (x_k − x_m); its derivative at a
        // point x_q ≠ x_k keeps only the term that drops (x − x_q), at x_k
        // it is Σ_{m≠k} 1 / (x_k − x_m): no division by a vanishing factor
        double denominator = 1;
        for (unsigned int m = 0; m < n; ++m)
          if (m != k)
            denominator *= points[k] - points[m];
        for (unsigned int q = 0; q < n; ++q)
          {
            if (q == k)
              {
                double sum = 0;
                for (unsigned int m = 0; m < n; ++m)
                  if (m != k)
                    sum += 1. / (points[k] - points[m]);
                result(q, k) = sum;
                continue;
              }
            double product = 1;
            for (unsigned int m = 0; m < n; ++m)
              if (m != k && m != q)
                product *= points[q] - points[m];
            result(q, k) = product / denominator;
          }
      }
    return result;
  }
} // namespace cellwise
