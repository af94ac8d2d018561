// BoxPartition and make_local_box_level (mesh/box_partition.h): a rank's
// part of a uniform box hierarchy built without the hierarchy equals
// make_local_level of the serial level with morton_partition's owners —
// owners of every cell, and for every rank and ghost layer the same cells
// in the same order with the same boxes (bit for bit), coordinates, child
// slots, flags, neighbours and owners — on boxes with one and several
// coarse cells, unequal sizes, a left-out coarse cell (the L-shape) and a
// row whose cuts split families; the ranks without cells are refused alike.
// As a PartitionedHierarchy it answers every query (owners, parents,
// children, owned cells, family ghosts, local levels with them) as the
// ReplicatedHierarchy of the serial hierarchy does.

#include <cellwise/mesh/box_builder.h>
#include <cellwise/mesh/box_partition.h>
#include <cellwise/mesh/partition.h>
#include <cellwise/mesh/partitioned_hierarchy.h>

#include <gtest/gtest.h>

#include <cstring>
#include <string>

using namespace cellwise;

namespace
{
  std::vector<std::pair<std::string, BoxDescription>>
  boxes()
  {
    BoxDescription unequal;
    unequal.upper        = {{3., 2., 1.5}};
    unequal.subdivisions = {{3, 2, 2}};
    BoxDescription row;
    row.upper        = {{5., 1.2, 0.9}};
    row.subdivisions = {{5, 1, 1}};
    return {{"unit cube", BoxDescription()}, {"unequal box", unequal}, {"L-shape", make_lshape_description()}, {"row", row}};
  }

  /// The differences between two local levels, named (empty: equal).
  std::string
  compare(const LocalLevel &a, const LocalLevel &b)
  {
    if (a.serial_index != b.serial_index)
      return "cells";
    if (a.owner != b.owner)
      return "owners";
    if (a.level.n_owned_cells != b.level.n_owned_cells || a.ghost_layer != b.ghost_layer)
      return "owned count or ghost layer";
    for (unsigned int k = 0; k < a.level.n_cells(); ++k)
      {
        if (std::memcmp(&a.level.boxes[k], &b.level.boxes[k], sizeof(CellBox)) != 0)
          return "box of local cell " + std::to_string(k);
        if (a.level.coordinates[k] != b.level.coordinates[k] || a.level.child_slot[k] != b.level.child_slot[k] ||
            a.level.parent[k] != b.level.parent[k] || a.level.children[k] != b.level.children[k])
          return "coordinates or family of local cell " + std::to_string(k);
        if (a.level.flags[k] != b.level.flags[k])
          return "flags of local cell " + std::to_string(k);
        if (a.level.neighbors[k] != b.level.neighbors[k])
          return "neighbours of local cell " + std::to_string(k);
      }
    return {};
  }
} // namespace

TEST(BoxPartition, EqualsTheLocalLevelsOfTheSerialHierarchy)
{
  unsigned int compared = 0, refused = 0;
  for (const auto &[name, box] : boxes())
    for (const unsigned int n_refinements : {0u, 1u, 2u})
      for (const CellOrdering ordering : {CellOrdering::child_major, CellOrdering::cell_major})
      {
        const LevelHierarchy serial = make_box_hierarchy(box, static_cast<int>(n_refinements), ordering);
        for (const int n_ranks : {1, 2, 3, 4, 5, 7, 16, 40})
          {
            SCOPED_TRACE(name + ", L = " + std::to_string(n_refinements) +
                         (ordering == CellOrdering::child_major ? ", child-major, " : ", cell-major, ") +
                         std::to_string(n_ranks) + " ranks");
            std::vector<std::vector<int>> owner;
            std::string                   serial_refusal, refusal;
            try
              {
                owner = morton_partition(serial, n_ranks);
              }
            catch (const Error &e)
              {
                serial_refusal = e.what();
              }
            try
              {
                const BoxPartition partition(box, n_refinements, n_ranks, ordering);
                ASSERT_TRUE(serial_refusal.empty()) << "morton_partition refuses, BoxPartition does not: " << serial_refusal;
                for (unsigned int l = 0; l <= n_refinements; ++l)
                  {
                    ASSERT_EQ(partition.n_cells(l), serial.level(l).n_cells());
                    for (unsigned int c = 0; c < serial.level(l).n_cells(); ++c)
                      {
                        ASSERT_EQ(partition.owner(l, c), owner[l][c]) << "cell " << c << " of level " << l;
                        ASSERT_EQ(partition.serial_index(l, partition.forest_index(l, c)), c);
                      }
                    for (int rank = 0; rank < n_ranks; ++rank)
                      for (const GhostLayer layer : {GhostLayer::faces, GhostLayer::vertices})
                        {
                          const std::string difference = compare(make_local_box_level(partition, l, rank, layer),
                                                                 make_local_level(serial.level(l), owner[l], rank, layer));
                          EXPECT_TRUE(difference.empty())
                            << "level " << l << ", rank " << rank << (layer == GhostLayer::faces ? ", faces: " : ", vertices: ")
                            << difference;
                          ++compared;
                        }
                  }
              }
            catch (const Error &e)
              {
                refusal = e.what();
                EXPECT_FALSE(serial_refusal.empty()) << "BoxPartition refuses, morton_partition does not: " << refusal;
                // the same message, but for the file and line at its end
                EXPECT_EQ(refusal.substr(0, refusal.rfind(" [")), serial_refusal.substr(0, serial_refusal.rfind(" [")));
                ++refused;
              }
          }
      }
  EXPECT_GT(compared, 1000u);
  EXPECT_GT(refused, 0u) << "no case without cells for a rank: the refusal is not compared";
}

TEST(BoxPartition, AnswersAsTheReplicatedHierarchy)
{
  unsigned int family_cells = 0;
  for (const auto &[name, box] : boxes())
    for (const unsigned int n_refinements : {1u, 2u})
      for (const CellOrdering ordering : {CellOrdering::child_major, CellOrdering::cell_major})
        for (const int n_ranks : {1, 2, 3, 5})
          {
            SCOPED_TRACE(name + ", L = " + std::to_string(n_refinements) +
                         (ordering == CellOrdering::child_major ? ", child-major, " : ", cell-major, ") +
                         std::to_string(n_ranks) + " ranks");
            const LevelHierarchy          serial = make_box_hierarchy(box, static_cast<int>(n_refinements), ordering);
            std::vector<std::vector<int>> owner;
            try
              {
                owner = morton_partition(serial, n_ranks);
              }
            catch (const Error &)
              {
                continue; // a rank without cells: the refusals are compared above
              }
            const ReplicatedHierarchy           replicated(serial, owner, n_ranks);
            const BoxPartition                  partition(box, n_refinements, n_ranks, ordering);
            const PartitionedHierarchy         &a = partition, &b = replicated;
            ASSERT_EQ(a.n_levels(), b.n_levels());
            ASSERT_EQ(a.n_ranks(), b.n_ranks());
            ASSERT_EQ(a.coarse_subdivisions(), b.coarse_subdivisions());
            ASSERT_EQ(a.coarse_level().n_cells(), b.coarse_level().n_cells());
            EXPECT_EQ(a.serial(), nullptr);
            EXPECT_EQ(b.serial(), &serial);
            for (unsigned int l = 0; l < a.n_levels(); ++l)
              {
                for (std::uint64_t c = 0; c < a.n_cells(l); ++c)
                  {
                    ASSERT_EQ(a.parent(l, c), b.parent(l, c)) << "cell " << c << " of level " << l;
                    ASSERT_EQ(a.is_refined(l, c), b.is_refined(l, c)) << "cell " << c << " of level " << l;
                    if (a.is_refined(l, c))
                      ASSERT_EQ(a.children(l, c), b.children(l, c)) << "cell " << c << " of level " << l;
                  }
                for (int rank = 0; rank < n_ranks; ++rank)
                  {
                    ASSERT_EQ(a.owned_cells(l, rank), b.owned_cells(l, rank));
                    // the box's own answer (forest ranges) and the generic one
                    const std::vector<unsigned int> family = a.family_ghosts(l, rank);
                    ASSERT_EQ(family, family_ghosts(b, l, rank)) << "level " << l << ", rank " << rank;
                    ASSERT_EQ(family, family_ghosts(a, l, rank)) << "level " << l << ", rank " << rank;
                    family_cells += static_cast<unsigned int>(family.size());
                    const LocalLevel local = a.local_level(l, rank, GhostLayer::faces, family);
                    EXPECT_EQ(compare(local, b.local_level(l, rank, GhostLayer::faces, family)), "")
                      << "level " << l << ", rank " << rank;
                    // local_index_of finds every local cell, owned ones also when only those are asked for
                    for (unsigned int k = 0; k < local.level.n_cells(); ++k)
                      {
                        ASSERT_EQ(local_index_of(local, local.serial_index[k]), long(k));
                        ASSERT_EQ(local_index_of(local, local.serial_index[k], true), k < local.n_owned_cells() ? long(k) : -1L);
                      }
                  }
              }
          }
  EXPECT_GT(family_cells, 0u) << "no cut splits a family: the family ghosts are not compared";
}
