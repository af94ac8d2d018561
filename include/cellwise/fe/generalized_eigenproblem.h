#pragma once
/**
 * @file
 * Dense symmetric-definite generalized eigenproblems A q = mu B q, the 1D
 * building block of the fast diagonalization used by the patch smoother.
 */

#include <cellwise/base/dense_matrix.h>

#include <vector>

namespace cellwise
{
  /// Eigenvalues and B-orthonormal eigenvectors of A q = mu B q.
  struct GeneralizedEigenpairs
  {
    /// The eigenvalues mu_k in ascending order.
    std::vector<double> eigenvalues;
    /**
     * Column k is q_k, normalised so that Q^T B Q = I and hence
     * Q^T A Q = diag(mu). Sign convention: the entry of largest magnitude of
     * each column is positive (first one on ties within rounding).
     */
    DenseMatrix eigenvectors;
  };

  /**
   * Solves A q = mu B q for symmetric A and symmetric positive definite B
   * (e.g. the 1D stiffness and mass matrices). Method: Cholesky B = L L^T,
   * symmetric C = L^{-1} A L^{-T}, cyclic Jacobi rotations to full accuracy,
   * back-transformation Q = L^{-T} V. Throws cellwise::Error if the sizes
   * differ, A or B is not symmetric, or B is not positive definite.
   */
  GeneralizedEigenpairs
  solve_generalized_eigenproblem(const DenseMatrix &A, const DenseMatrix &B);
} // namespace cellwise
