#include <cellwise/base/config.h>
#include <cellwise/base/exceptions.h>
#include <cellwise/fe/generalized_eigenproblem.h>
#include <cellwise/fe/patch_fast_diagonalization.h>

#include <cmath>

namespace cellwise
{
  PatchMatrices1D
  make_patch_matrices_1d(const Matrices1D &reference, const double h0, const double h1)
  {
    CELLWISE_CHECK(std::isfinite(h0) && std::isfinite(h1) && h0 > 0 && h1 > 0,
                   "patch cell sizes must be positive and finite, got h0 = " << h0 << ", h1 = " << h1);
    const unsigned int p = reference.degree;
    check_degree(p);
    const unsigned int n_full = 2 * p + 1;
    const unsigned int m      = 2 * p - 1;

    PatchMatrices1D data;
    data.degree         = p;
    data.h              = {{h0, h1}};
    data.full_stiffness = DenseMatrix(n_full, n_full);
    data.full_mass      = DenseMatrix(n_full, n_full);
    const double hs[2]  = {h0, h1};
    for (unsigned int cell = 0; cell < 2; ++cell)
      for (unsigned int i = 0; i <= p; ++i)
        for (unsigned int j = 0; j <= p; ++j)
          {
            data.full_stiffness(cell * p + i, cell * p + j) += reference.stiffness(i, j) / hs[cell];
            data.full_mass(cell * p + i, cell * p + j) += reference.mass(i, j) * hs[cell];
          }
    data.stiffness = DenseMatrix(m, m);
    data.mass      = DenseMatrix(m, m);
    for (unsigned int i = 0; i < m; ++i)
      for (unsigned int j = 0; j < m; ++j)
        {
          data.stiffness(i, j) = data.full_stiffness(i + 1, j + 1);
          data.mass(i, j)      = data.full_mass(i + 1, j + 1);
        }
    GeneralizedEigenpairs pairs = solve_generalized_eigenproblem(data.stiffness, data.mass);
    data.eigenvalues            = pairs.eigenvalues;
    data.eigenvectors           = pairs.eigenvectors;
    for (const double lambda : data.eigenvalues)
      CELLWISE_CHECK(lambda > 0, "patch stiffness is not positive definite: eigenvalue " << lambda);

    // F = [(g Q)^T; 0]: row k < m is mode k, column r the stacked cell node:
    // r < p is node r + 1 of cell 0 (patch-interior node r), r >= p is node
    // r − p of cell 1 (patch-interior node r − 1).
    data.cellwise_transform = DenseMatrix(2 * p, 2 * p);
    for (unsigned int k = 0; k < m; ++k)
      for (unsigned int r = 0; r < 2 * p; ++r)
        {
          const unsigned int node         = r < p ? r : r - 1;
          data.cellwise_transform(k, r) = data.eigenvectors(node, k);
        }
    data.padded_eigenvalues = data.eigenvalues;
    data.padded_eigenvalues.push_back(1.);
    return data;
  }

  PatchInverse::PatchInverse(const Matrices1D &reference, const PatchSizes &sizes)
  {
    reinit(reference, sizes);
  }

  PatchInverse::PatchInverse(const unsigned int degree, const PatchSizes &sizes)
  {
    reinit(make_matrices_1d(degree), sizes);
  }

  void
  PatchInverse::reinit(const Matrices1D &reference, const PatchSizes &sizes)
  {
    degree_ = reference.degree;
    sizes_  = sizes;
    for (unsigned int d = 0; d < 3; ++d)
      axes_[d] = make_patch_matrices_1d(reference, sizes[d][0], sizes[d][1]);
    const unsigned int m = n_1d();
    inverse_eigenvalues_.resize(m * m * m);
    for (unsigned int k = 0; k < m; ++k)
      for (unsigned int j = 0; j < m; ++j)
        for (unsigned int i = 0; i < m; ++i)
          inverse_eigenvalues_[(k * m + j) * m + i] =
            1. / (axes_[0].eigenvalues[i] + axes_[1].eigenvalues[j] + axes_[2].eigenvalues[k]);
  }

  void
  PatchInverse::apply_matrix(const double *src, double *dst) const
  {
    const unsigned int  m = n_1d(), m3 = size();
    std::vector<double> a(m3), b(m3), c(m3);
    std::fill(dst, dst + m3, 0.);
    for (unsigned int term = 0; term < 3; ++term)
      {
        // term d: K along axis d, M along the others
        internal::contract_patch(m, (term == 0 ? axes_[0].stiffness : axes_[0].mass).data(), false, 0, src, a.data());
        internal::contract_patch(m, (term == 1 ? axes_[1].stiffness : axes_[1].mass).data(), false, 1, a.data(), b.data());
        internal::contract_patch(m, (term == 2 ? axes_[2].stiffness : axes_[2].mass).data(), false, 2, b.data(), c.data());
        for (unsigned int k = 0; k < m3; ++k)
          dst[k] += c[k];
      }
  }

  DenseMatrix
  PatchInverse::matrix() const
  {
    const auto &x = axes_[0], &y = axes_[1], &z = axes_[2];
    const DenseMatrix tx = kronecker_product(z.mass, kronecker_product(y.mass, x.stiffness));
    const DenseMatrix ty = kronecker_product(z.mass, kronecker_product(y.stiffness, x.mass));
    const DenseMatrix tz = kronecker_product(z.stiffness, kronecker_product(y.mass, x.mass));
    DenseMatrix       a(tx.m(), tx.n());
    for (unsigned int i = 0; i < a.m(); ++i)
      for (unsigned int j = 0; j < a.n(); ++j)
        a(i, j) = tx(i, j) + ty(i, j) + tz(i, j);
    return a;
  }
} // namespace cellwise
