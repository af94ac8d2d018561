#pragma once
// The Poisson problem of the solver tests, set up as in step-37 (MatrixFree
// operator, homogeneous Dirichlet conditions on the whole boundary, hanging
// node constraints), on a non-cube box of 3 x 2 x 1 coarse cells of
// 0.5 x 0.5 x 0.8, refined three times (or, locally refined, twice globally
// and then twice in the corner octant x < 0.75, y < 0.5, z < 0.4 and its
// corner octant), or on deal.II's hyper_L (refined twice, or once globally
// and twice at the re-entrant edge), FE_Q(3), with a non-constant right-hand
// side and optionally step-37's coefficient 1/(0.05 + 2|x|²) at the
// quadrature points; and deal.II's own MatrixFree geometric multigrid
// (step-37's configuration, double levels, local smoothing with its
// interface matrices, the same coefficient on every level) as the reference
// solver.

#include <deal.II/base/function.h>
#include <deal.II/base/mpi.h>
#include <deal.II/base/quadrature_lib.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/mapping_q1.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/grid/grid_tools.h>
#include <deal.II/grid/tria.h>
#include <deal.II/lac/affine_constraints.h>
#include <deal.II/lac/la_parallel_vector.h>
#include <deal.II/lac/precondition.h>
#include <deal.II/lac/solver_cg.h>
#include <deal.II/lac/solver_control.h>
#include <deal.II/matrix_free/fe_evaluation.h>
#include <deal.II/matrix_free/matrix_free.h>
#include <deal.II/matrix_free/operators.h>
#include <deal.II/multigrid/mg_coarse.h>
#include <deal.II/multigrid/mg_constrained_dofs.h>
#include <deal.II/multigrid/mg_matrix.h>
#include <deal.II/multigrid/mg_smoother.h>
#include <deal.II/multigrid/mg_transfer_matrix_free.h>
#include <deal.II/multigrid/multigrid.h>
#include <deal.II/numerics/vector_tools.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>

namespace test
{
  using namespace dealii;
  using Vector = LinearAlgebra::distributed::Vector<double>;

  constexpr unsigned int degree = 3;

  template <typename Number>
  using Operator = MatrixFreeOperators::LaplaceOperator<3, degree, degree + 1, 1, LinearAlgebra::distributed::Vector<Number>>;

  enum class Domain
  {
    box,
    lshape,
    /// hyper_ball (7 coarse cells in different frames, MappingQ1)
    ball,
    /// the box of Domain::box rotated by 90 degrees about z (cells not in
    /// deal.II's standard orientation relative to the axes)
    rotated_box,
    /// hyper_shell between radii 0.5 and 1 in 6 coarse cells
    shell,
    /// hyper_ball refined twice and flattened: 448 coarse cells of an
    /// unstructured mesh (a coarse level of ~13000 Q3 DoFs), refined once
    large_coarse_ball
  };

  /// step-37's coefficient.
  inline double
  coefficient_function(const double x, const double y, const double z)
  {
    return 1. / (0.05 + 2. * (x * x + y * y + z * z));
  }

  /// The coefficient at the quadrature points of @p matrix_free (step-37's
  /// evaluate_coefficient).
  template <typename Number>
  std::shared_ptr<Table<2, VectorizedArray<Number>>>
  coefficient_table(const MatrixFree<3, Number> &matrix_free)
  {
    FEEvaluation<3, degree, degree + 1, 1, Number> phi(matrix_free);
    auto table = std::make_shared<Table<2, VectorizedArray<Number>>>(matrix_free.n_cell_batches(), phi.n_q_points);
    for (unsigned int cell = 0; cell < matrix_free.n_cell_batches(); ++cell)
      {
        phi.reinit(cell);
        for (unsigned int q = 0; q < phi.n_q_points; ++q)
          {
            const auto x = phi.quadrature_point(q);
            for (unsigned int v = 0; v < VectorizedArray<Number>::size(); ++v)
              (*table)(cell, q)[v] = Number(coefficient_function(x[0][v], x[1][v], x[2][v]));
          }
      }
    return table;
  }

  /// The right-hand side f(x, y, z).
  inline double
  rhs_function(const double x, const double y, const double z)
  {
    return 1. + x * (1.5 - y) * std::sin(3. * z) + std::exp(-4. * (x - 0.4) * (x - 0.4));
  }

  template <typename Number>
  std::shared_ptr<MatrixFree<3, Number>>
  make_matrix_free(const DoFHandler<3> &dof_handler, const AffineConstraints<double> &constraints, const unsigned int level)
  {
    typename MatrixFree<3, Number>::AdditionalData data;
    data.tasks_parallel_scheme = MatrixFree<3, Number>::AdditionalData::none;
    data.mapping_update_flags  = update_gradients | update_JxW_values | update_quadrature_points;
    data.mg_level              = level;
    auto storage               = std::make_shared<MatrixFree<3, Number>>();
    storage->reinit(MappingQ1<3>(), dof_handler, constraints, QGauss<1>(degree + 1), data);
    return storage;
  }

  struct PoissonProblem
  {
    Triangulation<3>          triangulation{Triangulation<3>::limit_level_difference_at_vertices};
    FE_Q<3>                   fe{degree};
    DoFHandler<3>             dof_handler{triangulation};
    AffineConstraints<double> constraints;
    Operator<double>          system_matrix;
    Vector                    rhs;
    bool                      with_coefficient = false;

    /// @p locally_refined: the mesh refined twice globally and twice locally
    /// (see the file comment), else three times globally.
    /// With @p with_coefficient, step-37's coefficient in the operator.
    explicit PoissonProblem(const bool locally_refined = false, const Domain domain = Domain::box, const bool with_coefficient = false)
      : with_coefficient(with_coefficient)
    {
      if (domain == Domain::shell)
        {
          GridGenerator::hyper_shell(triangulation, Point<3>(), 0.5, 1., 6);
          triangulation.refine_global(2);
        }
      else if (domain == Domain::large_coarse_ball)
        {
          Triangulation<3> ball;
          GridGenerator::hyper_ball(ball);
          ball.refine_global(2);
          GridGenerator::flatten_triangulation(ball, triangulation);
          triangulation.refine_global(1);
        }
      else if (domain == Domain::ball)
        {
          GridGenerator::hyper_ball(triangulation);
          triangulation.refine_global(locally_refined ? 1 : 2);
          for (unsigned int step = 0; locally_refined && step < 2; ++step)
            {
              for (const auto &cell : triangulation.active_cell_iterators())
                if (cell->center()[0] > 0. && cell->center()[1] > 0.)
                  cell->set_refine_flag();
              triangulation.execute_coarsening_and_refinement();
            }
        }
      else if (domain == Domain::box || domain == Domain::rotated_box)
        {
          GridGenerator::subdivided_hyper_rectangle(triangulation, {3, 2, 1}, Point<3>(0., 0., 0.), Point<3>(1.5, 1., 0.8));
          if (domain == Domain::rotated_box)
            GridTools::rotate(Tensor<1, 3>({0., 0., 1.}), 0.5 * numbers::PI, triangulation);
          // locally refined: the cells with x < 0.75 scale, y < scale and
          // z < 0.8 scale (on the rotated box, at x < 0, a slab along x)
          triangulation.refine_global(locally_refined ? 2 : 3);
          for (unsigned int step = 0; locally_refined && step < 2; ++step)
            {
              const double scale = step == 0 ? 0.5 : 0.25;
              for (const auto &cell : triangulation.active_cell_iterators())
                if (cell->center()[0] < 1.5 * scale && cell->center()[1] < scale && cell->center()[2] < 0.8 * scale)
                  cell->set_refine_flag();
              triangulation.execute_coarsening_and_refinement();
            }
        }
      else
        {
          GridGenerator::hyper_L(triangulation, -1., 1.);
          triangulation.refine_global(locally_refined ? 1 : 2);
          // locally: the cells at the re-entrant edges, twice
          for (unsigned int step = 0; locally_refined && step < 2; ++step)
            {
              for (const auto &cell : triangulation.active_cell_iterators())
                {
                  const Point<3> c = cell->center();
                  if (std::min({std::abs(c[0]), std::abs(c[1]), std::abs(c[2])}) < 0.3 && c[0] > -0.6 && c[1] > -0.6 && c[2] > -0.6)
                    cell->set_refine_flag();
                }
              triangulation.execute_coarsening_and_refinement();
            }
        }
      dof_handler.distribute_dofs(fe);
      dof_handler.distribute_mg_dofs();
      DoFTools::make_hanging_node_constraints(dof_handler, constraints);
      VectorTools::interpolate_boundary_values(MappingQ1<3>(), dof_handler, 0, Functions::ZeroFunction<3>(), constraints);
      constraints.close();
      system_matrix.initialize(make_matrix_free<double>(dof_handler, constraints, numbers::invalid_unsigned_int));
      if (with_coefficient)
        system_matrix.set_coefficient(coefficient_table(*system_matrix.get_matrix_free()));
      system_matrix.initialize_dof_vector(rhs);

      FEEvaluation<3, degree> phi(*system_matrix.get_matrix_free());
      for (unsigned int cell = 0; cell < system_matrix.get_matrix_free()->n_cell_batches(); ++cell)
        {
          phi.reinit(cell);
          for (unsigned int q = 0; q < phi.n_q_points; ++q)
            {
              const Point<3, VectorizedArray<double>> x = phi.quadrature_point(q);
              VectorizedArray<double>                 f;
              for (unsigned int v = 0; v < VectorizedArray<double>::size(); ++v)
                f[v] = rhs_function(x[0][v], x[1][v], x[2][v]);
              phi.submit_value(f, q);
            }
          phi.integrate_scatter(EvaluationFlags::values, rhs);
        }
      rhs.compress(VectorOperation::add);
    }

    Vector
    new_vector() const
    {
      Vector v;
      system_matrix.initialize_dof_vector(v);
      return v;
    }

    /// step-37's multigrid (MGTransferMatrixFree, Chebyshev degree 5 range 15,
    /// Chebyshev coarse solve) with double levels; returns CG iterations.
    unsigned int
    solve_with_dealii_gmg(Vector &solution, const double reduction) const
    {
      using LevelMatrix = Operator<double>;
      using LevelVector = LinearAlgebra::distributed::Vector<double>;
      const unsigned int n_levels = triangulation.n_global_levels();

      MGConstrainedDoFs mg_constrained_dofs;
      mg_constrained_dofs.initialize(dof_handler);
      mg_constrained_dofs.make_zero_boundary_constraints(dof_handler, {0});
      MGLevelObject<LevelMatrix> mg_matrices(0, n_levels - 1);
      for (unsigned int level = 0; level < n_levels; ++level)
        {
          AffineConstraints<double> level_constraints;
          level_constraints.add_lines(mg_constrained_dofs.get_boundary_indices(level));
          level_constraints.close();
          mg_matrices[level].initialize(make_matrix_free<double>(dof_handler, level_constraints, level),
                                        mg_constrained_dofs,
                                        level);
          if (with_coefficient)
            mg_matrices[level].set_coefficient(coefficient_table(*mg_matrices[level].get_matrix_free()));
          mg_matrices[level].compute_diagonal();
        }

      MGTransferMatrixFree<3, double> mg_transfer(mg_constrained_dofs);
      mg_transfer.build(dof_handler);

      using Smoother = PreconditionChebyshev<LevelMatrix, LevelVector>;
      mg::SmootherRelaxation<Smoother, LevelVector>    mg_smoother;
      MGLevelObject<typename Smoother::AdditionalData> smoother_data(0, n_levels - 1);
      for (unsigned int level = 0; level < n_levels; ++level)
        {
          if (level > 0)
            {
              smoother_data[level].smoothing_range     = 15.;
              smoother_data[level].degree              = 5;
              smoother_data[level].eig_cg_n_iterations = 10;
            }
          else
            {
              smoother_data[0].smoothing_range     = 1e-3;
              smoother_data[0].degree              = numbers::invalid_unsigned_int;
              smoother_data[0].eig_cg_n_iterations = mg_matrices[0].m();
            }
          smoother_data[level].preconditioner = mg_matrices[level].get_matrix_diagonal_inverse();
        }
      mg_smoother.initialize(mg_matrices, smoother_data);
      MGCoarseGridApplySmoother<LevelVector> mg_coarse;
      mg_coarse.initialize(mg_smoother);
      mg::Matrix<LevelVector> mg_matrix(mg_matrices);
      MGLevelObject<MatrixFreeOperators::MGInterfaceOperator<LevelMatrix>> mg_interface_matrices(0, n_levels - 1);
      for (unsigned int level = 0; level < n_levels; ++level)
        mg_interface_matrices[level].initialize(mg_matrices[level]);
      mg::Matrix<LevelVector> mg_interface(mg_interface_matrices);
      Multigrid<LevelVector>  mg(mg_matrix, mg_coarse, mg_transfer, mg_smoother, mg_smoother);
      mg.set_edge_matrices(mg_interface, mg_interface);
      PreconditionMG<3, LevelVector, MGTransferMatrixFree<3, double>> preconditioner(dof_handler, mg, mg_transfer);

      SolverControl control(200, reduction * rhs.l2_norm());
      SolverCG<Vector> cg(control);
      solution = 0;
      cg.solve(system_matrix, solution, rhs, preconditioner);
      constraints.distribute(solution);
      return control.last_step();
    }
  };

  /// "yes" or "NO", as the .output files print a check.
  inline std::string
  yes_no(const bool condition)
  {
    return condition ? "yes" : "NO";
  }

  /// ‖a − b‖₂ / ‖b‖₂
  inline double
  relative_difference(const Vector &a, const Vector &b)
  {
    Vector d = a;
    d -= b;
    return d.l2_norm() / b.l2_norm();
  }
} // namespace test
