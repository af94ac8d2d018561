// DSS and rebalancing against an explicit gather–scatter through a global
// numbering built from node coordinates; pairing identities; Dirichlet mask;
// DoF numbering.

#include <cellwise/mesh/box_builder.h>
#include <cellwise/storage/dirichlet_mask.h>
#include <cellwise/storage/dof_numbering.h>
#include <cellwise/storage/dss.h>

#include <gtest/gtest.h>

#include "test_utilities.h"

using namespace cellwise;
using namespace cellwise::testing;

namespace
{
  BoxDescription
  unequal_box()
  {
    BoxDescription box;
    box.upper        = {{3., 2., 1.}};
    box.subdivisions = {{3, 2, 4}};
    return box;
  }
} // namespace

class Dss : public ::testing::TestWithParam<std::tuple<unsigned int, CellOrdering>>
{};

TEST_P(Dss, SumEqualsExplicitGatherScatter)
{
  const auto [degree, ordering] = GetParam();
  const LevelHierarchy h        = make_box_hierarchy(unequal_box(), 1, ordering);
  const Level         &level    = h.levels.back();
  const auto           numbering = number_by_coordinates(level, degree);

  CellVector<double> r(level.n_cells(), degree), expected(level.n_cells(), degree);
  fill_random(r, 7);
  gather_by(numbering, sum_copies_by(numbering, r), expected); // G G^T r
  apply_dss(level, r, DssMode::sum);
  for (unsigned int c = 0; c < level.n_cells(); ++c)
    for (unsigned int i = 0; i < r.dofs_per_cell(); ++i)
      ASSERT_NEAR(r(c, i), expected(c, i), 1e-14 * 8) << "cell " << c << " dof " << i;
}

TEST_P(Dss, MeanKeepsDualAndEqualizesCopies)
{
  const auto [degree, ordering] = GetParam();
  const LevelHierarchy h        = make_box_hierarchy(unequal_box(), 1, ordering);
  const Level         &level    = h.levels.back();
  const auto           numbering = number_by_coordinates(level, degree);

  CellVector<double> r(level.n_cells(), degree);
  fill_random(r, 11);
  const std::vector<double> before = sum_copies_by(numbering, r);
  CellVector<double>        z(level.n_cells(), degree);
  gather_by(numbering, random_vector(numbering.n_unique, 5), z); // continuous
  const double pairing_before = r.dot(z);

  apply_dss(level, r, DssMode::mean);
  EXPECT_LE(max_abs_difference(sum_copies_by(numbering, r), before), 1e-14 * 8);
  EXPECT_LE(max_copy_difference(numbering, r), 1e-15 * 8);
  EXPECT_NEAR(r.dot(z), pairing_before, 1e-12 * std::abs(pairing_before) + 1e-12);
}

TEST_P(Dss, BlockedLayoutGivesSameResult)
{
  const auto [degree, ordering] = GetParam();
  const LevelHierarchy h        = make_box_hierarchy(unequal_box(), 1, ordering);
  const Level         &level    = h.levels.back();
  CellVector<double>   r(level.n_cells(), degree);
  CellVector<double, MemorySpace::Host, CellBlocked<32>> rb(level.n_cells(), degree);
  fill_random(r, 3);
  fill_random(rb, 3);
  apply_dss(level, r, DssMode::sum);
  apply_dss(level, rb, DssMode::sum);
  for (unsigned int c = 0; c < level.n_cells(); ++c)
    for (unsigned int i = 0; i < r.dofs_per_cell(); ++i)
      ASSERT_EQ(r(c, i), rb(c, i));
}

INSTANTIATE_TEST_SUITE_P(DegreesAndOrderings,
                         Dss,
                         ::testing::Combine(::testing::Values(1u, 2u, 3u, 4u, 5u),
                                            ::testing::Values(CellOrdering::cell_major, CellOrdering::child_major)));

TEST(DofNumbering, MatchesCoordinatesAndCountsUniqueDofs)
{
  const LevelHierarchy h = make_box_hierarchy(unequal_box(), 1);
  const Level         &level = h.levels.back();
  for (unsigned int degree = 1; degree <= 4; ++degree)
    {
      const DofNumbering numbering = make_dof_numbering(level, degree);
      EXPECT_EQ(numbering.n_unique, (6 * degree + 1) * (4 * degree + 1) * (8 * degree + 1));
      const auto reference = number_by_coordinates(level, degree);
      // same partition of the copies into DoFs
      std::vector<int> map(numbering.n_unique, -1);
      for (unsigned int c = 0; c < level.n_cells(); ++c)
        for (unsigned int i = 0; i < numbering.dofs_per_cell(); ++i)
          {
            int &m = map[numbering(c, i)];
            if (m < 0)
              m = int(reference(c, i));
            ASSERT_EQ(m, int(reference(c, i)));
          }
      // gather_transpose ∘ gather multiplies by the valence
      CellVector<double> ones;
      gather(numbering, std::vector<double>(numbering.n_unique, 1.), ones);
      const std::vector<double> valence = gather_transpose(numbering, ones);
      double total = 0;
      for (double v : valence)
        total += v;
      EXPECT_DOUBLE_EQ(total, double(ones.size()));
    }
}

TEST(DirichletMask, MarksExactlyTheBoundaryDofs)
{
  const LevelHierarchy h     = make_box_hierarchy(unequal_box(), 1);
  const Level         &level = h.levels.back();
  for (unsigned int degree = 1; degree <= 4; ++degree)
    {
      const auto mask      = make_dirichlet_mask<double>(level, degree);
      const auto numbering = number_by_coordinates(level, degree);
      const LagrangeBasis1D basis(degree);
      const unsigned int    n = degree + 1;
      for (unsigned int c = 0; c < level.n_cells(); ++c)
        for (unsigned int k = 0; k < n; ++k)
          for (unsigned int j = 0; j < n; ++j)
            for (unsigned int i = 0; i < n; ++i)
              {
                const CellBox &b = level.boxes[c];
                const double   x = b.lower[0] + basis.nodes()[i] * b.size[0];
                const double   y = b.lower[1] + basis.nodes()[j] * b.size[1];
                const double   z = b.lower[2] + basis.nodes()[k] * b.size[2];
                const bool on_boundary = std::abs(x) < 1e-12 || std::abs(x - 3) < 1e-12 || std::abs(y) < 1e-12 ||
                                         std::abs(y - 2) < 1e-12 || std::abs(z) < 1e-12 || std::abs(z - 1) < 1e-12;
                ASSERT_EQ(mask(c, i + n * (j + n * k)), on_boundary ? 0. : 1.) << x << " " << y << " " << z;
              }
    }
  // only the face x = 0 (boundary id 0)
  const auto mask = make_dirichlet_mask<double>(level, 2, {0});
  for (unsigned int c = 0; c < level.n_cells(); ++c)
    for (unsigned int i = 0; i < mask.dofs_per_cell(); ++i)
      {
        const bool on_x0 = level.boxes[c].lower[0] == 0. && i % 3 == 0;
        ASSERT_EQ(mask(c, i), on_x0 ? 0. : 1.);
      }
}

TEST(Dss, MismatchedVectorIsRejected)
{
  const LevelHierarchy h = make_box_hierarchy(unequal_box(), 1);
  CellVector<double>   r(5, 2);
  EXPECT_THROW(apply_dss(h.levels.back(), r), Error);
}

TEST(Dss, AxisPassSplitAtTheOwnedCellsIsTheWholePass)
{
  // the distributed DSS sums the pairs between owned cells while the ghost
  // layers travel and the others after: together exactly the whole pass
  // (each pair once), for any split, and neither part alone is the whole
  const LevelHierarchy h     = make_box_hierarchy(BoxDescription{{0., 0., 0.}, {1.5, 1., 0.5}, {3, 2, 1}}, 1);
  const Level         &level = h.levels.back();
  const unsigned int   degree = 2;
  for (const unsigned int n_owned : {0u, 7u, 29u, level.n_cells()})
    for (unsigned int d = 0; d < 3; ++d)
      {
        CellVector<double> whole(level.n_cells(), degree);
        fill_random(whole, 3 + d);
        CellVector<double> split = whole, owned_only = whole;
        dss_axis_pass(level, whole, DssMode::sum, lagrange_trace_layers(degree), d);
        dss_axis_pass(level, split, DssMode::sum, lagrange_trace_layers(degree), d, {DssPairs::Kind::owned, n_owned});
        dss_axis_pass(level, owned_only, DssMode::sum, lagrange_trace_layers(degree), d, {DssPairs::Kind::owned, n_owned});
        dss_axis_pass(level, split, DssMode::sum, lagrange_trace_layers(degree), d, {DssPairs::Kind::touching_ghosts, n_owned});
        std::size_t differ = 0, owned_differ = 0;
        for (unsigned int c = 0; c < level.n_cells(); ++c)
          for (unsigned int i = 0; i < whole.dofs_per_cell(); ++i)
            {
              differ += !(split(c, i) == whole(c, i));
              owned_differ += !(owned_only(c, i) == whole(c, i));
            }
        EXPECT_EQ(differ, 0u) << n_owned << " owned cells, axis " << d;
        if (n_owned != level.n_cells())
          EXPECT_GT(owned_differ, 0u) << "the pairs touching a ghost changed nothing: the test splits nothing";
      }
}
