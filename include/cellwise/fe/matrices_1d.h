#pragma once
/**
 * @file
 * The 1D reference matrices of FE_Q(p) on [0,1]: mass, stiffness and the two
 * child prolongations. All 3D cell operators and transfers are tensor products
 * of these (see doc/fe_1d.md).
 */

#include <cellwise/base/dense_matrix.h>

#include <array>

namespace cellwise
{
  /// The 1D reference matrices of the Gauss–Lobatto Lagrange basis of degree p.
  struct Matrices1D
  {
    unsigned int degree;
    /// M_ij = \int_0^1 phi_i phi_j, exact (Gauss with p+1 points).
    DenseMatrix mass;
    /// K_ij = \int_0^1 phi_i' phi_j', exact.
    DenseMatrix stiffness;
    /**
     * P_c(i, j) = phi_j((c + x_i)/2): coarse basis function j evaluated at fine
     * node i of child c (child 0 = [0,1/2], child 1 = [1/2,1]).
     */
    std::array<DenseMatrix, 2> prolongation;
  };

  /// Builds the matrices; throws cellwise::Error unless degree is in 1..8.
  Matrices1D
  make_matrices_1d(unsigned int degree);
} // namespace cellwise
