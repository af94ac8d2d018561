#include <cellwise/fe/hermite_basis_1d.h>
#include <cellwise/fe/hermite_matrices_1d.h>
#include <cellwise/fe/quadrature.h>

namespace cellwise
{
  namespace hermite
  {
    Matrices1D
    make_matrices_1d()
    {
      // products of two cubics: degree 6, exact with 4 Gauss points
      const Quadrature1D quad   = gauss_quadrature(4);
      const DenseMatrix  values = values_at(quad.points);
      const DenseMatrix  first  = derivatives_at(quad.points);
      const DenseMatrix  second = second_derivatives_at(quad.points);

      Matrices1D result;
      result.mass      = DenseMatrix(n_1d, n_1d);
      result.stiffness = DenseMatrix(n_1d, n_1d);
      result.bending   = DenseMatrix(n_1d, n_1d);
      result.mixed     = DenseMatrix(n_1d, n_1d);
      for (unsigned int i = 0; i < n_1d; ++i)
        for (unsigned int j = 0; j < n_1d; ++j)
          {
            double m = 0, k = 0, b = 0, g = 0;
            for (unsigned int q = 0; q < quad.points.size(); ++q)
              {
                m += quad.weights[q] * values(q, i) * values(q, j);
                k += quad.weights[q] * first(q, i) * first(q, j);
                b += quad.weights[q] * second(q, i) * second(q, j);
                g += quad.weights[q] * second(q, i) * values(q, j);
              }
            result.mass(i, j)      = m;
            result.stiffness(i, j) = k;
            result.bending(i, j)   = b;
            result.mixed(i, j)     = g;
          }
      // exactly symmetric (the sums of w a b and w b a can differ in the last bit)
      for (unsigned int i = 0; i < n_1d; ++i)
        for (unsigned int j = 0; j < i; ++j)
          for (DenseMatrix *A : {&result.mass, &result.stiffness, &result.bending})
            (*A)(j, i) = (*A)(i, j);

      for (unsigned int c = 0; c < 2; ++c)
        {
          result.prolongation[c] = DenseMatrix(n_1d, n_1d);
          for (unsigned int i = 0; i < n_1d; ++i)
            for (unsigned int j = 0; j < n_1d; ++j)
              {
                const double t           = 0.5 * (c + end_of(i));
                result.prolongation[c](i, j) = kind_of(i) == 0 ? value(j, t) : 0.5 * derivative(j, t);
              }
        }
      return result;
    }
  } // namespace hermite
} // namespace cellwise
