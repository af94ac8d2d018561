// The cell-wise transfers across MPI ranks
// (multigrid/mpi_distributed_cell_transfer.h) against the serial
// CellTransfer: on every level pair of a box and of locally refined
// hierarchies, the owned cells of the distributed prolongation and residual
// restriction equal the serial ones exactly. Ghost cells start as NaN.

#include <cellwise/base/mpi_check.h>
#include <cellwise/mesh/adaptive_builder.h>
#include <cellwise/mesh/box_builder.h>
#include <cellwise/mesh/partition.h>
#include <cellwise/multigrid/cell_transfer.h>
#include <cellwise/multigrid/mpi_distributed_cell_transfer.h>

#include <gtest/gtest.h>

#include "mpi_test_utilities.h"
#include "test_utilities.h"

using namespace cellwise;
using namespace cellwise::testing;

namespace
{
  template <typename Number, typename Layout>
  void
  check_every_level_pair(const LevelHierarchy &h, const unsigned int degree, const char *what)
  {
    using Vector   = CellVector<Number, MemorySpace::Host, Layout>;
    const int rank = mpi_rank(MPI_COMM_WORLD), size = mpi_size(MPI_COMM_WORLD);
    const auto owner = morton_partition(h, size);
    const CellTransfer<Number, Layout> serial(h, degree);
    std::vector<LocalLevel>            local;
    for (unsigned int l = 0; l < h.n_levels(); ++l)
      local.push_back(make_local_level(h.level(l), owner[l], rank));
    unsigned long travelled = 0, all_travelled = 0;
    for (unsigned int l = 1; l < h.n_levels(); ++l)
      {
        const DistributedCellTransfer<Number, Layout> transfer(h, owner, l, local[l - 1], local[l], MPI_COMM_WORLD, degree);
        Vector coarse(h.level(l - 1).n_cells(), degree), fine(h.level(l).n_cells(), degree), b(fine), au(fine);
        fill_random(coarse, 10 + l);
        fill_random(fine, 20 + l);
        fill_random(b, 30 + l);
        fill_random(au, 40 + l);
        Vector local_coarse = local_part(local[l - 1], coarse), local_fine = local_part(local[l], fine);
        const Vector local_b = local_part(local[l], b), local_au = local_part(local[l], au);

        serial.prolongate_add(l, fine, coarse);
        transfer.prolongate_add(local_fine, local_coarse);
        EXPECT_EQ(owned_mismatches(local[l], local_fine, fine), 0u)
          << what << ", degree " << degree << ", prolongation to level " << l << ", rank " << rank << " of " << size;

        serial.restrict_residual_add(l, coarse, b, au);
        transfer.restrict_residual_add(local_coarse, local_b, local_au);
        EXPECT_EQ(owned_mismatches(local[l - 1], local_coarse, coarse), 0u)
          << what << ", degree " << degree << ", restriction from level " << l << ", rank " << rank << " of " << size;
        // the meshes below cut families on some level pair for every
        // rank count > 1: count what travelled over all ranks
        unsigned long mine = transfer.cells_sent_per_prolongation() + transfer.cells_sent_per_restriction();
        CELLWISE_MPI_CHECK(MPI_Allreduce(&mine, &travelled, 1, MPI_UNSIGNED_LONG, MPI_SUM, MPI_COMM_WORLD));
        all_travelled += travelled;
        if (size == 1)
          EXPECT_EQ(mine, 0u);
      }
    if (size > 1)
      EXPECT_GT(all_travelled, 0u) << what << ": no family was cut, the test would not see the exchange";
  }

} // namespace

TEST(DistributedCellTransfer, EqualsTheSerialTransferOnEveryLevelOfABox)
{
  const LevelHierarchy h = make_box_hierarchy(family_cutting_mpi_row(), 2);
  for (const unsigned int degree : {1u, 2u, 4u})
    check_every_level_pair<double, CellContiguous>(h, degree, "box");
  check_every_level_pair<float, CellBlocked<32>>(h, 3, "box, float, blocked");
}

TEST(DistributedCellTransfer, EqualsTheSerialTransferOnLocallyRefinedHierarchies)
{
  const BoxDescription box = family_cutting_mpi_row();
  for (const char *marker : {"octant", "ball"})
    check_every_level_pair<double, CellContiguous>(make_adaptive_box_hierarchy(box, 1, 2, make_marker(marker, box)), 2,
                                                   marker);
}

TEST(DistributedCellTransfer, FamiliesCutByTheMortonOrderTravel)
{
  // One coarse cell refined once: 8 active cells, split 2 | 3 | 3 over 3
  // ranks by hand (p4est keeps a family of leaves whole, but splits
  // families of refined cells, whose children it distributes): the parent
  // lives on rank 0 with the first child; ranks 1 and 2 receive it and send
  // their children back.
  const int size = mpi_size(MPI_COMM_WORLD), rank = mpi_rank(MPI_COMM_WORLD);
  if (size != 3)
    GTEST_SKIP() << "needs 3 ranks (" << size << ")";
  const LevelHierarchy                h = make_box_hierarchy(BoxDescription{}, 1);
  const std::vector<std::vector<int>> owner{{0}, {0, 0, 1, 1, 1, 2, 2, 2}};
  const LocalLevel     coarse = make_local_level(h.level(0), owner[0], rank), fine = make_local_level(h.level(1), owner[1], rank);
  const DistributedCellTransfer<double> transfer(h, owner, 1, coarse, fine, MPI_COMM_WORLD, 2);
  EXPECT_EQ(transfer.cells_sent_per_prolongation(), rank == 0 ? 2u : 0u);
  EXPECT_EQ(transfer.cells_sent_per_restriction(), rank == 0 ? 0u : 3u);
}

TEST(DistributedCellTransfer, RefusesLevelsThatAreNotTheRanksParts)
{
  const int            size = mpi_size(MPI_COMM_WORLD), rank = mpi_rank(MPI_COMM_WORLD);
  const LevelHierarchy h     = make_box_hierarchy(BoxDescription{}, 2);
  const auto           owner = morton_partition(h, size);
  const LocalLevel     coarse = make_local_level(h.level(1), owner[1], rank), fine = make_local_level(h.level(2), owner[2], rank);
  // levels swapped: on every rank
  EXPECT_THROW((DistributedCellTransfer<double>(h, owner, 1, coarse, fine, MPI_COMM_WORLD, 2)), Error);
  // one rank's part taken for another's: an error on every rank
  if (size >= 2)
    {
      const LocalLevel other = make_local_level(h.level(2), owner[2], (rank + 1) % size);
      EXPECT_THROW((DistributedCellTransfer<double>(h, owner, 2, coarse, rank == 0 ? other : fine, MPI_COMM_WORLD, 2)),
                   Error);
    }
  const DistributedCellTransfer<double> transfer(h, owner, 2, coarse, fine, MPI_COMM_WORLD, 2);
  CellVector<double> wrong(fine.level.n_cells(), 3), coarse_vector(coarse.level.n_cells(), 2);
  EXPECT_THROW(transfer.prolongate_add(wrong, coarse_vector), Error);
}
