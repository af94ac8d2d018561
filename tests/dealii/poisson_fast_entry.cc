// The fast entry point: cellwise::dealii::MultigridPreconditioner's solve, set
// up from the DoFHandler, runs the cell-wise V-cycle and FP64 CG itself on
// deal.II vectors and reports to deal.II's ReductionControl; its solution of the
// Poisson problem of poisson_problem.h equals that of deal.II's own MatrixFree
// GMG to 1e-9 relative, with the Chebyshev and the DSS-Jacobi smoother.
// An iteration limit makes it throw deal.II's SolverControl::NoConvergence.
// After the import the core's loops run on deal.II's threads (TBB), not
// OpenMP's. step-37's absolute SolverControl is converted: step 0 reports
// deal.II's ‖b − A u₀‖₂, from a zero and from a non-zero guess. The
// coefficient can be given as a deal.II Function or a dealii::Point lambda.
// The pure Neumann problem is solved when asked for. The cuda backend is
// refused with its reason where there is no device.
// Its vmult, the cell-wise cycle as deal.II preconditioner,
// makes deal.II's SolverCG on step-37's MatrixFree operator converge to
// deal.II's solution (host FP64 and mixed; cuda where there is a device,
// refused with the reason where there is none).
// Refused with cellwise::Error (no silent wrong answer): a Dirichlet id that
// no face carries (a singular problem), the solution and the right-hand side
// being one vector, and a solve after the DoFHandler was renumbered.

#include <cellwise/base/parallel.h>
#include <cellwise/dealii/functions.h>
#include <cellwise/dealii/multigrid_preconditioner.h>
#include <cellwise/dealii/solver.h>
#include <cellwise/multigrid/host_vector_solvers.h>

#include "poisson_problem.h"

#include <deal.II/dofs/dof_renumbering.h>

#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

namespace
{
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
        return test::yes_no(std::string(e.what()).find(phrase) != std::string::npos);
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
      const cellwise::dealii::MultigridPreconditioner solver(problem.dof_handler, parameters);
      if (smoother == cellwise::SmootherType::chebyshev)
        out << "core loops after the import run on: " << cellwise::loop_executor().name() << std::endl;

      // The monitored value is the cycle's η, so the tolerance is a reduction.
      dealii::ReductionControl control(100, 1e-300, 1e-12);
      test::Vector             solution = problem.new_vector();
      solver.solve(solution, problem.rhs, control);
      out << "cellwise " << cellwise::to_string(smoother) << ": " << control.last_step()
          << " CG iterations, solution equal to 1e-9: "
          << test::yes_no(test::relative_difference(solution, reference) <= 1e-9) << std::endl;
    }

  {
    // step-37's control: an absolute tolerance on ‖r‖₂. Step 0 reports
    // ‖b − A u₀‖₂ as deal.II's solvers do (‖b‖₂ from a zero guess, deal.II's
    // own operator from a non-zero one), and the solution is that of the
    // reduction 1e-12.
    const cellwise::dealii::MultigridPreconditioner solver(problem.dof_handler);
    const double                                    b_norm = problem.rhs.l2_norm();
    dealii::SolverControl                           control(100, 1e-12 * b_norm);
    test::Vector                                    solution = problem.new_vector();
    solver.solve(solution, problem.rhs, control);
    out << "absolute SolverControl(100, 1e-12 |b|): " << control.last_step()
        << " CG iterations, step 0 reports |b|: " << test::yes_no(std::abs(control.initial_value() - b_norm) <= 1e-12 * b_norm)
        << ", solution equal to 1e-9: " << test::yes_no(test::relative_difference(solution, reference) <= 1e-9) << std::endl;

    test::Vector guess = problem.new_vector();
    for (unsigned int i = 0; i < guess.locally_owned_size(); ++i)
      guess.local_element(i) = std::sin(0.37 * i);
    problem.constraints.set_zero(guess);
    test::Vector residual = problem.new_vector();
    problem.system_matrix.vmult(residual, guess);
    residual.sadd(-1., 1., problem.rhs);
    problem.constraints.set_zero(residual);
    dealii::SolverControl from_guess(100, 1e-12 * b_norm);
    solver.solve(guess, problem.rhs, from_guess);
    out << "absolute SolverControl from a non-zero guess: step 0 reports |b - A u0|: "
        << test::yes_no(std::abs(from_guess.initial_value() - residual.l2_norm()) <= 1e-10 * residual.l2_norm())
        << ", solution equal to 1e-9: " << test::yes_no(test::relative_difference(guess, reference) <= 1e-9) << std::endl;
  }
  {
    // step-37's coefficient as a deal.II Function (a temporary), as a lambda
    // of dealii::Point<3>, and as the core's lambda of cellwise::Point: one
    // solution.
    struct StepCoefficient : dealii::Function<3>
    {
      double
      value(const dealii::Point<3> &p, const unsigned int) const override
      {
        return 1. / (0.05 + 2. * p.square());
      }
    };
    std::vector<test::Vector> solutions;
    for (unsigned int form = 0; form < 3; ++form)
      {
        cellwise::MultigridParameters parameters;
        if (form == 0)
          parameters.coefficient = cellwise::dealii::to_scalar_function(StepCoefficient());
        else if (form == 1)
          parameters.coefficient =
            cellwise::dealii::to_scalar_function([](const dealii::Point<3> &p) { return 1. / (0.05 + 2. * p.square()); });
        else
          parameters.coefficient = [](const cellwise::Point &x) {
            return 1. / (0.05 + 2. * (x[0] * x[0] + x[1] * x[1] + x[2] * x[2]));
          };
        const cellwise::dealii::MultigridPreconditioner solver(problem.dof_handler, parameters);
        dealii::ReductionControl                        control(100, 1e-300, 1e-12);
        solutions.push_back(problem.new_vector());
        solver.solve(solutions.back(), problem.rhs, control);
      }
    out << "coefficient from a deal.II Function and a dealii::Point lambda equals the cellwise::Point one: "
        << test::yes_no(test::relative_difference(solutions[0], solutions[2]) <= 1e-14 &&
                  test::relative_difference(solutions[1], solutions[2]) <= 1e-14)
        << "; differs from the constant coefficient: " << test::yes_no(test::relative_difference(solutions[2], reference) > 1e-2)
        << std::endl;
  }
  {
    // Backend::cuda: where there is no device, refused with the reason at
    // set-up; where there is one, deal.II's solution again
    cellwise::MultigridParameters parameters;
    parameters.backend       = cellwise::Backend::cuda;
    const std::string reason = cellwise::backend_unavailable_reason(cellwise::Backend::cuda);
    bool              ok     = false;
    if (!reason.empty())
      ok = refused([&] { cellwise::dealii::MultigridPreconditioner solver(problem.dof_handler, parameters); }, reason) == "yes";
    else
      {
        const cellwise::dealii::MultigridPreconditioner solver(problem.dof_handler, parameters);
        dealii::ReductionControl                        control(100, 1e-300, 1e-12);
        test::Vector                                    solution = problem.new_vector();
        solver.solve(solution, problem.rhs, control);
        ok = test::relative_difference(solution, reference) <= 1e-9;
      }
    out << "cuda backend: refused with the reason without a device, deal.II's solution with one: " << test::yes_no(ok) << std::endl;
  }
  {
    // the cycle as a preconditioner of deal.II's SolverCG on the MatrixFree
    // operator (step-37's outer iteration)
    const auto cg_with_cellwise_cycle = [&](const cellwise::MultigridParameters &parameters, test::Vector &solution) {
      const cellwise::dealii::MultigridPreconditioner preconditioner(problem.dof_handler, parameters);
      dealii::SolverControl                           control(100, 1e-13 * problem.rhs.l2_norm());
      dealii::SolverCG<test::Vector>                  cg(control);
      solution = 0;
      cg.solve(problem.system_matrix, solution, problem.rhs, preconditioner);
      return control.last_step();
    };
    for (const cellwise::Precision precision : {cellwise::Precision::fp64, cellwise::Precision::mixed})
      {
        cellwise::MultigridParameters parameters;
        parameters.precision        = precision;
        test::Vector       solution = problem.new_vector();
        const unsigned int n        = cg_with_cellwise_cycle(parameters, solution);
        out << "deal.II SolverCG with MultigridPreconditioner, " << cellwise::to_string(precision) << ": " << n
            << " CG iterations, solution equal to 1e-9: " << test::yes_no(test::relative_difference(solution, reference) <= 1e-9)
            << std::endl;
      }
    cellwise::MultigridParameters parameters;
    parameters.backend       = cellwise::Backend::cuda;
    parameters.precision     = cellwise::Precision::mixed;
    const std::string reason = cellwise::backend_unavailable_reason(cellwise::Backend::cuda);
    bool              ok     = false;
    if (!reason.empty())
      ok = refused([&] { cellwise::dealii::MultigridPreconditioner p(problem.dof_handler, parameters); }, reason) == "yes";
    else
      {
        test::Vector solution = problem.new_vector();
        cg_with_cellwise_cycle(parameters, solution);
        ok = test::relative_difference(solution, reference) <= 1e-9;
      }
    out << "MultigridPreconditioner on cuda: refused with the reason without a device, deal.II's solution with one: "
        << test::yes_no(ok) << std::endl;
  }
  {
    // opt-in pure Neumann problem: converges, the solution has zero mean
    // over the DoFs (VectorTools::subtract_mean_value's normalization)
    cellwise::MultigridParameters parameters;
    parameters.pure_neumann = true;
    const cellwise::dealii::MultigridPreconditioner solver(problem.dof_handler, parameters);
    dealii::ReductionControl                        control(100, 1e-300, 1e-10);
    test::Vector                                    solution = problem.new_vector();
    solver.solve(solution, problem.rhs, control);
    out << "pure Neumann: converged in at most 12 CG iterations: " << test::yes_no(control.last_step() <= 12)
        << ", zero DoF mean: " << test::yes_no(std::abs(solution.mean_value()) <= 1e-12 * solution.linfty_norm()) << std::endl;
  }
  {
    const cellwise::dealii::MultigridPreconditioner solver(problem.dof_handler);
    dealii::SolverControl                           control(2, 1e-300);
    test::Vector                                    solution = problem.new_vector();
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
            << test::yes_no(with_reason != nullptr && info.str().find("reported failure at step 2") != std::string::npos)
            << std::endl;
      }
  }

  {
    cellwise::MultigridParameters parameters;
    parameters.dirichlet_ids = {42};
    out << "Dirichlet id 42 (no face has it) refused: "
        << refused([&] { cellwise::dealii::MultigridPreconditioner solver(problem.dof_handler, parameters); },
                   "Dirichlet boundary id 42")
        << std::endl;
  }
  {
    const cellwise::dealii::MultigridPreconditioner solver(problem.dof_handler);
    dealii::ReductionControl                        control(100, 1e-300, 1e-12);
    test::Vector                                    b = problem.rhs;
    out << "solve(b, b) refused: " << refused([&] { solver.solve(b, b, control); }, "different vectors") << std::endl;
  }
  {
    test::PoissonProblem                            renumbered;
    const cellwise::dealii::MultigridPreconditioner solver(renumbered.dof_handler);
    dealii::DoFRenumbering::random(renumbered.dof_handler);
    dealii::ReductionControl control(100, 1e-300, 1e-12);
    test::Vector             solution = renumbered.new_vector();
    out << "solve after DoFRenumbering::random refused: "
        << refused([&] { solver.solve(solution, renumbered.rhs, control); }, "not the one that was imported") << std::endl;
  }
  return 0;
}
