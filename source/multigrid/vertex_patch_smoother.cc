#include <cellwise/base/config.h>
#include <cellwise/base/degree_dispatch.h>
#include <cellwise/base/exceptions.h>
#include <cellwise/base/parallel.h>
#include <cellwise/kernels/laplace_cell.h>
#include <cellwise/kernels/tensor_product.h>
#include <cellwise/multigrid/vertex_patch_smoother.h>

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

namespace cellwise
{
  namespace
  {
    /// R += the patch-interior values of the cell in lane @p c of a patch (a
    /// cell node i_d is patch-interior index c_d p + i_d − 1).
    template <int p, typename Number>
    void
    add_cell_to_patch(const Number *cell_values, const unsigned int c, Number *R)
    {
      constexpr int n = p + 1, m = 2 * p - 1;
      const int     cx = c & 1, cy = (c >> 1) & 1, cz = (c >> 2) & 1;
      const int     lx = first_patch_interior_node(cx), ly = first_patch_interior_node(cy), lz = first_patch_interior_node(cz);
      for (int kz = lz; kz < lz + p; ++kz)
        for (int ky = ly; ky < ly + p; ++ky)
          {
            const Number *src = cell_values + (kz * n + ky) * n;
            Number       *dst = R + ((cz * p + kz - 1) * m + (cy * p + ky - 1)) * m + cx * p - 1;
            for (int kx = lx; kx < lx + p; ++kx)
              dst[kx] += src[kx];
          }
    }

    /// The cell of lane @p c with the patch values @p R at its
    /// patch-interior nodes and zero at the others.
    template <int p, typename Number>
    void
    patch_to_cell(const Number *R, const unsigned int c, Number *cell_values)
    {
      constexpr int n = p + 1, m = 2 * p - 1;
      for (int i = 0; i < n * n * n; ++i)
        cell_values[i] = Number(0);
      const int cx = c & 1, cy = (c >> 1) & 1, cz = (c >> 2) & 1;
      const int lx = first_patch_interior_node(cx), ly = first_patch_interior_node(cy), lz = first_patch_interior_node(cz);
      for (int kz = lz; kz < lz + p; ++kz)
        for (int ky = ly; ky < ly + p; ++ky)
          {
            const Number *src = R + ((cz * p + kz - 1) * m + (cy * p + ky - 1)) * m + cx * p - 1;
            for (int kx = lx; kx < lx + p; ++kx)
              cell_values[(kz * n + ky) * n + kx] = src[kx];
          }
    }
  } // namespace

  template <typename Number, typename Layout>
  VertexPatchSmoother<Number, Layout>::VertexPatchSmoother(const Level &level, const unsigned int degree, const unsigned int n_sweeps)
  {
    reinit(level, degree, n_sweeps);
  }

  template <typename Number, typename Layout>
  VertexPatchSmoother<Number, Layout>::VertexPatchSmoother(const Level                           &level,
                                                           const LaplaceOperator<Number, Layout> &op,
                                                           const unsigned int                     n_sweeps,
                                                           const VectorType                      *mask)
  {
    reinit(level, op, n_sweeps, mask);
  }

  template <typename Number, typename Layout>
  void
  VertexPatchSmoother<Number, Layout>::reinit(const Level &level, const unsigned int degree, const unsigned int n_sweeps)
  {
    check_degree(degree);
    parallel_for(level.n_cells(), cell_grain, [&](const std::size_t c) { check_cell_size(level.boxes[c], static_cast<unsigned int>(c)); });
    own_operator_ = std::make_shared<LaplaceOperator<Number, Layout>>(level, degree);
    reinit(level, *own_operator_, n_sweeps);
  }

  template <typename Number, typename Layout>
  void
  VertexPatchSmoother<Number, Layout>::reinit(const Level                           &level,
                                              const LaplaceOperator<Number, Layout> &op,
                                              const unsigned int                     n_sweeps,
                                              const VectorType                      *mask)
  {
    CELLWISE_CHECK(n_sweeps >= 1, "VertexPatchSmoother needs at least one sweep, got " << n_sweeps);
    CELLWISE_CHECK(op.n_cells() == level.n_cells(),
                   "VertexPatchSmoother: the operator has " << op.n_cells() << " cells, the level " << level.n_cells());
    if (&op != own_operator_.get())
      own_operator_.reset();
    operator_               = &op;
    const unsigned int degree = op.degree();
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

    patches_ = make_vertex_patches(level);
    // the exact inverses of the patch's boxes where the operator is that of
    // the boxes without a coefficient; else those of the surrogate boxes
    const LaplaceMetric<Number> &metric = op.metric();
    const auto                   n_form = metric.count();
    bool                         plain  = level.mapping.empty() && n_form[0] == metric.n_cells();
    for (unsigned int c = 0; c < metric.n_cells() && plain; ++c)
      plain = metric.coefficient_averages[c] == 1.;
    VertexPatchInverses inverses;
    if (plain)
      inverses = make_vertex_patch_inverses(level, patches_, matrices_);
    else
      {
        std::vector<std::array<double, 3>> sizes(level.n_cells());
        parallel_for(level.n_cells(), cell_grain, [&](const std::size_t c) {
          sizes[c] = effective_cell_sizes(metric.surrogate_factors(static_cast<unsigned int>(c)));
        });
        inverses = make_vertex_patch_inverses(sizes, patches_, matrices_, PatchSizeRule::surrogate);
      }
    // exact: every patch of boxes with one coefficient (its surrogate sizes
    // are its sizes scaled by the coefficient)
    exact_local_solves_ = plain || (level.mapping.empty() && n_form[0] == metric.n_cells() && inverses.distinct.size() == 1 &&
                                    [&] {
                                      for (unsigned int c = 1; c < metric.n_cells(); ++c)
                                        if (metric.coefficient_averages[c] != metric.coefficient_averages[0])
                                          return false;
                                      return true;
                                    }());
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
    for (auto &d : damping_)
      d.clear();
    if (!exact_local_solves_)
      dispatch_degree(degree, [&](auto p) { compute_dampings<decltype(p)::value>(); });

    // the free DoFs of no patch: on an unstructured mesh the skeleton's
    uncovered_smoother_.reset();
    n_uncovered_ = 0;
    if (level.has_skeleton())
      {
        CELLWISE_CHECK(mask != nullptr, "VertexPatchSmoother: an unstructured mesh needs the Dirichlet mask (the DoFs on the "
                                        "skeleton between the coarse cells are smoothed by a Jacobi step)");
        uncovered_mask_ = *mask;
        const unsigned int p = degree;
        for (unsigned int colour = 0; colour < VertexPatches::n_colours; ++colour)
          for (const auto &patch : patches_.cells[colour])
            for (unsigned int c = 0; c < 8; ++c)
              {
                const int lx = first_patch_interior_node(c & 1), ly = first_patch_interior_node((c >> 1) & 1),
                          lz = first_patch_interior_node((c >> 2) & 1);
                for (int kz = lz; kz < lz + int(p); ++kz)
                  for (int ky = ly; ky < ly + int(p); ++ky)
                    for (int kx = lx; kx < lx + int(p); ++kx)
                      uncovered_mask_(patch[c], (kz * n + ky) * n + kx) = Number(0);
              }
        for (unsigned int cell = 0; cell < level.n_cells(); ++cell)
          for (unsigned int i = 0; i < uncovered_mask_.dofs_per_cell(); ++i)
            n_uncovered_ += uncovered_mask_(cell, i) != Number(0);
        if (n_uncovered_ > 0)
          {
            // Chebyshev–Jacobi on those DoFs alone: they are smoothed by
            // nothing else, so its interval reaches far down
            // three Jacobi steps, ω = 1 / λ_max(D⁻¹A) on those DoFs (the ball:
            // 17 CG iterations with one step, 12–13 with three, no fewer
            // with more or with Chebyshev there: the surrogate patches
            // then limit)
            const DssJacobiPreconditioner<Number, Layout> probe(level, op, uncovered_mask_);
            const double lambda = estimate_max_eigenvalue(op, probe, uncovered_mask_, ChebyshevParameters().eigenvalue_iterations);
            CELLWISE_CHECK(lambda > 0 && std::isfinite(lambda), "VertexPatchSmoother: the Jacobi step on the skeleton has λ_max " << lambda);
            uncovered_smoother_ =
              std::make_shared<JacobiSmoother<Number, Layout>>(level, op, uncovered_mask_, JacobiParameters{1. / lambda, 3});
          }
      }
  }

  template <typename Number, typename Layout>
  template <int p>
  void
  VertexPatchSmoother<Number, Layout>::local_solve(const InverseData &data, Number *R, Number *T) const
  {
    constexpr int m  = 2 * p - 1;
    constexpr int m3 = m * m * m;
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
  }

  template <typename Number, typename Layout>
  template <int p>
  void
  VertexPatchSmoother<Number, Layout>::compute_dampings()
  {
    // Per patch the largest eigenvalue λ of Ã_v^{-1} A_v (A_v the patch
    // matrix, Ã_v the surrogate) by power iteration in the A_v inner
    // product: x ← Ã^{-1} A x, λ ≈ (A x · Ã^{-1} A x) / (x · A x). A local
    // solve with ω Ã^{-1}, ω = 1 / (1.05 λ) where λ > 1/1.05, never
    // overshoots a mode (ω Ã ≥ A on the patch): the sweeps then converge
    // and the forward–reverse cycle stays positive definite, which the
    // undamped surrogate does not on strongly deformed cells.
    constexpr int          n = p + 1, n3 = n * n * n, m = 2 * p - 1, m3 = m * m * m;
    constexpr unsigned int iterations = 8;
    for (unsigned int colour = 0; colour < VertexPatches::n_colours; ++colour)
      {
        const auto &list = patches_.cells[colour];
        damping_[colour].resize(list.size());
        parallel_for_ranges(list.size(), 2, [&](const std::size_t begin, const std::size_t end) {
          std::vector<Number> x(m3), y(m3), z(m3), T(m3), cell_in(n3), cell_out(n3);
          for (std::size_t k = begin; k < end; ++k)
            {
              const InverseData &data = inverse_data_[inverse_index_[colour][k]];
              // a start with every mode, fixed by the patch's vertex (not its
              // place in the list, which differs on a rank's part of a
              // distributed level): the same damping on every rank
              const std::array<int, 3> &v     = patches_.vertices[colour][k];
              const double              phase = 0.3 * double(v[0] + 3 * v[1] + 9 * v[2]);
              for (int i = 0; i < m3; ++i)
                x[i] = Number(1. + 0.5 * std::sin(1.7 * i + phase));
              double lambda = 0;
              for (unsigned int it = 0; it < iterations; ++it)
                {
                  std::fill(y.begin(), y.end(), Number(0));
                  for (unsigned int c = 0; c < 8; ++c)
                    {
                      patch_to_cell<p>(x.data(), c, cell_in.data());
                      operator_->cell_vmult(list[k][c], cell_in.data(), cell_out.data());
                      add_cell_to_patch<p>(cell_out.data(), c, y.data());
                    }
                  z = y;
                  local_solve<p>(data, z.data(), T.data());
                  double yz = 0, xy = 0, zz = 0;
                  for (int i = 0; i < m3; ++i)
                    {
                      yz += double(y[i]) * double(z[i]);
                      xy += double(x[i]) * double(y[i]);
                      zz += double(z[i]) * double(z[i]);
                    }
                  CELLWISE_CHECK(xy > 0 && std::isfinite(yz),
                                 "VertexPatchSmoother: the patch matrix of patch " << k << " of colour " << colour
                                                                                   << " is not positive definite (x·Ax = " << xy << ")");
                  lambda = yz / xy;
                  const double scale = 1. / std::sqrt(zz);
                  for (int i = 0; i < m3; ++i)
                    x[i] = Number(double(z[i]) * scale);
                }
              damping_[colour][k] = Number(std::min(1., 1. / (1.05 * lambda)));
            }
        });
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

    const auto                  &list    = patches_.cells[colour];
    const auto                  &inv_idx = inverse_index_[colour];
    const LaplaceMetric<Number> &metric  = operator_->metric();

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
                  if (metric.form[cell] == MetricForm::cartesian)
                    kernels::apply_laplace_cell<p>(mass_.data(), stiffness_.data(), metric.factors[cell].data(), u_cell, au_cell, scratch);
                  else
                    operator_->cell_vmult(cell, u_cell, au_cell);
                  for (int i = 0; i < n3; ++i)
                    b_cell[i] -= au_cell[i];
                }
              add_cell_to_patch<p>(b_cell, c, R);
            }

          // 3. local solve: (Q_z⊗Q_y⊗Q_x) Λ^{-1} (Q_z⊗Q_y⊗Q_x)^T R, exact
          // on boxes, damped where it solves a surrogate (compute_dampings)
          local_solve<p>(data, R, T);
          if (!damping_[colour].empty())
            for (int i = 0; i < m3; ++i)
              R[i] *= damping_[colour][k];

          // 3.+4. the same correction into every copy
          for (unsigned int c = 0; c < 8; ++c)
            {
              const unsigned int cell = patch[c];
              const int          cx = c & 1, cy = (c >> 1) & 1, cz = (c >> 2) & 1;
              const int          lx = first_patch_interior_node(cx), ly = first_patch_interior_node(cy),
                                 lz = first_patch_interior_node(cz);
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
    smooth(u, b, zero_initial_guess, direction, [](unsigned int, bool) {});
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
      {
        // the skeleton's Jacobi step last in a forward sweep, first in a
        // reverse one: the reverse sweep stays the forward one's adjoint
        if (uncovered_smoother_ && direction == SweepDirection::reverse)
          uncovered_smoother_->smooth(u, b, false, direction);
        for (unsigned int step = 0; step < 8; ++step)
          {
            const unsigned int colour = sweep_colour(step, direction);
            apply_colour(u, b, colour, zero_initial_guess && sweep == 0 && step == 0 && !(uncovered_smoother_ && direction == SweepDirection::reverse));
            after_colour(colour, sweep + 1 == n_sweeps_ && step == 7 && !(uncovered_smoother_ && direction == SweepDirection::forward));
          }
        if (uncovered_smoother_ && direction == SweepDirection::forward)
          uncovered_smoother_->smooth(u, b, false, direction);
      }
  }

  CELLWISE_INSTANTIATE_NUMBERS_AND_LAYOUTS(VertexPatchSmoother)
} // namespace cellwise
