// The Morton partition of level hierarchies over MPI ranks and a rank's
// local level (mesh/partition.h): balance, the Morton blocks, the owner of
// refined cells, the ghosts, and the refusals. No MPI needed: the partition
// is computed alike on every rank.

#include <cellwise/mesh/adaptive_builder.h>
#include <cellwise/mesh/box_builder.h>
#include <cellwise/mesh/partition.h>
#include <cellwise/mesh/partitioned_hierarchy.h>
#include <cellwise/mesh/unstructured_builder.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>

using namespace cellwise;

namespace
{
  BoxDescription
  unequal_box()
  {
    BoxDescription box;
    box.upper        = {{3., 2., 2.}};
    box.subdivisions = {{3, 2, 2}};
    return box;
  }

  /// Active cells per rank over all levels.
  std::vector<unsigned int>
  active_cells_per_rank(const LevelHierarchy &h, const std::vector<std::vector<int>> &owner, const int n_ranks)
  {
    std::vector<unsigned int> count(n_ranks, 0);
    for (unsigned int l = 0; l < h.n_levels(); ++l)
      for (unsigned int c = 0; c < h.level(l).n_cells(); ++c)
        if (h.level(l).is_active(c))
          ++count.at(owner[l][c]);
    return count;
  }
} // namespace

TEST(Partition, ActiveCellsAreSharedEvenlyAndRefinedCellsFollowTheirFirstChild)
{
  for (const bool adaptive : {false, true})
    {
      const BoxDescription box = unequal_box();
      const LevelHierarchy h   = adaptive ? make_adaptive_box_hierarchy(box, 1, 2, make_octant_marker(box))
                                          : make_box_hierarchy(box, 2);
      for (const int n_ranks : {1, 2, 3, 5, 7})
        {
          const auto owner = morton_partition(h, n_ranks);
          const auto count = active_cells_per_rank(h, owner, n_ranks);
          const auto [least, most] = std::minmax_element(count.begin(), count.end());
          // even cuts moved to family boundaries: within a family of 8
          EXPECT_LE(*most - *least, 8u) << n_ranks << " ranks, adaptive " << adaptive;
          // no family of sibling leaves is split (p4est's partition for
          // coarsening, deal.II's)
          for (unsigned int l = 1; l < h.n_levels(); ++l)
            for (unsigned int c = 0; c < h.level(l - 1).n_cells(); ++c)
              if (h.level(l - 1).is_refined(c))
                {
                  const auto &children = h.level(l - 1).children[c];
                  bool        leaves   = true;
                  for (const int child : children)
                    leaves = leaves && h.level(l).is_active(child);
                  if (leaves)
                    for (const int child : children)
                      EXPECT_EQ(owner[l][child], owner[l][children[0]]) << "a family split, level " << l;
                }
          for (unsigned int l = 0; l + 1 < h.n_levels(); ++l)
            for (unsigned int c = 0; c < h.level(l).n_cells(); ++c)
              if (h.level(l).is_refined(c))
                EXPECT_EQ(owner[l][c], owner[l + 1][h.level(l).children[c][0]]) << "level " << l << " cell " << c;
        }
    }
}

TEST(Partition, EightRanksOnTwiceRefinedCubeOwnTheMortonBlocks)
{
  // 64 active cells, 8 ranks: rank r owns exactly the children of child r of
  // the coarse cell, as p4est's Morton order gives (not a lexicographic slab).
  const LevelHierarchy h     = make_box_hierarchy(BoxDescription{}, 2);
  const auto           owner = morton_partition(h, 8);
  const Level         &fine = h.level(2), &middle = h.level(1);
  for (unsigned int c = 0; c < fine.n_cells(); ++c)
    EXPECT_EQ(owner[2][c], int(middle.child_slot[fine.parent[c]])) << "cell " << c;
  EXPECT_EQ(owner[0][0], 0);
}

TEST(Partition, ContiguousPiecesFollowTheCoarseCells)
{
  // 12 coarse cells refined once, 3 ranks: each rank owns the children of
  // four whole coarse cells, in the coarse cells' order.
  const LevelHierarchy h     = make_box_hierarchy(unequal_box(), 1);
  const auto           owner = morton_partition(h, 3);
  for (unsigned int c = 0; c < h.level(1).n_cells(); ++c)
    EXPECT_EQ(owner[1][c], int(h.level(1).parent[c]) / 4) << "cell " << c;
}

TEST(Partition, LocalLevelHoldsOwnedCellsThenTheirGhosts)
{
  const BoxDescription box = unequal_box();
  const LevelHierarchy h   = make_adaptive_box_hierarchy(box, 1, 2, make_octant_marker(box));
  const int            n_ranks = 3;
  const auto           owner   = morton_partition(h, n_ranks);
  for (unsigned int l = 0; l < h.n_levels(); ++l)
    {
      const Level &serial = h.level(l);
      unsigned int n_owned_total = 0;
      for (int rank = 0; rank < n_ranks; ++rank)
        {
          const LocalLevel local = make_local_level(serial, owner[l], rank);
          const Level     &level = local.level;
          n_owned_total += local.n_owned_cells();
          for (unsigned int k = 0; k < level.n_cells(); ++k)
            {
              const unsigned int c     = local.serial_index[k];
              const bool         owned = k < local.n_owned_cells();
              EXPECT_EQ(local.owner[k] == rank, owned);
              EXPECT_EQ(bool(level.flags[k] & cell_flags::ghost), !owned);
              EXPECT_EQ(level.coordinates[k], serial.coordinates[c]);
              if (k > 0 && (k < local.n_owned_cells()) == (k - 1 < local.n_owned_cells()))
                EXPECT_LT(local.serial_index[k - 1], c) << "serial order within owned and ghost cells";
              for (unsigned int face = 0; face < 6; ++face)
                {
                  const int theirs = serial.neighbors[c][face], mine = level.neighbors[k][face];
                  if (!face_neighbor::is_cell(theirs))
                    EXPECT_EQ(mine, theirs);
                  else if (owned)
                    {
                      ASSERT_TRUE(face_neighbor::is_cell(mine)) << "an owned cell's neighbour is local";
                      EXPECT_EQ(local.serial_index[mine], unsigned(theirs));
                    }
                  else if (face_neighbor::is_cell(mine))
                    EXPECT_EQ(local.serial_index[mine], unsigned(theirs));
                  else
                    EXPECT_EQ(mine, face_neighbor::none);
                }
            }
          // every ghost touches an owned cell
          for (unsigned int k = local.n_owned_cells(); k < level.n_cells(); ++k)
            {
              bool touches = false;
              for (unsigned int face = 0; face < 6; ++face)
                touches |= face_neighbor::is_cell(level.neighbors[k][face]) &&
                           unsigned(level.neighbors[k][face]) < local.n_owned_cells();
              EXPECT_TRUE(touches) << "ghost " << k;
            }
        }
      EXPECT_EQ(n_owned_total, serial.n_cells()) << "level " << l;
    }
}

TEST(Partition, VertexGhostLayerHoldsEveryCellSharingAVertexWithAnOwnedOne)
{
  // on a uniform box the vertex halo is, by coordinates, the cells within
  // one cell of an owned cell along every axis; its face ghosts are those
  // of the face layer
  const LevelHierarchy h       = make_box_hierarchy(unequal_box(), 2);
  const int            n_ranks = 5;
  const auto           owner   = morton_partition(h, n_ranks);
  const Level         &serial  = h.levels.back();
  for (int rank = 0; rank < n_ranks; ++rank)
    {
      const LocalLevel faces    = make_local_level(serial, owner.back(), rank);
      const LocalLevel vertices = make_local_level(serial, owner.back(), rank, GhostLayer::vertices);
      EXPECT_EQ(vertices.ghost_layer, GhostLayer::vertices);
      EXPECT_EQ(vertices.n_owned_cells(), faces.n_owned_cells());
      std::vector<unsigned int> expected;
      for (unsigned int c = 0; c < serial.n_cells(); ++c)
        {
          if (owner.back()[c] == rank)
            continue;
          bool near = false;
          for (unsigned int k = 0; k < faces.n_owned_cells() && !near; ++k)
            {
              const auto &a = serial.coordinates[faces.serial_index[k]], &b = serial.coordinates[c];
              near = std::abs(a[0] - b[0]) <= 1 && std::abs(a[1] - b[1]) <= 1 && std::abs(a[2] - b[2]) <= 1;
            }
          if (near)
            expected.push_back(c);
        }
      const std::vector<unsigned int> ghosts(vertices.serial_index.begin() + vertices.n_owned_cells(), vertices.serial_index.end());
      EXPECT_EQ(ghosts, expected) << "rank " << rank;
      EXPECT_GT(ghosts.size(), faces.level.n_cells() - faces.n_owned_cells()) << "edge and corner neighbours join";
      for (unsigned int k = vertices.n_owned_cells(); k < vertices.level.n_cells(); ++k)
        EXPECT_TRUE(vertices.level.flags[k] & cell_flags::ghost);
    }
}

TEST(Partition, FamilyGhostsMakeEveryFamilyARankTransfersWhole)
{
  // the device transfers across ranks run the serial kernels on whole local
  // families: every owned cell's parent and siblings, and every owned
  // refined cell's children, must be local with the family ghosts; a
  // five-cell row refined twice, whose cuts split families
  BoxDescription row;
  row.upper        = {{5., 1., 1.}};
  row.subdivisions = {{5, 1, 1}};
  const LevelHierarchy h = make_box_hierarchy(row, 2);
  std::size_t          family_cells = 0;
  for (const int n_ranks : {2, 3, 4, 7})
    {
      const auto owner = morton_partition(h, n_ranks);
      for (int rank = 0; rank < n_ranks; ++rank)
        {
          std::vector<std::vector<bool>> is_local(h.n_levels());
          for (unsigned int l = 0; l < h.n_levels(); ++l)
            {
              const std::vector<unsigned int> family = family_ghosts(h, owner, l, rank);
              EXPECT_TRUE(std::is_sorted(family.begin(), family.end()));
              const LocalLevel local = make_local_level(h.level(l), owner[l], rank, GhostLayer::faces, family);
              is_local[l].assign(h.level(l).n_cells(), false);
              for (const unsigned int c : local.serial_index)
                is_local[l][c] = true;
              for (const unsigned int c : family)
                {
                  EXPECT_NE(owner[l][c], rank) << "a family ghost owned here";
                  EXPECT_TRUE(is_local[l][c]);
                }
              family_cells += family.size();
              EXPECT_EQ(static_cast<long>(local.n_owned_cells()), std::count(owner[l].begin(), owner[l].end(), rank));
            }
          for (unsigned int l = 1; l < h.n_levels(); ++l)
            {
              const Level &parents = h.level(l - 1), &children = h.level(l);
              for (unsigned int c = 0; c < children.n_cells(); ++c)
                if (owner[l][c] == rank)
                  {
                    const int parent = children.parent[c];
                    ASSERT_GE(parent, 0);
                    EXPECT_TRUE(is_local[l - 1][parent]) << "level " << l << ", cell " << c << ", " << n_ranks << " ranks";
                    for (const int sibling : parents.children[parent])
                      EXPECT_TRUE(is_local[l][sibling]) << "level " << l << ", cell " << c << ", " << n_ranks << " ranks";
                  }
              for (unsigned int c = 0; c < parents.n_cells(); ++c)
                if (owner[l - 1][c] == rank && parents.is_refined(c))
                  for (const int child : parents.children[c])
                    EXPECT_TRUE(is_local[l][child]) << "level " << l - 1 << ", cell " << c << ", " << n_ranks << " ranks";
            }
        }
    }
  EXPECT_GT(family_cells, 0u) << "no partition cut a family: the test checks nothing";
  // an extra ghost outside the level is an error
  const auto owner = morton_partition(h, 2);
  EXPECT_THROW(make_local_level(h.level(0), owner[0], 0, GhostLayer::faces, {h.level(0).n_cells()}), Error);
}

TEST(Partition, RefusesMoreRanksThanActiveCellsAndUnstructuredMeshes)
{
  const LevelHierarchy h = make_box_hierarchy(unequal_box(), 0); // 12 cells
  EXPECT_NO_THROW(morton_partition(h, 12));
  EXPECT_THROW(morton_partition(h, 13), Error);
  EXPECT_THROW(morton_partition(h, 0), Error);
  const LevelHierarchy ball = make_unstructured_hierarchy(make_ball_coarse_mesh(), 1, 1);
  EXPECT_THROW(morton_partition(ball, 2), Error);
  const auto owner = morton_partition(h, 2);
  EXPECT_THROW(make_local_level(h.level(0), std::vector<int>(5, 0), 0), Error);
  EXPECT_THROW(make_local_level(ball.level(1), std::vector<int>(ball.level(1).n_cells(), 0), 0), Error);
  EXPECT_NO_THROW(make_local_level(h.level(0), owner[0], 1));
}
