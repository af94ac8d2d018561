#include <cellwise/base/dense_matrix.h>
#include <cellwise/base/exceptions.h>

#include <cmath>

namespace cellwise
{
  DenseMatrix::DenseMatrix(const unsigned int rows, const unsigned int cols)
    : n_rows(rows)
    , n_cols(cols)
    , values(static_cast<std::size_t>(rows) * cols, 0.0)
  {}



  DenseMatrix
  DenseMatrix::transpose() const
  {
    DenseMatrix t(n_cols, n_rows);
    for (unsigned int i = 0; i < n_rows; ++i)
      for (unsigned int j = 0; j < n_cols; ++j)
        t(j, i) = (*this)(i, j);
    return t;
  }



  void
  DenseMatrix::vmult(std::vector<double> &dst, const std::vector<double> &src) const
  {
    CELLWISE_CHECK(src.size() == n_cols,
                   "DenseMatrix::vmult: source vector has size " << src.size() << " but the matrix has "
                                                                 << n_cols << " columns");
    // Write into a temporary so that dst may alias src.
    std::vector<double> result(n_rows, 0.0);
    for (unsigned int i = 0; i < n_rows; ++i)
      {
        double sum = 0;
        for (unsigned int j = 0; j < n_cols; ++j)
          sum += (*this)(i, j) * src[j];
        result[i] = sum;
      }
    dst.swap(result);
  }



  void
  DenseMatrix::Tvmult(std::vector<double> &dst, const std::vector<double> &src) const
  {
    CELLWISE_CHECK(src.size() == n_rows,
                   "DenseMatrix::Tvmult: source vector has size " << src.size() << " but the matrix has "
                                                                  << n_rows << " rows");
    std::vector<double> result(n_cols, 0.0);
    for (unsigned int i = 0; i < n_rows; ++i)
      for (unsigned int j = 0; j < n_cols; ++j)
        result[j] += (*this)(i, j) * src[i];
    dst.swap(result);
  }



  DenseMatrix
  operator*(const DenseMatrix &a, const DenseMatrix &b)
  {
    CELLWISE_CHECK(a.n() == b.m(),
                   "matrix product of a " << a.m() << "x" << a.n() << " and a " << b.m() << "x" << b.n()
                                          << " matrix: inner sizes differ");
    DenseMatrix c(a.m(), b.n());
    for (unsigned int i = 0; i < a.m(); ++i)
      for (unsigned int k = 0; k < a.n(); ++k)
        {
          const double aik = a(i, k);
          for (unsigned int j = 0; j < b.n(); ++j)
            c(i, j) += aik * b(k, j);
        }
    return c;
  }



  DenseMatrix
  kronecker_product(const DenseMatrix &a, const DenseMatrix &b)
  {
    DenseMatrix c(a.m() * b.m(), a.n() * b.n());
    for (unsigned int i = 0; i < a.m(); ++i)
      for (unsigned int j = 0; j < a.n(); ++j)
        for (unsigned int k = 0; k < b.m(); ++k)
          for (unsigned int l = 0; l < b.n(); ++l)
            c(i * b.m() + k, j * b.n() + l) = a(i, j) * b(k, l);
    return c;
  }



  CholeskyFactorization::CholeskyFactorization(const DenseMatrix &a)
    : l(a.m(), a.n())
  {
    CELLWISE_CHECK(a.m() == a.n(),
                   "Cholesky factorization needs a square matrix, got " << a.m() << "x" << a.n());
    const unsigned int n = a.m();
    for (unsigned int j = 0; j < n; ++j)
      {
        double pivot = a(j, j);
        for (unsigned int k = 0; k < j; ++k)
          pivot -= l(j, k) * l(j, k);
        // Relative test: a pivot lost to cancellation means A is not SPD to
        // working precision, and its square root would be meaningless.
        CELLWISE_CHECK(pivot > 1e-14 * std::abs(a(j, j)) && pivot > 0.,
                       "Cholesky factorization: pivot " << j << " is " << pivot
                                                        << " (diagonal entry " << a(j, j)
                                                        << "), the matrix is not symmetric positive definite");
        const double ljj = std::sqrt(pivot);
        l(j, j)          = ljj;
        for (unsigned int i = j + 1; i < n; ++i)
          {
            double s = a(i, j);
            for (unsigned int k = 0; k < j; ++k)
              s -= l(i, k) * l(j, k);
            l(i, j) = s / ljj;
          }
      }
  }



  void
  CholeskyFactorization::solve(std::vector<double> &x) const
  {
    const unsigned int n = size();
    CELLWISE_CHECK(x.size() == n,
                   "CholeskyFactorization::solve: vector has size " << x.size() << " but the matrix has size "
                                                                    << n);
    // Forward substitution L y = b, then backward L^T x = y.
    for (unsigned int i = 0; i < n; ++i)
      {
        double s = x[i];
        for (unsigned int k = 0; k < i; ++k)
          s -= l(i, k) * x[k];
        x[i] = s / l(i, i);
      }
    for (unsigned int i = n; i-- > 0;)
      {
        double s = x[i];
        for (unsigned int k = i + 1; k < n; ++k)
          s -= l(k, i) * x[k];
        x[i] = s / l(i, i);
      }
  }
} // namespace cellwise
