// The C¹ Hermite biharmonic multigrid on locally refined meshes (001 §3,
// doc/hermite.md): the refinement edge marks all eight DoFs of its vertices;
// after the solve (and after one cycle on a random dual) the value and the
// physical normal derivative are continuous across every interior face,
// hanging ones included; the solution equals a dense solve of the system
// with the hanging-vertex constraints built here from coordinates only; the
// cycle is symmetric; CG counts stay flat in the refinement depth.

#include <cellwise/base/dense_matrix.h>
#include <cellwise/fe/hermite_basis_1d.h>
#include <cellwise/fe/hermite_element.h>
#include <cellwise/mesh/adaptive_builder.h>
#include <cellwise/multigrid/hermite_multigrid_solver.h>
#include <cellwise/multigrid/refinement_edge.h>
#include <cellwise/operators/hermite_biharmonic_operator.h>
#include <cellwise/operators/hermite_function_tools.h>
#include <cellwise/storage/dirichlet_mask.h>

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <map>
#include <tuple>

#include "hermite_test_problem.h"
#include "test_utilities.h"

using namespace cellwise;
using cellwise::testing::clamped_bilaplacian;

namespace
{
  constexpr double geometric_tolerance = 1e-12;

  bool
  contains(const CellBox &box, const Point &x)
  {
    for (unsigned int d = 0; d < 3; ++d)
      if (x[d] < box.lower[d] - geometric_tolerance || x[d] > box.lower[d] + box.size[d] + geometric_tolerance)
        return false;
    return true;
  }

  Point
  reference_point(const CellBox &box, const Point &x)
  {
    Point t;
    for (unsigned int d = 0; d < 3; ++d)
      t[d] = (x[d] - box.lower[d]) / box.size[d];
    return t;
  }

  /// The active cell containing @p x (brute force; the test meshes are small).
  int
  locate(const Level &active, const Point &x)
  {
    for (unsigned int c = 0; c < active.n_cells(); ++c)
      if (contains(active.boxes[c], x))
        return static_cast<int>(c);
    return -1;
  }

  /// Largest jumps of the value and of the physical normal derivative across
  /// the interior faces of the active mesh, same-level and hanging, sampled
  /// at 4 x 4 points per face; relative to the largest sampled magnitudes.
  struct Jumps
  {
    double value = 0, normal_derivative = 0;
    unsigned int hanging_faces = 0;
  };

  Jumps
  face_jumps(const Level &active, const CellVector<double> &u)
  {
    const double samples[4] = {0., 0.3, 0.71, 1.};
    Jumps        jumps;
    double       scale[2] = {0, 0};
    for (unsigned int cell = 0; cell < active.n_cells(); ++cell)
      for (unsigned int face = 0; face < 6; ++face)
        {
          const int neighbor = active.neighbors[cell][face];
          if (face_neighbor::is_boundary(neighbor))
            continue;
          jumps.hanging_faces += neighbor == face_neighbor::none;
          const unsigned int d = face / 2, side = face % 2;
          const CellBox     &box = active.boxes[cell];
          for (const double a : samples)
            for (const double b : samples)
              {
                Point t;
                t[d]           = side;
                t[(d + 1) % 3] = a;
                t[(d + 2) % 3] = b;
                Point x, outside;
                for (unsigned int e = 0; e < 3; ++e)
                  x[e] = box.lower[e] + t[e] * box.size[e];
                outside = x;
                outside[d] += (side ? 1e-3 : -1e-3) * box.size[d];
                const int other = locate(active, outside);
                EXPECT_GE(other, 0) << "no active cell across face " << face << " of cell " << cell;
                if (other < 0)
                  continue;
                const Point t_other = reference_point(active.boxes[other], x);
                std::array<unsigned int, 3> k{{0, 0, 0}};
                for (unsigned int order = 0; order < 2; ++order)
                  {
                    k[d]              = order;
                    const double mine = evaluate_hermite(active, u, cell, t, k);
                    const double that = evaluate_hermite(active, u, static_cast<unsigned int>(other), t_other, k);
                    double      &jump = order == 0 ? jumps.value : jumps.normal_derivative;
                    jump              = std::max(jump, std::abs(mine - that));
                    scale[order]      = std::max(scale[order], std::abs(mine));
                  }
              }
        }
    jumps.value /= std::max(scale[0], 1e-300);
    jumps.normal_derivative /= std::max(scale[1], 1e-300);
    return jumps;
  }

  /// The conforming C¹ space on the active mesh with its hanging-vertex
  /// constraints, from coordinates only: a vertex of an active cell that lies
  /// in the closure of a larger active cell without being its vertex hangs,
  /// and its eight DoFs (value and physical mixed derivatives) are the jet of
  /// that cell's polynomial there, whose own vertices may hang in turn. Vertices
  /// on the boundary carry zero (clamped). Per active cell and local DoF: the
  /// combination of free global DoFs.
  struct ConstrainedSpace
  {
    using Combination = std::map<unsigned int, double>;
    unsigned int                                         n_free = 0;
    std::vector<std::array<Combination, hermite::dofs_per_cell>> cell_map;
  };

  ConstrainedSpace
  make_constrained_space(const Level &active, const BoxDescription &domain)
  {
    using Key = std::tuple<long long, long long, long long>;
    const auto key_of = [](const Point &x) {
      return Key{std::llround(x[0] * 1e9), std::llround(x[1] * 1e9), std::llround(x[2] * 1e9)};
    };
    const auto vertex_of_cell = [](const CellBox &box, const unsigned int v) {
      Point x;
      for (unsigned int d = 0; d < 3; ++d)
        x[d] = box.lower[d] + ((v >> d) & 1) * box.size[d];
      return x;
    };
    ConstrainedSpace                                                                   space;
    std::map<Key, std::array<ConstrainedSpace::Combination, hermite::dofs_per_vertex>> resolved;
    // depth-first: a hanging vertex's DoFs from its master's vertices
    std::function<const std::array<ConstrainedSpace::Combination, 8> &(const Point &)> resolve = [&](const Point &x)
      -> const std::array<ConstrainedSpace::Combination, 8> & {
      const Key key = key_of(x);
      if (const auto it = resolved.find(key); it != resolved.end())
        return it->second;
      std::array<ConstrainedSpace::Combination, 8> dofs;
      bool on_boundary = false;
      for (unsigned int d = 0; d < 3; ++d)
        on_boundary |= std::abs(x[d] - domain.lower[d]) < geometric_tolerance || std::abs(x[d] - domain.upper[d]) < geometric_tolerance;
      int    master      = -1;
      double master_size = 0;
      for (unsigned int c = 0; c < active.n_cells() && !on_boundary; ++c)
        {
          const CellBox &box = active.boxes[c];
          if (!contains(box, x))
            continue;
          bool is_vertex = true;
          for (unsigned int d = 0; d < 3; ++d)
            is_vertex &= std::abs(x[d] - box.lower[d]) < geometric_tolerance ||
                         std::abs(x[d] - box.lower[d] - box.size[d]) < geometric_tolerance;
          if (!is_vertex && box.size[0] > master_size)
            {
              master      = static_cast<int>(c);
              master_size = box.size[0];
            }
        }
      if (!on_boundary && master < 0)
        for (unsigned int j = 0; j < 8; ++j)
          dofs[j][space.n_free++] = 1.;
      else if (master >= 0)
        {
          const CellBox &box = active.boxes[master];
          const Point    t   = reference_point(box, x);
          const auto     s   = hermite::hermite_scaling(box.size);
          for (unsigned int i = 0; i < hermite::dofs_per_cell; ++i)
            {
              const auto &source = resolve(vertex_of_cell(box, hermite::vertex_of(i)))[hermite::derivative_of(i)];
              for (unsigned int j = 0; j < 8; ++j)
                {
                  // ∂^k ψ_i(x) in physical coordinates, ψ_i = s_i Π φ_{i_d}(t_d)
                  double w = s[i];
                  for (unsigned int d = 0; d < 3; ++d)
                    {
                      const unsigned int i_d = (i >> (2 * d)) & 3;
                      w *= ((j >> d) & 1) ? hermite::derivative(i_d, t[d]) / box.size[d] : hermite::value(i_d, t[d]);
                    }
                  if (w != 0.)
                    for (const auto &[g, value] : source)
                      dofs[j][g] += w * value;
                }
            }
        }
      return resolved[key] = dofs;
    };
    space.cell_map.resize(active.n_cells());
    for (unsigned int c = 0; c < active.n_cells(); ++c)
      for (unsigned int i = 0; i < hermite::dofs_per_cell; ++i)
        space.cell_map[c][i] = resolve(vertex_of_cell(active.boxes[c], hermite::vertex_of(i)))[hermite::derivative_of(i)];
    return space;
  }

  /// The solution of C^T A_cell C x = C^T b~ by dense Cholesky, as cell values C x.
  CellVector<double>
  constrained_direct_solve(const Level &active, const BoxDescription &domain, const CellVector<double> &b)
  {
    const ConstrainedSpace                  space = make_constrained_space(active, domain);
    const HermiteBiharmonicOperator<double> op(active);
    DenseMatrix                             A(space.n_free, space.n_free);
    std::vector<double>                     rhs(space.n_free, 0.);
    for (unsigned int c = 0; c < active.n_cells(); ++c)
      {
        const DenseMatrix Ak = op.cell_matrix(c);
        const auto       &C  = space.cell_map[c];
        for (unsigned int i = 0; i < hermite::dofs_per_cell; ++i)
          {
            for (const auto &[gi, wi] : C[i])
              rhs[gi] += wi * b(c, i);
            for (unsigned int j = 0; j < hermite::dofs_per_cell; ++j)
              if (Ak(i, j) != 0.)
                for (const auto &[gi, wi] : C[i])
                  for (const auto &[gj, wj] : C[j])
                    A(gi, gj) += wi * Ak(i, j) * wj;
          }
      }
    CholeskyFactorization(A).solve(rhs);
    CellVector<double> u(active.n_cells(), hermite::storage_degree);
    for (unsigned int c = 0; c < active.n_cells(); ++c)
      for (unsigned int i = 0; i < hermite::dofs_per_cell; ++i)
        for (const auto &[g, w] : space.cell_map[c][i])
          u(c, i) += w * rhs[g];
    return u;
  }

  BoxDescription
  unit_box(const unsigned int subdivisions)
  {
    BoxDescription box;
    box.subdivisions = {{subdivisions, subdivisions, subdivisions}};
    return box;
  }
} // namespace

TEST(HermiteAdaptive, RefinementEdgeMarksAllEightDofsOfItsVertices)
{
  // the Hermite E_ℓ mask is the Q1 one (checked against coordinates in
  // adaptive_test.cc) on every derivative of a vertex, on a ball hierarchy
  // with re-entrant corners
  const BoxDescription box = unit_box(2);
  const LevelHierarchy h   = make_adaptive_box_hierarchy(box, 1, 2, make_ball_marker({{0.55, 0.4, 0.35}}, 0.3));
  unsigned int         marked = 0;
  for (unsigned int l = 1; l < h.n_levels(); ++l)
    {
      const Level &level   = h.level(l);
      const auto   q1      = make_refinement_edge_mask<double>(level, 1);
      const auto   hermite = make_refinement_edge_mask<double>(level, 3, hermite_trace_layers());
      const auto   clamped = make_dirichlet_mask<double>(level, 3, {}, hermite_trace_layers());
      const auto   free    = make_free_mask<double>(level, 3, {}, hermite_trace_layers());
      for (unsigned int c = 0; c < level.n_cells(); ++c)
        for (unsigned int v = 0; v < 8; ++v)
          for (unsigned int j = 0; j < 8; ++j)
            {
              const unsigned int i = hermite::local_index(v, j);
              ASSERT_EQ(hermite(c, i), q1(c, v)) << "level " << l << " cell " << c << " vertex " << v;
              ASSERT_EQ(free(c, i), clamped(c, i) * (1. - q1(c, v))) << "level " << l << " cell " << c << " vertex " << v;
              marked += q1(c, v) != 0.;
            }
    }
  EXPECT_GT(marked, 0u);
}

TEST(HermiteAdaptive, SolutionIsC1AcrossHangingFacesAndEqualsTheConstrainedDirectSolve)
{
  // octant with one step on an unequal box, the octant with a jump of two
  // levels, a ball; Chebyshev and symmetric patch cycles
  struct Case
  {
    const char    *name;
    BoxDescription box;
    int            n_global, n_adaptive;
    bool           ball;
  };
  BoxDescription stretched = unit_box(2);
  stretched.lower          = {{-0.3, 0., 0.1}};
  stretched.upper          = {{1., 0.8, 1.6}};
  const std::vector<Case> cases = {{"octant, unequal box", stretched, 1, 1, false},
                                   {"octant, two-level jump", unit_box(2), 0, 2, false},
                                   {"ball", unit_box(2), 1, 1, true}};
  for (const Case &test : cases)
    for (const HermiteSmoother smoother : {HermiteSmoother::chebyshev, HermiteSmoother::vertex_patch})
      {
        SCOPED_TRACE(std::string(test.name) + (smoother == HermiteSmoother::chebyshev ? ", Chebyshev" : ", patch"));
        const CellMarker marker = test.ball ? make_ball_marker({{0.45, 0.5, 0.55}}, 0.3) : make_octant_marker(test.box);
        const LevelHierarchy h  = make_adaptive_box_hierarchy(test.box, test.n_global, test.n_adaptive, marker);
        HermiteMultigridParameters parameters;
        parameters.smoother = smoother;
        const HermiteMultigridSolver solver(h, parameters);
        ASSERT_TRUE(solver.locally_refined());
        const Level       &active = solver.active_level();
        CellVector<double> b, u;
        solver.assemble_right_hand_side(clamped_bilaplacian, b);
        MonitorControl control(60, 1e-13);
        solver.solve(u, b, control);

        const Jumps jumps = face_jumps(active, u);
        EXPECT_GT(jumps.hanging_faces, 0u);
        EXPECT_LE(jumps.value, 1e-12);
        EXPECT_LE(jumps.normal_derivative, 1e-12);

        const CellVector<double> direct = constrained_direct_solve(active, test.box, b);
        CellVector<double>       difference = u;
        difference.add(-1., direct);
        EXPECT_LE(difference.linfty_norm(), 1e-9 * direct.linfty_norm())
          << solver.n_active_cells() << " active cells";

        // one cycle on a random dual is C¹ too (the trace layers at the
        // refinement edges come from the prolongation)
        CellVector<double> r(active.n_cells(), 3), z;
        cellwise::testing::fill_random(r, 11);
        solver.preconditioner().vmult(z, r);
        const Jumps cycle_jumps = face_jumps(active, z);
        EXPECT_LE(cycle_jumps.value, 1e-12);
        EXPECT_LE(cycle_jumps.normal_derivative, 1e-12);
      }
}

TEST(HermiteAdaptive, TheJumpCheckSeesANonconformingField)
{
  // the Hermite interpolant of a non-polynomial function is C¹ across
  // same-level faces but not at hanging vertices: the check must see it
  const BoxDescription box = unit_box(2);
  const LevelHierarchy h   = make_adaptive_box_hierarchy(box, 1, 1, make_octant_marker(box));
  const HermiteMultigridSolver solver(h, HermiteMultigridParameters());
  const auto factor = [](const double t) { return std::sin(3 * t + 0.2); };
  const auto slope  = [](const double t) { return 3 * std::cos(3 * t + 0.2); };
  CellVector<double> u;
  interpolate_hermite(solver.active_level(), separable_jet({{factor, factor, factor}}, {{slope, slope, slope}}), u);
  const Jumps jumps = face_jumps(solver.active_level(), u);
  EXPECT_GT(std::max(jumps.value, jumps.normal_derivative), 1e-6);
}

TEST(HermiteAdaptive, CycleIsSymmetricAndPositive)
{
  const BoxDescription box = unit_box(2);
  const LevelHierarchy h   = make_adaptive_box_hierarchy(box, 1, 2, make_octant_marker(box));
  for (const HermiteSmoother smoother : {HermiteSmoother::chebyshev, HermiteSmoother::vertex_patch})
    {
      HermiteMultigridParameters parameters;
      parameters.smoother = smoother;
      const HermiteMultigridSolver solver(h, parameters);
      const unsigned int           n = solver.n_active_cells();
      CellVector<double>           r1(n, 3), r2(n, 3), z1, z2;
      cellwise::testing::fill_random(r1, 21);
      cellwise::testing::fill_random(r2, 22);
      r1.scale(solver.mask());
      r2.scale(solver.mask());
      solver.preconditioner().vmult(z1, r1);
      solver.preconditioner().vmult(z2, r2);
      EXPECT_NEAR(r1.dot(z2), r2.dot(z1), 1e-11 * std::abs(r1.dot(z2)));
      EXPECT_GT(r1.dot(z1), 0.);
    }
}

TEST(HermiteAdaptive, CgCountsStayFlatInTheRefinementDepth)
{
  // 8^3 uniform cells (n_uni = 3), then k = 1, 2 steps; CG + Chebyshev(3)
  // and CG + symmetric patch cycle, reduction 1e-10. The L2 error does not
  // grow with the refinement. Measured (2026-12-01): octant 7, 11, 12
  // (Chebyshev) and 11, 15, 16 (patch); ball 7, 10, 14 and 11, 13, 18. On so
  // small a mesh 37 % of the finest level's cells touch the refinement edge
  // (the count rises with that share, 001 §6.5); the 001 Table 7 analogue at
  // n_uni = 5 is in doc/results.md.
  const BoxDescription box = unit_box(2);
  for (const char *marker : {"octant", "ball"})
    for (const HermiteSmoother smoother : {HermiteSmoother::chebyshev, HermiteSmoother::vertex_patch})
      {
        std::vector<unsigned int> iterations;
        std::vector<double>       errors;
        for (const int k : {0, 1, 2})
          {
            const LevelHierarchy h = make_adaptive_box_hierarchy(box, 2, k, make_marker(marker, box));
            HermiteMultigridParameters parameters;
            parameters.smoother = smoother;
            const HermiteMultigridSolver solver(h, parameters);
            CellVector<double>           b, u;
            solver.assemble_right_hand_side(clamped_bilaplacian, b);
            MonitorControl control(60, 1e-10);
            iterations.push_back(solver.solve(u, b, control).iterations());
            errors.push_back(solver.compute_l2_error(u, cellwise::testing::clamped_solution));
            std::cout << "  " << marker << (smoother == HermiteSmoother::chebyshev ? ", Chebyshev" : ", patch") << ", k = " << k
                      << ": " << solver.n_active_cells() << " active cells, " << iterations.back() << " CG iterations, L2 error "
                      << errors.back() << std::endl;
          }
        for (const unsigned int n : iterations)
          EXPECT_LE(n, 20u) << marker;
        if (std::string(marker) == "octant")
          EXPECT_LE(iterations[2], iterations[1] + 1) << "the octant count grows with the depth";
        EXPECT_LE(errors[1], errors[0]) << marker;
        EXPECT_LE(errors[2], errors[0]) << marker;
      }
}

TEST(HermiteAdaptive, Table7CountsAfterTheFirstRefinement)
{
  // 001 Table 7 at n_uni = 5: one cell refined 5 times, one local step;
  // CG + Chebyshev(3)-Jacobi to 1e-8 (the tolerance of Table 5). The paper
  // reports 7 (octant) and 11 (ball); measured 7 and 11 (doc/results.md)
  const BoxDescription box;
  for (const auto &[marker, paper] : {std::pair<const char *, unsigned int>{"octant", 7u}, {"ball", 11u}})
    {
      const LevelHierarchy         h = make_adaptive_box_hierarchy(box, 5, 1, make_marker(marker, box));
      const HermiteMultigridSolver solver(h, HermiteMultigridParameters());
      CellVector<double>           b, u;
      solver.assemble_right_hand_side(clamped_bilaplacian, b);
      MonitorControl        control(40, 1e-8);
      const unsigned int    iterations = solver.solve(u, b, control).iterations();
      std::cout << "  " << marker << ": " << solver.n_active_cells() << " active cells, " << iterations << " CG iterations"
                << std::endl;
      EXPECT_LE(iterations, paper + 1) << marker;
    }
}
