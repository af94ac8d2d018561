// A deal.II program built against the installed cellwise::dealii: the
// Poisson problem -Δu = 1 with u = 0 on the boundary of the unit cube, FE_Q(2)
// on a mesh refined three times, solved by the cell-wise multigrid through
// its deal.II front door with deal.II's vectors and ReductionControl.
#include <cellwise/dealii/multigrid_preconditioner.h>

#include <deal.II/base/mpi.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/grid/tria.h>
#include <deal.II/lac/la_parallel_vector.h>
#include <deal.II/lac/solver_control.h>

#include <cmath>
#include <iostream>

int
main(int argc, char **argv)
{
  using namespace dealii;
  namespace cw = cellwise; // not "using namespace cellwise": see the README
  Utilities::MPI::MPI_InitFinalize mpi(argc, argv, 1);

  Triangulation<3> triangulation(Triangulation<3>::limit_level_difference_at_vertices);
  GridGenerator::hyper_cube(triangulation);
  triangulation.refine_global(3);
  const FE_Q<3> fe(2);
  DoFHandler<3> dof_handler(triangulation);
  dof_handler.distribute_dofs(fe);

  const cw::dealii::MultigridPreconditioner solver(dof_handler);
  LinearAlgebra::distributed::Vector<double> rhs(dof_handler.n_dofs()), solution(dof_handler.n_dofs());
  solver.assemble_right_hand_side(Functions::ConstantFunction<3>(1.), rhs); // f = 1
  ReductionControl control(50, 1e-300, 1e-10);
  solver.solve(solution, rhs, control);

  std::cout << "dealii_consumer: " << dof_handler.n_dofs() << " DoFs, " << control.last_step()
            << " CG iterations, max u = " << solution.linfty_norm() << std::endl;
  // the maximum of the exact solution, at the centre: 0.05621
  const bool ok = control.last_step() <= 20 && std::abs(solution.linfty_norm() - 0.05621) < 1e-3;
  if (!ok)
    std::cerr << "dealii_consumer: FAILED" << std::endl;
  return ok ? 0 : 1;
}
