// deal.II's SolverCG + PreconditionMG + Multigrid with the cell-wise pieces
// (transfer, Chebyshev or vertex-patch smoother, level operators, Cholesky
// coarse solve, FP64 and FP32 levels) on step-37's operator solves the Poisson problem of
// poisson_problem.h; the solution equals that of deal.II's own MatrixFree GMG
// to 1e-9 relative.

#include <cellwise/dealii/import.h>
#include <cellwise/dealii/mg_adapters.h>

#include "poisson_problem.h"

#include <fstream>
#include <string>

namespace
{
  template <typename Number>
  unsigned int
  solve_with_cellwise_pieces(const test::PoissonProblem &problem,
                             test::Vector               &solution,
                             const double                reduction,
                             const cellwise::SmootherType smoother = cellwise::SmootherType::chebyshev)
  {
    using V = cellwise::CellVector<Number>;
    const cellwise::dealii::ImportedHierarchy imported = cellwise::dealii::import_dof_handler(problem.dof_handler);
    cellwise::MultigridParameters             parameters;
    parameters.smoother         = smoother;
    parameters.chebyshev_degree = 5;
    parameters.smoothing_range  = 15.;
    parameters.coarse_solver    = cellwise::CoarseSolverType::cholesky;
    cellwise::dealii::MultigridComponents<Number> components(imported, parameters);

    dealii::Multigrid<V> multigrid(components.matrix, components.coarse, components.transfer, components.pre_smoother,
                                   components.post_smoother);
    dealii::PreconditionMG<3, V, cellwise::dealii::MGTransfer<V>> preconditioner(problem.dof_handler, multigrid,
                                                                                 components.transfer);
    dealii::SolverControl            control(200, reduction * problem.rhs.l2_norm());
    dealii::SolverCG<test::Vector>   cg(control);
    solution = 0;
    cg.solve(problem.system_matrix, solution, problem.rhs, preconditioner);
    return control.last_step();
  }
} // namespace

int
main(int argc, char **argv)
{
  dealii::Utilities::MPI::MPI_InitFinalize mpi(argc, argv, 1);
  std::ofstream                            out("output");

  const test::PoissonProblem problem;
  out << "FE_Q(" << test::degree << "), " << problem.dof_handler.n_dofs() << " DoFs, "
      << problem.triangulation.n_global_levels() << " levels" << std::endl;

  const double reduction = 1e-13;
  test::Vector reference = problem.new_vector();
  const unsigned int n_dealii = problem.solve_with_dealii_gmg(reference, reduction);
  out << "deal.II MatrixFree GMG: " << n_dealii << " CG iterations" << std::endl;

  test::Vector solution = problem.new_vector();
  const unsigned int n_double = solve_with_cellwise_pieces<double>(problem, solution, reduction);
  out << "PreconditionMG with cellwise FP64 levels: " << n_double << " CG iterations, solution equal to 1e-9: "
      << test::yes_no(test::relative_difference(solution, reference) <= 1e-9) << std::endl;

  const unsigned int n_float = solve_with_cellwise_pieces<float>(problem, solution, reduction);
  out << "PreconditionMG with cellwise FP32 levels: " << n_float << " CG iterations, solution equal to 1e-9: "
      << test::yes_no(test::relative_difference(solution, reference) <= 1e-9) << std::endl;

  // the vertex-patch smoother through MGSmootherBase: forward pre-, reverse
  // post-smoothing make the symmetric cycle CG needs
  const unsigned int n_patch = solve_with_cellwise_pieces<float>(problem, solution, reduction, cellwise::SmootherType::patch);
  out << "PreconditionMG with cellwise FP32 levels, vertex-patch smoother: " << n_patch
      << " CG iterations, solution equal to 1e-9: " << test::yes_no(test::relative_difference(solution, reference) <= 1e-9) << std::endl;
  return 0;
}
