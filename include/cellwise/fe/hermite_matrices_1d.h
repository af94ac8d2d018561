#pragma once
/**
 * @file
 * The 1D reference matrices of the cubic Hermite basis (hermite_basis_1d.h)
 * on [0, 1], and its prolongation onto the two children. All 3D Hermite cell
 * operators and transfers are tensor products of these, between the diagonal
 * scalings that turn the stored physical derivative DoFs into reference ones
 * (doc/hermite.md):
 *
 *   on a cell of width h, u(x) = Σ_i c_i s_i φ_i((x − a)/h), s = (1, h, 1, h),
 *
 * with c the physical DoFs (u and du/dx at the ends), so that
 * ∫ψ_iψ_j = h s_i M_ij s_j, ∫ψ_i'ψ_j' = s_i K_ij s_j / h and
 * ∫ψ_i''ψ_j'' = s_i B_ij s_j / h³ for ψ_i = s_i φ_i((x − a)/h).
 */

#include <cellwise/base/dense_matrix.h>

#include <array>

namespace cellwise
{
  namespace hermite
  {
    struct Matrices1D
    {
      /// M_ij = ∫ φ_i φ_j (the beam's consistent mass matrix, /420).
      DenseMatrix mass;
      /// K_ij = ∫ φ_i' φ_j' (/30).
      DenseMatrix stiffness;
      /// B_ij = ∫ φ_i'' φ_j'' (the Euler–Bernoulli beam stiffness, L = 1).
      DenseMatrix bending;
      /// G_ij = ∫ φ_i'' φ_j (= [φ_i' φ_j]_0^1 − K_ij; what ∫ Δu Δv needs).
      DenseMatrix mixed;
      /**
       * P_c(i, j): the reference DoF i of child c (c = 0: [0, 1/2], 1: [1/2, 1])
       * of the parent's basis function φ_j: its value φ_j((c + e)/2) at the
       * child's end e, or its reference derivative on the child,
       * φ_j'((c + e)/2) / 2 (the child-to-parent width ratio).
       */
      std::array<DenseMatrix, 2> prolongation;
    };

    /// The matrices, integrated exactly (Gauss with 4 points: degree ≤ 6).
    Matrices1D
    make_matrices_1d();

    /// The 4 × 4 matrix @p A row-major in Number: what the cell kernels of
    /// both backends read.
    template <typename Number>
    std::array<Number, 16>
    row_major(const DenseMatrix &A)
    {
      std::array<Number, 16> a{};
      for (unsigned int i = 0; i < 4; ++i)
        for (unsigned int j = 0; j < 4; ++j)
          a[4 * i + j] = static_cast<Number>(A(i, j));
      return a;
    }

    /// The scaling s_i of 1D DoF i on a cell of width @p h: 1 for values, h for
    /// derivatives (reference DoF = s_i · physical DoF).
    inline double
    derivative_scaling(const unsigned int i, const double h)
    {
      return i % 2 == 0 ? 1. : h;
    }
  } // namespace hermite
} // namespace cellwise
