// The import of a parallel::distributed::Triangulation: on one rank it is
// imported like a serial mesh; on more ranks it is refused with a clear
// message pointing to the distributed entry point, on every rank.

#include <cellwise/dealii/import.h>

#include <deal.II/base/mpi.h>
#include <deal.II/distributed/tria.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/grid/grid_generator.h>

#include <fstream>
#include <string>

using namespace dealii;

int
main(int argc, char **argv)
{
  Utilities::MPI::MPI_InitFinalize mpi(argc, argv, 1);
  const unsigned int               rank = Utilities::MPI::this_mpi_process(MPI_COMM_WORLD);
  std::ofstream                    out;
  if (rank == 0)
    out.open("output");

  parallel::distributed::Triangulation<3> tria(MPI_COMM_WORLD,
                                               Triangulation<3>::limit_level_difference_at_vertices,
                                               parallel::distributed::Triangulation<3>::construct_multigrid_hierarchy);
  GridGenerator::subdivided_hyper_rectangle(tria, {2, 1, 1}, Point<3>(0., 0., 0.), Point<3>(2., 0.5, 1.), true);
  tria.refine_global(2);
  FE_Q<3>       fe(2);
  DoFHandler<3> dof_handler(tria);
  dof_handler.distribute_dofs(fe);
  dof_handler.distribute_mg_dofs();

  unsigned int refused = 0;
  std::string  message;
  try
    {
      const auto imported = cellwise::dealii::import_dof_handler(dof_handler);
      if (rank == 0)
        {
          out << "imported " << imported.hierarchy.n_levels() << " levels, " << imported.hierarchy.n_active_cells()
              << " active cells, boundary ids of cell 0 on level 0:";
          for (const int f : imported.hierarchy.level(0).neighbors[0])
            out << ' ' << (cellwise::face_neighbor::is_boundary(f) ? int(cellwise::face_neighbor::boundary_id(f)) : -1);
          out << std::endl;
        }
    }
  catch (const cellwise::Error &e)
    {
      refused = 1;
      message = e.what();
      message = message.substr(0, message.rfind(" ["));
    }
  const unsigned int n_refused = Utilities::MPI::sum(refused, MPI_COMM_WORLD);
  if (rank == 0)
    {
      out << Utilities::MPI::n_mpi_processes(MPI_COMM_WORLD) << " ranks, refused on " << n_refused << std::endl;
      if (refused)
        out << message << std::endl;
    }
  return 0;
}
