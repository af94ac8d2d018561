#pragma once
/**
 * @file
 * Small dense matrices for the 1D finite element data (mass, stiffness,
 * transfer, eigenvectors) and a Cholesky factorization. The sizes are at most
 * a few hundred, so clarity wins over speed here.
 */

#include <vector>

namespace cellwise
{
  /// A dense row-major matrix of doubles.
  class DenseMatrix
  {
  public:
    DenseMatrix() = default;

    /// A zero-filled @p rows x @p cols matrix.
    DenseMatrix(unsigned int rows, unsigned int cols);

    /// Number of rows.
    unsigned int
    m() const
    {
      return n_rows;
    }

    /// Number of columns.
    unsigned int
    n() const
    {
      return n_cols;
    }

    /// Entry (i, j); unchecked, like std::vector::operator[].
    double &
    operator()(const unsigned int i, const unsigned int j)
    {
      return values[static_cast<std::size_t>(i) * n_cols + j];
    }

    /// Entry (i, j); unchecked.
    double
    operator()(const unsigned int i, const unsigned int j) const
    {
      return values[static_cast<std::size_t>(i) * n_cols + j];
    }

    /// The m()*n() entries, row by row.
    const double *
    data() const
    {
      return values.data();
    }

    /// The m()*n() entries, row by row.
    double *
    data()
    {
      return values.data();
    }

    /// The transposed matrix.
    DenseMatrix
    transpose() const;

    /// dst = A src; @p dst is resized to m(). Throws if src.size() != n().
    void
    vmult(std::vector<double> &dst, const std::vector<double> &src) const;

    /// dst = A^T src; @p dst is resized to n(). Throws if src.size() != m().
    void
    Tvmult(std::vector<double> &dst, const std::vector<double> &src) const;

    /// The matrix product; throws if the inner sizes differ.
    friend DenseMatrix
    operator*(const DenseMatrix &a, const DenseMatrix &b);

  private:
    unsigned int        n_rows = 0;
    unsigned int        n_cols = 0;
    std::vector<double> values;
  };

  /**
   * The Kronecker product a ⊗ b, of size (a.m() b.m()) x (a.n() b.n()), with
   * (a⊗b)(i*b.m()+k, j*b.n()+l) = a(i,j) b(k,l).
   */
  DenseMatrix
  kronecker_product(const DenseMatrix &a, const DenseMatrix &b);

  /**
   * Cholesky factorization A = L L^T of a symmetric positive definite matrix.
   * Only the lower triangle of A is read. Throws cellwise::Error naming the
   * pivot if A is not square or not (numerically) positive definite.
   */
  class CholeskyFactorization
  {
  public:
    explicit CholeskyFactorization(const DenseMatrix &spd_matrix);

    /// Size of the factorized matrix.
    unsigned int
    size() const
    {
      return l.m();
    }

    /// Overwrites the right-hand side with the solution of A x = rhs.
    void
    solve(std::vector<double> &rhs_in_solution_out) const;

    /// The lower triangular factor L (upper triangle zero).
    const DenseMatrix &
    lower() const
    {
      return l;
    }

  private:
    DenseMatrix l;
  };
} // namespace cellwise
