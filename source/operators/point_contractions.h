#pragma once
/**
 * @file
 * Private to source/operators: the tensor-product passes between the values
 * of a cell's n³ basis coefficients and its q³ quadrature points, shared by
 * the load vectors and L2 errors of every element (Lagrange: function_tools.cc,
 * Hermite: hermite_function_tools.cc). phi(a, i) is the i-th 1D basis
 * function at the a-th point (q × n); coefficients and points are numbered
 * lexicographically, x fastest. The element's own scaling of its
 * coefficients (Hermite derivative DoFs) is applied by the caller.
 */

#include <cellwise/base/dense_matrix.h>
#include <cellwise/mesh/level.h>

#include <vector>

namespace cellwise
{
  namespace internal
  {
    /// out[post][i][pre] = sum_j A(i, j) in[post][j][pre] with runtime sizes;
    /// A is n_out x n_in (or n_in x n_out when transposed).
    inline void
    contract(const DenseMatrix         &A,
             const bool                 transpose,
             const unsigned int         n_in,
             const unsigned int         n_out,
             const unsigned int         n_pre,
             const unsigned int         n_post,
             const std::vector<double> &in,
             std::vector<double>       &out)
    {
      out.assign(static_cast<std::size_t>(n_pre) * n_out * n_post, 0.);
      for (unsigned int post = 0; post < n_post; ++post)
        for (unsigned int i = 0; i < n_out; ++i)
          for (unsigned int pre = 0; pre < n_pre; ++pre)
            {
              double s = 0;
              for (unsigned int j = 0; j < n_in; ++j)
                s += (transpose ? A(j, i) : A(i, j)) * in[(post * n_in + j) * n_pre + pre];
              out[(post * n_out + i) * n_pre + pre] = s;
            }
    }

    /// The intermediate arrays of the three contractions, kept per loop
    /// range so that no cell allocates (10^7 cells at L = 8).
    struct ContractionScratch
    {
      std::vector<double> t1, t2;
    };

    /// Values at the q³ points from the n³ coefficients.
    inline void
    evaluate_at_points(const DenseMatrix &phi, const std::vector<double> &coefficients, std::vector<double> &values,
                       ContractionScratch &scratch)
    {
      const unsigned int q = phi.m(), n = phi.n();
      auto &[t1, t2]       = scratch;
      contract(phi, false, n, q, 1, n * n, coefficients, t1);
      contract(phi, false, n, q, q, n, t1, t2);
      contract(phi, false, n, q, q * q, 1, t2, values);
    }

    /// Integrals against the n³ basis functions from q³ weighted point values.
    inline void
    integrate_against_basis(const DenseMatrix &phi, const std::vector<double> &point_values, std::vector<double> &integrals,
                            ContractionScratch &scratch)
    {
      const unsigned int q = phi.m(), n = phi.n();
      auto &[t1, t2]       = scratch;
      contract(phi, true, q, n, 1, q * q, point_values, t1);
      contract(phi, true, q, n, n, q, t1, t2);
      contract(phi, true, q, n, n * n, 1, t2, integrals);
    }

    /// The point of @p box at reference coordinates (x, y, z).
    inline Point
    point_in_cell(const CellBox &box, const double x, const double y, const double z)
    {
      return {{box.lower[0] + x * box.size[0], box.lower[1] + y * box.size[1], box.lower[2] + z * box.size[2]}};
    }
  } // namespace internal
} // namespace cellwise
