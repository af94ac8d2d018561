// Multigrid on meshes beyond the box (issue "beyond the box"): the Kershaw
// box (curved geometry: the general operator, the Chebyshev smoother on its
// diagonal, the vertex-patch smoother with its Cartesian surrogate), the
// L-shape (a coarse mesh that is not a box), a coefficient at the quadrature
// points. Solutions equal a dense direct solve of the same discretization
// assembled here through a coordinate numbering; L2 errors converge at the
// optimal rate p + 1; CG counts stay flat under refinement.

#include <cellwise/base/dense_matrix.h>
#include <cellwise/mesh/box_builder.h>
#include <cellwise/mesh/cell_mapping.h>
#include <cellwise/mesh/kershaw_map.h>
#include <cellwise/multigrid/multigrid_solver.h>
#include <cellwise/multigrid/vertex_patch_smoother.h>
#include <cellwise/operators/function_tools.h>
#include <cellwise/storage/dirichlet_mask.h>

#include <gtest/gtest.h>

#include "test_utilities.h"

#include <cmath>
#include <iostream>
#include <string>

using namespace cellwise;
using namespace cellwise::testing;

namespace
{
  double
  sine(const Point &x)
  {
    return std::sin(M_PI * x[0]) * std::sin(M_PI * x[1]) * std::sin(M_PI * x[2]);
  }
  double
  sine_rhs(const Point &x)
  {
    return 3 * M_PI * M_PI * sine(x);
  }
  double
  step37_coefficient(const Point &x)
  {
    return 1. / (0.05 + 2. * (x[0] * x[0] + x[1] * x[1] + x[2] * x[2]));
  }

  LevelHierarchy
  kershaw(const int L, const double epsilon = 0.3)
  {
    BoxDescription box;
    box.subdivisions = {{6, 2, 2}};
    LevelHierarchy h = make_box_hierarchy(box, L);
    map_hierarchy(h, 1, kershaw_map(epsilon, epsilon));
    return h;
  }

  struct Outcome
  {
    unsigned int       iterations;
    double             l2_error;
    CellVector<double> u;
  };

  Outcome
  solve(const LevelHierarchy &h, const unsigned int degree, const MultigridParameters &parameters, const ScalarFunction &f,
        const double tolerance = 1e-10)
  {
    const MultigridSolver solver(h, degree, parameters);
    CellVector<double>    b, u;
    assemble_right_hand_side(h.levels.back(), degree, f, b);
    MonitorControl control(200, tolerance);
    const unsigned int iterations = solver.solve(u, b, control).iterations();
    return {iterations, compute_l2_error(h.levels.back(), u, sine), u};
  }

  /// The solution of the discretization of −∇·(c∇u) = f with u = 0 on the
  /// boundary by a dense Cholesky solve of the matrix assembled from the
  /// operator's cell matrices through a coordinate numbering of the nodes.
  CellVector<double>
  direct_solve(const Level &level, const unsigned int degree, const ScalarFunction &coefficient, const ScalarFunction &f)
  {
    LaplaceOperator<double> op(level, degree);
    if (coefficient)
      op.set_coefficient(level, coefficient);
    const CoordinateNumbering numbering = number_by_coordinates(level, degree);
    const CellVector<double>  mask      = make_dirichlet_mask<double>(level, degree);
    std::vector<int>          free_index(numbering.n_unique, -1);
    unsigned int              n_free = 0;
    std::vector<bool>         fixed(numbering.n_unique, false);
    for (unsigned int c = 0; c < level.n_cells(); ++c)
      for (unsigned int i = 0; i < mask.dofs_per_cell(); ++i)
        if (mask(c, i) == 0.)
          fixed[numbering(c, i)] = true;
    for (unsigned int g = 0; g < numbering.n_unique; ++g)
      if (!fixed[g])
        free_index[g] = static_cast<int>(n_free++);
    DenseMatrix A(n_free, n_free);
    for (unsigned int c = 0; c < level.n_cells(); ++c)
      {
        const DenseMatrix Ac = op.cell_matrix(c);
        for (unsigned int i = 0; i < Ac.m(); ++i)
          for (unsigned int j = 0; j < Ac.n(); ++j)
            {
              const int gi = free_index[numbering(c, i)], gj = free_index[numbering(c, j)];
              if (gi >= 0 && gj >= 0)
                A(gi, gj) += Ac(i, j);
            }
      }
    CellVector<double> b;
    assemble_right_hand_side(level, degree, f, b);
    const std::vector<double> b_global = sum_copies_by(numbering, b);
    std::vector<double>       x(n_free);
    for (unsigned int g = 0; g < numbering.n_unique; ++g)
      if (free_index[g] >= 0)
        x[free_index[g]] = b_global[g];
    CholeskyFactorization(A).solve(x);
    std::vector<double> u_global(numbering.n_unique, 0.);
    for (unsigned int g = 0; g < numbering.n_unique; ++g)
      if (free_index[g] >= 0)
        u_global[g] = x[free_index[g]];
    CellVector<double> u(level.n_cells(), degree);
    gather_by(numbering, u_global, u);
    return u;
  }

  double
  relative_difference(const CellVector<double> &a, const CellVector<double> &b)
  {
    CellVector<double> d = a;
    d.add(-1., b);
    return d.linfty_norm() / b.linfty_norm();
  }
} // namespace

TEST(GeometrySolver, KershawSolutionsEqualTheDirectSolveWithEverySmoother)
{
  // 24 · 8 = 192 curved cells, Q2; the step-37 coefficient at the points
  const LevelHierarchy     h      = kershaw(1);
  const CellVector<double> direct = direct_solve(h.levels.back(), 2, step37_coefficient, sine_rhs);
  for (const SmootherType smoother : {SmootherType::chebyshev, SmootherType::jacobi, SmootherType::patch})
    {
      SCOPED_TRACE(::testing::Message() << "smoother " << to_string(smoother));
      MultigridParameters parameters;
      parameters.smoother     = smoother;
      parameters.coefficient  = step37_coefficient;
      parameters.jacobi_omega = 0.4; // below 2 / λ_max(D^-1 A) ≈ 0.6 here
      const Outcome result    = solve(h, 2, parameters, sine_rhs, 1e-13);
      EXPECT_LT(relative_difference(result.u, direct), 1e-9);
      EXPECT_LE(result.iterations, 45u);
    }
  // the default Jacobi damping 0.7 would diverge on these cells: refused
  // with the damping that would not
  MultigridParameters jacobi;
  jacobi.smoother    = SmootherType::jacobi;
  jacobi.coefficient = step37_coefficient;
  try
    {
      const MultigridSolver solver(h, 2, jacobi);
      FAIL() << "a diverging Jacobi damping was accepted";
    }
  catch (const Error &e)
    {
      EXPECT_NE(std::string(e.what()).find("the Jacobi damping 0.7"), std::string::npos) << e.what();
    }
  // the patch smoother knows that its local solves are the surrogate's
  // there, and exact on boxes, also with one constant coefficient
  LaplaceOperator<double> curved(h.levels.back(), 2);
  EXPECT_FALSE(VertexPatchSmoother<double>(h.levels.back(), curved).exact_local_solves());
  const LevelHierarchy    boxes = make_box_hierarchy(BoxDescription{}, 2);
  LaplaceOperator<double> scaled(boxes.levels.back(), 2);
  scaled.set_coefficient(boxes.levels.back(), [](const Point &) { return 3.; });
  EXPECT_TRUE(VertexPatchSmoother<double>(boxes.levels.back(), scaled).exact_local_solves());
  EXPECT_TRUE(VertexPatchSmoother<double>(boxes.levels.back(), 2).exact_local_solves());
}

TEST(GeometrySolver, KershawConvergesAtTheOptimalRateWithFlatCounts)
{
  // ε = 0.3 (the CEED setting), Q2 and Q3, L = 0..2 (24 to 1536 cells)
  for (const unsigned int degree : {2u, 3u})
    for (const SmootherType smoother : {SmootherType::chebyshev, SmootherType::patch})
      {
        SCOPED_TRACE(::testing::Message() << "Q" << degree << ", smoother " << to_string(smoother));
        MultigridParameters parameters;
        parameters.smoother = smoother;
        std::vector<Outcome> results;
        for (int L = 0; L <= 2; ++L)
          results.push_back(solve(kershaw(L), degree, parameters, sine_rhs));
        const double rate = std::log2(results[1].l2_error / results[2].l2_error);
        std::cout << "  Kershaw Q" << degree << " " << to_string(smoother) << ": iterations " << results[0].iterations << " "
                  << results[1].iterations << " " << results[2].iterations << ", L2 errors " << results[0].l2_error << " "
                  << results[1].l2_error << " " << results[2].l2_error << ", rate " << rate << std::endl;
        EXPECT_GE(rate, degree + 1 - 0.35);
        // ε = 0.3 stretches cells by up to (2 − ε) / ε ≈ 5.7 and shears them:
        // the counts of point and surrogate-patch smoothers are higher than on
        // boxes and grow before the mesh resolves the deformation (L = 1 is
        // the first level with a coarser one)
        EXPECT_LE(results[2].iterations, 30u);
      }
}

TEST(GeometrySolver, KershawMixedPrecisionGivesTheFp64CountsAndSolution)
{
  // the FP32 V-cycle on deformed cells (its finest operator from the FP64
  // metric rounded, without a coefficient; made anew with one) inside the
  // FP64 CG: the FP64 counts ± 1 and the same solution to the tolerance
  const LevelHierarchy h = kershaw(1);
  for (const bool with_coefficient : {false, true})
    {
      SCOPED_TRACE(with_coefficient ? "coefficient at the points" : "no coefficient");
      MultigridParameters fp64;
      if (with_coefficient)
        fp64.coefficient = step37_coefficient;
      MultigridParameters mixed = fp64;
      mixed.precision           = Precision::mixed;
      const Outcome a = solve(h, 3, fp64, sine_rhs), b = solve(h, 3, mixed, sine_rhs);
      EXPECT_LE(std::abs(int(a.iterations) - int(b.iterations)), 1) << a.iterations << " against " << b.iterations;
      EXPECT_LT(relative_difference(b.u, a.u), 1e-8);
    }
}

TEST(GeometrySolver, LShapeConvergesAtTheOptimalRateWithFlatCounts)
{
  // the L-shape's solution Π sin(π x_d) vanishes on all of its boundary
  for (const SmootherType smoother : {SmootherType::chebyshev, SmootherType::patch})
    {
      SCOPED_TRACE(::testing::Message() << "smoother " << to_string(smoother));
      MultigridParameters parameters;
      parameters.smoother = smoother;
      std::vector<Outcome> results;
      for (int L = 1; L <= 3; ++L)
        results.push_back(solve(make_box_hierarchy(make_lshape_description(), L), 2, parameters, sine_rhs));
      const double rate = std::log2(results[1].l2_error / results[2].l2_error);
      std::cout << "  L-shape Q2 " << to_string(smoother) << ": iterations " << results[0].iterations << " " << results[1].iterations
                << " " << results[2].iterations << ", rate " << rate << std::endl;
      EXPECT_GE(rate, 2.9);
      // L = 1 has one level below it, solved exactly: flat from L = 2 on
      EXPECT_LE(results[2].iterations, results[1].iterations + 1);
      EXPECT_LE(results[2].iterations, 10u);
    }
  // the faces of the missing octant are boundary with their own id
  const LevelHierarchy h = make_box_hierarchy(make_lshape_description(), 0);
  EXPECT_EQ(h.levels[0].n_cells(), 7u);
  unsigned int removed_faces = 0;
  for (unsigned int c = 0; c < 7; ++c)
    for (unsigned int f = 0; f < 6; ++f)
      removed_faces += h.levels[0].neighbors[c][f] == face_neighbor::boundary(removed_boundary_id);
  EXPECT_EQ(removed_faces, 3u);
  EXPECT_FALSE(h.levels[0].fills_box());
}

TEST(GeometrySolver, CoefficientAtThePointsSolvesStep37sProblem)
{
  // step-37's coefficient on the unit cube: the solution equals the direct
  // solve of the same discretization; averaging per cell is a different one
  const LevelHierarchy     h      = make_box_hierarchy(BoxDescription{}, 2);
  const CellVector<double> direct = direct_solve(h.levels.back(), 2, step37_coefficient, sine_rhs);
  MultigridParameters      parameters;
  parameters.coefficient       = step37_coefficient;
  const Outcome at_points      = solve(h, 2, parameters, sine_rhs, 1e-13);
  EXPECT_LT(relative_difference(at_points.u, direct), 1e-9);
  parameters.coefficient_evaluation = CoefficientEvaluation::cell_average;
  const Outcome averaged            = solve(h, 2, parameters, sine_rhs, 1e-13);
  EXPECT_GT(relative_difference(averaged.u, direct), 1e-4);
}
