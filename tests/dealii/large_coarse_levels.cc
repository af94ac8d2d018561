// Coarse solvers of large coarse levels (cellwise/dealii/amg_coarse_solver.h).
// The Trilinos AMG coarse solver, run to a reduction of 1e-11, equals the
// dense Cholesky solve on unstructured (randomly perturbed) coarse levels,
// p = 1..3. The automatic choice is Cholesky on small coarse levels, AMG on
// large Q1 ones and CG with the level smoother from Q2 up, and the
// description says so. A deal.II program on a coarse mesh of 22³ = 10648
// randomly distorted cells, refined once (Q1, 93k DoFs, deal.II's MatrixFree
// operator outside), solves through PreconditionMG with the cell-wise levels
// and the automatic (AMG) coarse solver to the solution with the CG coarse
// solver, in as many iterations (± 1).

#include <cellwise/dealii/amg_coarse_solver.h>
#include <cellwise/dealii/import.h>
#include <cellwise/dealii/mg_adapters.h>
#include <cellwise/mesh/unstructured_builder.h>
#include <cellwise/multigrid/coarse_solvers.h>
#include <cellwise/storage/dirichlet_mask.h>

#include <deal.II/base/mpi.h>
#include <deal.II/base/quadrature_lib.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/mapping_q1.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/grid/grid_tools.h>
#include <deal.II/grid/tria.h>
#include <deal.II/lac/affine_constraints.h>
#include <deal.II/lac/la_parallel_vector.h>
#include <deal.II/lac/solver_cg.h>
#include <deal.II/lac/solver_control.h>
#include <deal.II/matrix_free/matrix_free.h>
#include <deal.II/matrix_free/operators.h>
#include <deal.II/multigrid/multigrid.h>
#include <deal.II/numerics/vector_tools.h>

#include <cmath>
#include <fstream>
#include <memory>
#include <random>
#include <string>

namespace
{
  std::string
  yes_no(const bool condition)
  {
    return condition ? "yes" : "NO";
  }

  /// The unit cube in n³ coarse cells, each its own block (every inner face
  /// a skeleton face), inner vertices moved at random by up to 0.15 h.
  cellwise::CoarseMesh
  make_perturbed_cube(const unsigned int n)
  {
    cellwise::CoarseMesh                   mesh;
    std::mt19937                           random(3);
    std::uniform_real_distribution<double> shift(-0.15 / n, 0.15 / n);
    for (unsigned int k = 0; k <= n; ++k)
      for (unsigned int j = 0; j <= n; ++j)
        for (unsigned int i = 0; i <= n; ++i)
          {
            const unsigned int index[3] = {i, j, k};
            cellwise::Point    x;
            for (unsigned int d = 0; d < 3; ++d)
              x[d] = double(index[d]) / n + (index[d] > 0 && index[d] < n ? shift(random) : 0.);
            mesh.vertices.push_back(x);
          }
    for (unsigned int k = 0; k < n; ++k)
      for (unsigned int j = 0; j < n; ++j)
        for (unsigned int i = 0; i < n; ++i)
          {
            std::array<unsigned int, 8> cell;
            for (unsigned int c = 0; c < 8; ++c)
              cell[c] = (i + (c & 1)) + (n + 1) * ((j + (c >> 1 & 1)) + (n + 1) * (k + (c >> 2 & 1)));
            mesh.cells.push_back(cell);
          }
    return mesh;
  }

  double
  norm(const cellwise::CellVector<double> &v)
  {
    return std::sqrt(v.dot(v));
  }

  void
  amg_equals_cholesky(std::ostream &out, const unsigned int n, const unsigned int degree)
  {
    const cellwise::LevelHierarchy hierarchy = cellwise::make_unstructured_hierarchy(make_perturbed_cube(n), 0, 1);
    const cellwise::Level         &level     = hierarchy.level(0);
    const cellwise::LaplaceOperator<double>     op(level, degree);
    const cellwise::CellVector<double>           mask = cellwise::make_dirichlet_mask<double>(level, degree, {0});
    cellwise::CellVector<double>                 b(level.n_cells(), degree), x_amg, x_cholesky;
    std::mt19937                                 random(degree);
    std::uniform_real_distribution<double>       value(-1., 1.);
    for (unsigned int c = 0; c < b.n_cells(); ++c)
      for (unsigned int i = 0; i < b.dofs_per_cell(); ++i)
        b(c, i) = value(random) * mask(c, i);
    const cellwise::dealii::AmgCoarseSolver<double> amg(level, op, mask, 1e-11);
    const cellwise::CholeskyCoarseSolver<double>    cholesky(level, op, mask);
    amg.solve(x_amg, b);
    cholesky.solve(x_cholesky, b);
    x_amg.add(-1., x_cholesky);
    out << "p = " << degree << ", " << level.n_cells() << " perturbed coarse cells, " << amg.n_free_dofs()
        << " free DoFs: AMG to 1e-11 equals Cholesky to 1e-8: " << yes_no(norm(x_amg) <= 1e-8 * norm(x_cholesky)) << std::endl;
  }

  void
  automatic_choice(std::ostream &out, const unsigned int n, const unsigned int degree)
  {
    const cellwise::LevelHierarchy hierarchy = cellwise::make_unstructured_hierarchy(make_perturbed_cube(n), 0, 1);
    out << "p = " << degree << ", " << n * n * n << " coarse cells: "
        << cellwise::dealii::describe_dealii_coarse_solver(cellwise::MultigridParameters(), hierarchy.level(0), degree) << std::endl;
  }

  using Vector   = dealii::LinearAlgebra::distributed::Vector<double>;
  using Operator = dealii::MatrixFreeOperators::LaplaceOperator<3, 1, 2, 1, Vector>;

  unsigned int
  solve(const dealii::DoFHandler<3>            &dof_handler,
        const Operator                         &system_matrix,
        const dealii::AffineConstraints<double> &constraints,
        const Vector                           &rhs,
        Vector                                 &solution,
        const cellwise::CoarseSolverType        coarse_solver,
        std::string                            &description)
  {
    using V = cellwise::CellVector<double>;
    const cellwise::dealii::ImportedHierarchy imported = cellwise::dealii::import_dof_handler(dof_handler);
    cellwise::MultigridParameters             parameters;
    parameters.coarse_solver = coarse_solver;
    cellwise::dealii::MultigridComponents<double> components(imported, parameters);
    description = components.coarse_description;
    dealii::Multigrid<V> multigrid(components.matrix, components.coarse, components.transfer, components.pre_smoother,
                                   components.post_smoother);
    dealii::PreconditionMG<3, V, cellwise::dealii::MGTransfer<V>> preconditioner(dof_handler, multigrid, components.transfer);
    dealii::SolverControl                                         control(100, 1e-11 * rhs.l2_norm());
    dealii::SolverCG<Vector>                                      cg(control);
    system_matrix.initialize_dof_vector(solution);
    cg.solve(system_matrix, solution, rhs, preconditioner);
    constraints.distribute(solution);
    return control.last_step();
  }

  void
  large_coarse_mesh(std::ostream &out)
  {
    dealii::Triangulation<3> triangulation(dealii::Triangulation<3>::limit_level_difference_at_vertices);
    dealii::GridGenerator::subdivided_hyper_cube(triangulation, 22);
    dealii::GridTools::distort_random(0.15, triangulation, true, 7);
    triangulation.refine_global(1);
    const dealii::FE_Q<3>  fe(1);
    dealii::DoFHandler<3> dof_handler(triangulation);
    dof_handler.distribute_dofs(fe);
    dof_handler.distribute_mg_dofs();
    dealii::AffineConstraints<double> constraints;
    dealii::VectorTools::interpolate_boundary_values(dealii::MappingQ1<3>(), dof_handler, 0, dealii::Functions::ZeroFunction<3>(),
                                                     constraints);
    constraints.close();
    auto                                              matrix_free = std::make_shared<dealii::MatrixFree<3, double>>();
    typename dealii::MatrixFree<3, double>::AdditionalData data;
    data.tasks_parallel_scheme = dealii::MatrixFree<3, double>::AdditionalData::none;
    matrix_free->reinit(dealii::MappingQ1<3>(), dof_handler, constraints, dealii::QGauss<1>(2), data);
    Operator system_matrix;
    system_matrix.initialize(matrix_free);
    Vector rhs;
    system_matrix.initialize_dof_vector(rhs);
    dealii::VectorTools::create_right_hand_side(dof_handler, dealii::QGauss<3>(2), dealii::Functions::ConstantFunction<3>(1.), rhs,
                                                constraints);

    Vector      with_automatic, with_cg;
    std::string automatic, cg;
    const unsigned int n_automatic =
      solve(dof_handler, system_matrix, constraints, rhs, with_automatic, cellwise::CoarseSolverType::automatic, automatic);
    const unsigned int n_cg = solve(dof_handler, system_matrix, constraints, rhs, with_cg, cellwise::CoarseSolverType::cg, cg);
    with_cg -= with_automatic;
    out << "distorted 22^3 coarse cells refined once, Q1, " << dof_handler.n_dofs() << " DoFs" << std::endl
        << "  " << automatic << ": " << n_automatic << " CG iterations" << std::endl
        << "  " << cg << ": " << n_cg << " CG iterations, within one: " << yes_no(std::abs(int(n_cg) - int(n_automatic)) <= 1)
        << ", solutions equal to 1e-8: " << yes_no(with_cg.l2_norm() <= 1e-8 * with_automatic.l2_norm()) << std::endl;
  }
} // namespace

int
main(int argc, char **argv)
{
  dealii::Utilities::MPI::MPI_InitFinalize mpi(argc, argv, 1);
  std::ofstream                            out("output");
  for (unsigned int degree = 1; degree <= 3; ++degree)
    amg_equals_cholesky(out, degree == 3 ? 3 : 4, degree);
  automatic_choice(out, 4, 1);
  automatic_choice(out, 22, 1);
  automatic_choice(out, 16, 2);
  automatic_choice(out, 8, 3);
  large_coarse_mesh(out);
  return 0;
}
