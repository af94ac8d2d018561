// Local smoothing on locally refined hierarchies (003 §3.2–3.3, Algorithms
// 4–5): the builder, the refinement-edge mask against a coordinate-based
// definition, continuity of the active solution across hanging faces, the
// solution against a direct solve with explicitly assembled hanging-node
// constraints, symmetry of the cycle, L2 convergence and flat CG counts.

#include <cellwise/base/dense_matrix.h>
#include <cellwise/fe/lagrange_basis_1d.h>
#include <cellwise/fe/face_dofs.h>
#include <cellwise/mesh/adaptive_builder.h>
#include <cellwise/mesh/cell_mapping.h>
#include <cellwise/mesh/kershaw_map.h>
#include <cellwise/multigrid/multigrid_solver.h>
#include <cellwise/multigrid/refinement_edge.h>
#include <cellwise/operators/function_tools.h>

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "active_mesh_checks.h"
#include "test_utilities.h"

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

  MultigridParameters
  parameters(const SmootherType smoother = SmootherType::chebyshev)
  {
    MultigridParameters p;
    p.smoother = smoother;
    return p;
  }

  /// Solve the sine problem on @p h; returns the statistics.
  SolveStatistics
  solve_sine(const MultigridSolver &solver, CellVector<double> &u, const double tolerance = 1e-12)
  {
    CellVector<double> b;
    solver.assemble_right_hand_side(sine_rhs, b);
    u.reinit(b);
    MonitorControl control(200, tolerance);
    return solver.solve(u, b, control);
  }

} // namespace

namespace
{
  /// The conforming space on the active mesh built from coordinates only:
  /// a node x of the active cells is free if it is a node of the coarsest
  /// active cells containing it, otherwise hanging with the values of the
  /// polynomial of such a cell (resolved recursively, so level jumps > 1 are
  /// allowed). C maps the free nodes to all copies; Dirichlet free nodes are
  /// dropped (homogeneous conditions on the whole boundary).
  struct ConstrainedSpace
  {
    unsigned int                                              n_free = 0;
    std::vector<std::vector<std::pair<unsigned int, double>>> expansion; // per copy a*n3+i
  };

  ConstrainedSpace
  make_constrained_space(const ActiveMesh &mesh, const unsigned int degree, const BoxDescription &box)
  {
    const LagrangeBasis1D basis(degree);
    const unsigned int    n = degree + 1, n3 = n * n * n;
    const Level          &active = mesh.level;
    const double          tol    = 1e-10;
    auto key = [](const Point &x) { return std::make_tuple(std::lround(x[0] * 1e8), std::lround(x[1] * 1e8), std::lround(x[2] * 1e8)); };
    using Key = std::tuple<long, long, long>;
    std::map<Key, Point> points;
    for (unsigned int a = 0; a < active.n_cells(); ++a)
      for (unsigned int i = 0; i < n3; ++i)
        {
          const Point x = node(basis, active.boxes[a], i);
          points.emplace(key(x), x);
        }
    auto contains = [&](const CellBox &b, const Point &x) {
      for (unsigned int d = 0; d < 3; ++d)
        if (x[d] < b.lower[d] - tol || x[d] > b.lower[d] + b.size[d] + tol)
          return false;
      return true;
    };
    auto local_node = [&](const CellBox &b, const Point &x, double xi[3]) {
      bool is_node = true;
      for (unsigned int d = 0; d < 3; ++d)
        {
          xi[d]     = (x[d] - b.lower[d]) / b.size[d];
          bool any  = false;
          for (const double t : basis.nodes())
            any = any || std::abs(t - xi[d]) < 1e-9;
          is_node = is_node && any;
        }
      return is_node;
    };
    // master cell of each point: an active cell of the lowest level containing it
    std::map<Key, unsigned int> master;
    std::map<Key, bool>         free_point;
    for (const auto &[k, x] : points)
      {
        unsigned int best = ~0u;
        for (unsigned int a = 0; a < active.n_cells(); ++a)
          if (contains(active.boxes[a], x) && (best == ~0u || mesh.level_of[a] < mesh.level_of[best]))
            best = a;
        double xi[3];
        master[k]     = best;
        free_point[k] = local_node(active.boxes[best], x, xi);
      }
    std::map<Key, int> free_index;
    ConstrainedSpace   space;
    for (const auto &[k, x] : points)
      if (free_point[k])
        {
          bool on_boundary = false;
          for (unsigned int d = 0; d < 3; ++d)
            on_boundary = on_boundary || std::abs(x[d] - box.lower[d]) < tol || std::abs(x[d] - box.upper[d]) < tol;
          free_index[k] = on_boundary ? -1 : static_cast<int>(space.n_free++);
        }
    std::map<Key, std::map<unsigned int, double>> memo;
    std::function<const std::map<unsigned int, double> &(const Key &)> expand = [&](const Key &k) -> const std::map<unsigned int, double> & {
      const auto it = memo.find(k);
      if (it != memo.end())
        return it->second;
      std::map<unsigned int, double> e;
      if (free_point.at(k))
        {
          if (free_index.at(k) >= 0)
            e[free_index.at(k)] = 1.;
        }
      else
        {
          const Point   &x = points.at(k);
          const CellBox &b = active.boxes[master.at(k)];
          double         xi[3];
          local_node(b, x, xi);
          for (unsigned int i = 0; i < n3; ++i)
            {
              const double w = basis.value(i % n, xi[0]) * basis.value((i / n) % n, xi[1]) * basis.value(i / (n * n), xi[2]);
              if (std::abs(w) < 1e-14)
                continue;
              const Key kk = key(node(basis, b, i));
              EXPECT_NE(kk, k);
              for (const auto &[g, v] : expand(kk))
                e[g] += w * v;
            }
        }
      return memo[k] = std::move(e);
    };
    space.expansion.resize(static_cast<std::size_t>(active.n_cells()) * n3);
    for (unsigned int a = 0; a < active.n_cells(); ++a)
      for (unsigned int i = 0; i < n3; ++i)
        {
          const auto &e = expand(key(node(basis, active.boxes[a], i)));
          space.expansion[static_cast<std::size_t>(a) * n3 + i].assign(e.begin(), e.end());
        }
    return space;
  }

  /// u = C (C^T A C)^{-1} C^T b by a dense Cholesky solve.
  CellVector<double>
  direct_constrained_solve(const ActiveMesh &mesh, const LaplaceOperator<double> &op, const ConstrainedSpace &space, const CellVector<double> &b)
  {
    const unsigned int  n3 = b.dofs_per_cell();
    DenseMatrix         K(space.n_free, space.n_free);
    std::vector<double> rhs(space.n_free, 0.);
    for (unsigned int a = 0; a < mesh.n_active_cells(); ++a)
      {
        const DenseMatrix A = op.cell_matrix(a);
        for (unsigned int i = 0; i < n3; ++i)
          {
            const auto &ei = space.expansion[static_cast<std::size_t>(a) * n3 + i];
            for (const auto &[gi, wi] : ei)
              rhs[gi] += wi * b(a, i);
            for (unsigned int j = 0; j < n3; ++j)
              for (const auto &[gi, wi] : ei)
                for (const auto &[gj, wj] : space.expansion[static_cast<std::size_t>(a) * n3 + j])
                  K(gi, gj) += wi * wj * A(i, j);
          }
      }
    CholeskyFactorization(K).solve(rhs);
    CellVector<double> u(mesh.n_active_cells(), b.degree());
    for (unsigned int a = 0; a < mesh.n_active_cells(); ++a)
      for (unsigned int i = 0; i < n3; ++i)
        for (const auto &[g, w] : space.expansion[static_cast<std::size_t>(a) * n3 + i])
          u(a, i) += w * rhs[g];
    return u;
  }
} // namespace

TEST(AdaptiveBuilder, OctantBallShellMarkers)
{
  BoxDescription box;
  // octant: after one global refinement the octant is one cell; refined twice
  const LevelHierarchy h = make_adaptive_box_hierarchy(box, 1, 2, make_octant_marker(box));
  ASSERT_EQ(h.n_levels(), 4u);
  EXPECT_EQ(h.level(1).n_cells(), 8u);
  EXPECT_EQ(h.level(1).n_refined_cells(), 1u);
  EXPECT_EQ(h.level(2).n_cells(), 8u);
  EXPECT_EQ(h.level(2).n_refined_cells(), 8u); // all children lie in the octant
  EXPECT_EQ(h.level(3).n_cells(), 64u);
  EXPECT_EQ(h.n_active_cells(), 7u + 64u);
  for (unsigned int c = 0; c < h.level(3).n_cells(); ++c)
    for (unsigned int d = 0; d < 3; ++d)
      EXPECT_LE(h.level(3).boxes[c].lower[d] + h.level(3).boxes[c].size[d], 0.5 + 1e-15);

  // intersection test: a box touching the ball's surface from outside is not
  // marked, one overlapping it is; the shell leaves its hole unrefined
  const CellMarker ball = make_ball_marker({{0.5, 0.5, 0.5}}, 0.25);
  EXPECT_TRUE(ball(CellBox{{{0.7, 0.4, 0.4}}, {{0.1, 0.1, 0.1}}}));
  EXPECT_FALSE(ball(CellBox{{{0.75, 0.4, 0.4}}, {{0.1, 0.1, 0.1}}}));
  const CellMarker shell = make_shell_marker({{0.5, 0.5, 0.5}}, 0.2, 0.3);
  EXPECT_FALSE(shell(CellBox{{{0.45, 0.45, 0.45}}, {{0.1, 0.1, 0.1}}}));
  EXPECT_TRUE(shell(CellBox{{{0.45, 0.45, 0.7}}, {{0.1, 0.1, 0.1}}}));
  EXPECT_THROW(make_marker("cube", box), Error);

  const LevelHierarchy hb = make_adaptive_box_hierarchy(box, 2, 3, make_marker("ball", box));
  ASSERT_EQ(hb.n_levels(), 6u);
  EXPECT_LT(hb.level(5).n_cells(), 8u * hb.level(4).n_cells());
  EXPECT_GT(hb.level(5).n_cells(), 0u);
}

TEST(RefinementEdge, OneDssMatchesCoordinateDefinition)
{
  // An irregular refined region (ball off-centre, shell) with re-entrant
  // corners. Coordinate definition: a node of a level-ℓ cell is on E_ℓ iff
  // one of the level-ℓ grid cells around it inside the domain is missing.
  BoxDescription box;
  box.upper        = {{1.5, 1., 1.}};
  box.subdivisions = {{3, 2, 2}};
  for (const CellMarker &marker : {make_ball_marker({{0.55, 0.4, 0.35}}, 0.3), make_shell_marker({{0.7, 0.5, 0.5}}, 0.2, 0.3)})
    {
      const LevelHierarchy h      = make_adaptive_box_hierarchy(box, 0, 3, marker);
      const unsigned int   degree = 2, n = degree + 1;
      unsigned int         spread_only = 0, n_edge = 0;
      for (unsigned int l = 1; l < h.n_levels(); ++l)
        {
          const Level                          &level = h.level(l);
          const CellVector<double>              edge  = make_refinement_edge_mask<double>(level, degree);
          std::set<std::tuple<int, int, int>>   present;
          for (unsigned int c = 0; c < level.n_cells(); ++c)
            present.insert({level.coordinates[c][0], level.coordinates[c][1], level.coordinates[c][2]});
          for (unsigned int c = 0; c < level.n_cells(); ++c)
            {
              bool has_none_face = false;
              for (unsigned int f = 0; f < 6; ++f)
                has_none_face = has_none_face || level.neighbors[c][f] == face_neighbor::none;
              bool cell_has_edge = false;
              for (unsigned int i = 0; i < edge.dofs_per_cell(); ++i)
                {
                  const unsigned int idx[3] = {i % n, (i / n) % n, i / (n * n)};
                  std::vector<int>   cand[3];
                  for (unsigned int d = 0; d < 3; ++d)
                    {
                      const int x = level.coordinates[c][d];
                      if (idx[d] == 0)
                        cand[d] = {x - 1, x};
                      else if (idx[d] == degree)
                        cand[d] = {x, x + 1};
                      else
                        cand[d] = {x};
                    }
                  bool on_edge = false;
                  for (const int x : cand[0])
                    for (const int y : cand[1])
                      for (const int z : cand[2])
                        {
                          const int lim[3] = {static_cast<int>(h.coarse_subdivisions[0] << l),
                                              static_cast<int>(h.coarse_subdivisions[1] << l),
                                              static_cast<int>(h.coarse_subdivisions[2] << l)};
                          if (x < 0 || y < 0 || z < 0 || x >= lim[0] || y >= lim[1] || z >= lim[2])
                            continue;
                          on_edge = on_edge || !present.count({x, y, z});
                        }
                  EXPECT_EQ(edge(c, i), on_edge ? 1. : 0.) << "level " << l << " cell " << c << " DoF " << i;
                  cell_has_edge = cell_has_edge || on_edge;
                  n_edge += on_edge;
                }
              spread_only += cell_has_edge && !has_none_face;
            }
        }
      EXPECT_GT(n_edge, 0u);
      // cells reached only through the DSS spreading (edge/vertex contact)
      EXPECT_GT(spread_only, 0u);
    }
}

TEST(AdaptiveSolver, UniformHierarchyTakesTheUniformCycle)
{
  // One solver class for both: on a uniform hierarchy the solve's cells are
  // the finest level's, with the uniform V-cycle; the right-hand side, the
  // solution and the error are those of the finest level.
  BoxDescription       box;
  const LevelHierarchy h      = make_box_hierarchy(box, 2);
  const unsigned int   degree = 2;
  MultigridSolver      solver(h, degree, parameters());
  EXPECT_FALSE(solver.locally_refined());
  EXPECT_EQ(solver.n_active_cells(), h.levels.back().n_cells());
  EXPECT_THROW(solver.active_mesh(), Error);
  EXPECT_THROW(solver.free_mask(1), Error);
  CellVector<double> u;
  solve_sine(solver, u, 1e-13);
  CellVector<double> b, c, v(h.levels.back().n_cells(), degree);
  assemble_right_hand_side(h.levels.back(), degree, sine_rhs, b);
  solver.assemble_right_hand_side(sine_rhs, c);
  c.add(-1., b);
  EXPECT_EQ(c.linfty_norm(), 0.);
  MonitorControl control(100, 1e-13);
  solver.solve(v, b, control);
  u.add(-1., v);
  EXPECT_LE(u.linfty_norm(), 1e-10 * v.linfty_norm());

  const LevelHierarchy a = make_adaptive_box_hierarchy(box, 1, 2, make_octant_marker(box));
  EXPECT_TRUE(MultigridSolver(a, degree, parameters()).locally_refined());
}

TEST(AdaptiveSolver, ActiveSolutionIsContinuousAcrossHangingFaces)
{
  BoxDescription box;
  for (const bool octant : {true, false})
    {
      const LevelHierarchy h = octant ? make_adaptive_box_hierarchy(box, 1, 2, make_octant_marker(box))
                                      : make_adaptive_box_hierarchy(box, 1, 2, make_marker("ball", box));
      for (const unsigned int degree : {2u, 3u})
        for (const SmootherType smoother : {SmootherType::chebyshev, SmootherType::patch})
        {
          MultigridSolver solver(h, degree, parameters(smoother));
          CellVector<double>      u;
          solve_sine(solver, u);
          unsigned int n_faces = 0;
          const double jump    = max_hanging_jump(h, solver.active_mesh(), u, &n_faces);
          EXPECT_GT(n_faces, 0u);
          EXPECT_LE(jump, 1e-13 * u.linfty_norm()) << (octant ? "octant" : "ball") << ", degree " << degree;
          // the check sees the nodal interpolant's jumps at hanging nodes
          CellVector<double> w;
          solver.interpolate(sine, w);
          EXPECT_GT(max_hanging_jump(h, solver.active_mesh(), w), 1e-6);
          // a cycle's correction of a random dual is conforming too
          CellVector<double> r, z;
          r.reinit(u);
          fill_random(r, 3);
          r.scale(solver.dirichlet_mask());
          z.reinit(r);
          solver.preconditioner().vmult(z, r);
          EXPECT_LE(max_hanging_jump(h, solver.active_mesh(), z), 1e-13 * z.linfty_norm());
        }
    }
}

TEST(AdaptiveSolver, MatchesDirectSolveWithHangingNodeConstraints)
{
  struct Case
  {
    BoxDescription box;
    int            n_global, n_adaptive;
    std::string    marker;
    unsigned int   degree;
    /// cells deformed by the Kershaw map (trilinear, exact on every level:
    /// the hanging-node constraints are those of the undeformed boxes)
    bool      kershaw   = false;
    Precision precision = Precision::fp64;
  };
  BoxDescription unequal;
  unequal.upper        = {{1.5, 1.4, 2.2}};
  unequal.subdivisions = {{2, 1, 1}};
  const std::vector<Case> cases = {{BoxDescription{}, 1, 2, "octant", 2}, // level jump 2
                                   {BoxDescription{}, 1, 1, "octant", 3},
                                   {unequal, 1, 2, "ball", 2},
                                   {BoxDescription{}, 1, 2, "ball", 2, true},
                                   {BoxDescription{}, 1, 2, "ball", 2, true, Precision::mixed}};
  for (const Case &test : cases)
    for (const SmootherType smoother : {SmootherType::jacobi, SmootherType::chebyshev, SmootherType::patch})
      {
        LevelHierarchy h = make_adaptive_box_hierarchy(test.box, test.n_global, test.n_adaptive, make_marker(test.marker, test.box));
        if (test.kershaw)
          map_hierarchy(h, 1, kershaw_map(0.3, 0.3));
        MultigridParameters p = parameters(smoother);
        p.precision           = test.precision;
        MultigridSolver solver(h, test.degree, p);
        CellVector<double>      b, u;
        solver.assemble_right_hand_side(sine_rhs, b);
        u.reinit(b);
        MonitorControl control(300, 1e-14);
        solver.solve(u, b, control);

        const ConstrainedSpace   space  = make_constrained_space(solver.active_mesh(), test.degree, test.box);
        const CellVector<double> direct = direct_constrained_solve(solver.active_mesh(), solver.fine_operator(), space, b);
        CellVector<double>       difference = u;
        difference.add(-1., direct);
        EXPECT_LE(difference.linfty_norm(), 1e-9 * direct.linfty_norm())
          << test.marker << (test.kershaw ? " (Kershaw)" : "") << " degree " << test.degree << " smoother "
          << to_string(smoother) << " " << to_string(test.precision) << ": " << space.n_free << " free DoFs";
      }
}

TEST(AdaptiveVCycle, IsSymmetric)
{
  BoxDescription       box;
  const LevelHierarchy h = make_adaptive_box_hierarchy(box, 1, 2, make_marker("ball", box));
  for (const SmootherType smoother : {SmootherType::jacobi, SmootherType::patch})
  {
  MultigridSolver solver(h, 2, parameters(smoother));
  CellVector<double>      r1(solver.n_active_cells(), 2), r2, z1, z2;
  r2.reinit(r1);
  fill_random(r1, 1);
  fill_random(r2, 2);
  r1.scale(solver.dirichlet_mask());
  r2.scale(solver.dirichlet_mask());
  z1.reinit(r1);
  z2.reinit(r1);
  solver.preconditioner().vmult(z1, r1);
  solver.preconditioner().vmult(z2, r2);
  const double a = r1.dot(z2), c = r2.dot(z1);
  EXPECT_NEAR(a, c, 1e-12 * std::abs(a)) << to_string(smoother);
  EXPECT_GT(r1.dot(z1), 0.);
  }
}

TEST(AdaptiveSolver, L2ErrorDecreasesUnderOctantRefinement)
{
  BoxDescription      box;
  const unsigned int  degree = 2;
  std::vector<double> errors;
  for (int k = 0; k <= 2; ++k)
    {
      const LevelHierarchy    h = make_adaptive_box_hierarchy(box, 2, k, make_octant_marker(box));
      MultigridSolver solver(h, degree, parameters());
      CellVector<double>      u;
      solve_sine(solver, u);
      errors.push_back(solver.compute_l2_error(u, sine));
    }
  for (std::size_t k = 1; k < errors.size(); ++k)
    EXPECT_LT(errors[k], errors[k - 1]) << "adaptive step " << k;
}

TEST(AdaptiveSolver, CgCountsFlatInAdaptiveDepth)
{
  BoxDescription box;
  for (const unsigned int degree : {2u, 3u, 4u})
    {
      std::vector<unsigned int> counts;
      for (int k = 1; k <= 3; ++k)
        {
          const LevelHierarchy    h = make_adaptive_box_hierarchy(box, 2, k, make_octant_marker(box));
          MultigridSolver solver(h, degree, parameters());
          CellVector<double>      u;
          counts.push_back(solve_sine(solver, u, 1e-10).iterations());
        }
      const auto [lo, hi] = std::minmax_element(counts.begin(), counts.end());
      EXPECT_LE(*hi - *lo, 2u) << "degree " << degree << ": " << counts[0] << ", " << counts[1] << ", " << counts[2];
      std::cout << "degree " << degree << ": CG counts for adaptive depth 1..3: " << counts[0] << " " << counts[1] << " " << counts[2]
                << std::endl;
    }
}

TEST(AdaptiveSolver, StationaryIterationMatchesCg)
{
  BoxDescription          box;
  const LevelHierarchy    h = make_adaptive_box_hierarchy(box, 1, 2, make_marker("shell", box));
  MultigridParameters     p = parameters(SmootherType::jacobi);
  MultigridSolver cg(h, 2, p);
  CellVector<double>      u;
  solve_sine(cg, u, 1e-13);
  p.outer = OuterIteration::stationary;
  MultigridSolver stationary(h, 2, p);
  CellVector<double>      v;
  const SolveStatistics   s = solve_sine(stationary, v, 1e-12);
  EXPECT_LE(s.iterations(), 40u);
  v.add(-1., u);
  EXPECT_LE(v.linfty_norm(), 1e-9 * u.linfty_norm());
}
