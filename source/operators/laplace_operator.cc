#include <cellwise/base/config.h>
#include <cellwise/base/degree_dispatch.h>
#include <cellwise/base/parallel.h>
#include <cellwise/fe/quadrature.h>
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

  template <typename Number>
  std::array<Number, 3>
  checked_laplace_factors(const CellBox &box, const unsigned int cell)
  {
    const auto &h = box.size;
    for (unsigned int d = 0; d < 3; ++d)
      CELLWISE_CHECK(h[d] > 0 && std::isfinite(h[d]),
                     "cell " << cell << " has size " << h[d] << " along axis " << d << " (sizes must be positive and finite)");
    std::array<Number, 3> c;
    kernels::laplace_factors(h.data(), c.data());
    const double volume   = h[0] * h[1] * h[2];
    const bool   in_range = std::isnormal(volume) && std::isnormal(c[0]) && std::isnormal(c[1]) && std::isnormal(c[2]);
    CELLWISE_CHECK(in_range, "cell " << cell << " of size " << h[0] << " x " << h[1] << " x " << h[2]
                                      << " is out of the range of the " << (sizeof(Number) == 4 ? "FP32" : "FP64")
                                      << " operator: its volume " << volume << " and metric factors " << c[0] << ", "
                                      << c[1] << ", " << c[2]
                                      << " must be normal finite numbers; scale the problem to moderate lengths"
                                      << (sizeof(Number) == 4 ? " or solve in double precision" : ""));
    return c;
  }

  template std::array<double, 3>
  checked_laplace_factors<double>(const CellBox &, unsigned int);
  template std::array<float, 3>
  checked_laplace_factors<float>(const CellBox &, unsigned int);

  template <typename Number, typename Layout>
  LaplaceOperator<Number, Layout>::LaplaceOperator(const Level &level, const unsigned int degree)
  {
    reinit(level, degree);
  }

  template <typename Number, typename Layout>
  void
  LaplaceOperator<Number, Layout>::reinit(const Level &level, const unsigned int degree)
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
    factors_.resize(level.n_cells());
    for (unsigned int c = 0; c < level.n_cells(); ++c)
      factors_[c] = checked_laplace_factors<Number>(level.boxes[c], c);
    coefficients_.assign(level.n_cells(), 1.);
  }

  std::vector<double>
  cell_coefficient_averages(const Level &level, const unsigned int degree, const ScalarFunction &coefficient)
  {
    CELLWISE_CHECK(static_cast<bool>(coefficient), "cell_coefficient_averages: the coefficient is empty");
    const Quadrature1D  quadrature = gauss_quadrature(degree + 1);
    const unsigned int  q          = degree + 1;
    std::vector<double> averages(level.n_cells());
    // user functions run in parallel, as deal.II's own loops run them
    parallel_for(level.n_cells(), cell_grain, [&](const std::size_t c) {
      const CellBox &box     = level.boxes[c];
      double         average = 0;
      for (unsigned int k = 0; k < q; ++k)
        for (unsigned int j = 0; j < q; ++j)
          for (unsigned int i = 0; i < q; ++i)
            average += quadrature.weights[i] * quadrature.weights[j] * quadrature.weights[k] *
                       coefficient({{box.lower[0] + quadrature.points[i] * box.size[0],
                                     box.lower[1] + quadrature.points[j] * box.size[1],
                                     box.lower[2] + quadrature.points[k] * box.size[2]}});
      CELLWISE_CHECK(std::isfinite(average) && average > 0,
                     "the coefficient averages to " << average << " on cell " << c << ": it must be positive and finite");
      averages[c] = average;
    });
    return averages;
  }

  template <typename Number, typename Layout>
  void
  LaplaceOperator<Number, Layout>::set_coefficient(const Level &level, const ScalarFunction &coefficient)
  {
    CELLWISE_CHECK(level.n_cells() == n_cells(), "set_coefficient: level of " << level.n_cells() << " cells, operator of " << n_cells());
    const std::vector<double> averages = cell_coefficient_averages(level, degree_, coefficient);
    for (unsigned int c = 0; c < level.n_cells(); ++c)
      {
        const CellBox &box     = level.boxes[c];
        const double   average = averages[c];
        kernels::laplace_factors(box.size.data(), factors_[c].data());
        for (unsigned int d = 0; d < 3; ++d)
          factors_[c][d] = static_cast<Number>(average * double(factors_[c][d]));
        coefficients_[c] = average;
      }
  }

  template <typename Number, typename Layout>
  template <int p>
  void
  LaplaceOperator<Number, Layout>::apply(VectorType &dst, const VectorType *b, const VectorType &u, const int mode) const
  {
    constexpr int n3 = (p + 1) * (p + 1) * (p + 1);
    parallel_for_ranges(factors_.size(), cell_grain, [&](const std::size_t begin, const std::size_t end) {
      Number local_u[n3], local_out[n3], scratch[4 * n3];
      for (std::size_t cell = begin; cell < end; ++cell)
        {
          u.read_cell(cell, local_u);
          kernels::apply_laplace_cell<p>(mass_.data(), stiffness_.data(), factors_[cell].data(), local_u, local_out, scratch);
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
    const int n = degree_ + 1;
    std::vector<Number> local(n * n * n);
    for (unsigned int cell = 0; cell < n_cells(); ++cell)
      {
        kernels::laplace_cell_diagonal(n, mass_.data(), stiffness_.data(), factors_[cell].data(), local.data());
        diagonal.write_cell(cell, local.data());
      }
  }

  template <typename Number, typename Layout>
  DenseMatrix
  LaplaceOperator<Number, Layout>::cell_matrix(const unsigned int cell) const
  {
    const DenseMatrix &M = matrices_.mass;
    const DenseMatrix &K = matrices_.stiffness;
    // Kronecker factors slowest axis (z) first: index i_x + n i_y + n^2 i_z.
    const DenseMatrix  ax = kronecker_product(M, kronecker_product(M, K));
    const DenseMatrix  ay = kronecker_product(M, kronecker_product(K, M));
    const DenseMatrix  az = kronecker_product(K, kronecker_product(M, M));
    DenseMatrix        a(ax.m(), ax.n());
    for (unsigned int i = 0; i < a.m(); ++i)
      for (unsigned int j = 0; j < a.n(); ++j)
        a(i, j) = double(factors_[cell][0]) * ax(i, j) + double(factors_[cell][1]) * ay(i, j) +
                  double(factors_[cell][2]) * az(i, j);
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

  template class LaplaceOperator<double, CellContiguous>;
  template class LaplaceOperator<float, CellContiguous>;
  template class LaplaceOperator<double, CellBlocked<32>>;
  template class LaplaceOperator<float, CellBlocked<32>>;
} // namespace cellwise
