// Unstructured coarse meshes (mesh/unstructured_builder.h): the ball of 7
// coarse cells in different frames. Its skeleton faces are found from the
// shared vertices and listed from both sides with inverse orientations; DSS
// (the structured cascade inside the blocks and the skeleton phase) equals
// the gather–scatter of a numbering of the nodes by their physical
// positions, which knows nothing of faces or orientations; the operator on
// the curved cells keeps constants in its kernel; the Poisson problem on the
// ball converges at the optimal rate with flat counts.

#include <cellwise/mesh/cell_mapping.h>
#include <cellwise/mesh/unstructured_builder.h>
#include <cellwise/multigrid/multigrid_solver.h>
#include <cellwise/multigrid/adaptive_v_cycle.h>
#include <cellwise/operators/function_tools.h>
#include <cellwise/operators/laplace_operator.h>
#include <cellwise/storage/dof_numbering.h>
#include <cellwise/storage/dss.h>

#include <gtest/gtest.h>

#include "test_utilities.h"

#include <cmath>
#include <iostream>
#include <map>
#include <tuple>

using namespace cellwise;
using namespace cellwise::testing;

namespace
{
  /// Global numbering of the Gauss–Lobatto nodes by their physical positions
  /// (the cells' mappings at the nodes), independent of the face tables.
  CoordinateNumbering
  number_by_positions(const Level &level, const unsigned int degree)
  {
    const LagrangeBasis1D basis(degree);
    const unsigned int    n = degree + 1, n3 = n * n * n;
    CoordinateNumbering   numbering;
    numbering.dofs_per_cell = n3;
    numbering.index.resize(static_cast<std::size_t>(level.n_cells()) * n3);
    std::map<std::tuple<long, long, long>, unsigned int> known;
    std::vector<Point>                                   points;
    std::vector<std::array<double, 9>>                   jacobians;
    for (unsigned int cell = 0; cell < level.n_cells(); ++cell)
      {
        evaluate_mapping(level.mapping, cell, basis.nodes(), points, jacobians);
        for (unsigned int i = 0; i < n3; ++i)
          {
            const auto key = std::make_tuple(std::lround(points[i][0] * 1e8), std::lround(points[i][1] * 1e8), std::lround(points[i][2] * 1e8));
            const auto it  = known.emplace(key, numbering.n_unique);
            if (it.second)
              ++numbering.n_unique;
            numbering.index[static_cast<std::size_t>(cell) * n3 + i] = it.first->second;
          }
      }
    return numbering;
  }
} // namespace

TEST(Unstructured, BallSkeletonFacesAreFoundFromTheVerticesAndListedFromBothSides)
{
  const LevelHierarchy h = make_unstructured_hierarchy(make_ball_coarse_mesh(), 2, 2);
  ASSERT_EQ(h.n_levels(), 3u);
  const Level &coarse = h.levels[0];
  EXPECT_EQ(coarse.n_cells(), 7u);
  // 6 faces between the cube and the outer cells, 12 between outer cells;
  // each listed from both sides
  EXPECT_EQ(coarse.skeleton_faces.size(), 36u);
  unsigned int boundary = 0;
  for (unsigned int c = 0; c < 7; ++c)
    for (unsigned int f = 0; f < 6; ++f)
      boundary += face_neighbor::is_boundary(coarse.neighbors[c][f]);
  EXPECT_EQ(boundary, 6u);
  for (const Level &level : h.levels)
    {
      EXPECT_TRUE(level.has_skeleton());
      EXPECT_FALSE(level.fills_box());
      for (const SkeletonFace &f : level.skeleton_faces)
        {
          EXPECT_TRUE(level.is_skeleton_face(f.cell, f.face));
          EXPECT_EQ(level.neighbors[f.cell][f.face], f.neighbor);
          // the face seen from the other side maps every node back
          const auto back = std::find_if(level.skeleton_faces.begin(), level.skeleton_faces.end(), [&](const SkeletonFace &g) {
            return g.cell == unsigned(f.neighbor) && g.face == f.neighbor_face;
          });
          ASSERT_NE(back, level.skeleton_faces.end());
          EXPECT_EQ(back->neighbor, int(f.cell));
          EXPECT_EQ(back->neighbor_face, f.face);
          for (unsigned int b = 0; b <= 3; ++b)
            for (unsigned int a = 0; a <= 3; ++a)
              {
                const auto there = oriented_face_point(f.orientation, a, b, 3);
                const auto again = oriented_face_point(back->orientation, there[0], there[1], 3);
                EXPECT_EQ(again[0], a);
                EXPECT_EQ(again[1], b);
              }
        }
    }
  // the level-2 skeleton: every coarse skeleton face carries 4 × 4 fine ones
  EXPECT_EQ(h.levels[2].skeleton_faces.size(), 36u * 16u);
}

TEST(Unstructured, DssEqualsTheGatherScatterOfThePhysicalNodes)
{
  for (const int L : {0, 1, 2})
    for (unsigned int degree = 1; degree <= 4; ++degree)
      {
        SCOPED_TRACE(::testing::Message() << "L = " << L << ", degree " << degree);
        const LevelHierarchy      h         = make_unstructured_hierarchy(make_ball_coarse_mesh(), L, 2);
        const Level              &level     = h.levels.back();
        const CoordinateNumbering numbering = number_by_positions(level, degree);
        EXPECT_EQ(make_dof_numbering(level, degree).n_unique, numbering.n_unique);
        CellVector<double> v(level.n_cells(), degree);
        fill_random(v, 31 + degree);
        const std::vector<double> sums = sum_copies_by(numbering, v);
        std::vector<double>       copies(numbering.n_unique, 0.);
        for (unsigned int c = 0; c < level.n_cells(); ++c)
          for (unsigned int i = 0; i < v.dofs_per_cell(); ++i)
            copies[numbering(c, i)] += 1;
        CellVector<double> summed = v, mean = v, kept = v;
        apply_dss(level, summed, DssMode::sum);
        apply_dss(level, mean, DssMode::mean);
        const DssSkeleton skeleton(level, degree);
        EXPECT_FALSE(skeleton.empty());
        apply_dss(level, skeleton, kept, DssMode::sum);
        double error_sum = 0, error_mean = 0, error_kept = 0;
        for (unsigned int c = 0; c < level.n_cells(); ++c)
          for (unsigned int i = 0; i < v.dofs_per_cell(); ++i)
            {
              const unsigned int g = numbering(c, i);
              error_sum            = std::max(error_sum, std::abs(summed(c, i) - sums[g]));
              error_mean           = std::max(error_mean, std::abs(mean(c, i) - sums[g] / copies[g]));
              error_kept           = std::max(error_kept, std::abs(kept(c, i) - sums[g]));
            }
        EXPECT_LT(error_sum, 1e-13);
        EXPECT_LT(error_mean, 1e-13);
        EXPECT_LT(error_kept, 1e-13);
      }
}

TEST(Unstructured, BallPoissonConvergesAtTheOptimalRate)
{
  // u = 1 − |x|² solves −Δu = 6 with u = 0 on the unit sphere; the discrete
  // domain is the ball through the mapping of degree p
  const ScalarFunction exact = [](const Point &x) { return 1. - (x[0] * x[0] + x[1] * x[1] + x[2] * x[2]); };
  // (7 coarse cells are far from the asymptotic range: the rate is taken
  // from L = 2 to 3)
  for (const unsigned int degree : {2u, 3u})
    for (const SmootherType smoother : {SmootherType::chebyshev, SmootherType::patch})
    {
      SCOPED_TRACE(::testing::Message() << "Q" << degree << ", smoother " << to_string(smoother));
      std::vector<double>       errors;
      std::vector<unsigned int> counts;
      for (int L = 1; L <= 3; ++L)
        {
          const LevelHierarchy h = make_unstructured_hierarchy(make_ball_coarse_mesh(), L, degree);
          MultigridParameters  parameters;
          parameters.smoother = smoother;
          const MultigridSolver solver(h, degree, parameters);
          CellVector<double>    b, u;
          assemble_right_hand_side(h.levels.back(), degree, [](const Point &) { return 6.; }, b);
          MonitorControl control(100, 1e-10);
          counts.push_back(solver.solve(u, b, control).iterations());
          errors.push_back(compute_l2_error(h.levels.back(), u, exact));
        }
      const double rate = std::log2(errors[1] / errors[2]);
      std::cout << "  ball Q" << degree << " " << to_string(smoother) << ": iterations (L = 1, 2, 3) " << counts[0] << " " << counts[1] << " " << counts[2] << ", L2 errors "
                << errors[0] << " " << errors[1] << " " << errors[2] << ", rate " << rate << std::endl;
      EXPECT_GE(rate, degree + 1 - 0.3);
      EXPECT_LE(counts[2], counts[1] + 1);
      // Chebyshev 6–8; the patch smoother's surrogate local solves on the
      // curved outer cells and its Jacobi steps on the skeleton 10–13
      EXPECT_LE(counts[2], smoother == SmootherType::patch ? 14u : 9u);
    }
}

TEST(Unstructured, AdaptiveSolverOnAUniformBallEqualsTheUniformSolver)
{
  // The adaptive solver's active mesh keeps the cells' mapping and the
  // skeleton faces between active cells; on a uniform hierarchy it is the
  // finest level, and the local-smoothing cycle is the uniform V-cycle.
  const unsigned int   degree = 2;
  const LevelHierarchy h      = make_unstructured_hierarchy(make_ball_coarse_mesh(), 2, degree);
  const ActiveMesh     mesh   = make_active_mesh(h);
  const Level         &fine   = h.levels.back();
  ASSERT_EQ(mesh.n_active_cells(), fine.n_cells());
  EXPECT_EQ(mesh.level.skeleton_faces.size(), fine.skeleton_faces.size());
  EXPECT_EQ(mesh.level.mapping.degree, fine.mapping.degree);
  for (std::size_t k = 0; k < fine.mapping.nodes.size(); ++k)
    for (unsigned int d = 0; d < 3; ++d)
      ASSERT_EQ(mesh.level.mapping.nodes[k][d], fine.mapping.nodes[k][d]);

  CellVector<double> b, u_uniform, u_adaptive;
  assemble_right_hand_side(fine, degree, [](const Point &) { return 6.; }, b);
  MultigridParameters parameters; // Chebyshev
  MonitorControl      control_uniform(100, 1e-12), control_adaptive(100, 1e-12);
  const unsigned int  n_uniform  = MultigridSolver(h, degree, parameters).solve(u_uniform, b, control_uniform).iterations();
  const unsigned int  n_adaptive = MultigridSolver(h, degree, parameters).solve(u_adaptive, b, control_adaptive).iterations();
  EXPECT_LE(n_adaptive, n_uniform + 1);
  double difference = 0, norm = 0;
  for (unsigned int c = 0; c < fine.n_cells(); ++c)
    for (unsigned int i = 0; i < b.dofs_per_cell(); ++i)
      {
        difference = std::max(difference, std::abs(u_adaptive(c, i) - u_uniform(c, i)));
        norm       = std::max(norm, std::abs(u_uniform(c, i)));
      }
  EXPECT_LE(difference, 1e-9 * norm);
}
