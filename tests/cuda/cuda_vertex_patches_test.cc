// The device search of the vertex patches against the host's
// make_vertex_patches: the same lists in the same order, entry for entry, on
// uniform boxes in both orderings (one with a cell count that leaves the last
// thread block partial), the L-shape, and on the levels of locally refined meshes (patches
// only where all eight cells exist). A corrupted neighbour table is named, and
// the levels it does not take are refused with a message.

#include <cellwise/base/cuda_check.h>
#include <cellwise/mesh/adaptive_builder.h>
#include <cellwise/mesh/box_builder.h>
#include <cellwise/mesh/cuda_vertex_patches.h>
#include <cellwise/mesh/unstructured_builder.h>
#include <cellwise/mesh/vertex_patches.h>

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "cuda/cuda_test_utilities.h"
#include "test_utilities.h"

using namespace cellwise;
using namespace cellwise::testing;

namespace
{
  void
  expect_same_patches(const Level &level, const std::string &name)
  {
    SCOPED_TRACE(name);
    const VertexPatches          host   = make_vertex_patches(level);
    const cuda::VertexPatchLists device = cuda::find_vertex_patches(level);
    unsigned int                 total  = 0;
    for (unsigned int colour = 0; colour < VertexPatches::n_colours; ++colour)
      {
        ASSERT_EQ(device.n_patches(colour), host.n_patches(colour)) << "colour " << colour;
        std::vector<unsigned int> cells(8 * std::size_t(device.n_patches(colour)));
        if (!cells.empty())
          cuda::copy_device_to_host(cells.data(), device.cells(colour), cells.size() * sizeof(unsigned int));
        for (unsigned int k = 0; k < host.n_patches(colour); ++k)
          for (unsigned int c = 0; c < 8; ++c)
            ASSERT_EQ(cells[8 * std::size_t(k) + c], host.cells[colour][k][c]) << "colour " << colour << ", patch " << k << ", lane " << c;
        total += host.n_patches(colour);
      }
    EXPECT_GT(total, 0u) << "a mesh without patches checks nothing";
  }
} // namespace

TEST(CudaVertexPatches, device_search_matches_host)
{
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  for (const CellOrdering ordering : {CellOrdering::child_major, CellOrdering::cell_major})
    {
      BoxDescription box;
      box.upper        = {{1., 0.7, 2.2}};
      box.subdivisions = {{5, 3, 7}};
      const LevelHierarchy h = make_box_hierarchy(box, 2, ordering);
      for (unsigned int l = 0; l < h.n_levels(); ++l)
        expect_same_patches(h.level(l), "box level " + std::to_string(l) + (ordering == CellOrdering::child_major ? ", child-major" : ", cell-major"));
    }
  const LevelHierarchy lshape = make_box_hierarchy(make_lshape_description(), 2);
  expect_same_patches(lshape.level(2), "L-shape level 2");
  BoxDescription       cube;
  const LevelHierarchy adaptive = make_adaptive_box_hierarchy(cube, 2, 2, make_marker("ball", cube));
  for (unsigned int l = 1; l < adaptive.n_levels(); ++l)
    expect_same_patches(adaptive.level(l), "adaptive level " + std::to_string(l));
}

TEST(CudaVertexPatches, names_a_corrupt_neighbour_table_and_refuses_other_levels)
{
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  BoxDescription box;
  box.subdivisions = {{3, 3, 3}};
  LevelHierarchy h = make_box_hierarchy(box, 1);
  Level         &fine = h.levels.back();
  // the x+ neighbour of cell 0 replaced by another cell that has its own x+
  // neighbour: the walk finds a patch whose lanes have the wrong coordinates
  unsigned int other = 0;
  for (unsigned int c = 1; c < fine.n_cells(); ++c)
    if (face_neighbor::is_cell(fine.neighbors[c][1]) && fine.neighbors[0][1] != int(c) &&
        fine.coordinates[c][1] != fine.coordinates[0][1])
      {
        other = c;
        break;
      }
  ASSERT_NE(other, 0u);
  fine.neighbors[0][1] = int(other);
  try
    {
      cuda::find_vertex_patches(fine);
      ADD_FAILURE() << "a corrupt neighbour table was accepted";
    }
  catch (const Error &e)
    {
      EXPECT_NE(std::string(e.what()).find("neighbour table and coordinates disagree"), std::string::npos) << e.what();
    }

  const LevelHierarchy ball = make_unstructured_hierarchy(make_ball_coarse_mesh(), 1, 1);
  EXPECT_FALSE(cuda::can_find_vertex_patches(ball.level(1)));
  EXPECT_THROW(cuda::find_vertex_patches(ball.level(1)), Error);
}
