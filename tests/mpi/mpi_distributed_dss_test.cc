// DSS across MPI ranks (storage/mpi_distributed_dss.h) against the serial
// DSS of the whole level: every rank builds the serial hierarchy, takes its
// part, and after the distributed DSS its owned cells hold exactly the
// serial result (bit for bit: every pair is summed from the same two values
// as in the serial cascade). Ghost cells start as NaN, so that a value the
// exchange fails to deliver shows. Bad partitions: every rank throws.

#include <cellwise/base/mpi_check.h>
#include <cellwise/mesh/adaptive_builder.h>
#include <cellwise/mesh/box_builder.h>
#include <cellwise/mesh/partition.h>
#include <cellwise/storage/dss.h>
#include <cellwise/storage/mpi_distributed_dss.h>

#include <gtest/gtest.h>

#include "mpi_test_utilities.h"
#include "test_utilities.h"

using namespace cellwise;
using namespace cellwise::testing;

namespace
{
  /// Distributed against serial DSS on every level of @p h, both modes.
  template <typename Number, typename Layout>
  void
  check_every_level(const LevelHierarchy &h, const unsigned int degree, const TraceLayers &layers, const char *what)
  {
    const int  rank = mpi_rank(MPI_COMM_WORLD), size = mpi_size(MPI_COMM_WORLD);
    const auto owner = morton_partition(h, size);
    for (unsigned int l = 0; l < h.n_levels(); ++l)
      {
        const Level         &serial_level = h.level(l);
        const LocalLevel     local        = make_local_level(serial_level, owner[l], rank);
        const DistributedDss dss(local, MPI_COMM_WORLD, layers);
        for (const DssMode mode : {DssMode::sum, DssMode::mean})
          {
            CellVector<Number, MemorySpace::Host, Layout> serial(serial_level.n_cells(), degree);
            fill_random(serial, 100 + l);
            CellVector<Number, MemorySpace::Host, Layout> distributed = local_part(local, serial);
            apply_dss(serial_level, serial, mode, layers);
            dss.apply(distributed, mode);
            EXPECT_EQ(owned_mismatches(local, distributed, serial), 0u)
              << what << ", degree " << degree << ", level " << l << " of " << h.n_levels() << ", mode "
              << (mode == DssMode::sum ? "sum" : "mean") << ", rank " << rank << " of " << size;
          }
        if (size == 1)
          EXPECT_EQ(dss.messages_per_apply(), 0u);
      }
  }
} // namespace

TEST(DistributedDss, EqualsTheSerialDssOnEveryLevelOfABox)
{
  const LevelHierarchy h = make_box_hierarchy(unequal_mpi_box(), 2);
  for (const unsigned int degree : {1u, 2u, 3u})
    check_every_level<double, CellContiguous>(h, degree, lagrange_trace_layers(degree), "box");
  check_every_level<float, CellBlocked<32>>(h, 2, lagrange_trace_layers(2), "box, float, blocked");
}

TEST(DistributedDss, EqualsTheSerialDssOnLocallyRefinedLevels)
{
  const BoxDescription box = unequal_mpi_box();
  for (const char *marker : {"octant", "ball"})
    {
      const LevelHierarchy h = make_adaptive_box_hierarchy(box, 1, 2, make_marker(marker, box));
      for (const unsigned int degree : {1u, 3u})
        check_every_level<double, CellContiguous>(h, degree, lagrange_trace_layers(degree), marker);
    }
}

TEST(DistributedDss, EqualsTheSerialDssOfBothHermiteLayers)
{
  const BoxDescription box = unequal_mpi_box();
  check_every_level<double, CellContiguous>(make_box_hierarchy(box, 1), 3, hermite_trace_layers(), "Hermite box");
  check_every_level<double, CellContiguous>(make_adaptive_box_hierarchy(box, 1, 1, make_octant_marker(box)), 3,
                                            hermite_trace_layers(), "Hermite octant");
}

TEST(DistributedDss, SendsOnlyAcrossRankBoundaries)
{
  // A column of 1 × 1 × 8 coarse cells refined once cut into slabs along z:
  // each interior rank boundary is one layer of 2 × 2 faces, sent both ways,
  // only in the z pass.
  BoxDescription box;
  box.upper        = {{1., 1., 8.}};
  box.subdivisions = {{1, 1, 8}};
  const LevelHierarchy h    = make_box_hierarchy(box, 1);
  const int            rank = mpi_rank(MPI_COMM_WORLD), size = mpi_size(MPI_COMM_WORLD);
  if (8 % size != 0)
    GTEST_SKIP() << "needs a rank count dividing 8 coarse cells (" << size << " ranks)";
  const auto           owner = morton_partition(h, size);
  const LocalLevel     local = make_local_level(h.level(1), owner[1], rank);
  const DistributedDss dss(local, MPI_COMM_WORLD, lagrange_trace_layers(2));
  const std::size_t    neighbours = (rank > 0) + (rank + 1 < size);
  EXPECT_EQ(dss.messages_per_apply(), neighbours);
  EXPECT_EQ(dss.values_sent_per_apply(), neighbours * 4 * 9);
  EXPECT_EQ(local.level.n_cells() - local.n_owned_cells(), neighbours * 4);
}

TEST(DistributedDss, DisagreeingPartitionsAreAnErrorOnEveryRank)
{
  const int size = mpi_size(MPI_COMM_WORLD), rank = mpi_rank(MPI_COMM_WORLD);
  if (size < 2)
    GTEST_SKIP() << "needs at least two ranks";
  const LevelHierarchy h     = make_box_hierarchy(unequal_mpi_box(), 1);
  auto                 owner = morton_partition(h, size)[1];
  const Level         &level = h.level(1);
  // rank 0 claims a cell of rank 1 next to one of its own: rank 1 sends that
  // cell's face layers, which rank 0 does not expect
  if (rank == 0)
    {
      bool claimed = false;
      for (unsigned int c = 0; c < level.n_cells() && !claimed; ++c)
        for (unsigned int face = 0; face < 6 && !claimed; ++face)
          {
            const int other = level.neighbors[c][face];
            if (owner[c] == 0 && face_neighbor::is_cell(other) && owner[other] == 1)
              {
                owner[other] = 0;
                claimed      = true;
              }
          }
      EXPECT_TRUE(claimed);
    }
  const LocalLevel local = make_local_level(level, owner, rank);
  EXPECT_THROW(DistributedDss(local, MPI_COMM_WORLD, lagrange_trace_layers(2)), Error);

  // the last rank names an owner that does not exist for a ghost of its own
  auto bad = morton_partition(h, size)[1];
  if (rank == size - 1)
    {
      bool renamed = false;
      for (unsigned int c = 0; c < level.n_cells() && !renamed; ++c)
        for (unsigned int face = 0; face < 6 && !renamed; ++face)
          {
            const int other = level.neighbors[c][face];
            if (bad[c] == size - 1 && face_neighbor::is_cell(other) && bad[other] == size - 1)
              {
                bad[c]  = size;
                renamed = true;
              }
          }
      EXPECT_TRUE(renamed);
    }
  const LocalLevel bad_local = make_local_level(level, bad, rank);
  EXPECT_THROW(DistributedDss(bad_local, MPI_COMM_WORLD, lagrange_trace_layers(2)), Error);
}

TEST(DistributedDss, RefusesAVectorOfAnotherLevel)
{
  const int            rank = mpi_rank(MPI_COMM_WORLD), size = mpi_size(MPI_COMM_WORLD);
  const LevelHierarchy h    = make_box_hierarchy(unequal_mpi_box(), 1);
  const LocalLevel     local = make_local_level(h.level(1), morton_partition(h, size)[1], rank);
  const DistributedDss dss(local, MPI_COMM_WORLD, lagrange_trace_layers(2));
  CellVector<double>   wrong_size(local.level.n_cells() + 1, 2), wrong_degree(local.level.n_cells(), 3);
  EXPECT_THROW(dss.apply(wrong_size), Error);
  EXPECT_THROW(dss.apply(wrong_degree), Error);
}
