#include <cellwise/base/exceptions.h>
#include <cellwise/base/parallel.h>
#include <cellwise/fe/hermite_affine_part.h>
#include <cellwise/operators/hermite_biharmonic_operator.h>

#include <cmath>
#include <limits>

namespace cellwise
{
  namespace
  {
    using hermite::dofs_per_cell;

    /// y[.. i_d ..] = Σ_j A(i_d, j) x[.. j ..] over the 64 values of a cell
    /// (index i_x + 4 i_y + 16 i_z), A 4 × 4 row-major.
    template <unsigned int d, typename Number>
    void
    contract(const std::array<Number, 16> &A, const Number *x, Number *y)
    {
      constexpr unsigned int stride = d == 0 ? 1 : (d == 1 ? 4 : 16);
      for (unsigned int o = 0; o < dofs_per_cell; ++o)
        {
          const unsigned int i    = (o / stride) % 4;
          const unsigned int base = o - i * stride;
          Number             sum  = 0;
          for (unsigned int j = 0; j < 4; ++j)
            sum += A[4 * i + j] * x[base + j * stride];
          y[o] = sum;
        }
    }

    /// The dense Kronecker product A_z ⊗ A_y ⊗ A_x in the local order.
    DenseMatrix
    kronecker(const DenseMatrix &Ax, const DenseMatrix &Ay, const DenseMatrix &Az)
    {
      DenseMatrix result(dofs_per_cell, dofs_per_cell);
      for (unsigned int i = 0; i < dofs_per_cell; ++i)
        for (unsigned int j = 0; j < dofs_per_cell; ++j)
          result(i, j) = Ax(i % 4, j % 4) * Ay((i / 4) % 4, (j / 4) % 4) * Az(i / 16, j / 16);
      return result;
    }
  } // namespace

  std::array<double, 6>
  hermite_biharmonic_factors(const std::array<double, 3> &h, const unsigned int cell)
  {
    for (unsigned int d = 0; d < 3; ++d)
      CELLWISE_CHECK(h[d] > 0 && std::isfinite(h[d]), "cell " << cell << " has invalid size " << h[d] << " along axis " << d);
    const std::array<double, 6> f = {{h[1] * h[2] / (h[0] * h[0] * h[0]), h[0] * h[2] / (h[1] * h[1] * h[1]),
                                      h[0] * h[1] / (h[2] * h[2] * h[2]), 2 * h[2] / (h[0] * h[1]), 2 * h[1] / (h[0] * h[2]),
                                      2 * h[0] / (h[1] * h[2])}};
    for (const double value : f)
      CELLWISE_CHECK(std::isnormal(value) && value < std::numeric_limits<float>::max() &&
                       value > std::numeric_limits<float>::min(),
                     "cell " << cell << " of sizes " << h[0] << " x " << h[1] << " x " << h[2]
                             << " gives a biharmonic metric factor " << value
                             << " outside the normal numbers of FP32 (the cell is too small, too large or too stretched)");
    return f;
  }

  DenseMatrix
  hermite_biharmonic_cell_matrix(const std::array<double, 3> &h, const unsigned int cell)
  {
    const hermite::Matrices1D   matrices = hermite::make_matrices_1d();
    const auto                 &M = matrices.mass, &K = matrices.stiffness, &B = matrices.bending;
    const std::array<double, 6> c = hermite_biharmonic_factors(h, cell);
    const DenseMatrix           terms[6] = {kronecker(B, M, M), kronecker(M, B, M), kronecker(M, M, B),
                                            kronecker(K, K, M), kronecker(K, M, K), kronecker(M, K, K)};
    const std::array<double, dofs_per_cell> s = hermite::hermite_scaling(h);
    DenseMatrix                             A(dofs_per_cell, dofs_per_cell);
    for (unsigned int i = 0; i < dofs_per_cell; ++i)
      for (unsigned int j = 0; j < dofs_per_cell; ++j)
        {
          double a = 0;
          for (unsigned int t = 0; t < 6; ++t)
            a += c[t] * terms[t](i, j);
          A(i, j) = s[i] * a * s[j];
        }
    return A;
  }

  template <typename Number, typename Layout>
  HermiteBiharmonicOperator<Number, Layout>::HermiteBiharmonicOperator(const Level &level)
  {
    reinit(level);
  }

  template <typename Number, typename Layout>
  void
  HermiteBiharmonicOperator<Number, Layout>::reinit(const Level &level)
  {
    check_box_cells(level, "the Hermite biharmonic operator");
    matrices_  = hermite::make_matrices_1d();
    mass_      = hermite::row_major<Number>(matrices_.mass);
    stiffness_ = hermite::row_major<Number>(matrices_.stiffness);
    bending_   = hermite::row_major<Number>(matrices_.bending);
    widths_.resize(level.n_cells());
    factors_.resize(level.n_cells());
    number_widths_.resize(level.n_cells());
    parallel_for(level.n_cells(), cell_grain, [&](const std::size_t c) {
      widths_[c] = level.boxes[c].size;
      for (unsigned int d = 0; d < 3; ++d)
        number_widths_[c][d] = static_cast<Number>(widths_[c][d]);
      const std::array<double, 6> f = hermite_biharmonic_factors(widths_[c], static_cast<unsigned int>(c));
      for (unsigned int t = 0; t < 6; ++t)
        factors_[c][t] = static_cast<Number>(f[t]);
    });
  }

  template <typename Number, typename Layout>
  void
  HermiteBiharmonicOperator<Number, Layout>::check_vector(const VectorType &v, const char *name) const
  {
    CELLWISE_CHECK(v.n_cells() == n_cells() && v.degree() == hermite::storage_degree,
                   "HermiteBiharmonicOperator: " << name << " has " << v.n_cells() << " cells of degree " << v.degree()
                                                 << ", the operator " << n_cells() << " cells of the Hermite element "
                                                 << "(stored as degree " << hermite::storage_degree << ")");
  }

  template <typename Number, typename Layout>
  void
  HermiteBiharmonicOperator<Number, Layout>::apply_cell(const unsigned int cell, const Number *x_physical, Number *y) const
  {
    // physical -> reference DoFs, the six terms, reference -> physical duals:
    //   Mz (cxx Y_BM + cyy Y_MB + cxy Y_KK) + Bz (czz Y_MM) + Kz (cxz Y_KM + cyz Y_MK)
    // with Y_ab the contraction by a along x and then b along y
    const std::array<Number, 6> &c  = factors_[cell];
    const std::array<Number, 3> &h  = number_widths_[cell];
    Number x[dofs_per_cell], xm[dofs_per_cell], xk[dofs_per_cell], xb[dofs_per_cell];
    for (unsigned int i = 0; i < dofs_per_cell; ++i)
      x[i] = x_physical[i] * hermite::derivative_scaling(i, h[0], h[1], h[2]);
    // FP32: A_K x without the cancellation of x's affine part (fe/hermite_affine_part.h)
    const hermite::AffinePart<Number> affine = hermite::product_affine_part(x, Number(1), Number(1), Number(1));
    for (unsigned int i = 0; i < dofs_per_cell; ++i)
      x[i] = hermite::product_input(i, x[i], affine);
    contract<0>(mass_, x, xm);
    contract<0>(stiffness_, x, xk);
    contract<0>(bending_, x, xb);
    Number t1[dofs_per_cell], t2[dofs_per_cell], t3[dofs_per_cell], tmp[dofs_per_cell];
    contract<1>(mass_, xb, t1); // Y_BM
    for (unsigned int i = 0; i < dofs_per_cell; ++i)
      t1[i] *= c[0];
    contract<1>(bending_, xm, tmp); // Y_MB
    for (unsigned int i = 0; i < dofs_per_cell; ++i)
      t1[i] += c[1] * tmp[i];
    contract<1>(stiffness_, xk, tmp); // Y_KK
    for (unsigned int i = 0; i < dofs_per_cell; ++i)
      t1[i] += c[3] * tmp[i];
    contract<1>(mass_, xm, t2); // Y_MM
    for (unsigned int i = 0; i < dofs_per_cell; ++i)
      t2[i] *= c[2];
    contract<1>(mass_, xk, t3); // Y_KM
    for (unsigned int i = 0; i < dofs_per_cell; ++i)
      t3[i] *= c[4];
    contract<1>(stiffness_, xm, tmp); // Y_MK
    for (unsigned int i = 0; i < dofs_per_cell; ++i)
      t3[i] += c[5] * tmp[i];
    Number z1[dofs_per_cell], z2[dofs_per_cell], z3[dofs_per_cell];
    contract<2>(mass_, t1, z1);
    contract<2>(bending_, t2, z2);
    contract<2>(stiffness_, t3, z3);
    for (unsigned int i = 0; i < dofs_per_cell; ++i)
      y[i] = (z1[i] + z2[i] + z3[i]) * hermite::derivative_scaling(i, h[0], h[1], h[2]);
  }

  template <typename Number, typename Layout>
  void
  HermiteBiharmonicOperator<Number, Layout>::vmult(VectorType &dst, const VectorType &src) const
  {
    check_vector(src, "the source");
    CELLWISE_CHECK(&dst != &src, "HermiteBiharmonicOperator::vmult: source and destination must differ");
    if (!dst.has_shape_of(src))
      dst.reinit(src.n_cells(), src.degree(), true);
    parallel_for(n_cells(), cell_grain, [&](const std::size_t cell) {
      Number x[dofs_per_cell], y[dofs_per_cell];
      src.read_cell(static_cast<unsigned int>(cell), x);
      apply_cell(static_cast<unsigned int>(cell), x, y);
      dst.write_cell(static_cast<unsigned int>(cell), y);
    });
  }

  template <typename Number, typename Layout>
  void
  HermiteBiharmonicOperator<Number, Layout>::vmult_add(VectorType &dst, const VectorType &src) const
  {
    check_vector(src, "the source");
    check_vector(dst, "the destination");
    CELLWISE_CHECK(&dst != &src, "HermiteBiharmonicOperator::vmult_add: source and destination must differ");
    parallel_for(n_cells(), cell_grain, [&](const std::size_t cell) {
      Number x[dofs_per_cell], y[dofs_per_cell];
      src.read_cell(static_cast<unsigned int>(cell), x);
      apply_cell(static_cast<unsigned int>(cell), x, y);
      dst.add_cell(static_cast<unsigned int>(cell), y);
    });
  }

  template <typename Number, typename Layout>
  void
  HermiteBiharmonicOperator<Number, Layout>::residual(VectorType &dst, const VectorType &b, const VectorType &u) const
  {
    check_vector(u, "the iterate");
    check_vector(b, "the right-hand side");
    CELLWISE_CHECK(&dst != &u, "HermiteBiharmonicOperator::residual: iterate and destination must differ");
    if (!dst.has_shape_of(u))
      dst.reinit(u.n_cells(), u.degree(), true);
    parallel_for(n_cells(), cell_grain, [&](const std::size_t cell) {
      Number x[dofs_per_cell], y[dofs_per_cell], r[dofs_per_cell];
      u.read_cell(static_cast<unsigned int>(cell), x);
      apply_cell(static_cast<unsigned int>(cell), x, y);
      b.read_cell(static_cast<unsigned int>(cell), r);
      for (unsigned int i = 0; i < dofs_per_cell; ++i)
        r[i] -= y[i];
      dst.write_cell(static_cast<unsigned int>(cell), r);
    });
  }

  template <typename Number, typename Layout>
  void
  HermiteBiharmonicOperator<Number, Layout>::smoother_step(VectorType                 &u,
                                                           VectorType                 &r,
                                                           VectorType                 *update,
                                                           const VectorType           &b,
                                                           const VectorType           &inverse_diagonal,
                                                           const SmootherStep<Number> &step) const
  {
    check_smoother_step(u, r, update, b, inverse_diagonal, step, n_cells(), degree(), "HermiteBiharmonicOperator");
    apply_smoother_update(u, r, update, inverse_diagonal, step);
    if (step.compute_residual)
      residual(r, b, u);
  }

  template <typename Number, typename Layout>
  void
  HermiteBiharmonicOperator<Number, Layout>::compute_cell_diagonals(VectorType &diagonal) const
  {
    diagonal.reinit(n_cells(), hermite::storage_degree, true);
    parallel_for(n_cells(), cell_grain, [&](const std::size_t cell) {
      const std::array<double, dofs_per_cell> s = hermite::hermite_scaling(widths_[cell]);
      const std::array<Number, 6>            &c = factors_[cell];
      Number                                  d[dofs_per_cell];
      for (unsigned int i = 0; i < dofs_per_cell; ++i)
        {
          const unsigned int ix = i % 4, iy = (i / 4) % 4, iz = i / 16;
          const auto         m  = [&](const unsigned int k) { return mass_[5 * k]; };
          const auto         kk = [&](const unsigned int k) { return stiffness_[5 * k]; };
          const auto         bb = [&](const unsigned int k) { return bending_[5 * k]; };
          const Number       a  = c[0] * bb(ix) * m(iy) * m(iz) + c[1] * m(ix) * bb(iy) * m(iz) + c[2] * m(ix) * m(iy) * bb(iz) +
                           c[3] * kk(ix) * kk(iy) * m(iz) + c[4] * kk(ix) * m(iy) * kk(iz) + c[5] * m(ix) * kk(iy) * kk(iz);
          d[i] = a * static_cast<Number>(s[i] * s[i]);
        }
      diagonal.write_cell(static_cast<unsigned int>(cell), d);
    });
  }

  template <typename Number, typename Layout>
  DenseMatrix
  HermiteBiharmonicOperator<Number, Layout>::cell_matrix(const unsigned int cell) const
  {
    CELLWISE_CHECK(cell < n_cells(), "cell_matrix: cell " << cell << " of " << n_cells());
    return hermite_biharmonic_cell_matrix(widths_[cell], cell);
  }

  CELLWISE_INSTANTIATE_NUMBERS_AND_LAYOUTS(HermiteBiharmonicOperator)
} // namespace cellwise
