#pragma once
/**
 * @file
 * Functions of space against fields of the C¹ cubic Hermite element (host,
 * set-up and post-processing; doc/hermite.md): interpolation of a function
 * with its derivatives (primal), the load vector b~_K,i = ∫_K f ψ_i (dual,
 * unassembled), the L2 error, and point values for tests.
 */

#include <cellwise/base/function.h>
#include <cellwise/fe/hermite_element.h>
#include <cellwise/mesh/level.h>
#include <cellwise/storage/cell_vector.h>

#include <array>
#include <functional>

namespace cellwise
{
  /// The value and the mixed first derivatives of a function at a point, in
  /// the derivative order of the element: u, ∂x u, ∂y u, ∂xy u, ∂z u, ∂xz u,
  /// ∂yz u, ∂xyz u (hermite_element.h).
  using HermiteJet         = std::array<double, hermite::dofs_per_vertex>;
  using HermiteJetFunction = std::function<HermiteJet(const Point &)>;

  /// The jet of Π_d f_d(x_d) from the factors and their derivatives.
  HermiteJetFunction
  separable_jet(const std::array<std::function<double(double)>, 3> &factors,
                const std::array<std::function<double(double)>, 3> &derivatives);

  /// Hermite interpolation: every vertex DoF of every cell is the jet of
  /// @p f at the vertex (physical derivatives). Copies agree exactly where
  /// the vertex coordinates do.
  template <typename Number, typename Layout>
  void
  interpolate_hermite(const Level &level, const HermiteJetFunction &f, CellVector<Number, MemorySpace::Host, Layout> &v);

  /// b~_K,i = ∫_K f ψ_i by Gauss quadrature with @p n_q_points per axis: the
  /// unassembled load vector.
  template <typename Number, typename Layout>
  void
  assemble_hermite_right_hand_side(const Level                                   &level,
                                   const ScalarFunction                          &f,
                                   CellVector<Number, MemorySpace::Host, Layout> &rhs,
                                   unsigned int                                   n_q_points = 5);

  /// The same load vector for a right-hand side that is a sum of products of
  /// one-coordinate functions (base/function.h; the bilaplacian of a product
  /// solution has six terms): per cell and term three 1D integrals against
  /// the four 1D Hermite functions, tabulated per lattice position, instead
  /// of q³ point values (equal to the point-wise assembly of evaluate(f, ·)
  /// to rounding).
  template <typename Number, typename Layout>
  void
  assemble_hermite_right_hand_side(const Level                                   &level,
                                   const SeparableFunction                       &f,
                                   CellVector<Number, MemorySpace::Host, Layout> &rhs,
                                   unsigned int                                   n_q_points = 5);

  /// ‖u_h − u‖_L2 over the cells of @p level flagged active (all cells if
  /// @p active_only is false), Gauss quadrature with @p n_q_points per axis.
  template <typename Number, typename Layout>
  double
  compute_hermite_l2_error(const Level                                         &level,
                           const CellVector<Number, MemorySpace::Host, Layout> &u,
                           const ScalarFunction                                &exact,
                           bool                                                 active_only = true,
                           unsigned int                                         n_q_points  = 5);

  /// u_h of cell @p cell and its derivatives ∂^k u_h (k = (k_x, k_y, k_z),
  /// each 0..2) at the reference point @p t of the cell.
  template <typename Number, typename Layout>
  double
  evaluate_hermite(const Level                                         &level,
                   const CellVector<Number, MemorySpace::Host, Layout> &u,
                   unsigned int                                         cell,
                   const Point                                         &t,
                   const std::array<unsigned int, 3>                   &k = {{0, 0, 0}});
} // namespace cellwise
