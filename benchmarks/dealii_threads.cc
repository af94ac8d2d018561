// Time of cellwise solves inside a deal.II program, with the core's loops on
// OpenMP (what the adapters did before threads.h) or on deal.II's threads
// (what import_dof_handler installs now). deal.II's own vector operations run
// on TBB between the cell-wise ones, as in any deal.II program. Run it on an
// idle machine and beside other work (e.g. two busy loops on two cores) to see
// the two thread pools compete. A table, not pass/fail.
//
//   cellwise-benchmark-dealii-threads [refinements = 3] [solves = 5]

#include <cellwise/dealii/multigrid_preconditioner.h>
#include <cellwise/dealii/threads.h>

#include <deal.II/base/function.h>
#include <deal.II/base/mpi.h>
#include <deal.II/base/multithread_info.h>
#include <deal.II/base/quadrature_lib.h>
#include <deal.II/base/timer.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/grid/tria.h>
#include <deal.II/lac/la_parallel_vector.h>
#include <deal.II/lac/solver_control.h>
#include <deal.II/numerics/vector_tools.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>

int
main(int argc, char **argv)
{
  dealii::Utilities::MPI::MPI_InitFinalize mpi(argc, argv, dealii::numbers::invalid_unsigned_int);
  const unsigned int refinements = argc > 1 ? std::stoul(argv[1]) : 3;
  const unsigned int n_solves    = argc > 2 ? std::max(1ul, std::stoul(argv[2])) : 5;

  dealii::Triangulation<3> triangulation(dealii::Triangulation<3>::limit_level_difference_at_vertices);
  dealii::GridGenerator::subdivided_hyper_rectangle(triangulation, {3, 2, 1}, dealii::Point<3>(0., 0., 0.),
                                                    dealii::Point<3>(1.5, 1., 0.8));
  triangulation.refine_global(refinements);
  const dealii::FE_Q<3>  fe(3);
  dealii::DoFHandler<3> dof_handler(triangulation);
  dof_handler.distribute_dofs(fe);
  dof_handler.distribute_mg_dofs();

  using Vector = dealii::LinearAlgebra::distributed::Vector<double>;
  Vector rhs(dof_handler.n_dofs()), solution(dof_handler.n_dofs());
  dealii::VectorTools::create_right_hand_side(dof_handler, dealii::QGauss<3>(4), dealii::Functions::ConstantFunction<3>(1.), rhs);

  const cellwise::dealii::MultigridPreconditioner solver(dof_handler);
  std::printf("FE_Q(3), %u DoFs, %u deal.II threads, %u solves per row\n\n", static_cast<unsigned int>(dof_handler.n_dofs()),
              dealii::MultithreadInfo::n_threads(), n_solves);
  std::printf("%-16s %6s %10s %10s %10s\n", "core loops on", "iter", "best[s]", "mean[s]", "worst[s]");
  for (const bool dealii_threads : {false, true})
    {
      cellwise::set_loop_executor(dealii_threads ? cellwise::dealii::dealii_loop_executor() : cellwise::openmp_loop_executor());
      double       best = 1e300, worst = 0, total = 0;
      unsigned int iterations = 0;
      for (unsigned int k = 0; k < n_solves; ++k)
        {
          dealii::ReductionControl control(100, 1e-300, 1e-10);
          solution = 0;
          dealii::Timer timer;
          solver.solve(solution, rhs, control);
          const double t = timer.wall_time();
          best           = std::min(best, t);
          worst          = std::max(worst, t);
          total += t;
          iterations = control.last_step();
        }
      std::printf("%-16s %6u %10.4f %10.4f %10.4f\n", cellwise::loop_executor().name(), iterations, best, total / n_solves, worst);
    }
  return 0;
}
