#pragma once
/**
 * @file
 * The 1D cubic Hermite basis on [0, 1] (001 §2.2; derivation in
 * doc/hermite.md): the value and the derivative at each end,
 *
 *   φ_0 = 1 − 3t² + 2t³   (value at 0)     φ_1 = t − 2t² + t³   (derivative at 0)
 *   φ_2 = 3t² − 2t³       (value at 1)     φ_3 = −t² + t³       (derivative at 1)
 *
 * numbered i = 2 e + k: end e (0 or 1), kind k (0 value, 1 derivative), so
 * that the two trace layers at the end e are the indices 2e and 2e + 1. The
 * 3D element is the tensor product, local index i_x + 4 i_y + 16 i_z
 * (hermite_element.h).
 */

#include <cellwise/base/dense_matrix.h>

#include <vector>

namespace cellwise
{
  namespace hermite
  {
    /// Basis functions per axis.
    constexpr unsigned int n_1d = 4;

    /// End (0 or 1) of 1D basis function @p i.
    constexpr unsigned int
    end_of(const unsigned int i)
    {
      return i / 2;
    }
    /// Kind of 1D basis function @p i: 0 value, 1 derivative.
    constexpr unsigned int
    kind_of(const unsigned int i)
    {
      return i % 2;
    }

    /// φ_i(t), φ_i'(t), φ_i''(t) on the reference interval [0, 1].
    double
    value(unsigned int i, double t);
    double
    derivative(unsigned int i, double t);
    double
    second_derivative(unsigned int i, double t);

    /// The matrices (q, i) = φ_i(t_q), φ_i'(t_q), φ_i''(t_q).
    DenseMatrix
    values_at(const std::vector<double> &t);
    DenseMatrix
    derivatives_at(const std::vector<double> &t);
    DenseMatrix
    second_derivatives_at(const std::vector<double> &t);
  } // namespace hermite
} // namespace cellwise
