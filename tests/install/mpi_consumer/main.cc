// Uses the installed cellwise::mpi: partitions a refined box over the ranks
// of MPI_COMM_WORLD, runs the distributed DSS and compares the owned cells
// with the serial DSS. Exit 0 when they agree.

#include <cellwise/mesh/box_builder.h>
#include <cellwise/mesh/partition.h>
#include <cellwise/storage/dss.h>
#include <cellwise/storage/mpi_distributed_dss.h>

#include <mpi.h>

#include <iostream>

int
main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int status = 0;
  try
    {
      using namespace cellwise;
      const int            rank = mpi_rank(MPI_COMM_WORLD), size = mpi_size(MPI_COMM_WORLD);
      const LevelHierarchy h     = make_box_hierarchy(BoxDescription{}, 2);
      const auto           owner = morton_partition(h, size);
      const LocalLevel     local = make_local_level(h.level(2), owner[2], rank);
      const DistributedDss dss(local, MPI_COMM_WORLD, lagrange_trace_layers(2));

      CellVector<double> serial(h.level(2).n_cells(), 2), distributed(local.level.n_cells(), 2);
      for (unsigned int c = 0; c < serial.n_cells(); ++c)
        for (unsigned int i = 0; i < serial.dofs_per_cell(); ++i)
          serial(c, i) = 1. + c + 0.01 * i;
      for (unsigned int k = 0; k < local.level.n_cells(); ++k)
        for (unsigned int i = 0; i < serial.dofs_per_cell(); ++i)
          distributed(k, i) = serial(local.serial_index[k], i);
      apply_dss(h.level(2), serial, DssMode::sum);
      dss.apply(distributed, DssMode::sum);
      for (unsigned int k = 0; k < local.n_owned_cells(); ++k)
        for (unsigned int i = 0; i < serial.dofs_per_cell(); ++i)
          if (distributed(k, i) != serial(local.serial_index[k], i))
            status = 1;
      std::cout << "rank " << rank << " of " << size << ": distributed DSS " << (status ? "differs from" : "equals")
                << " the serial DSS on " << local.n_owned_cells() << " owned cells" << std::endl;
    }
  catch (const std::exception &e)
    {
      std::cerr << "error: " << e.what() << std::endl;
      status = 1;
    }
  MPI_Finalize();
  return status;
}
