#include <cellwise/base/config.h>
#include <cellwise/base/degree_dispatch.h>
#include <cellwise/base/exceptions.h>
#include <cellwise/base/parallel.h>
#include <cellwise/kernels/laplace_cell.h>
#include <cellwise/kernels/tensor_product.h>
#include <cellwise/multigrid/vertex_patch_smoother.h>

#include <cmath>
#include <utility>

namespace cellwise
{
  template <typename Number, typename Layout>
  VertexPatchSmoother<Number, Layout>::VertexPatchSmoother(const Level &level, const unsigned int degree, const unsigned int n_sweeps)
  {
    reinit(level, degree, n_sweeps);
  }

  template <typename Number, typename Layout>
  void
  VertexPatchSmoother<Number, Layout>::reinit(const Level &level, const unsigned int degree, const unsigned int n_sweeps)
  {
    check_degree(degree);
    CELLWISE_CHECK(n_sweeps >= 1, "VertexPatchSmoother needs at least one sweep, got " << n_sweeps);
    degree_   = degree;
    n_sweeps_ = n_sweeps;
    matrices_ = make_matrices_1d(degree);
    const unsigned int n = degree + 1;
    mass_.resize(n * n);
    stiffness_.resize(n * n);
    for (unsigned int i = 0; i < n; ++i)
      for (unsigned int j = 0; j < n; ++j)
        {
          mass_[i * n + j]      = static_cast<Number>(matrices_.mass(i, j));
          stiffness_[i * n + j] = static_cast<Number>(matrices_.stiffness(i, j));
        }
    factors_.resize(level.n_cells());
    parallel_for(level.n_cells(), cell_grain, [&](const std::size_t c) {
      check_cell_size(level.boxes[c], static_cast<unsigned int>(c));
      kernels::laplace_factors(level.boxes[c].size.data(), factors_[c].data());
    });

    patches_                     = make_vertex_patches(level);
    VertexPatchInverses inverses = make_vertex_patch_inverses(level, patches_, matrices_);
    inverses_                    = std::move(inverses.distinct);
    inverse_index_               = std::move(inverses.index);
    inverse_data_.clear();
    const unsigned int m = 2 * degree - 1;
    for (const PatchInverse &inverse : inverses_)
      {
        InverseData data;
        for (unsigned int d = 0; d < 3; ++d)
          {
            data.eigenvectors[d].resize(m * m);
            for (unsigned int i = 0; i < m * m; ++i)
              data.eigenvectors[d][i] = static_cast<Number>(inverse.axis(d).eigenvectors.data()[i]);
          }
        data.inverse_eigenvalues.assign(inverse.inverse_eigenvalues().begin(), inverse.inverse_eigenvalues().end());
        inverse_data_.push_back(std::move(data));
      }
  }

  template <typename Number, typename Layout>
  void
  VertexPatchSmoother<Number, Layout>::check_vectors(const VectorType &u, const VectorType &b) const
  {
    CELLWISE_CHECK(u.n_cells() == n_cells() && u.degree() == degree_,
                   "VertexPatchSmoother: iterate has " << u.n_cells() << " cells of degree " << u.degree()
                                                        << ", the smoother " << n_cells() << " cells of degree " << degree_);
    CELLWISE_CHECK(b.n_cells() == n_cells() && b.degree() == degree_,
                   "VertexPatchSmoother: right-hand side has " << b.n_cells() << " cells of degree " << b.degree()
                                                                << ", the smoother " << n_cells() << " cells of degree "
                                                                << degree_);
    CELLWISE_CHECK(&u != &b, "VertexPatchSmoother: iterate and right-hand side must be different vectors");
  }

  template <typename Number, typename Layout>
  template <int p>
  void
  VertexPatchSmoother<Number, Layout>::update_patches(VectorType        &u,
                                                      const VectorType  &b,
                                                      const unsigned int colour,
                                                      const unsigned int first,
                                                      const unsigned int last,
                                                      const bool         u_is_zero) const
  {
    constexpr int n  = p + 1;
    constexpr int n3 = n * n * n;
    constexpr int m  = 2 * p - 1;
    constexpr int m3 = m * m * m;

    const auto &list    = patches_.cells[colour];
    const auto &inv_idx = inverse_index_[colour];

    // a patch costs about eight cell operators and its local solve
    constexpr std::size_t patch_grain = 2;
    parallel_for_ranges(last - first, patch_grain, [&](const std::size_t begin, const std::size_t end) {
      // per range: cell u, cell b, cell residual, kernel scratch, two patch arrays
      std::vector<Number> buffer(3 * n3 + 4 * n3 + 2 * m3);
      Number             *u_cell  = buffer.data();
      Number             *b_cell  = u_cell + n3;
      Number             *au_cell = b_cell + n3;
      Number             *scratch = au_cell + n3;
      Number             *R       = scratch + 4 * n3;
      Number             *T       = R + m3;

      for (std::size_t k = first + begin; k < first + end; ++k)
        {
          const std::array<unsigned int, 8> &patch = list[k];
          const InverseData                 &data  = inverse_data_[inv_idx[k]];

          // 1.+2. cell residuals, assembled on the patch-interior DoFs
          for (int i = 0; i < m3; ++i)
            R[i] = Number(0);
          for (unsigned int c = 0; c < 8; ++c)
            {
              const unsigned int cell = patch[c];
              b.read_cell(cell, b_cell);
              if (!u_is_zero)
                {
                  u.read_cell(cell, u_cell);
                  kernels::apply_laplace_cell<p>(mass_.data(), stiffness_.data(), factors_[cell].data(), u_cell, au_cell, scratch);
                  for (int i = 0; i < n3; ++i)
                    b_cell[i] -= au_cell[i];
                }
              // cell node i_d maps to patch-interior index c_d p + i_d − 1
              const int cx = c & 1, cy = (c >> 1) & 1, cz = (c >> 2) & 1;
              const int lx = 1 - cx, ly = 1 - cy, lz = 1 - cz;
              for (int kz = lz; kz < lz + p; ++kz)
                for (int ky = ly; ky < ly + p; ++ky)
                  {
                    const Number *src = b_cell + (kz * n + ky) * n;
                    Number       *dst = R + ((cz * p + kz - 1) * m + (cy * p + ky - 1)) * m + cx * p - 1;
                    for (int kx = lx; kx < lx + p; ++kx)
                      dst[kx] += src[kx];
                  }
            }

          // 3. exact local solve: (Q_z⊗Q_y⊗Q_x) Λ^{-1} (Q_z⊗Q_y⊗Q_x)^T R
          const Number *qx = data.eigenvectors[0].data();
          const Number *qy = data.eigenvectors[1].data();
          const Number *qz = data.eigenvectors[2].data();
          kernels::contract<m, m, 1, m * m, true, false>(qx, R, T);
          kernels::contract<m, m, m, m, true, false>(qy, T, R);
          kernels::contract<m, m, m * m, 1, true, false>(qz, R, T);
          const Number *lambda_inv = data.inverse_eigenvalues.data();
          for (int i = 0; i < m3; ++i)
            T[i] *= lambda_inv[i];
          kernels::contract<m, m, 1, m * m, false, false>(qx, T, R);
          kernels::contract<m, m, m, m, false, false>(qy, R, T);
          kernels::contract<m, m, m * m, 1, false, false>(qz, T, R);

          // 3.+4. the same correction into every copy
          for (unsigned int c = 0; c < 8; ++c)
            {
              const unsigned int cell = patch[c];
              const int          cx = c & 1, cy = (c >> 1) & 1, cz = (c >> 2) & 1;
              const int          lx = 1 - cx, ly = 1 - cy, lz = 1 - cz;
              for (int kz = lz; kz < lz + p; ++kz)
                for (int ky = ly; ky < ly + p; ++ky)
                  {
                    const Number *src = R + ((cz * p + kz - 1) * m + (cy * p + ky - 1)) * m + cx * p - 1;
                    for (int kx = lx; kx < lx + p; ++kx)
                      u(cell, (kz * n + ky) * n + kx) += src[kx];
                  }
            }
        }
    });
  }

  template <typename Number, typename Layout>
  void
  VertexPatchSmoother<Number, Layout>::apply_colour(VectorType &u, const VectorType &b, const unsigned int colour, const bool u_is_zero) const
  {
    check_vectors(u, b);
    CELLWISE_CHECK(colour < 8, "VertexPatchSmoother: colour " << colour << " is not in 0..7");
    const unsigned int n_patches = patches_.n_patches(colour);
    dispatch_degree(degree_, [&](auto p) { update_patches<decltype(p)::value>(u, b, colour, 0, n_patches, u_is_zero); });
  }

  template <typename Number, typename Layout>
  void
  VertexPatchSmoother<Number, Layout>::apply_patch(VectorType &u, const VectorType &b, const unsigned int colour, const unsigned int index) const
  {
    check_vectors(u, b);
    CELLWISE_CHECK(colour < 8, "VertexPatchSmoother: colour " << colour << " is not in 0..7");
    CELLWISE_CHECK(index < patches_.n_patches(colour),
                   "VertexPatchSmoother: patch " << index << " of colour " << colour << " does not exist, the colour has "
                                                 << patches_.n_patches(colour) << " patches");
    dispatch_degree(degree_, [&](auto p) { update_patches<decltype(p)::value>(u, b, colour, index, index + 1, false); });
  }

  template <typename Number, typename Layout>
  void
  VertexPatchSmoother<Number, Layout>::smooth(VectorType &u, const VectorType &b, const bool zero_initial_guess, const SweepDirection direction) const
  {
    check_vectors(u, b);
    if (zero_initial_guess)
      u.set_zero();
    for (unsigned int sweep = 0; sweep < n_sweeps_; ++sweep)
      for (unsigned int step = 0; step < 8; ++step)
        {
          const unsigned int colour = sweep_colour(step, direction);
          apply_colour(u, b, colour, zero_initial_guess && sweep == 0 && step == 0);
        }
  }

  template class VertexPatchSmoother<double, CellContiguous>;
  template class VertexPatchSmoother<float, CellContiguous>;
  template class VertexPatchSmoother<double, CellBlocked<32>>;
  template class VertexPatchSmoother<float, CellBlocked<32>>;
} // namespace cellwise
