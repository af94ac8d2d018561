// The fast entry point: cellwise::dealii::MultigridPoissonSolver, set up from
// the DoFHandler, runs the cell-wise V-cycle and FP64 CG itself on deal.II
// vectors and reports to deal.II's ReductionControl; its solution of the
// Poisson problem of poisson_problem.h equals that of deal.II's own MatrixFree
// GMG to 1e-9 relative, with the Chebyshev and the DSS-Jacobi smoother.
// An iteration limit makes it throw deal.II's SolverControl::NoConvergence.

#include <cellwise/dealii/solver.h>

#include "poisson_problem.h"

#include <fstream>
#include <string>

namespace
{
  std::string
  yes_no(const bool condition)
  {
    return condition ? "yes" : "NO";
  }
} // namespace

int
main(int argc, char **argv)
{
  dealii::Utilities::MPI::MPI_InitFinalize mpi(argc, argv, 1);
  std::ofstream                            out("output");

  const test::PoissonProblem problem;
  out << "FE_Q(" << test::degree << "), " << problem.dof_handler.n_dofs() << " DoFs" << std::endl;

  test::Vector       reference = problem.new_vector();
  const unsigned int n_dealii  = problem.solve_with_dealii_gmg(reference, 1e-13);
  out << "deal.II MatrixFree GMG: " << n_dealii << " CG iterations" << std::endl;

  for (const auto smoother : {cellwise::SmootherType::chebyshev, cellwise::SmootherType::jacobi})
    {
      cellwise::MultigridParameters parameters;
      parameters.smoother = smoother;
      const cellwise::dealii::MultigridPoissonSolver solver(problem.dof_handler, parameters);

      // The monitored value is the cycle's η, so the tolerance is a reduction.
      dealii::ReductionControl control(100, 1e-300, 1e-12);
      test::Vector             solution = problem.new_vector();
      solver.solve(solution, problem.rhs, control);
      out << "cellwise " << cellwise::to_string(smoother) << ": " << control.last_step()
          << " CG iterations, solution equal to 1e-9: "
          << yes_no(test::relative_difference(solution, reference) <= 1e-9) << std::endl;
    }

  {
    const cellwise::dealii::MultigridPoissonSolver solver(problem.dof_handler);
    dealii::SolverControl                          control(2, 1e-300);
    test::Vector                                   solution = problem.new_vector();
    try
      {
        solver.solve(solution, problem.rhs, control);
        out << "iteration limit: no exception" << std::endl;
      }
    catch (const dealii::SolverControl::NoConvergence &e)
      {
        out << "iteration limit: SolverControl::NoConvergence after " << e.last_step << " steps" << std::endl;
      }
  }
  return 0;
}
