// The load vector of a separable right-hand side (base/function.h,
// SeparableFunction) equals the point-wise assembly of the same function to
// rounding, on a non-cube box and a locally refined level, for several terms,
// degrees and quadrature sizes, also where cells do not share the interval of
// their lattice position (the per-position tables must not serve them), for
// the Lagrange and the Hermite load vectors; evaluate() is the sum of the
// products; an empty factor is refused.

#include <cellwise/base/exceptions.h>
#include <cellwise/mesh/adaptive_builder.h>
#include <cellwise/mesh/box_builder.h>
#include <cellwise/multigrid/adaptive_v_cycle.h>
#include <cellwise/operators/function_tools.h>
#include <cellwise/operators/hermite_function_tools.h>

#include <gtest/gtest.h>

#include <cmath>

using namespace cellwise;

namespace
{
  /// 2.5 sin(x) e^{y/2} (1 + z²) − 0.75 x² cos(3y) z
  SeparableFunction
  two_terms()
  {
    SeparableTerm first, second;
    first.coefficient  = 2.5;
    first.factors      = {[](double x) { return std::sin(x); }, [](double y) { return std::exp(0.5 * y); },
                          [](double z) { return 1. + z * z; }};
    second.coefficient = -0.75;
    second.factors     = {[](double x) { return x * x; }, [](double y) { return std::cos(3. * y); }, [](double z) { return z; }};
    return {first, second};
  }

  double
  max_relative_difference(const CellVector<double> &a, const CellVector<double> &b)
  {
    double difference = 0, size = 0;
    for (std::size_t k = 0; k < a.storage_size(); ++k)
      {
        difference = std::max(difference, std::abs(a.data()[k] - b.data()[k]));
        size       = std::max(size, std::abs(b.data()[k]));
      }
    return difference / size;
  }
} // namespace

TEST(SeparableRightHandSide, EqualsThePointwiseAssembly)
{
  const SeparableFunction f         = two_terms();
  const ScalarFunction    pointwise = [&](const Point &x) { return evaluate(f, x); };
  const BoxDescription    box{{-0.5, 0.25, 1.}, {1., 1.75, 1.8}, {3, 2, 1}};
  const LevelHierarchy    uniform  = make_box_hierarchy(box, 2);
  const LevelHierarchy    adaptive = make_adaptive_box_hierarchy(box, 1, 1, make_octant_marker(box));
  for (const Level *level : {&uniform.levels.back(), &adaptive.levels.back()})
    for (const unsigned int degree : {1u, 2u, 3u, 5u})
      for (const unsigned int q : {0u, 2u, 7u})
        {
          SCOPED_TRACE(::testing::Message() << level->n_cells() << " cells, degree " << degree << ", q " << q);
          CellVector<double> expected, got;
          assemble_right_hand_side(*level, degree, pointwise, expected, q);
          assemble_right_hand_side(*level, degree, f, got, q);
          EXPECT_LE(max_relative_difference(got, expected), 1e-13);
        }
}

// The 1D integrals are tabulated per lattice position of a level; a cell
// whose interval along an axis is not that of the other cells in its
// position (bit for bit) integrates over its own. Here some cells of a
// uniform level are moved or resized (the load vector takes each cell's box
// as it is): whichever cell of a position serves as its representative,
// using the table for every cell would give some cell the wrong interval.
TEST(SeparableRightHandSide, CellsOffTheirPositionIntegrateOverTheirOwnIntervals)
{
  const SeparableFunction f         = two_terms();
  const ScalarFunction    pointwise = [&](const Point &x) { return evaluate(f, x); };
  LevelHierarchy          mesh      = make_box_hierarchy(BoxDescription{{-0.5, 0.25, 1.}, {1., 1.75, 1.8}, {3, 2, 1}}, 2);
  Level                  &level     = mesh.levels.back();
  for (unsigned int cell = 0; cell < level.n_cells(); cell += 7)
    {
      const unsigned int d = cell % 3;
      if (cell % 2 == 0)
        level.boxes[cell].lower[d] += 0.01 * level.boxes[cell].size[d];
      else
        level.boxes[cell].size[d] *= 0.97;
    }
  for (const unsigned int degree : {1u, 3u})
    {
      SCOPED_TRACE(::testing::Message() << "degree " << degree);
      CellVector<double> expected, got;
      assemble_right_hand_side(level, degree, pointwise, expected);
      assemble_right_hand_side(level, degree, f, got);
      EXPECT_LE(max_relative_difference(got, expected), 1e-13);
    }
}

// The Hermite load vector (operators/hermite_function_tools.h) of the same
// function: the separable assembly equals the point-wise one to rounding on a
// box of unequal widths, on the active cells of an octant refinement (cells
// of two sizes side by side), with cells moved off their lattice positions,
// and for several quadrature sizes; an empty factor is refused.
TEST(SeparableRightHandSide, HermiteEqualsThePointwiseAssembly)
{
  const SeparableFunction f         = two_terms();
  const ScalarFunction    pointwise = [&](const Point &x) { return evaluate(f, x); };
  const BoxDescription    box{{-0.5, 0.25, 1.}, {1., 1.75, 1.8}, {3, 2, 1}};
  const LevelHierarchy    uniform = make_box_hierarchy(box, 2);
  const ActiveMesh        active  = make_active_mesh(make_adaptive_box_hierarchy(box, 1, 1, make_octant_marker(box)));
  Level                   moved   = uniform.levels.back();
  for (unsigned int cell = 0; cell < moved.n_cells(); cell += 7)
    {
      const unsigned int d = cell % 3;
      if (cell % 2 == 0)
        moved.boxes[cell].lower[d] += 0.01 * moved.boxes[cell].size[d];
      else
        moved.boxes[cell].size[d] *= 0.97;
    }
  for (const Level *level : {&uniform.levels.back(), &active.level, static_cast<const Level *>(&moved)})
    for (const unsigned int q : {2u, 5u, 7u})
      {
        SCOPED_TRACE(::testing::Message() << level->n_cells() << " cells, q " << q);
        CellVector<double> expected, got;
        assemble_hermite_right_hand_side(*level, pointwise, expected, q);
        assemble_hermite_right_hand_side(*level, f, got, q);
        EXPECT_LE(max_relative_difference(got, expected), 1e-13);
      }
  SeparableFunction broken = f;
  broken[0].factors[1]     = nullptr;
  CellVector<double> b;
  EXPECT_THROW(assemble_hermite_right_hand_side(uniform.levels.back(), broken, b), Error);
}

TEST(SeparableRightHandSide, EvaluateAndEmptyFactors)
{
  const SeparableFunction f = two_terms();
  const Point             x = {{0.3, -0.4, 1.2}};
  EXPECT_NEAR(evaluate(f, x),
              2.5 * std::sin(0.3) * std::exp(-0.2) * (1. + 1.44) - 0.75 * 0.09 * std::cos(-1.2) * 1.2, 1e-14);
  SeparableFunction broken = f;
  broken[1].factors[2]     = nullptr;
  const LevelHierarchy h   = make_box_hierarchy(BoxDescription{}, 1);
  CellVector<double>   b;
  EXPECT_THROW(assemble_right_hand_side(h.levels.back(), 2, broken, b), Error);
}
