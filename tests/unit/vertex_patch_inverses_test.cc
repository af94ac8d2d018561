// The vertex patches' order and their patch inverses (multigrid/
// vertex_patch_inverses.h), built in parallel: checked against what they must
// be (sorted colour lists, every patch's inverse of its own sizes, distinct
// inverses numbered in the order of first use) and for the same result on a
// partition of the loops that no OpenMP team would choose.

#include <cellwise/fe/matrices_1d.h>
#include <cellwise/mesh/box_builder.h>
#include <cellwise/mesh/vertex_patches.h>
#include <cellwise/multigrid/vertex_patch_inverses.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "test_utilities.h"

using namespace cellwise;
using namespace cellwise::testing;

namespace
{
  /// A 64^3-cell level (several chunks of the parallel sort and of the
  /// inverse search per colour) whose x grid lines are graded geometrically:
  /// the patches have 63 distinct x size pairs, the cells still form tensor
  /// grids.
  LevelHierarchy
  graded_level()
  {
    BoxDescription box;
    box.subdivisions = {{8, 8, 8}};
    LevelHierarchy h = make_box_hierarchy(box, 3, CellOrdering::child_major);
    Level         &fine = h.levels.back();
    std::vector<double> x(65, 0.);
    for (unsigned int i = 0; i < 64; ++i)
      x[i + 1] = x[i] + std::pow(1.03, double(i));
    for (unsigned int c = 0; c < fine.n_cells(); ++c)
      {
        const int i          = fine.coordinates[c][0];
        fine.boxes[c].lower[0] = x[i];
        fine.boxes[c].size[0]  = x[i + 1] - x[i];
      }
    return h;
  }
} // namespace

TEST(VertexPatchInverses, ColourListsAreSortedByTheirSmallestCell)
{
  const LevelHierarchy h       = graded_level();
  const VertexPatches  patches = make_vertex_patches(h.levels.back());
  EXPECT_EQ(patches.n_patches(), 63u * 63u * 63u);
  for (unsigned int colour = 0; colour < 8; ++colour)
    {
      ASSERT_GT(patches.n_patches(colour), 65536u / 8) << "the test needs several chunks per colour";
      unsigned int previous = 0;
      for (unsigned int k = 0; k < patches.n_patches(colour); ++k)
        {
          const auto        &patch    = patches.cells[colour][k];
          const unsigned int smallest = *std::min_element(patch.begin(), patch.end());
          if (k > 0)
            ASSERT_LT(previous, smallest) << "colour " << colour << " patch " << k;
          previous = smallest;
          const std::array<int, 3> &v = patches.vertices[colour][k];
          ASSERT_EQ(vertex_colour(v), colour);
          for (unsigned int d = 0; d < 3; ++d)
            ASSERT_EQ(h.levels.back().coordinates[patch[0]][d], v[d] - 1);
        }
    }
}

namespace
{
  /// Every patch's inverse is that of its own sizes, the distinct inverses
  /// differ and are numbered in the order of first use; @p n_distinct of them.
  void
  expect_inverses_of_their_patches(const Level &level, const unsigned int degree, const std::size_t n_distinct)
  {
    const VertexPatches       patches  = make_vertex_patches(level);
    const VertexPatchInverses inverses = make_vertex_patch_inverses(level, patches, make_matrices_1d(degree));
    EXPECT_EQ(inverses.distinct.size(), n_distinct);

    unsigned int next_new = 0; // first uses must come as 0, 1, 2, ...
    for (unsigned int colour = 0; colour < 8; ++colour)
      {
        ASSERT_EQ(inverses.index[colour].size(), patches.n_patches(colour));
        for (unsigned int k = 0; k < patches.n_patches(colour); ++k)
          {
            const unsigned int i = inverses.index[colour][k];
            ASSERT_LE(i, next_new) << "inverse " << i << " used before " << next_new;
            if (i == next_new)
              ++next_new;
            const auto       &patch = patches.cells[colour][k];
            const PatchSizes &sizes = inverses.distinct[i].sizes();
            ASSERT_EQ(inverses.distinct[i].degree(), degree);
            for (unsigned int d = 0; d < 3; ++d)
              for (unsigned int side = 0; side < 2; ++side)
                {
                  const double h_cell = level.boxes[patch[side << d]].size[d];
                  ASSERT_NEAR(sizes[d][side], h_cell, 1e-13 * h_cell) << "colour " << colour << " patch " << k;
                }
          }
      }
    EXPECT_EQ(next_new, inverses.distinct.size());
    for (std::size_t i = 0; i < inverses.distinct.size(); ++i)
      for (std::size_t j = 0; j < i; ++j)
        EXPECT_NE(inverses.distinct[i].sizes(), inverses.distinct[j].sizes()) << "inverses " << j << " and " << i;
  }
} // namespace

TEST(VertexPatchInverses, EveryPatchGetsTheInverseOfItsSizesInTheOrderOfFirstUse)
{
  // 63 distinct x size pairs: the general search
  expect_inverses_of_their_patches(graded_level().levels.back(), 3, 63);
  // one cell size (the uniform level's short cut), unequal sides
  BoxDescription box;
  box.upper        = {{1.3, 0.7, 2.}};
  box.subdivisions = {{3, 2, 5}};
  expect_inverses_of_their_patches(make_box_hierarchy(box, 3).levels.back(), 2, 1);
  // a single cell: no patch, no inverse
  expect_inverses_of_their_patches(make_box_hierarchy(BoxDescription(), 0).levels.back(), 3, 0);
}

TEST(VertexPatchInverses, SameResultOnAnyPartitionOfTheLoops)
{
  const LevelHierarchy      h          = graded_level();
  const Level              &level      = h.levels.back();
  const Matrices1D          matrices   = make_matrices_1d(2);
  const VertexPatches       patches    = make_vertex_patches(level);
  const VertexPatchInverses inverses   = make_vertex_patch_inverses(level, patches, matrices);
  auto                      serial     = std::make_shared<ReversedSerialExecutor>();
  VertexPatches             patches_r;
  VertexPatchInverses       inverses_r;
  {
    ScopedExecutor scope(serial);
    patches_r  = make_vertex_patches(level);
    inverses_r = make_vertex_patch_inverses(level, patches_r, matrices);
  }
  EXPECT_GT(serial->loops.load(), 0u);
  for (unsigned int colour = 0; colour < 8; ++colour)
    {
      EXPECT_TRUE(patches.cells[colour] == patches_r.cells[colour]) << "colour " << colour;
      EXPECT_TRUE(patches.vertices[colour] == patches_r.vertices[colour]) << "colour " << colour;
      EXPECT_TRUE(inverses.index[colour] == inverses_r.index[colour]) << "colour " << colour;
    }
  ASSERT_EQ(inverses.distinct.size(), inverses_r.distinct.size());
  for (std::size_t i = 0; i < inverses.distinct.size(); ++i)
    EXPECT_EQ(inverses.distinct[i].sizes(), inverses_r.distinct[i].sizes());
}

TEST(VertexPatchInverses, RefusesPatchesThatAreNoTensorGrid)
{
  LevelHierarchy h     = graded_level();
  Level         &level = h.levels.back();
  // one cell taller than its x-row: the patches around it are no tensor grid
  const unsigned int cell = 1000;
  level.boxes[cell].size[1] *= 1.5;
  const VertexPatches patches = make_vertex_patches(level);
  try
    {
      make_vertex_patch_inverses(level, patches, make_matrices_1d(3));
      FAIL() << "no error";
    }
  catch (const Error &e)
    {
      EXPECT_NE(std::string(e.what()).find("must form a tensor grid"), std::string::npos) << e.what();
    }
  EXPECT_THROW(check_cell_size(CellBox{{{0., 0., 0.}}, {{1., std::nan(""), 1.}}}, 7), Error);
  EXPECT_THROW(check_cell_size(CellBox{{{0., 0., 0.}}, {{1., 1., 0.}}}, 7), Error);
  EXPECT_NO_THROW(check_cell_size(CellBox{{{0., 0., 0.}}, {{1., 1., 1.}}}, 7));
}
