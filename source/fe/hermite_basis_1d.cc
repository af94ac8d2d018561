#include <cellwise/base/exceptions.h>
#include <cellwise/fe/hermite_basis_1d.h>

namespace cellwise
{
  namespace hermite
  {
    namespace
    {
      void
      check_index(const unsigned int i)
      {
        CELLWISE_CHECK(i < n_1d, "cubic Hermite basis function " << i << " does not exist (0..3)");
      }

      template <typename F>
      DenseMatrix
      tabulate(const std::vector<double> &t, const F &f)
      {
        DenseMatrix result(static_cast<unsigned int>(t.size()), n_1d);
        for (unsigned int q = 0; q < t.size(); ++q)
          for (unsigned int i = 0; i < n_1d; ++i)
            result(q, i) = f(i, t[q]);
        return result;
      }
    } // namespace

    double
    value(const unsigned int i, const double t)
    {
      check_index(i);
      switch (i)
        {
          case 0:
            return 1 + t * t * (-3 + 2 * t);
          case 1:
            return t * (1 + t * (-2 + t));
          case 2:
            return t * t * (3 - 2 * t);
          default:
            return t * t * (-1 + t);
        }
    }

    double
    derivative(const unsigned int i, const double t)
    {
      check_index(i);
      switch (i)
        {
          case 0:
            return 6 * t * (t - 1);
          case 1:
            return 1 + t * (-4 + 3 * t);
          case 2:
            return 6 * t * (1 - t);
          default:
            return t * (-2 + 3 * t);
        }
    }

    double
    second_derivative(const unsigned int i, const double t)
    {
      check_index(i);
      switch (i)
        {
          case 0:
            return -6 + 12 * t;
          case 1:
            return -4 + 6 * t;
          case 2:
            return 6 - 12 * t;
          default:
            return -2 + 6 * t;
        }
    }

    DenseMatrix
    values_at(const std::vector<double> &t)
    {
      return tabulate(t, value);
    }

    DenseMatrix
    derivatives_at(const std::vector<double> &t)
    {
      return tabulate(t, derivative);
    }

    DenseMatrix
    second_derivatives_at(const std::vector<double> &t)
    {
      return tabulate(t, second_derivative);
    }
  } // namespace hermite
} // namespace cellwise
