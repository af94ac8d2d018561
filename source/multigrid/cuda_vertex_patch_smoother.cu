// Device vertex-patch smoother (000 §3, §5): set-up and dispatch. The
// patches and patch inverses of the host smoother (the same functions, or
// for a serial level of one cell size the device search of the same lists)
// are uploaded, the register kernels' tables built (layout in cuda_vertex_patch_kernels.h, derivation in
// doc/cuda_vertex_patch_smoother.md), and each colour step launched on the
// generic kernel (cuda_vertex_patch_generic_kernel.cu) or a register kernel
// (cuda_vertex_patch_register_kernels.cu).

#include <cellwise/base/config.h>
#include <cellwise/base/cuda_check.h>
#include <cellwise/base/degree_dispatch.h>
#include <cellwise/base/parallel.h>
#include <cellwise/multigrid/cuda_vertex_patch_smoother.h>
#include <cellwise/fe/generalized_eigenproblem.h>
#include <cellwise/fe/matrices_1d.h>
#include <cellwise/fe/patch_fast_diagonalization.h>
#include <cellwise/kernels/laplace_cell.h>
#include <cellwise/mesh/cuda_vertex_patches.h>
#include <cellwise/multigrid/vertex_patch_inverses.h>
#include <cellwise/multigrid/vertex_patch_smoother.h>

#include <algorithm>
#include <cmath>
#include <utility>
#include <type_traits>

#include "cuda_vertex_patch_kernels.h"

namespace cellwise
{
  namespace cuda
  {
    template <typename Number, typename Layout>
    VertexPatchSmoother<Number, Layout>::VertexPatchSmoother(const Level &level, const unsigned int degree, const unsigned int n_sweeps)
    {
      reinit(level, degree, n_sweeps);
    }

    template <typename Number, typename Layout>
    VertexPatchSmoother<Number, Layout>::~VertexPatchSmoother()
    {
      release();
    }

    template <typename Number, typename Layout>
    void
    VertexPatchSmoother<Number, Layout>::release()
    {
      free_bytes(factors_);
      free_bytes(inverses_);
      free_bytes(register_tables_device_);
      factors_                = nullptr;
      inverses_               = nullptr;
      register_tables_device_ = nullptr;
      for (unsigned int colour = 0; colour < 8; ++colour)
        {
          free_bytes(patch_cells_[colour]);
          free_bytes(inverse_index_[colour]);
          patch_cells_[colour]   = nullptr;
          inverse_index_[colour] = nullptr;
        }
    }

    template <typename Number, typename Layout>
    void
    VertexPatchSmoother<Number, Layout>::reinit(const Level &level, const unsigned int degree, const unsigned int n_sweeps)
    {
      // The same patches and patch inverses as the host smoother (its
      // oracle); the host smoother itself is not built (its tables are the
      // size of the level). A serial level of one cell size finds its
      // patches on the device (mesh/cuda_vertex_patches.h: the same lists)
      // and has one inverse, so nothing the size of the level is built on
      // the host; other levels take the host's functions and upload.
      check_degree(degree);
      CELLWISE_CHECK(n_sweeps >= 1, "VertexPatchSmoother needs at least one sweep, got " << n_sweeps);
      const Matrices1D matrices = make_matrices_1d(degree);
      VertexPatchInverses inverses; // distinct only where the patches are found on the device
      VertexPatchLists    device_patches;
      VertexPatches       host_patches;
      const bool          on_device = can_find_vertex_patches(level) && has_one_cell_size(level);
      if (on_device)
        {
          device_patches = find_vertex_patches(level);
          for (unsigned int colour = 0; colour < 8; ++colour)
            if (device_patches.n_patches(colour) > 0)
              {
                std::array<unsigned int, 8> first;
                copy_device_to_host(first.data(), device_patches.cells(colour), sizeof(first));
                inverses.distinct.push_back(make_uniform_patch_inverse(level, first, matrices));
                break;
              }
        }
      else
        {
          host_patches = make_vertex_patches(level);
          inverses     = make_vertex_patch_inverses(level, host_patches, matrices);
        }
      release();
      degree_   = degree;
      n_sweeps_ = n_sweeps;
      n_cells_  = level.n_cells();
      for (unsigned int colour = 0; colour < 8; ++colour)
        n_patches_[colour] = on_device ? device_patches.n_patches(colour) : host_patches.n_patches(colour);

      const unsigned int n = degree + 1;
      mass_.assign(matrices.mass.data(), matrices.mass.data() + n * n);
      stiffness_.assign(matrices.stiffness.data(), matrices.stiffness.data() + n * n);

      UninitializedVector<Number> factors(3 * static_cast<std::size_t>(n_cells_));
      parallel_for(n_cells_, cell_grain, [&](const std::size_t c) {
        check_cell_size(level.boxes[c], static_cast<unsigned int>(c));
        kernels::laplace_factors(level.boxes[c].size.data(), factors.data() + 3 * c);
      });
      factors_ = upload(factors, "the metric factors of the vertex-patch smoother");

      // the distinct inverses in their order of first use: Q_x, Q_y, Q_z,
      // 1/(λ sums) each
      const unsigned int  m = 2 * degree - 1;
      std::vector<Number> inverse_data;
      for (const PatchInverse &inverse : inverses.distinct)
        {
          for (unsigned int d = 0; d < 3; ++d)
            for (unsigned int j = 0; j < m * m; ++j)
              inverse_data.push_back(static_cast<Number>(inverse.axis(d).eigenvectors.data()[j]));
          for (const double value : inverse.inverse_eigenvalues())
            inverse_data.push_back(static_cast<Number>(value));
        }
      // the per-colour lists go up as they are: 8 cell indices per patch
      static_assert(sizeof(std::array<unsigned int, 8>) == 8 * sizeof(unsigned int), "patch cell lists must be packed");
      for (unsigned int colour = 0; colour < 8; ++colour)
        if (on_device)
          {
            // one inverse: index 0 for every patch
            patch_cells_[colour]   = device_patches.release(colour);
            inverse_index_[colour] = allocate<unsigned int>(n_patches_[colour], "the vertex-patch inverse indices");
            if (n_patches_[colour] > 0)
              CELLWISE_CUDA_CHECK(cudaMemset(inverse_index_[colour], 0, n_patches_[colour] * sizeof(unsigned int)));
          }
        else
          {
            patch_cells_[colour]   = upload(reinterpret_cast<const unsigned int *>(host_patches.cells[colour].data()),
                                          8 * std::size_t(n_patches_[colour]), "the vertex-patch cell lists");
            inverse_index_[colour] = upload(inverses.index[colour], "the vertex-patch inverse indices");
          }
      n_inverses_ = static_cast<unsigned int>(inverses.distinct.size());
      inverses_   = upload(inverse_data, "the vertex-patch inverses");

      // register kernel tables (layout in the comment at the top)
      register_available_  = false;
      symmetric_available_ = false;
      register_tables_.clear();
      if constexpr (std::is_same_v<Number, float> && std::is_same_v<Layout, CellContiguous>)
        if (degree == 3 && n_inverses_ == 1)
          {
            const PatchInverse &inverse = inverses.distinct[0];
            bool                equal   = true;
            for (unsigned int d = 0; d < 3; ++d)
              equal = equal && std::abs(inverse.sizes()[d][0] - inverse.sizes()[d][1]) <= 1e-12 * inverse.sizes()[d][0];
            if (equal)
              {
                // device tables (q3_table_size words), then on the host only:
                // S^-1, S^T (16 each) and D (64) for the kernel parameters,
                // then the tables of register_q3_symmetric (q3_sym_table_size)
                register_tables_.assign(internal::q3_symmetric_matrices_at + 96, 0.f);
                const GeneralizedEigenpairs cell_pairs = solve_generalized_eigenproblem(matrices.stiffness, matrices.mass);
                const DenseMatrix          &S          = cell_pairs.eigenvectors; // column k: mode k
                double                      s_inverse[4][4];                     // S^-1 = S^T M
                for (int k = 0; k < 4; ++k)
                  for (int i = 0; i < 4; ++i)
                    {
                      s_inverse[k][i] = 0;
                      for (int j = 0; j < 4; ++j)
                        s_inverse[k][i] += S(j, k) * matrices.mass(j, i);
                      register_tables_[internal::q3_table_size + 4 * k + i]      = float(s_inverse[k][i]);
                      register_tables_[internal::q3_table_size + 16 + 4 * k + i] = float(S(i, k));
                    }
                // column of F of local node j on side a; -1 at the rim
                auto column = [](const unsigned int a, const int j) { return a == 0 ? (j >= 1 ? j - 1 : -1) : (j <= 2 ? 3 + j : -1); };
                for (unsigned int d = 0; d < 3; ++d)
                  {
                    const DenseMatrix &F = inverse.axis(d).cellwise_transform;
                    for (unsigned int a = 0; a < 2; ++a)
                      {
                        float *block = register_tables_.data() + (2 * d + a) * internal::q3_axis_stride;
                        double fo[3][4], fp[3][4];
                        for (int i = 0; i < 3; ++i)
                          for (int j = 0; j < 4; ++j)
                            {
                              const int own = column(a, j), other = column(1 - a, j);
                              fo[i][j]              = own < 0 ? 0. : F(3 * a + i, own);
                              fp[i][j]              = other < 0 ? 0. : F(3 * a + i, other);
                              block[24 + 4 * i + j] = float(fo[i][j]);
                              block[36 + 4 * i + j] = own < 0 ? 0.f : float(F(3 * (1 - a) + i, own));
                            }
                        // merged with S^-T: (F S^-T)_{ik} = Σ_j F_ij (S^-1)_kj
                        for (int i = 0; i < 3; ++i)
                          for (int k = 0; k < 4; ++k)
                            {
                              double so = 0, sp = 0;
                              for (int j = 0; j < 4; ++j)
                                {
                                  so += fo[i][j] * s_inverse[k][j];
                                  sp += fp[i][j] * s_inverse[k][j];
                                }
                              block[4 * i + k]      = float(so);
                              block[12 + 4 * i + k] = float(sp);
                            }
                      }
                  }
                for (unsigned int octant = 0; octant < 8; ++octant)
                  for (int l = 0; l < 3; ++l)
                    for (int k = 0; k < 3; ++k)
                      for (int i = 0; i < 3; ++i)
                        {
                          const double sum = inverse.axis(0).padded_eigenvalues[3 * (octant & 1) + i] +
                                             inverse.axis(1).padded_eigenvalues[3 * ((octant >> 1) & 1) + k] +
                                             inverse.axis(2).padded_eigenvalues[3 * ((octant >> 2) & 1) + l];
                          register_tables_[internal::q3_inverse_at + octant * 27 + (l * 3 + k) * 3 + i] = float(1. / sum);
                        }
                const double h[3] = {inverse.sizes()[0][0], inverse.sizes()[1][0], inverse.sizes()[2][0]};
                double       c[3];
                kernels::laplace_factors(h, c);
                const std::vector<double> &lambda = cell_pairs.eigenvalues;
                for (int k = 0; k < 4; ++k)
                  for (int j = 0; j < 4; ++j)
                    for (int i = 0; i < 4; ++i)
                      register_tables_[internal::q3_table_size + 32 + 16 * k + 4 * j + i] =
                        float(c[0] * lambda[i] + c[1] * lambda[j] + c[2] * lambda[k]);

                // register_q3_symmetric (000 §6.4): the forms need the mirror
                // symmetry of the patch along each axis, i.e. equal cells in
                // the patch (checked above: one patch inverse, h0 = h1 along
                // every axis). Its consequences are checked here in FP64 on
                // the actual tables, so that the kernel's hard-wired parities
                // cannot silently disagree with the eigensolver's output; the
                // signs of the eigenvectors (an eigensolver may return -s) do
                // not matter: only parities enter, the entries are used as
                // they are. Without them the variant is unavailable.
                symmetric_available_ = true;
                auto near            = [](const double a, const double b, const double scale) {
                  return std::abs(a - b) <= 1e-10 * scale;
                };
                // cell modes: S(3 - j, k) = τ_k S(j, k) with τ = (+, -, +, -); then
                // the rows of S^T and of S^-1 = S^T M (M persymmetric) as well
                double tau[4];
                for (int k = 0; k < 4; ++k)
                  {
                    tau[k]       = k % 2 == 0 ? 1. : -1.;
                    double scale = 0;
                    for (int j = 0; j < 4; ++j)
                      scale = std::max({scale, std::abs(S(j, k)), std::abs(s_inverse[k][j])});
                    for (int j = 0; j < 4; ++j)
                      symmetric_available_ = symmetric_available_ && near(S(3 - j, k), tau[k] * S(j, k), scale) &&
                                             near(s_inverse[k][3 - j], tau[k] * s_inverse[k][j], scale);
                  }
                // patch modes per axis: parity ε_k from F(k, node of cell 1) =
                // ε_k F(k, mirrored node of cell 0); side 0 owns the 3 even
                // modes, side 1 the 2 odd ones and the zero row (index 5)
                int mode_of[3][2][3];
                for (unsigned int d = 0; d < 3 && symmetric_available_; ++d)
                  {
                    const DenseMatrix &F      = inverse.axis(d).cellwise_transform;
                    int                n_side[2] = {0, 0};
                    for (int k = 0; k < 6; ++k)
                      {
                        double dot = 0, scale = 0;
                        for (int j = 1; j < 4; ++j)
                          {
                            dot += F(k, column(1, 3 - j)) * F(k, column(0, j));
                            scale = std::max(scale, std::abs(F(k, column(0, j))));
                          }
                        const int side = (k == 5 || dot < 0) ? 1 : 0;
                        for (int j = 1; j < 4; ++j)
                          symmetric_available_ = symmetric_available_ &&
                                                 near(F(k, column(1, 3 - j)), (side == 0 ? 1. : -1.) * F(k, column(0, j)), scale);
                        if (n_side[side] < 3)
                          mode_of[d][side][n_side[side]] = k;
                        ++n_side[side];
                      }
                    symmetric_available_ = symmetric_available_ && n_side[0] == 3 && n_side[1] == 3;
                  }
                // the first entries of the rows of S^-1 and S^T, which the
                // symmetric transforms divide out (see q3_symmetric_matrices_at)
                double first_inverse[4], first_transpose[4];
                for (int k = 0; k < 4; ++k)
                  {
                    first_inverse[k]   = s_inverse[k][0];
                    first_transpose[k] = S(0, k);
                    double scale_inverse = 0, scale_transpose = 0;
                    for (int j = 0; j < 4; ++j)
                      {
                        scale_inverse   = std::max(scale_inverse, std::abs(s_inverse[k][j]));
                        scale_transpose = std::max(scale_transpose, std::abs(S(j, k)));
                      }
                    symmetric_available_ = symmetric_available_ && std::abs(first_inverse[k]) > 1e-3 * scale_inverse &&
                                           std::abs(first_transpose[k]) > 1e-3 * scale_transpose;
                  }
                if (symmetric_available_)
                  {
                    float *matrices_sym = register_tables_.data() + internal::q3_symmetric_matrices_at;
                    for (int k = 0; k < 4; ++k)
                      for (int i = 0; i < 4; ++i)
                        {
                          matrices_sym[4 * k + i]      = float(s_inverse[k][i] / first_inverse[k]);
                          matrices_sym[16 + 4 * k + i] = float(S(i, k) / first_transpose[k]);
                        }
                    for (int k = 0; k < 4; ++k)
                      for (int j = 0; j < 4; ++j)
                        for (int i = 0; i < 4; ++i)
                          matrices_sym[32 + 16 * k + 4 * j + i] =
                            float((c[0] * lambda[i] + c[1] * lambda[j] + c[2] * lambda[k]) * first_inverse[i] * first_inverse[j] *
                                  first_inverse[k] / (first_transpose[i] * first_transpose[j] * first_transpose[k]));
                    float *sym = register_tables_.data() + internal::q3_symmetric_tables_at;
                    double forward_pivot[3][2][3]; // pivot entries of the rows of B_aa diag(t), divided out
                    for (unsigned int d = 0; d < 3; ++d)
                      {
                        const DenseMatrix &F = inverse.axis(d).cellwise_transform;
                        for (unsigned int a = 0; a < 2; ++a)
                          {
                            float *block = sym + (2 * d + a) * internal::q3_sym_axis_stride;
                            const double sigma = a == 0 ? 1. : -1.;
                            for (int i = 0; i < 3; ++i)
                              {
                                const int mode = mode_of[d][a][i];
                                double    fo[4];
                                for (int j = 0; j < 4; ++j)
                                  {
                                    const int own         = column(a, j);
                                    fo[j]                 = own < 0 ? 0. : F(mode, own);
                                    block[12 + 4 * i + j] = float(fo[j]); // F_aa, 0 in the rim column
                                  }
                                // B_aa = F_aa S^-T, times t_k (the scaled r^),
                                // then the row divided by its pivot entry
                                // (q3_forward_pivot), which the inverse
                                // eigenvalue table multiplies back in
                                double row[4];
                                for (int k = 0; k < 4; ++k)
                                  {
                                    row[k] = 0;
                                    for (int j = 0; j < 4; ++j)
                                      row[k] += fo[j] * s_inverse[k][j];
                                    row[k] *= first_transpose[k];
                                  }
                                const double largest = std::max({std::abs(row[0]), std::abs(row[1]), std::abs(row[2]), std::abs(row[3])});
                                const double pivot   = row[internal::q3_forward_pivot(i)];
                                // the zero row of F (side 1, i = 2) stays zero,
                                // its pivot 0: the kernel's implied 1 there
                                // gives a value that the table's 0 removes
                                forward_pivot[d][a][i] = pivot;
                                if (largest > 0)
                                  {
                                    symmetric_available_ = symmetric_available_ && std::abs(pivot) > 1e-3 * largest;
                                    for (int k = 0; k < 4; ++k)
                                      block[4 * i + k] = float(row[k] / pivot);
                                  }
                              }
                            for (int k = 0; k < 4; ++k)
                              block[24 + k] = float(sigma * tau[k]);
                            block[28] = float(-sigma);
                          }
                      }
                    for (unsigned int octant = 0; octant < 8; ++octant)
                      for (int l = 0; l < 3; ++l)
                        for (int k = 0; k < 3; ++k)
                          for (int i = 0; i < 3; ++i)
                            {
                              const double sum =
                                inverse.axis(0).padded_eigenvalues[mode_of[0][octant & 1][i]] +
                                inverse.axis(1).padded_eigenvalues[mode_of[1][(octant >> 1) & 1][k]] +
                                inverse.axis(2).padded_eigenvalues[mode_of[2][(octant >> 2) & 1][l]];
                              const double pivots = forward_pivot[0][octant & 1][i] * forward_pivot[1][(octant >> 1) & 1][k] *
                                                    forward_pivot[2][(octant >> 2) & 1][l];
                              sym[internal::q3_sym_inverse_at + octant * 27 + (l * 3 + k) * 3 + i] = float(pivots / sum);
                            }
                  }
                register_tables_device_ = upload(register_tables_, "the register patch kernel tables");
                register_available_     = true;
              }
          }
      if ((kernel_ == PatchKernel::register_q3 || kernel_ == PatchKernel::register_q3_async) && !register_available_)
        kernel_ = PatchKernel::automatic;
      if (kernel_ == PatchKernel::register_q3_symmetric && !symmetric_available_)
        kernel_ = PatchKernel::automatic;
    }

    template <typename Number, typename Layout>
    void
    VertexPatchSmoother<Number, Layout>::use_kernel(const PatchKernel kernel)
    {
      CELLWISE_CHECK((kernel != PatchKernel::register_q3 && kernel != PatchKernel::register_q3_async) || register_available_,
                     "cuda::VertexPatchSmoother: the register kernel needs FP32, degree 3, the cell-contiguous layout "
                     "and a uniform level (one patch inverse, equal cells along each axis); here degree "
                       << degree_ << " with " << n_inverses_ << " patch inverse(s)");
      CELLWISE_CHECK(kernel != PatchKernel::register_q3_symmetric || symmetric_available_,
                     "cuda::VertexPatchSmoother: register_q3_symmetric needs the register kernel and mirror-symmetric "
                     "patches (equal cells in every patch; degree "
                       << degree_ << ", " << n_inverses_ << " patch inverse(s))");
      kernel_ = kernel;
    }

    template <typename Number, typename Layout>
    PatchKernel
    VertexPatchSmoother<Number, Layout>::active_kernel() const
    {
      if (kernel_ == PatchKernel::generic || !register_available_)
        return PatchKernel::generic;
      // automatic: the symmetric variant where the patches are mirror
      // symmetric, else the cp.async one (full sweep at 128^3 on the H200,
      // 2026-11-30: 0.82, 0.80 and, register-staged, 0.57 of a device copy).
      // All register kernels write one value into every copy of a patch DoF,
      // so a continuous iterate stays continuous, as with the generic kernel.
      if ((kernel_ == PatchKernel::register_q3_symmetric || kernel_ == PatchKernel::automatic) && symmetric_available_)
        return PatchKernel::register_q3_symmetric;
      return kernel_ == PatchKernel::register_q3 ? PatchKernel::register_q3 : PatchKernel::register_q3_async;
    }

    template <typename Number, typename Layout>
    const float *
    VertexPatchSmoother<Number, Layout>::device_tables(const PatchKernel kernel) const
    {
      return register_tables_device_ + (kernel == PatchKernel::register_q3_symmetric ? internal::q3_symmetric_tables_at : 0);
    }

    template <typename Number, typename Layout>
    const float *
    VertexPatchSmoother<Number, Layout>::host_matrices(const PatchKernel kernel) const
    {
      return register_tables_.data() + (kernel == PatchKernel::register_q3_symmetric ? internal::q3_symmetric_matrices_at : internal::q3_table_size);
    }

    template <typename Number, typename Layout>
    void
    VertexPatchSmoother<Number, Layout>::check_vectors(const VectorType &u, const VectorType &b) const
    {
      CELLWISE_CHECK(u.n_cells() == n_cells_ && u.degree() == degree_,
                     "cuda::VertexPatchSmoother: iterate has " << u.n_cells() << " cells of degree " << u.degree()
                                                               << ", the smoother " << n_cells_ << " cells of degree "
                                                               << degree_);
      CELLWISE_CHECK(b.n_cells() == n_cells_ && b.degree() == degree_,
                     "cuda::VertexPatchSmoother: right-hand side has " << b.n_cells() << " cells of degree "
                                                                       << b.degree() << ", the smoother " << n_cells_
                                                                       << " cells of degree " << degree_);
      CELLWISE_CHECK(&u != &b, "cuda::VertexPatchSmoother: iterate and right-hand side must be different vectors");
    }

    template <typename Number, typename Layout>
    void
    VertexPatchSmoother<Number, Layout>::apply_colour(VectorType &u, const VectorType &b, const unsigned int colour, const bool u_is_zero) const
    {
      check_vectors(u, b);
      CELLWISE_CHECK(colour < 8, "cuda::VertexPatchSmoother: colour " << colour << " is not in 0..7");
      const unsigned int n_patches = n_patches_[colour];
      if (n_patches == 0)
        return;
      if (active_kernel() != PatchKernel::generic)
        {
          if constexpr (std::is_same_v<Number, float>)
            {
              const float *matrices = host_matrices(active_kernel());
              internal::launch_register_q3(matrices, matrices + 16, matrices + 32, device_tables(active_kernel()),
                                           patch_cells_[colour], n_patches, b.data(), u.data(), u_is_zero, false,
                                           active_kernel(), register_grid_limit_);
            }
          return;
        }
      dispatch_degree(degree_, [&](auto p) {
        internal::launch_generic<decltype(p)::value, Number, Layout>(mass_, stiffness_, factors_, inverses_, patch_cells_[colour],
                                                           inverse_index_[colour], n_patches, b.data(), u.data(), u_is_zero);
      });
    }

    template <typename Number, typename Layout>
    void
    VertexPatchSmoother<Number, Layout>::apply_traffic_stub(VectorType &u, const VectorType &b, const unsigned int colour, const bool u_is_zero) const
    {
      check_vectors(u, b);
      CELLWISE_CHECK(colour < 8, "cuda::VertexPatchSmoother: colour " << colour << " is not in 0..7");
      CELLWISE_CHECK(register_available_, "cuda::VertexPatchSmoother: the traffic stub needs the register kernel");
      if constexpr (std::is_same_v<Number, float>)
        {
          const float *matrices = host_matrices(active_kernel());
          internal::launch_register_q3(matrices, matrices + 16, matrices + 32, device_tables(active_kernel()),
                                       patch_cells_[colour], n_patches_[colour], b.data(), u.data(), u_is_zero,
                                       true, active_kernel(), register_grid_limit_);
        }
    }

    template <typename Number, typename Layout>
    void
    VertexPatchSmoother<Number, Layout>::smooth(VectorType &u, const VectorType &b, const bool zero_initial_guess, const SweepDirection direction) const
    {
      smooth(u, b, zero_initial_guess, direction, nullptr);
    }

    template <typename Number, typename Layout>
    void
    VertexPatchSmoother<Number, Layout>::smooth(VectorType                                                &u,
                                                const VectorType                                          &b,
                                                const bool                                                 zero_initial_guess,
                                                const SweepDirection                                       direction,
                                                const std::function<void(unsigned int colour, bool last)> &after_colour) const
    {
      check_vectors(u, b);
      if (zero_initial_guess)
        u.set_zero();
      for (unsigned int sweep = 0; sweep < n_sweeps_; ++sweep)
        for (unsigned int step = 0; step < 8; ++step)
          {
            const unsigned int colour = sweep_colour(step, direction); // the host order, 000 Table 10
            apply_colour(u, b, colour, zero_initial_guess && sweep == 0 && step == 0);
            if (after_colour)
              after_colour(colour, sweep + 1 == n_sweeps_ && step == 7);
          }
    }

    CELLWISE_INSTANTIATE_NUMBERS_AND_LAYOUTS(VertexPatchSmoother)
  } // namespace cuda
} // namespace cellwise

