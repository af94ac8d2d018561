// Problem files from deal.II (cellwise/dealii/problem_file.h): three problems
// solved by deal.II itself (assembled Laplace matrix with its constraints, CG
// with SSOR to 1e-13), written with their solutions, read back by the core
// and solved by the host cell-wise solvers, which must match deal.II's
// solution to 1e-9. The files stay in the test's directory for the program
// tests (cellwise-poisson --problem-file) and for the GPU machine:
//   step37_q2.cwp     step-37's mesh (hyper_cube(-1, 1)) refined 3 times, FE_Q(2)
//   adaptive_q2.cwp   a 2 x 2 x 1 box refined once, then twice locally near a
//                     corner (step-50-like: hanging nodes), FE_Q(2)
//   box_q4.cwp        a non-cube 3 x 2 x 1 box refined twice, FE_Q(4)
//   step37_coefficient_q2.cwp  step-37's mesh (hyper_cube(0, 1)) refined 3
//                     times, FE_Q(2), with step-37's coefficient 1/(0.05 +
//                     2|x|²) averaged per cell (deal.II assembles with the
//                     same piecewise constant coefficient), stored in the file
//   ball_q2.cwp       deal.II's hyper_ball refined twice, FE_Q(2) with
//                     MappingQ(2): 7 coarse cells in their own frames, so the
//                     file carries every level's cell mapping and the
//                     skeleton faces between the blocks (format version 3)

#include <cellwise/dealii/problem_file.h>
#include <cellwise/multigrid/multigrid_solver.h>
#include <cellwise/storage/problem_file.h>

#include <deal.II/base/function.h>
#include <deal.II/base/mpi.h>
#include <deal.II/base/quadrature_lib.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/mapping_q.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/grid/tria.h>
#include <deal.II/lac/affine_constraints.h>
#include <deal.II/lac/dynamic_sparsity_pattern.h>
#include <deal.II/lac/la_parallel_vector.h>
#include <deal.II/lac/precondition.h>
#include <deal.II/lac/solver_cg.h>
#include <deal.II/lac/solver_control.h>
#include <deal.II/lac/sparse_matrix.h>
#include <deal.II/lac/sparsity_pattern.h>
#include <deal.II/lac/vector.h>
#include <deal.II/numerics/matrix_tools.h>
#include <deal.II/numerics/vector_tools.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <functional>
#include <string>

namespace
{
  using namespace dealii;

  class RightHandSide : public Function<3>
  {
  public:
    double
    value(const Point<3> &p, const unsigned int = 0) const override
    {
      return 1. + p[0] * (1.5 - p[1]) * std::sin(3. * p[2]) + std::exp(-4. * (p[0] - 0.4) * (p[0] - 0.4));
    }
  };

  /// deal.II's own solution of −Δu = f, u = 0 on the boundary (hanging nodes
  /// constrained), and the condensed load vector.
  void
  solve_with_dealii(const Mapping<3> &mapping, const DoFHandler<3> &dof_handler, Vector<double> &solution,
                    Vector<double> &rhs, const Function<3> *coefficient = nullptr)
  {
    AffineConstraints<double> constraints;
    DoFTools::make_hanging_node_constraints(dof_handler, constraints);
    VectorTools::interpolate_boundary_values(mapping, dof_handler, 0, Functions::ZeroFunction<3>(), constraints);
    constraints.close();
    DynamicSparsityPattern dsp(dof_handler.n_dofs());
    DoFTools::make_sparsity_pattern(dof_handler, dsp, constraints, false);
    SparsityPattern pattern;
    pattern.copy_from(dsp);
    SparseMatrix<double> matrix(pattern);
    rhs.reinit(dof_handler.n_dofs());
    const RightHandSide f;
    MatrixCreator::create_laplace_matrix(mapping, dof_handler, QGauss<3>(dof_handler.get_fe().degree + 1), matrix, f,
                                         rhs, coefficient, constraints);
    solution.reinit(dof_handler.n_dofs());
    SolverControl           control(10000, 1e-13 * rhs.l2_norm());
    SolverCG<Vector<double>> cg(control);
    PreconditionSSOR<>      ssor;
    ssor.initialize(matrix, 1.2);
    cg.solve(matrix, solution, rhs, ssor);
    constraints.distribute(solution);
  }

  cellwise::dealii::DealiiVector
  to_distributed(const Vector<double> &v)
  {
    cellwise::dealii::DealiiVector w(v.size());
    for (unsigned int i = 0; i < v.size(); ++i)
      w(i) = v(i);
    return w;
  }

  double
  relative_max_difference(const cellwise::CellVector<double> &u, const cellwise::CellVector<double> &reference)
  {
    double difference = 0, size = 0;
    for (std::size_t k = 0; k < u.storage_size(); ++k)
      {
        difference = std::max(difference, std::abs(u.data()[k] - reference.data()[k]));
        size       = std::max(size, std::abs(reference.data()[k]));
      }
    return difference / size;
  }

  void
  write_and_check(std::ofstream                                  &out,
                  const std::string                              &filename,
                  const std::string                              &description,
                  const std::function<void(Triangulation<3> &)> &make_mesh,
                  const unsigned int                              degree,
                  const cellwise::ScalarFunction                 &coefficient     = {},
                  const unsigned int                              mapping_degree = 1)
  {
    const MappingQ<3> mapping(mapping_degree);
    Triangulation<3> triangulation(Triangulation<3>::limit_level_difference_at_vertices);
    make_mesh(triangulation);
    const FE_Q<3>  fe(degree);
    DoFHandler<3> dof_handler(triangulation);
    dof_handler.distribute_dofs(fe);
    dof_handler.distribute_mg_dofs();
    Vector<double> solution, rhs;
    if (coefficient)
      {
        // deal.II assembles with the coefficient the file stores: its cell
        // averages, as a piecewise constant function
        const cellwise::dealii::DealiiVector empty(dof_handler.n_dofs());
        const cellwise::ScalarFunction       per_cell = cellwise::cell_coefficient_function(
          cellwise::dealii::make_problem(dof_handler, empty, empty, {0}, description, coefficient));
        const ScalarFunctionFromFunctionObject<3> function(
          [&](const Point<3> &x) { return per_cell({{x[0], x[1], x[2]}}); });
        solve_with_dealii(mapping, dof_handler, solution, rhs, &function);
      }
    else
      solve_with_dealii(mapping, dof_handler, solution, rhs);
    cellwise::dealii::write_problem_file(filename, mapping, dof_handler, to_distributed(rhs), to_distributed(solution), {0},
                                         description, coefficient);

    const cellwise::Problem problem = cellwise::read_problem_file(filename);
    cellwise::MultigridParameters parameters;
    parameters.dirichlet_ids = problem.dirichlet_ids;
    if (!problem.cell_coefficients.empty())
      parameters.coefficient = cellwise::cell_coefficient_function(problem);
    cellwise::MonitorControl         control(100, 1e-12);
    cellwise::CellVector<double>     u(problem.rhs.n_cells(), problem.degree);
    cellwise::SolveStatistics        statistics;
    if (problem.locally_refined)
      statistics = cellwise::MultigridSolver(problem.hierarchy, problem.degree, parameters).solve(u, problem.rhs, control);
    else
      statistics = cellwise::MultigridSolver(problem.hierarchy, problem.degree, parameters).solve(u, problem.rhs, control);
    out << filename << ": " << description << ", " << dof_handler.n_dofs() << " DoFs, "
        << (problem.locally_refined ? "locally refined" : "uniform")
        << (problem.cell_coefficients.empty() ? "" : ", coefficient per cell")
        << (problem.hierarchy.levels.back().has_skeleton() ? ", unstructured" : "")
        << (problem.hierarchy.levels.back().mapping.empty()
              ? ""
              : ", cell mapping of degree " + std::to_string(problem.hierarchy.levels.back().mapping.degree))
        << "; host solve from the file: "
        << statistics.iterations() << " CG iterations, equal to deal.II's solution to 1e-9: "
        << (relative_max_difference(u, problem.solution) <= 1e-9 ? "yes" : "NO") << std::endl;
  }
} // namespace

int
main(int argc, char **argv)
{
  Utilities::MPI::MPI_InitFinalize mpi(argc, argv, 1);
  std::ofstream                    out("output");

  write_and_check(out, "step37_q2.cwp", "step-37 mesh, hyper_cube(-1,1) refined 3 times, FE_Q(2)",
                  [](Triangulation<3> &tria) {
                    GridGenerator::hyper_cube(tria, -1., 1.);
                    tria.refine_global(3);
                  },
                  2);
  write_and_check(out, "adaptive_q2.cwp", "2x2x1 box refined once and twice locally near the origin, FE_Q(2)",
                  [](Triangulation<3> &tria) {
                    GridGenerator::subdivided_hyper_rectangle(tria, {2, 2, 1}, Point<3>(0., 0., 0.), Point<3>(1., 1., 0.5));
                    tria.refine_global(1);
                    for (unsigned int step = 0; step < 2; ++step)
                      {
                        for (const auto &cell : tria.active_cell_iterators())
                          if (cell->center().norm() < 0.4)
                            cell->set_refine_flag();
                        tria.execute_coarsening_and_refinement();
                      }
                  },
                  2);
  write_and_check(out, "box_q4.cwp", "3x2x1 box of 1.5 x 1 x 0.8 refined twice, FE_Q(4)",
                  [](Triangulation<3> &tria) {
                    GridGenerator::subdivided_hyper_rectangle(tria, {3, 2, 1}, Point<3>(0., 0., 0.), Point<3>(1.5, 1., 0.8));
                    tria.refine_global(2);
                  },
                  4);
  write_and_check(out, "step37_coefficient_q2.cwp", "step-37 mesh and coefficient, hyper_cube(0,1) refined 3 times, FE_Q(2)",
                  [](Triangulation<3> &tria) {
                    GridGenerator::hyper_cube(tria, 0., 1.);
                    tria.refine_global(3);
                  },
                  2,
                  [](const cellwise::Point &x) { return 1. / (0.05 + 2. * (x[0] * x[0] + x[1] * x[1] + x[2] * x[2])); });
  write_and_check(out, "ball_q2.cwp", "hyper_ball refined twice, FE_Q(2), MappingQ(2)",
                  [](Triangulation<3> &tria) {
                    GridGenerator::hyper_ball(tria);
                    tria.refine_global(2);
                  },
                  2, {}, 2);
  return 0;
}
