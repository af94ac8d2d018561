#include <cellwise/base/config.h>
#include <cellwise/base/degree_dispatch.h>
#include <cellwise/base/parallel.h>
#include <cellwise/fe/lagrange_basis_1d.h>
#include <cellwise/fe/quadrature.h>
#include <cellwise/kernels/general_laplace_cell.h>
#include <cellwise/kernels/laplace_cell.h>
#include <cellwise/operators/laplace_operator.h>

#include <cmath>

namespace cellwise
{
  namespace
  {
    enum ApplyMode
    {
      overwrite = 0,
      accumulate,
      residual_mode
    };
  }

  template <typename Number, typename Layout>
  LaplaceOperator<Number, Layout>::LaplaceOperator(const Level &level, const unsigned int degree)
  {
    reinit(level, degree);
  }

  template <typename Number, typename Layout>
  LaplaceOperator<Number, Layout>::LaplaceOperator(const Level                &level,
                                                   const unsigned int          degree,
                                                   const ScalarFunction       &coefficient,
                                                   const CoefficientEvaluation evaluation)
  {
    reinit(level, degree, coefficient, evaluation);
  }

  template <typename Number, typename Layout>
  LaplaceOperator<Number, Layout>::LaplaceOperator(const Level &level, const unsigned int degree, LaplaceMetric<Number> metric)
  {
    // the host kernels read every general cell's values
    check_given_metric(metric, level.n_cells(), degree, GeneralCellValues::stored, "LaplaceOperator");
    make_tables(degree);
    metric_ = std::move(metric);
  }

  template <typename Number, typename Layout>
  void
  LaplaceOperator<Number, Layout>::reinit(const Level                &level,
                                          const unsigned int          degree,
                                          const ScalarFunction       &coefficient,
                                          const CoefficientEvaluation evaluation)
  {
    make_tables(degree);
    metric_ = make_laplace_metric<Number>(level, degree, coefficient, evaluation);
  }

  template <typename Number, typename Layout>
  void
  LaplaceOperator<Number, Layout>::make_tables(const unsigned int degree)
  {
    check_degree(degree);
    degree_   = degree;
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
    // the general kernel's tables at the n_q = p + 1 Gauss points
    const LagrangeBasis1D basis(degree);
    const Quadrature1D    gauss = gauss_quadrature(n);
    const DenseMatrix     S     = basis.values_at(gauss.points);
    const DenseMatrix     D     = basis.derivatives_at(gauss.points);
    values_.resize(n * n);
    derivatives_.resize(n * n);
    for (unsigned int q = 0; q < n; ++q)
      for (unsigned int i = 0; i < n; ++i)
        {
          values_[q * n + i]      = static_cast<Number>(S(q, i));
          derivatives_[q * n + i] = static_cast<Number>(D(q, i));
        }
    weights_.resize(n * n * n);
    for (unsigned int k = 0; k < n; ++k)
      for (unsigned int j = 0; j < n; ++j)
        for (unsigned int i = 0; i < n; ++i)
          weights_[(k * n + j) * n + i] = static_cast<Number>(gauss.weights[i] * gauss.weights[j] * gauss.weights[k]);
  }

  std::vector<double>
  cell_coefficient_averages(const Level &level, const unsigned int degree, const ScalarFunction &coefficient)
  {
    CELLWISE_CHECK(static_cast<bool>(coefficient), "cell_coefficient_averages: the coefficient is empty");
    return make_laplace_metric<double>(level, degree, coefficient, CoefficientEvaluation::cell_average).coefficient_averages;
  }

  template <typename Number, typename Layout>
  void
  LaplaceOperator<Number, Layout>::set_coefficient(const Level &level, const ScalarFunction &coefficient, const CoefficientEvaluation evaluation)
  {
    CELLWISE_CHECK(level.n_cells() == n_cells(), "set_coefficient: level of " << level.n_cells() << " cells, operator of " << n_cells());
    CELLWISE_CHECK(static_cast<bool>(coefficient), "set_coefficient: the coefficient is empty");
    metric_ = make_laplace_metric<Number>(level, degree_, coefficient, evaluation);
  }

  template <typename Number, typename Layout>
  template <int p>
  void
  LaplaceOperator<Number, Layout>::apply_cell(const unsigned int cell, const Number *u, Number *out, Number *scratch) const
  {
    constexpr int n_q = p + 1;
    const Number *data = metric_.data.data() + (metric_.form[cell] == MetricForm::cartesian ? 0 : metric_.offset[cell]);
    switch (metric_.form[cell])
      {
        case MetricForm::cartesian:
          kernels::apply_laplace_cell<p>(mass_.data(), stiffness_.data(), metric_.factors[cell].data(), u, out, scratch);
          return;
        case MetricForm::cartesian_coefficient:
          {
            const std::array<Number, 3> &f = metric_.factors[cell];
            kernels::apply_general_laplace_cell<p, n_q>(values_.data(), derivatives_.data(),
                                                        [&](const int q, Number *G) {
                                                          G[0] = f[0] * data[q];
                                                          G[1] = f[1] * data[q];
                                                          G[2] = f[2] * data[q];
                                                          G[3] = G[4] = G[5] = Number(0);
                                                        },
                                                        u, out, scratch);
            return;
          }
        case MetricForm::affine:
          kernels::apply_general_laplace_cell<p, n_q>(values_.data(), derivatives_.data(),
                                                      [&](const int q, Number *G) {
                                                        for (int e = 0; e < kernels::metric_entries; ++e)
                                                          G[e] = weights_[q] * data[e];
                                                      },
                                                      u, out, scratch);
          return;
        default:
          kernels::apply_general_laplace_cell<p, n_q>(values_.data(), derivatives_.data(),
                                                      [&](const int q, Number *G) {
                                                        for (int e = 0; e < kernels::metric_entries; ++e)
                                                          G[e] = data[kernels::metric_entries * q + e];
                                                      },
                                                      u, out, scratch);
      }
  }

  template <typename Number, typename Layout>
  void
  LaplaceOperator<Number, Layout>::cell_vmult(const unsigned int cell, const Number *u, Number *out) const
  {
    CELLWISE_CHECK(cell < n_cells(), "LaplaceOperator::cell_vmult: cell " << cell << " of " << n_cells());
    dispatch_degree(degree_, [&](auto degree) {
      constexpr int p = decltype(degree)::value;
      Number        scratch[6 * (p + 1) * (p + 1) * (p + 1)];
      apply_cell<p>(cell, u, out, scratch);
    });
  }

  template <typename Number, typename Layout>
  template <int p>
  void
  LaplaceOperator<Number, Layout>::apply(VectorType &dst, const VectorType *b, const VectorType &u, const int mode) const
  {
    constexpr int n3 = (p + 1) * (p + 1) * (p + 1);
    parallel_for_ranges(n_cells(), cell_grain, [&](const std::size_t begin, const std::size_t end) {
      Number local_u[n3], local_out[n3], scratch[6 * n3];
      for (std::size_t cell = begin; cell < end; ++cell)
        {
          u.read_cell(cell, local_u);
          apply_cell<p>(static_cast<unsigned int>(cell), local_u, local_out, scratch);
          if (mode == overwrite)
            dst.write_cell(cell, local_out);
          else if (mode == accumulate)
            dst.add_cell(cell, local_out);
          else
            {
              Number local_b[n3];
              b->read_cell(cell, local_b);
              for (int i = 0; i < n3; ++i)
                local_out[i] = local_b[i] - local_out[i];
              dst.write_cell(cell, local_out);
            }
        }
    });
  }

  template <typename Number, typename Layout>
  void
  LaplaceOperator<Number, Layout>::vmult(VectorType &dst, const VectorType &src) const
  {
    CELLWISE_CHECK(src.n_cells() == n_cells() && src.degree() == degree_,
                   "LaplaceOperator::vmult: source has " << src.n_cells() << " cells of degree " << src.degree()
                                                          << ", the operator " << n_cells() << " cells of degree " << degree_);
    if (dst.n_cells() != src.n_cells() || dst.degree() != src.degree())
      dst.reinit(src.n_cells(), src.degree());
    CELLWISE_CHECK(&dst != &src, "LaplaceOperator::vmult cannot work in place");
    dispatch_degree(degree_, [&](auto p) { apply<decltype(p)::value>(dst, nullptr, src, overwrite); });
  }

  template <typename Number, typename Layout>
  void
  LaplaceOperator<Number, Layout>::vmult_add(VectorType &dst, const VectorType &src) const
  {
    CELLWISE_CHECK(src.n_cells() == n_cells() && src.degree() == degree_,
                   "LaplaceOperator::vmult_add: source has " << src.n_cells() << " cells of degree " << src.degree()
                                                              << ", the operator " << n_cells() << " cells of degree " << degree_);
    dst.check_compatible(src);
    CELLWISE_CHECK(&dst != &src, "LaplaceOperator::vmult_add cannot work in place");
    dispatch_degree(degree_, [&](auto p) { apply<decltype(p)::value>(dst, nullptr, src, accumulate); });
  }

  template <typename Number, typename Layout>
  void
  LaplaceOperator<Number, Layout>::residual(VectorType &dst, const VectorType &b, const VectorType &u) const
  {
    CELLWISE_CHECK(u.n_cells() == n_cells() && u.degree() == degree_,
                   "LaplaceOperator::residual: iterate has " << u.n_cells() << " cells of degree " << u.degree()
                                                              << ", the operator " << n_cells() << " cells of degree " << degree_);
    b.check_compatible(u);
    CELLWISE_CHECK(&dst != &u, "LaplaceOperator::residual cannot overwrite the iterate");
    if (dst.n_cells() != u.n_cells() || dst.degree() != u.degree())
      dst.reinit(u.n_cells(), u.degree());
    dispatch_degree(degree_, [&](auto p) { apply<decltype(p)::value>(dst, &b, u, residual_mode); });
  }

  template <typename Number, typename Layout>
  void
  LaplaceOperator<Number, Layout>::compute_cell_diagonals(VectorType &diagonal) const
  {
    diagonal.reinit(n_cells(), degree_);
    dispatch_degree(degree_, [&](auto degree) {
      constexpr int p = decltype(degree)::value, n = p + 1, n3 = n * n * n;
      // the general kernel's products of the 1D tables
      std::vector<Number> SS(n * n), DD(n * n), SD(n * n);
      for (int k = 0; k < n * n; ++k)
        {
          SS[k] = values_[k] * values_[k];
          DD[k] = derivatives_[k] * derivatives_[k];
          SD[k] = values_[k] * derivatives_[k];
        }
      parallel_for_ranges(n_cells(), cell_grain, [&](const std::size_t begin, const std::size_t end) {
        Number local[n3], scratch[3 * n3];
        for (std::size_t c = begin; c < end; ++c)
          {
            const unsigned int cell = static_cast<unsigned int>(c);
            if (metric_.form[cell] == MetricForm::cartesian)
              kernels::laplace_cell_diagonal(n, mass_.data(), stiffness_.data(), metric_.factors[cell].data(), local);
            else
              {
                // the metric at the points as the operator applies it
                std::vector<Number> G(kernels::metric_entries * n3);
                for (int q = 0; q < n3; ++q)
                  metric_at(cell, q, &G[kernels::metric_entries * q]);
                kernels::general_laplace_cell_diagonal<p, n>(SS.data(), DD.data(), SD.data(),
                                                             [&](const int q, Number *g) {
                                                               for (int e = 0; e < kernels::metric_entries; ++e)
                                                                 g[e] = G[kernels::metric_entries * q + e];
                                                             },
                                                             local, scratch);
              }
            diagonal.write_cell(cell, local);
          }
      });
    });
  }

  template <typename Number, typename Layout>
  void
  LaplaceOperator<Number, Layout>::metric_at(const unsigned int cell, const unsigned int q, Number *G) const
  {
    const Number *data = metric_.data.data() + (metric_.form[cell] == MetricForm::cartesian ? 0 : metric_.offset[cell]);
    metric_at_point(metric_.form[cell], metric_.factors[cell].data(), data, weights_[q], static_cast<int>(q), G);
  }

  template <typename Number, typename Layout>
  DenseMatrix
  LaplaceOperator<Number, Layout>::cell_matrix(const unsigned int cell) const
  {
    const unsigned int n = degree_ + 1, n3 = n * n * n;
    if (metric_.form[cell] == MetricForm::cartesian)
      {
        const DenseMatrix &M = matrices_.mass;
        const DenseMatrix &K = matrices_.stiffness;
        // Kronecker factors slowest axis (z) first: index i_x + n i_y + n^2 i_z.
        const DenseMatrix ax = kronecker_product(M, kronecker_product(M, K));
        const DenseMatrix ay = kronecker_product(M, kronecker_product(K, M));
        const DenseMatrix az = kronecker_product(K, kronecker_product(M, M));
        DenseMatrix       a(ax.m(), ax.n());
        const auto       &f = metric_.factors[cell];
        for (unsigned int i = 0; i < a.m(); ++i)
          for (unsigned int j = 0; j < a.n(); ++j)
            a(i, j) = double(f[0]) * ax(i, j) + double(f[1]) * ay(i, j) + double(f[2]) * az(i, j);
        return a;
      }
    // the quadrature of ∇̂φ_i · G ∇̂φ_j with the tables of the kernel
    std::vector<std::array<double, 3>> gradient(static_cast<std::size_t>(n3) * n3);
    for (unsigned int i = 0; i < n3; ++i)
      for (unsigned int q = 0; q < n3; ++q)
        {
          const unsigned int ix = i % n, iy = (i / n) % n, iz = i / (n * n);
          const unsigned int qx = q % n, qy = (q / n) % n, qz = q / (n * n);
          const double       sx = values_[qx * n + ix], sy = values_[qy * n + iy], sz = values_[qz * n + iz];
          const double       dx = derivatives_[qx * n + ix], dy = derivatives_[qy * n + iy], dz = derivatives_[qz * n + iz];
          gradient[static_cast<std::size_t>(i) * n3 + q] = {{dx * sy * sz, sx * dy * sz, sx * sy * dz}};
        }
    DenseMatrix a(n3, n3);
    Number      G[kernels::metric_entries];
    for (unsigned int q = 0; q < n3; ++q)
      {
        metric_at(cell, q, G);
        const double g[3][3] = {{double(G[0]), double(G[3]), double(G[4])},
                                {double(G[3]), double(G[1]), double(G[5])},
                                {double(G[4]), double(G[5]), double(G[2])}};
        for (unsigned int i = 0; i < n3; ++i)
          {
            const auto &gi = gradient[static_cast<std::size_t>(i) * n3 + q];
            double      Gg[3];
            for (unsigned int d = 0; d < 3; ++d)
              Gg[d] = g[d][0] * gi[0] + g[d][1] * gi[1] + g[d][2] * gi[2];
            for (unsigned int j = 0; j < n3; ++j)
              {
                const auto &gj = gradient[static_cast<std::size_t>(j) * n3 + q];
                a(j, i) += Gg[0] * gj[0] + Gg[1] * gj[1] + Gg[2] * gj[2];
              }
          }
      }
    return a;
  }

  template <typename Number, typename Layout>
  void
  LaplaceOperator<Number, Layout>::smoother_step(VectorType                 &u,
                                                 VectorType                 &r,
                                                 VectorType                 *update,
                                                 const VectorType           &b,
                                                 const VectorType           &inverse_diagonal,
                                                 const SmootherStep<Number> &step) const
  {
    check_smoother_step(u, r, update, b, inverse_diagonal, step, n_cells(), degree_, "LaplaceOperator");
    apply_smoother_update(u, r, update, inverse_diagonal, step);
    if (step.compute_residual)
      residual(r, b, u);
  }

  CELLWISE_INSTANTIATE_NUMBERS_AND_LAYOUTS(LaplaceOperator)
} // namespace cellwise
