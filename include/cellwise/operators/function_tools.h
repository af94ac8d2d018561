#pragma once
/**
 * @file
 * Functions of space against cell-wise fields (host, set-up and
 * post-processing; not on the solver's hot path): nodal interpolation (primal),
 * the load vector b~_K = ∫_K f φ_i (dual, unassembled), and the L2 error.
 */

#include <cellwise/base/function.h>
#include <cellwise/mesh/level.h>
#include <cellwise/storage/cell_vector.h>

namespace cellwise
{
  /// Nodal interpolation at the Gauss–Lobatto points of every cell: a primal
  /// vector (copies agree up to rounding of the node coordinates).
  template <typename Number, typename Layout>
  void
  interpolate(const Level &level, unsigned int degree, const ScalarFunction &f, CellVector<Number, MemorySpace::Host, Layout> &v);

  /// b~_K,i = ∫_K f φ_i by Gauss quadrature with @p n_q_points per axis
  /// (default p + 2): the unassembled load vector.
  template <typename Number, typename Layout>
  void
  assemble_right_hand_side(const Level                                   &level,
                           unsigned int                                   degree,
                           const ScalarFunction                          &f,
                           CellVector<Number, MemorySpace::Host, Layout> &rhs,
                           unsigned int                                   n_q_points = 0);

  /// The same load vector for a right-hand side that is a sum of products of
  /// one-coordinate functions: per cell and term, 3q evaluations instead of
  /// q³ (equal to the point-wise assembly of evaluate(f, ·) to rounding).
  template <typename Number, typename Layout>
  void
  assemble_right_hand_side(const Level                                   &level,
                           unsigned int                                   degree,
                           const SeparableFunction                       &f,
                           CellVector<Number, MemorySpace::Host, Layout> &rhs,
                           unsigned int                                   n_q_points = 0);

  /// ‖u_h − u‖_L2 over the cells of @p level flagged active (all cells if
  /// @p active_only is false) by Gauss quadrature with @p n_q_points per axis
  /// (default p + 2). Ghost cells (a rank's part of a level) are left out:
  /// the squares of the ranks' errors add up to the whole mesh's.
  template <typename Number, typename Layout>
  double
  compute_l2_error(const Level                                         &level,
                   const CellVector<Number, MemorySpace::Host, Layout> &u,
                   const ScalarFunction                                &exact,
                   bool                                                 active_only = true,
                   unsigned int                                         n_q_points  = 0);
} // namespace cellwise
