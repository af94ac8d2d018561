// The level hierarchy of a box: counts, family links, neighbours, geometry,
// orderings and bad input.

#include <cellwise/base/exceptions.h>
#include <cellwise/mesh/adaptive_builder.h>
#include <cellwise/mesh/box_builder.h>
#include <cellwise/mesh/cell_mapping.h>

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <optional>

using namespace cellwise;

namespace
{
  BoxDescription
  unequal_box()
  {
    BoxDescription box;
    box.lower        = {{-1., 0., 0.5}};
    box.upper        = {{2., 1., 4.5}};
    box.subdivisions = {{3, 2, 4}};
    return box;
  }
} // namespace

class MeshOrdering : public ::testing::TestWithParam<CellOrdering>
{};

TEST_P(MeshOrdering, CountsFlagsAndFamily)
{
  const LevelHierarchy h = make_box_hierarchy(unequal_box(), 2, GetParam());
  ASSERT_EQ(h.n_levels(), 3u);
  EXPECT_EQ(h.level(0).n_cells(), 24u);
  EXPECT_EQ(h.level(1).n_cells(), 192u);
  EXPECT_EQ(h.level(2).n_cells(), 1536u);
  EXPECT_EQ(h.level(0).n_refined_cells(), 24u);
  EXPECT_EQ(h.level(2).n_active_cells(), 1536u);
  EXPECT_EQ(h.n_active_cells(), 1536u);

  for (unsigned int l = 1; l < h.n_levels(); ++l)
    {
      const Level &fine = h.level(l), &coarse = h.level(l - 1);
      for (unsigned int c = 0; c < fine.n_cells(); ++c)
        {
          const int parent = fine.parent[c];
          ASSERT_GE(parent, 0);
          EXPECT_EQ(coarse.children[parent][fine.child_slot[c]], int(c));
          // the child tiles its octant of the parent
          for (unsigned int d = 0; d < 3; ++d)
            {
              const unsigned int bit = (fine.child_slot[c] >> d) & 1;
              EXPECT_NEAR(fine.boxes[c].size[d], 0.5 * coarse.boxes[parent].size[d], 1e-14);
              EXPECT_NEAR(fine.boxes[c].lower[d], coarse.boxes[parent].lower[d] + bit * 0.5 * coarse.boxes[parent].size[d], 1e-14);
              EXPECT_EQ(fine.coordinates[c][d], 2 * coarse.coordinates[parent][d] + int(bit));
            }
        }
    }
}

TEST_P(MeshOrdering, NeighboursAreSymmetricAndGeometric)
{
  const LevelHierarchy h = make_box_hierarchy(unequal_box(), 2, GetParam());
  for (const Level &level : h.levels)
    {
      unsigned int n_boundary = 0;
      for (unsigned int c = 0; c < level.n_cells(); ++c)
        for (unsigned int face = 0; face < 6; ++face)
          {
            const int          other = level.neighbors[c][face];
            const unsigned int d     = face / 2;
            if (face_neighbor::is_cell(other))
              {
                EXPECT_EQ(level.neighbors[other][face ^ 1], int(c));
                const double mine   = level.boxes[c].lower[d] + (face % 2) * level.boxes[c].size[d];
                const double theirs = level.boxes[other].lower[d] + (1 - face % 2) * level.boxes[other].size[d];
                EXPECT_NEAR(mine, theirs, 1e-13);
              }
            else
              {
                ASSERT_TRUE(face_neighbor::is_boundary(other)) << "uniform levels have no refinement edge";
                EXPECT_EQ(face_neighbor::boundary_id(other), face);
                ++n_boundary;
              }
          }
      // boundary faces of an n_x x n_y x n_z grid
      const double s = std::cbrt(level.n_cells() / 24.);
      const double nx = 3 * s, ny = 2 * s, nz = 4 * s;
      EXPECT_NEAR(n_boundary, 2 * (nx * ny + ny * nz + nx * nz), 1e-9);
    }
}

TEST_P(MeshOrdering, IndexOfChildFollowsOrdering)
{
  const LevelHierarchy h         = make_box_hierarchy(unequal_box(), 1, GetParam());
  const unsigned int   n_parents = h.level(0).n_cells();
  for (unsigned int e = 0; e < n_parents; ++e)
    for (unsigned int slot = 0; slot < 8; ++slot)
      {
        const int expected = GetParam() == CellOrdering::child_major ? int(slot * n_parents + e) : int(8 * e + slot);
        EXPECT_EQ(h.level(0).children[e][slot], expected);
      }
}

TEST_P(MeshOrdering, NeighboursEqualACoordinateSearch)
{
  // The builder derives the neighbours of children from their parents'; the
  // reference searches the level for the cell at the mirror coordinates:
  // outside the grid of the level -> boundary (id = face), not on the level ->
  // none (refinement edge). Uniform and locally refined hierarchies (octant,
  // ball and shell markers, refinement edges with level jumps).
  const BoxDescription        box = unequal_box();
  std::vector<LevelHierarchy> hierarchies;
  hierarchies.push_back(make_box_hierarchy(box, 2, GetParam()));
  for (const char *marker : {"octant", "ball", "shell"})
    {
      LevelHierarchy h = make_box_hierarchy(box, 1, GetParam());
      const auto     m = make_marker(marker, box);
      for (int step = 0; step < 2; ++step)
        refine_finest_level(h, GetParam(), [&](const unsigned int c) { return m(h.levels.back().boxes[c]); });
      hierarchies.push_back(std::move(h));
    }
  for (const LevelHierarchy &h : hierarchies)
    for (unsigned int l = 0; l < h.n_levels(); ++l)
      {
        const Level                          &level = h.level(l);
        std::map<std::array<int, 3>, int>     index_of;
        for (unsigned int c = 0; c < level.n_cells(); ++c)
          index_of[level.coordinates[c]] = int(c);
        for (unsigned int c = 0; c < level.n_cells(); ++c)
          for (unsigned int face = 0; face < 6; ++face)
            {
              const unsigned int d      = face / 2;
              std::array<int, 3> mirror = level.coordinates[c];
              mirror[d] += face % 2 == 0 ? -1 : 1;
              int expected;
              if (mirror[d] < 0 || mirror[d] >= int(box.subdivisions[d] << l))
                expected = face_neighbor::boundary(face);
              else
                {
                  const auto it = index_of.find(mirror);
                  expected      = it == index_of.end() ? face_neighbor::none : it->second;
                }
              ASSERT_EQ(level.neighbors[c][face], expected) << "level " << l << ", cell " << c << ", face " << face;
            }
      }
}

TEST_P(MeshOrdering, FillsBoxOnUniformLevelsOnly)
{
  // Every uniform level of a box fills it; a locally refined level does not;
  // neither does a uniform level with one neighbour entry or one coordinate
  // made inconsistent, or with a cell missing.
  const LevelHierarchy h = make_box_hierarchy(unequal_box(), 2, GetParam());
  for (const Level &level : h.levels)
    EXPECT_TRUE(level.fills_box());

  LevelHierarchy local = make_box_hierarchy(unequal_box(), 1, GetParam());
  refine_finest_level(local, GetParam(), [&](const unsigned int c) { return c != 5; });
  EXPECT_FALSE(local.levels.back().fills_box());

  // the first cell with a neighbour above along z, and the next one
  const Level &fine  = h.levels.back();
  unsigned int first = 0;
  while (!face_neighbor::is_cell(fine.neighbors[first][5]))
    ++first;
  unsigned int second = first + 1;
  while (!face_neighbor::is_cell(fine.neighbors[second][5]))
    ++second;

  Level wrong_neighbor = fine;
  std::swap(wrong_neighbor.neighbors[first][5], wrong_neighbor.neighbors[second][5]);
  EXPECT_FALSE(wrong_neighbor.fills_box());

  Level edge                = fine;
  edge.neighbors[first][5] = face_neighbor::none;
  EXPECT_FALSE(edge.fills_box());

  Level moved = h.levels.back();
  moved.coordinates[3][0] += 1;
  EXPECT_FALSE(moved.fills_box());

  // two disjoint copies of the box: every neighbour entry is consistent
  Level twice = fine;
  for (unsigned int c = 0; c < fine.n_cells(); ++c)
    {
      twice.boxes.push_back(fine.boxes[c]);
      twice.coordinates.push_back(fine.coordinates[c]);
      std::array<int, 6> row = fine.neighbors[c];
      for (int &other : row)
        if (face_neighbor::is_cell(other))
          other += int(fine.n_cells());
      twice.neighbors.push_back(row);
    }
  EXPECT_FALSE(twice.fills_box());

  Level missing = h.levels.back();
  missing.boxes.pop_back();
  missing.coordinates.pop_back();
  missing.neighbors.pop_back();
  EXPECT_FALSE(missing.fills_box());
}

INSTANTIATE_TEST_SUITE_P(Orderings, MeshOrdering, ::testing::Values(CellOrdering::cell_major, CellOrdering::child_major));

TEST(Mesh, LocalRefinementLeavesRefinementEdge)
{
  LevelHierarchy h = make_box_hierarchy(BoxDescription{}, 1);
  // refine only the child in the lower corner octant
  refine_finest_level(h, CellOrdering::child_major, [&](unsigned int c) { return h.level(1).child_slot[c] == 0; });
  const Level &fine = h.level(2);
  EXPECT_EQ(fine.n_cells(), 8u);
  EXPECT_EQ(h.level(1).n_refined_cells(), 1u);
  EXPECT_EQ(h.n_active_cells(), 7u + 8u);
  unsigned int n_none = 0;
  for (unsigned int c = 0; c < fine.n_cells(); ++c)
    for (unsigned int face = 0; face < 6; ++face)
      n_none += fine.neighbors[c][face] == face_neighbor::none;
  EXPECT_EQ(n_none, 12u); // three inner faces of the octant, four child faces each
}

// common_box_size: cells of one size; common_box_shape: cells that are scaled
// copies of cell 0 (one scale for the three axes), with each cell's scale.
// A cell of another aspect ratio has neither.
TEST(Mesh, CommonBoxSizeAndShape)
{
  const Level uniform = make_box_hierarchy(unequal_box(), 1).levels.back();
  ASSERT_TRUE(common_box_size(uniform).has_value());
  const std::optional<BoxShape> same = common_box_shape(uniform);
  ASSERT_TRUE(same.has_value());
  EXPECT_EQ(same->size, uniform.boxes[0].size);
  for (const double t : same->scale)
    EXPECT_EQ(t, 1.);

  Level scaled = uniform; // cell 3 a quarter of the others, cell 7 half (sizes only)
  for (unsigned int d = 0; d < 3; ++d)
    {
      scaled.boxes[3].size[d] *= 0.25;
      scaled.boxes[7].size[d] *= 0.5;
    }
  EXPECT_FALSE(common_box_size(scaled).has_value());
  const std::optional<BoxShape> shape = common_box_shape(scaled);
  ASSERT_TRUE(shape.has_value());
  ASSERT_EQ(shape->scale.size(), scaled.n_cells());
  for (unsigned int c = 0; c < scaled.n_cells(); ++c)
    EXPECT_EQ(shape->scale[c], c == 3 ? 0.25 : (c == 7 ? 0.5 : 1.)) << "cell " << c;

  Level stretched = uniform; // cell 5 of another aspect ratio
  stretched.boxes[5].size[1] *= 1.5;
  EXPECT_FALSE(common_box_size(stretched).has_value());
  EXPECT_FALSE(common_box_shape(stretched).has_value());
  EXPECT_FALSE(common_box_shape(Level{}).has_value());
}

TEST(Mesh, BadInputIsRejectedWithMessage)
{
  BoxDescription degenerate;
  degenerate.upper = {{1., 0., 1.}};
  try
    {
      make_box_hierarchy(degenerate, 1);
      FAIL() << "degenerate box accepted";
    }
  catch (const Error &e)
    {
      EXPECT_NE(std::string(e.what()).find("degenerate box along axis 1"), std::string::npos) << e.what();
    }
  try
    {
      make_box_hierarchy(BoxDescription{}, -1);
      FAIL() << "negative refinement count accepted";
    }
  catch (const Error &e)
    {
      EXPECT_NE(std::string(e.what()).find("-1"), std::string::npos) << e.what();
    }
  BoxDescription no_cells;
  no_cells.subdivisions = {{1, 0, 1}};
  EXPECT_THROW(make_box_hierarchy(no_cells, 0), Error);
}
