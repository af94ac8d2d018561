// BoxPartition and make_local_box_level (mesh/box_partition.h): a rank's
// part of a uniform box hierarchy built without the hierarchy equals
// make_local_level of the serial level with morton_partition's owners —
// owners of every cell, and for every rank and ghost layer the same cells
// in the same order with the same boxes (bit for bit), coordinates, child
// slots, flags, neighbours and owners — on boxes with one and several
// coarse cells, unequal sizes, coarse cells in p4est's tree order, a
// left-out coarse cell (the L-shape) and a row whose cuts split families;
// the ranks without cells are refused alike. With the finest level cut
// anywhere (as a partitioner may), the local levels and queries are those
// of the serial hierarchy with the owners of those cuts.
// As a PartitionedHierarchy it answers every query (owners, parents,
// children, owned cells, family ghosts, local levels with them) as the
// ReplicatedHierarchy of the serial hierarchy does.

#include <cellwise/mesh/box_builder.h>
#include <cellwise/mesh/box_partition.h>
#include <cellwise/mesh/partition.h>
#include <cellwise/mesh/partitioned_hierarchy.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>

using namespace cellwise;

namespace
{
  /// @p box (3 x 2 x 2 coarse cells) with its coarse cells in the order of
  /// the trees deal.II 9.4 hands p4est for subdivided_hyper_rectangle(3, 2, 2)
  /// (get_p4est_tree_to_coarse_cell_permutation: 0 1 3 4 6 7 9 10 2 5 8 11).
  BoxDescription
  in_tree_order(BoxDescription box)
  {
    for (const unsigned int c : {0u, 1u, 3u, 4u, 6u, 7u, 9u, 10u, 2u, 5u, 8u, 11u})
      box.tree_order.push_back({{c % 3, (c / 3) % 2, c / 6}});
    return box;
  }

  /// 3 x 2 x 2 coarse cells of unequal sizes.
  BoxDescription
  unequal_box()
  {
    BoxDescription unequal;
    unequal.upper        = {{3., 2., 1.5}};
    unequal.subdivisions = {{3, 2, 2}};
    return unequal;
  }

  /// A row of 5 coarse cells: cuts split families.
  BoxDescription
  row_box()
  {
    BoxDescription row;
    row.upper        = {{5., 1.2, 0.9}};
    row.subdivisions = {{5, 1, 1}};
    return row;
  }

  std::vector<std::pair<std::string, BoxDescription>>
  boxes()
  {
    return {{"unit cube", BoxDescription()},
            {"unequal box", unequal_box()},
            {"unequal box in p4est's tree order", in_tree_order(unequal_box())},
            {"L-shape", make_lshape_description()},
            {"row", row_box()}};
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

TEST(BoxPartition, TakesTheFinestCutsOfAPartitioner)
{
  unsigned int compared = 0;
  for (const auto &[name, box] : std::vector<std::pair<std::string, BoxDescription>>{
         {"unequal box in p4est's tree order", in_tree_order(unequal_box())},
         {"row", row_box()},
         {"L-shape", make_lshape_description()}})
    {
      const unsigned int   n_refinements = 2;
      const LevelHierarchy serial        = make_box_hierarchy(box, static_cast<int>(n_refinements));
      const std::uint64_t  n             = serial.levels.back().n_cells();
      // cuts that split families and coarse cells, and the even ones
      for (const std::vector<std::uint64_t> &cuts : std::vector<std::vector<std::uint64_t>>{
             {0, n}, {0, 1, n}, {0, 13, 70, 71, n - 9, n}, {0, n / 3 + 5, 2 * n / 3 - 3, n},
             // ranks without cells (first, in the middle, last)
             {0, 0, n}, {0, 13, 13, 70, n}, {0, n, n}})
        {
          SCOPED_TRACE(name + ", " + std::to_string(cuts.size() - 1) + " ranks, second cut " + std::to_string(cuts[1]));
          const BoxPartition partition(box, n_refinements, cuts);
          const int          n_ranks = static_cast<int>(cuts.size()) - 1;
          ASSERT_EQ(partition.n_ranks(), n_ranks);
          // the owners by the rule: the rank whose range holds the cell's
          // first descendant on the finest level
          std::vector<std::vector<int>> owner(serial.n_levels());
          for (unsigned int l = 0; l <= n_refinements; ++l)
            for (unsigned int c = 0; c < serial.level(l).n_cells(); ++c)
              {
                const std::uint64_t first = partition.forest_index(l, c) << (3 * (n_refinements - l));
                owner[l].push_back(int(std::upper_bound(cuts.begin(), cuts.end(), first) - cuts.begin()) - 1);
                ASSERT_EQ(partition.owner(l, c), owner[l][c]) << "cell " << c << " of level " << l;
              }
          const ReplicatedHierarchy replicated(serial, owner, n_ranks);
          for (unsigned int l = 0; l <= n_refinements; ++l)
            for (int rank = 0; rank < n_ranks; ++rank)
              {
                ASSERT_EQ(partition.owned_cells(l, rank), replicated.owned_cells(l, rank));
                const std::vector<unsigned int> family = partition.family_ghosts(l, rank);
                ASSERT_EQ(family, family_ghosts(replicated, l, rank)) << "level " << l << ", rank " << rank;
                for (const GhostLayer layer : {GhostLayer::faces, GhostLayer::vertices})
                  {
                    EXPECT_EQ(compare(partition.local_level(l, rank, layer, family), replicated.local_level(l, rank, layer, family)),
                              "")
                      << "level " << l << ", rank " << rank;
                    ++compared;
                  }
              }
        }
      // cuts that decrease or do not span the level
      for (const std::vector<std::uint64_t> &cuts :
           std::vector<std::vector<std::uint64_t>>{{0, 5, 4, n}, {1, n}, {0, n - 1}, {0}, {}})
        EXPECT_THROW(BoxPartition(box, n_refinements, cuts), Error);
    }
  EXPECT_GT(compared, 50u);
}

TEST(BoxPartition, RefusesACoarseOrderThatIsNotOneOfTheBoxsCells)
{
  BoxDescription box;
  box.subdivisions = {{2, 1, 1}};
  box.tree_order   = {{{1, 0, 0}}};
  EXPECT_THROW(make_coarse_box(box), Error); // a cell left unnamed
  box.tree_order = {{{1, 0, 0}}, {{1, 0, 0}}};
  EXPECT_THROW(make_coarse_box(box), Error); // named twice
  box.tree_order = {{{1, 0, 0}}, {{2, 0, 0}}};
  EXPECT_THROW(make_coarse_box(box), Error); // outside the box
  box.tree_order = {{{1, 0, 0}}, {{0, 0, 0}}};
  const LevelHierarchy h = make_coarse_box(box);
  EXPECT_EQ(h.level(0).coordinates[0], (std::array<int, 3>{{1, 0, 0}}));
  EXPECT_EQ(h.level(0).neighbors[0][0], 1); // the cell at x = 0 is cell 1 now
  box.removed = {{{0, 0, 0}}};
  EXPECT_THROW(make_coarse_box(box), Error); // names a left-out cell
}
