#pragma once
/**
 * @file
 * Fast diagonalization of the vertex-patch matrix (000 §3.1; derivation in
 * doc/vertex_patch_smoother.md).
 *
 * 1D: two cells of sizes (h0, h1) along one axis, FE_Q(p) on each. The 2p+1
 * nodes of the pair are numbered 0..2p (cell 0 holds 0..p, cell 1 holds
 * p..2p). The physical 1D matrices are assembled from K/h and M h per cell and
 * restricted to the 2p−1 patch-interior nodes 1..2p−1 (numbered 0..2p−2):
 *
 *   K_v = g_0^T (K/h0) g_0 + g_1^T (K/h1) g_1,   M_v likewise with M h,
 *
 * with g_a the restriction of the pair to the nodes of cell a. The generalized
 * eigendecomposition K_v q = λ M_v q gives Q^T M_v Q = I, Q^T K_v Q = Λ.
 *
 * 3D: with the 1D patch matrices of each axis
 *
 *   A_v = M_z⊗M_y⊗K_x + M_z⊗K_y⊗M_x + K_z⊗M_y⊗M_x        ((2p−1)^3 square),
 *
 * which is the patch-interior block of the assembled cell-wise operator
 * (c_x = h_y h_z / h_x etc. splits into the 1D factors K/h_x, M h_y, M h_z), and
 *
 *   A_v^{-1} = (Q_z⊗Q_y⊗Q_x) (Λ_x ⊕ Λ_y ⊕ Λ_z)^{-1} (Q_z⊗Q_y⊗Q_x)^T.
 *
 * Patch-interior arrays are lexicographic with x fastest: index
 * i_x + m i_y + m^2 i_z, m = 2p−1.
 */

#include <cellwise/base/dense_matrix.h>
#include <cellwise/fe/matrices_1d.h>

#include <array>
#include <vector>

namespace cellwise
{
  /// The 1D data of one axis of a vertex patch.
  struct PatchMatrices1D
  {
    unsigned int          degree = 0;
    /// Sizes of the lower (0) and upper (1) cell along this axis.
    std::array<double, 2> h = {{0., 0.}};
    /// Assembled physical stiffness and mass on the 2p+1 nodes of the pair.
    DenseMatrix full_stiffness, full_mass;
    /// Their restriction to the 2p−1 patch-interior nodes: K_v and M_v.
    DenseMatrix stiffness, mass;
    /// Q (column k = eigenvector k) with Q^T M_v Q = I, Q^T K_v Q = diag(λ).
    DenseMatrix eigenvectors;
    /// λ_k, ascending, all positive.
    std::vector<double> eigenvalues;
    /**
     * Cell-wise form (000 §3.1): F = [(g Q)^T; 0] of size 2p x 2p, with g the
     * 2p x (2p−1) map from the patch-interior nodes to the p non-rim nodes of
     * cell 0 (its local nodes 1..p) followed by those of cell 1 (local nodes
     * 0..p−1). F x maps the stacked cell values x to the modes (assembling the
     * shared node on the way), F^T y maps modes back to both cells' copies.
     */
    DenseMatrix cellwise_transform;
    /// (λ_1, ..., λ_{2p−1}, 1): the eigenvalues padded for the zero row of F.
    std::vector<double> padded_eigenvalues;

    /// Number of patch-interior nodes, 2p−1.
    unsigned int
    size() const
    {
      return 2 * degree - 1;
    }
  };

  /// The 1D patch data for the reference matrices @p reference and cell sizes
  /// (@p h0, @p h1); throws unless both sizes are positive and finite.
  PatchMatrices1D
  make_patch_matrices_1d(const Matrices1D &reference, double h0, double h1);

  /// Cell sizes of a patch: sizes[d] = (h0, h1) of the lower and upper cell
  /// along axis d.
  using PatchSizes = std::array<std::array<double, 2>, 3>;

  /**
   * The exact inverse of the patch matrix A_v by fast diagonalization, applied
   * by sum factorization to a (2p−1)^3 array (x fastest).
   */
  class PatchInverse
  {
  public:
    PatchInverse() = default;
    PatchInverse(const Matrices1D &reference, const PatchSizes &sizes);
    PatchInverse(unsigned int degree, const PatchSizes &sizes);

    void
    reinit(const Matrices1D &reference, const PatchSizes &sizes);

    unsigned int
    degree() const
    {
      return degree_;
    }
    /// Number of patch-interior nodes per axis, m = 2p−1.
    unsigned int
    n_1d() const
    {
      return 2 * degree_ - 1;
    }
    /// Number of patch-interior DoFs, m^3.
    unsigned int
    size() const
    {
      return n_1d() * n_1d() * n_1d();
    }
    const PatchSizes &
    sizes() const
    {
      return sizes_;
    }
    const PatchMatrices1D &
    axis(const unsigned int d) const
    {
      return axes_[d];
    }
    /// 1 / (λ_x,i + λ_y,j + λ_z,k) at index i + m j + m^2 k.
    const std::vector<double> &
    inverse_eigenvalues() const
    {
      return inverse_eigenvalues_;
    }

    /// dst = A_v^{-1} src (both m^3 entries; may alias). Runtime sizes.
    template <typename Number>
    void
    apply(const Number *src, Number *dst) const;

    /// dst = A_v src through the Kronecker sum of the 1D matrices (for tests).
    void
    apply_matrix(const double *src, double *dst) const;

    /// The dense A_v from Kronecker products of the 1D patch matrices.
    DenseMatrix
    matrix() const;

  private:
    unsigned int                   degree_ = 0;
    PatchSizes                     sizes_{};
    std::array<PatchMatrices1D, 3> axes_;
    std::vector<double>            inverse_eigenvalues_;
  };

  namespace internal
  {
    /// out = (A along @p direction) in on an m^3 array; A is m x m row-major,
    /// used transposed if @p transpose. Runtime sizes; in and out differ.
    template <typename Number>
    void
    contract_patch(const unsigned int m, const double *A, const bool transpose, const unsigned int direction,
                   const Number *in, Number *out)
    {
      const unsigned int n_pre  = direction == 0 ? 1 : (direction == 1 ? m : m * m);
      const unsigned int n_post = direction == 0 ? m * m : (direction == 1 ? m : 1);
      for (unsigned int post = 0; post < n_post; ++post)
        for (unsigned int i = 0; i < m; ++i)
          for (unsigned int pre = 0; pre < n_pre; ++pre)
            {
              Number sum = 0;
              for (unsigned int j = 0; j < m; ++j)
                sum += Number(transpose ? A[j * m + i] : A[i * m + j]) * in[(post * m + j) * n_pre + pre];
              out[(post * m + i) * n_pre + pre] = sum;
            }
    }
  } // namespace internal

  template <typename Number>
  void
  PatchInverse::apply(const Number *src, Number *dst) const
  {
    const unsigned int  m = n_1d();
    std::vector<Number> a(src, src + size()), b(size());
    // modes: (Q_z⊗Q_y⊗Q_x)^T src
    internal::contract_patch(m, axes_[0].eigenvectors.data(), true, 0, a.data(), b.data());
    internal::contract_patch(m, axes_[1].eigenvectors.data(), true, 1, b.data(), a.data());
    internal::contract_patch(m, axes_[2].eigenvectors.data(), true, 2, a.data(), b.data());
    for (unsigned int k = 0; k < size(); ++k)
      b[k] *= Number(inverse_eigenvalues_[k]);
    internal::contract_patch(m, axes_[0].eigenvectors.data(), false, 0, b.data(), a.data());
    internal::contract_patch(m, axes_[1].eigenvectors.data(), false, 1, a.data(), b.data());
    internal::contract_patch(m, axes_[2].eigenvectors.data(), false, 2, b.data(), a.data());
    std::copy(a.begin(), a.end(), dst);
  }
} // namespace cellwise
