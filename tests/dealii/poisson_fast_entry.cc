// The fast entry point: cellwise::dealii::MultigridPoissonSolver, set up from
// the DoFHandler, runs the cell-wise V-cycle and FP64 CG itself on deal.II
// vectors and reports to deal.II's ReductionControl; its solution of the
// Poisson problem of poisson_problem.h equals that of deal.II's own MatrixFree
// GMG to 1e-9 relative, with the Chebyshev and the DSS-Jacobi smoother.
// An iteration limit makes it throw deal.II's SolverControl::NoConvergence.
// After the import the core's loops run on deal.II's threads (TBB), not
// OpenMP's.
// Refused with cellwise::Error (no silent wrong answer): a Dirichlet id that
// no face carries (a singular problem), the solution and the right-hand side
// being one vector, and a solve after the DoFHandler was renumbered.

#include <cellwise/dealii/solver.h>

#include "poisson_problem.h"

#include <deal.II/dofs/dof_renumbering.h>

#include <fstream>
#include <functional>
#include <sstream>
#include <string>

namespace
{
  std::string
  yes_no(const bool condition)
  {
    return condition ? "yes" : "NO";
  }

  /// "refused: yes" if @p f throws cellwise::Error with @p phrase in its
  /// message.
  std::string
  refused(const std::function<void()> &f, const std::string &phrase)
  {
    try
      {
        f();
        return "NO (accepted)";
      }
    catch (const cellwise::Error &e)
      {
        return yes_no(std::string(e.what()).find(phrase) != std::string::npos);
      }
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
      if (smoother == cellwise::SmootherType::chebyshev)
        out << "core loops after the import run on: " << cellwise::loop_executor().name() << std::endl;

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
        // the cell-wise reason travels with deal.II's exception
        const auto *with_reason = dynamic_cast<const cellwise::dealii::NoConvergenceWithReason *>(&e);
        std::ostringstream info;
        e.print_info(info);
        out << "iteration limit: reason given: "
            << yes_no(with_reason != nullptr && info.str().find("reported failure at step 2") != std::string::npos)
            << std::endl;
      }
  }

  {
    cellwise::MultigridParameters parameters;
    parameters.dirichlet_ids = {42};
    out << "Dirichlet id 42 (no face has it) refused: "
        << refused([&] { cellwise::dealii::MultigridPoissonSolver solver(problem.dof_handler, parameters); },
                   "Dirichlet boundary id 42")
        << std::endl;
  }
  {
    const cellwise::dealii::MultigridPoissonSolver solver(problem.dof_handler);
    dealii::ReductionControl                       control(100, 1e-300, 1e-12);
    test::Vector                                   b = problem.rhs;
    out << "solve(b, b) refused: " << refused([&] { solver.solve(b, b, control); }, "different vectors") << std::endl;
  }
  {
    test::PoissonProblem                           renumbered;
    const cellwise::dealii::MultigridPoissonSolver solver(renumbered.dof_handler);
    dealii::DoFRenumbering::random(renumbered.dof_handler);
    dealii::ReductionControl control(100, 1e-300, 1e-12);
    test::Vector             solution = renumbered.new_vector();
    out << "solve after DoFRenumbering::random refused: "
        << refused([&] { solver.solve(solution, renumbered.rhs, control); }, "not the one that was imported") << std::endl;
  }
  return 0;
}
