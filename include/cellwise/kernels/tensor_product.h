#pragma once
/**
 * @file
 * The one 1D contraction primitive of sum factorization, shared by both
 * backends. An array of a tensor-product cell is viewed as [post][j][pre]
 * with j the index along the contracted direction (x fastest overall):
 *
 *   direction | n_pre        | n_post
 *   ----------+--------------+-------------
 *   x (0)     | 1            | n_y n_z
 *   y (1)     | n_x          | n_z
 *   z (2)     | n_x n_y      | 1
 *
 *   out[post][i][pre] (+)= sum_j A(i, j) in[post][j][pre]
 *
 * A is n_out x n_in row-major; with transpose, A is n_in x n_out and A(j, i)
 * is used. @p in and @p out must not alias.
 */

#include <cellwise/base/host_device.h>

namespace cellwise
{
  namespace kernels
  {
    template <int n_in, int n_out, int n_pre, int n_post, bool transpose, bool add, typename Number, typename MatrixNumber>
    CELLWISE_HOST_DEVICE inline void
    contract(const MatrixNumber *A, const Number *in, Number *out)
    {
      for (int post = 0; post < n_post; ++post)
        for (int i = 0; i < n_out; ++i)
          for (int pre = 0; pre < n_pre; ++pre)
            {
              Number sum = 0;
              for (int j = 0; j < n_in; ++j)
                sum += Number(transpose ? A[j * n_out + i] : A[i * n_in + j]) * in[(post * n_in + j) * n_pre + pre];
              Number &o = out[(post * n_out + i) * n_pre + pre];
              o         = add ? o + sum : sum;
            }
    }

    /// Contraction of an n x n x n array along @p direction with an n x n matrix.
    template <int n, int direction, bool transpose, bool add, typename Number, typename MatrixNumber>
    CELLWISE_HOST_DEVICE inline void
    apply_1d(const MatrixNumber *A, const Number *in, Number *out)
    {
      constexpr int n_pre  = direction == 0 ? 1 : (direction == 1 ? n : n * n);
      constexpr int n_post = direction == 0 ? n * n : (direction == 1 ? n : 1);
      contract<n, n, n_pre, n_post, transpose, add>(A, in, out);
    }
  } // namespace kernels
} // namespace cellwise
