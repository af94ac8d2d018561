// Local smoothing through deal.II's own Multigrid and PreconditionMG on a
// locally refined mesh (poisson_problem.h, locally refined: hanging nodes,
// levels with refinement edges), with the cell-wise pieces and their edge
// matrix passed as step-37 and step-50 pass theirs
// (multigrid.set_edge_matrices(edge, edge)):
//
//  - deal.II's SolverCG with it solves step-37's MatrixFree system to the
//    solution of deal.II's own MatrixFree local-smoothing GMG, 1e-9 relative,
//    with FP64 and FP32 levels, Chebyshev and vertex-patch smoothers;
//  - one application of the PreconditionMG is the cell-wise local-smoothing
//    V-cycle of MultigridSolver (003 §3.2) applied to the same
//    residual, to 1e-12 (after AffineConstraints::distribute: PreconditionMG
//    leaves the hanging DoFs zero, as deal.II's transfers do): the split of
//    mg_edge_matrices.h loses nothing;
//  - a Multigrid without the edge matrices, or with set_edge_in_matrix only,
//    is refused with a clear error instead of running a poorer cycle.

#include <cellwise/dealii/import.h>
#include <cellwise/dealii/mg_adapters.h>
#include <cellwise/dealii/vector_transfer.h>
#include <cellwise/multigrid/multigrid_solver.h>

#include "poisson_problem.h"

#include <fstream>
#include <string>

namespace
{
  using test::Vector;

  enum class EdgeMatrices
  {
    both,
    in_only,
    none
  };

  cellwise::MultigridParameters
  parameters_for(const cellwise::SmootherType smoother)
  {
    cellwise::MultigridParameters parameters;
    parameters.smoother         = smoother;
    parameters.chebyshev_degree = 5;
    parameters.smoothing_range  = 15.;
    parameters.coarse_solver    = cellwise::CoarseSolverType::cholesky;
    return parameters;
  }

  /// deal.II's Multigrid + PreconditionMG over the cell-wise components.
  template <typename Number>
  struct CellwisePreconditioner
  {
    using V = cellwise::CellVector<Number>;

    CellwisePreconditioner(const test::PoissonProblem                &problem,
                           const cellwise::dealii::ImportedHierarchy &imported,
                           const cellwise::MultigridParameters       &parameters,
                           const EdgeMatrices                         edges = EdgeMatrices::both)
      : components(imported, parameters)
      , multigrid(components.matrix, components.coarse, components.transfer, components.pre_smoother, components.post_smoother)
      , preconditioner(problem.dof_handler, multigrid, components.transfer)
    {
      if (edges == EdgeMatrices::both)
        multigrid.set_edge_matrices(components.edge_matrix, components.edge_matrix);
      else if (edges == EdgeMatrices::in_only)
        multigrid.set_edge_in_matrix(components.edge_matrix);
    }

    cellwise::dealii::MultigridComponents<Number>                  components;
    dealii::Multigrid<V>                                           multigrid;
    dealii::PreconditionMG<3, V, cellwise::dealii::MGTransfer<V>> preconditioner;
  };

  template <typename Number>
  unsigned int
  solve_with_cellwise_pieces(const test::PoissonProblem &problem,
                             Vector                     &solution,
                             const double                reduction,
                             const cellwise::SmootherType smoother)
  {
    const cellwise::dealii::ImportedHierarchy imported = cellwise::dealii::import_dof_handler(problem.dof_handler);
    const CellwisePreconditioner<Number>      mg(problem, imported, parameters_for(smoother));
    dealii::SolverControl                     control(200, reduction * problem.rhs.l2_norm());
    dealii::SolverCG<Vector>                  cg(control);
    solution = 0;
    cg.solve(problem.system_matrix, solution, problem.rhs, mg.preconditioner);
    problem.constraints.distribute(solution);
    return control.last_step();
  }

  /// max |z_PreconditionMG − z_cycle| / max |z_cycle| for z = V b.
  double
  difference_to_cellwise_cycle(const test::PoissonProblem &problem)
  {
    const cellwise::dealii::ImportedHierarchy imported   = cellwise::dealii::import_dof_handler(problem.dof_handler);
    const cellwise::MultigridParameters       parameters = parameters_for(cellwise::SmootherType::chebyshev);
    const CellwisePreconditioner<double>      mg(problem, imported, parameters);
    Vector                                    z_mg = problem.new_vector();
    mg.preconditioner.vmult(z_mg, problem.rhs);
    // PreconditionMG leaves the hanging DoFs zero (as deal.II's transfers);
    // the cell-wise cycle's correction satisfies the hanging-node constraints.
    problem.constraints.distribute(z_mg);

    const cellwise::MultigridSolver adaptive(imported.hierarchy, imported.degree, parameters);
    const cellwise::dealii::DofMap map = cellwise::dealii::make_active_mesh_map(imported, adaptive.active_mesh());
    cellwise::CellVector<double>   r, z;
    cellwise::dealii::scatter_balanced(map, problem.rhs, r);
    adaptive.preconditioner().vmult(z, r);
    Vector z_cycle = problem.new_vector();
    cellwise::dealii::gather_mean_add(map, z, z_cycle);

    Vector d = z_mg;
    d -= z_cycle;
    return d.linfty_norm() / z_cycle.linfty_norm();
  }

  /// The first words of the error a PreconditionMG application throws.
  std::string
  refusal(const test::PoissonProblem &problem, const EdgeMatrices edges)
  {
    const cellwise::dealii::ImportedHierarchy imported = cellwise::dealii::import_dof_handler(problem.dof_handler);
    const CellwisePreconditioner<double> mg(problem, imported, parameters_for(cellwise::SmootherType::chebyshev), edges);
    Vector                               z = problem.new_vector();
    try
      {
        mg.preconditioner.vmult(z, problem.rhs);
      }
    catch (const cellwise::Error &e)
      {
        const std::string message = e.what();
        const auto        end     = message.find(", which has");
        return "refused (" + message.substr(0, end) + ")";
      }
    return "NOT refused";
  }
} // namespace

int
main(int argc, char **argv)
{
  dealii::Utilities::MPI::MPI_InitFinalize mpi(argc, argv, 1);
  std::ofstream                            out("output");

  const test::PoissonProblem problem(/*locally_refined=*/true);
  out << "FE_Q(" << test::degree << "), " << problem.dof_handler.n_dofs() << " DoFs, "
      << problem.triangulation.n_active_cells() << " active cells on " << problem.triangulation.n_global_levels()
      << " levels, " << problem.constraints.n_constraints() << " constrained DoFs" << std::endl;

  const double reduction = 1e-13;
  Vector       reference = problem.new_vector();
  out << "deal.II MatrixFree GMG, local smoothing: " << problem.solve_with_dealii_gmg(reference, reduction)
      << " CG iterations" << std::endl;

  Vector solution = problem.new_vector();
  for (const cellwise::SmootherType smoother : {cellwise::SmootherType::chebyshev, cellwise::SmootherType::patch})
    {
      const std::string name = cellwise::to_string(smoother);
      const unsigned int n_double = solve_with_cellwise_pieces<double>(problem, solution, reduction, smoother);
      out << "PreconditionMG, cellwise FP64 levels, " << name << ": " << n_double
          << " CG iterations, solution equal to 1e-9: " << test::yes_no(test::relative_difference(solution, reference) <= 1e-9)
          << std::endl;
      const unsigned int n_float = solve_with_cellwise_pieces<float>(problem, solution, reduction, smoother);
      out << "PreconditionMG, cellwise FP32 levels, " << name << ": " << n_float
          << " CG iterations, solution equal to 1e-9: " << test::yes_no(test::relative_difference(solution, reference) <= 1e-9)
          << std::endl;
    }

  out << "PreconditionMG applies the cell-wise local-smoothing V-cycle to 1e-12: "
      << test::yes_no(difference_to_cellwise_cycle(problem) <= 1e-12) << std::endl;
  out << "without edge matrices: " << refusal(problem, EdgeMatrices::none) << std::endl;
  out << "with set_edge_in_matrix only: " << refusal(problem, EdgeMatrices::in_only) << std::endl;
  return 0;
}
