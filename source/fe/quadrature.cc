#include <cellwise/base/exceptions.h>
#include <cellwise/fe/quadrature.h>

#include <cmath>

namespace cellwise
{
  namespace
  {
    using Real = long double;

    const Real pi = 3.141592653589793238462643383279502884L;

    /// Legendre P_n and P_{n-1} at x in [-1,1], by the three-term recurrence.
    void
    legendre(const unsigned int n, const Real x, Real &p_n, Real &p_nm1)
    {
      Real p0 = 1, p1 = x;
      if (n == 0)
        {
          p_n   = 1;
          p_nm1 = 0;
          return;
        }
      for (unsigned int k = 2; k <= n; ++k)
        {
          const Real p2 = ((2 * k - 1) * x * p1 - (k - 1) * p0) / k;
          p0            = p1;
          p1            = p2;
        }
      p_n   = p1;
      p_nm1 = p0;
    }

    /// P_n'(x) for |x| < 1 from P_n and P_{n-1}.
    Real
    legendre_derivative(const unsigned int n, const Real x, const Real p_n, const Real p_nm1)
    {
      return n * (x * p_n - p_nm1) / (x * x - 1);
    }

    /// Map a symmetric rule on [-1,1], given by its points x_i < 0 (and 0 for
    /// odd n) with weights, to [0,1]; mirroring makes it exactly symmetric.
    Quadrature1D
    map_symmetric_rule(const unsigned int n, const std::vector<Real> &x, const std::vector<Real> &w)
    {
      Quadrature1D q;
      q.points.resize(n);
      q.weights.resize(n);
      for (unsigned int i = 0; i < x.size(); ++i)
        {
          q.points[i]             = static_cast<double>((1 + x[i]) / 2);
          q.points[n - 1 - i]     = static_cast<double>((1 - x[i]) / 2);
          q.weights[i]            = static_cast<double>(w[i] / 2);
          q.weights[n - 1 - i]    = q.weights[i];
        }
      return q;
    }
  } // namespace



  Quadrature1D
  gauss_quadrature(const unsigned int n)
  {
    CELLWISE_CHECK(n >= 1 && n <= 1000,
                   "Gauss quadrature with " << n << " points requested; the number of points must be in 1..1000");
    // Points x_i < 0 (i < n/2) and the midpoint for odd n.
    std::vector<Real> x, w;
    for (unsigned int i = 0; i < (n + 1) / 2; ++i)
      {
        // Chebyshev-like initial guess; converges quadratically to root i.
        Real xi = -std::cos(pi * (i + 0.75L) / (n + 0.5L));
        for (unsigned int it = 0; it < 100; ++it)
          {
            Real p, pm1;
            legendre(n, xi, p, pm1);
            const Real dx = p / legendre_derivative(n, xi, p, pm1);
            xi -= dx;
            if (std::abs(dx) <= 1e-18L)
              break;
          }
        if (2 * i + 1 == n)
          xi = 0;
        Real p, pm1;
        legendre(n, xi, p, pm1);
        const Real dp = legendre_derivative(n, xi, p, pm1);
        x.push_back(xi);
        w.push_back(2 / ((1 - xi * xi) * dp * dp));
      }
    return map_symmetric_rule(n, x, w);
  }



  Quadrature1D
  gauss_lobatto_quadrature(const unsigned int n)
  {
    CELLWISE_CHECK(n >= 2 && n <= 1000,
                   "Gauss-Lobatto quadrature with " << n
                                                    << " points requested; the number of points must be in 2..1000");
    // With N = n-1, the interior points are the roots of P_N'. Newton on
    // f = x P_N - P_{N-1} (proportional to (x^2-1) P_N'), f' = (N+1) P_N,
    // started from the Chebyshev–Gauss–Lobatto points; weights 2/(N(N+1) P_N^2).
    const unsigned int N = n - 1;
    std::vector<Real>  x, w;
    for (unsigned int i = 0; i < (n + 1) / 2; ++i)
      {
        Real xi = -std::cos(pi * i / N);
        if (i > 0 && 2 * i != N)
          for (unsigned int it = 0; it < 100; ++it)
            {
              Real p, pm1;
              legendre(N, xi, p, pm1);
              const Real dx = (xi * p - pm1) / ((N + 1) * p);
              xi -= dx;
              if (std::abs(dx) <= 1e-18L)
                break;
            }
        if (2 * i == N)
          xi = 0;
        Real p, pm1;
        legendre(N, xi, p, pm1);
        x.push_back(xi);
        w.push_back(2 / (N * (N + 1) * p * p));
      }
    return map_symmetric_rule(n, x, w);
  }
} // namespace cellwise
