#pragma once
// Manufactured solutions of −Δu = f with u = 0 on the boundary of a box.

#include <cellwise/base/function.h>

#include <array>
#include <string>

struct ManufacturedSolution
{
  std::string              name;
  cellwise::ScalarFunction solution;
  cellwise::ScalarFunction right_hand_side;
  /// The same right-hand side as a sum of products of one-coordinate
  /// functions (every solution here is such a product): assembled from 3q
  /// instead of q³ evaluations per cell.
  cellwise::SeparableFunction separable_right_hand_side;
};

/// "sine": u = Π sin(π ξ_d) (the papers' test on the unit cube, f = 3π² u there),
/// "oscillatory": u = Π sin(3π ξ_d), "polynomial": u = Π ξ_d (1 − ξ_d) L_d²,
/// with ξ_d = (x_d − lower_d) / L_d. Throws cellwise::Error for other names.
ManufacturedSolution
make_manufactured_solution(const std::string &name, const std::array<double, 3> &lower, const std::array<double, 3> &upper);

/// "ball": u = 1 − |x|², −Δu = 6, zero on the unit sphere (--geometry ball).
ManufacturedSolution
make_ball_solution();
