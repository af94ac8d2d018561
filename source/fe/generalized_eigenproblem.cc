#include <cellwise/base/exceptions.h>
#include <cellwise/fe/generalized_eigenproblem.h>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace cellwise
{
  namespace
  {
    void
    check_symmetric(const DenseMatrix &a, const char *name)
    {
      CELLWISE_CHECK(a.m() == a.n(),
                     "generalized eigenproblem: matrix " << name << " is " << a.m() << "x" << a.n()
                                                         << ", not square");
      double max_entry = 0;
      for (unsigned int i = 0; i < a.m() * a.n(); ++i)
        max_entry = std::max(max_entry, std::abs(a.data()[i]));
      for (unsigned int i = 0; i < a.m(); ++i)
        for (unsigned int j = 0; j < i; ++j)
          CELLWISE_CHECK(std::abs(a(i, j) - a(j, i)) <= 1e-12 * max_entry,
                         "generalized eigenproblem: matrix " << name << " is not symmetric: entry (" << i << ","
                                                             << j << ") = " << a(i, j) << " but (" << j << ","
                                                             << i << ") = " << a(j, i));
    }

    /// Overwrites X by L^{-1} X (forward substitution on every column).
    void
    apply_inverse_lower(const DenseMatrix &l, DenseMatrix &x)
    {
      for (unsigned int c = 0; c < x.n(); ++c)
        for (unsigned int i = 0; i < l.m(); ++i)
          {
            double s = x(i, c);
            for (unsigned int k = 0; k < i; ++k)
              s -= l(i, k) * x(k, c);
            x(i, c) = s / l(i, i);
          }
    }

    /// Overwrites X by L^{-T} X (backward substitution on every column).
    void
    apply_inverse_lower_transpose(const DenseMatrix &l, DenseMatrix &x)
    {
      const unsigned int n = l.m();
      for (unsigned int c = 0; c < x.n(); ++c)
        for (unsigned int i = n; i-- > 0;)
          {
            double s = x(i, c);
            for (unsigned int k = i + 1; k < n; ++k)
              s -= l(k, i) * x(k, c);
            x(i, c) = s / l(i, i);
          }
    }

    /**
     * Cyclic Jacobi for symmetric C: on return C is diagonal to working
     * precision and V (orthogonal) holds the eigenvectors, C_in = V C V^T.
     */
    void
    jacobi_eigenvalues(DenseMatrix &c, DenseMatrix &v)
    {
      const unsigned int n = c.m();
      v                    = DenseMatrix(n, n);
      for (unsigned int i = 0; i < n; ++i)
        v(i, i) = 1;

      for (unsigned int sweep = 0; sweep < 100; ++sweep)
        {
          double off = 0, total = 0;
          for (unsigned int i = 0; i < n; ++i)
            for (unsigned int j = 0; j < n; ++j)
              {
                total += c(i, j) * c(i, j);
                if (i != j)
                  off += c(i, j) * c(i, j);
              }
          if (off <= 1e-32 * total || off == 0.)
            return;

          for (unsigned int p = 0; p < n; ++p)
            for (unsigned int q = p + 1; q < n; ++q)
              {
                const double apq = c(p, q);
                if (apq == 0.)
                  continue;
                // Rotation annihilating c(p,q), the stable small-angle choice
                // of Golub & Van Loan, Alg. 8.4.1.
                const double tau = (c(q, q) - c(p, p)) / (2 * apq);
                const double t   = (tau >= 0 ? 1. : -1.) / (std::abs(tau) + std::sqrt(1 + tau * tau));
                const double cs  = 1 / std::sqrt(1 + t * t);
                const double sn  = t * cs;
                for (unsigned int k = 0; k < n; ++k)
                  {
                    const double ckp = c(k, p), ckq = c(k, q);
                    c(k, p)          = cs * ckp - sn * ckq;
                    c(k, q)          = sn * ckp + cs * ckq;
                  }
                for (unsigned int k = 0; k < n; ++k)
                  {
                    const double cpk = c(p, k), cqk = c(q, k);
                    c(p, k)          = cs * cpk - sn * cqk;
                    c(q, k)          = sn * cpk + cs * cqk;
                  }
                c(p, q) = c(q, p) = 0;
                for (unsigned int k = 0; k < n; ++k)
                  {
                    const double vkp = v(k, p), vkq = v(k, q);
                    v(k, p)          = cs * vkp - sn * vkq;
                    v(k, q)          = sn * vkp + cs * vkq;
                  }
              }
        }
      CELLWISE_CHECK(false, "generalized eigenproblem: Jacobi iteration did not converge in 100 sweeps for size " << n);
    }
  } // namespace



  GeneralizedEigenpairs
  solve_generalized_eigenproblem(const DenseMatrix &A, const DenseMatrix &B)
  {
    check_symmetric(A, "A");
    check_symmetric(B, "B");
    CELLWISE_CHECK(A.m() == B.m(),
                   "generalized eigenproblem: A is " << A.m() << "x" << A.n() << " but B is " << B.m() << "x"
                                                     << B.n());
    const unsigned int n = A.m();

    const CholeskyFactorization chol(B);
    const DenseMatrix          &l = chol.lower();

    // C = L^{-1} A L^{-T} = L^{-1} (L^{-1} A)^T, as A is symmetric.
    DenseMatrix x = A;
    apply_inverse_lower(l, x);
    DenseMatrix c = x.transpose();
    apply_inverse_lower(l, c);
    for (unsigned int i = 0; i < n; ++i)
      for (unsigned int j = 0; j < i; ++j)
        c(i, j) = c(j, i) = 0.5 * (c(i, j) + c(j, i));

    DenseMatrix v;
    jacobi_eigenvalues(c, v);

    // Q = L^{-T} V gives Q^T B Q = V^T V = I.
    apply_inverse_lower_transpose(l, v);

    std::vector<unsigned int> order(n);
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(), [&](unsigned int a, unsigned int b) { return c(a, a) < c(b, b); });

    GeneralizedEigenpairs result;
    result.eigenvalues.resize(n);
    result.eigenvectors = DenseMatrix(n, n);
    for (unsigned int k = 0; k < n; ++k)
      {
        result.eigenvalues[k] = c(order[k], order[k]);
        // Deterministic sign: largest entry positive (ties within rounding
        // resolved towards the first index).
        double       max_abs = 0;
        unsigned int arg     = 0;
        for (unsigned int i = 0; i < n; ++i)
          if (std::abs(v(i, order[k])) > max_abs * (1 + 1e-10))
            {
              max_abs = std::abs(v(i, order[k]));
              arg     = i;
            }
        const double sign = v(arg, order[k]) < 0 ? -1. : 1.;
        for (unsigned int i = 0; i < n; ++i)
          result.eigenvectors(i, k) = sign * v(i, order[k]);
      }
    return result;
  }
} // namespace cellwise
