// Coarse solvers of large coarse levels: per degree and coarse mesh size the
// set-up and solve times of CG preconditioned by the level smoother (the
// automatic choice above automatic_cholesky_max_dofs) and of deal.II's
// Trilinos AMG on the assembled matrix (CoarseSolverType::amg), both to a
// reduction of 1e-3, with their iterations; the dense Cholesky where it is
// small enough to try. The coarse mesh is the unit cube in n³ coarse cells,
// each its own block (every inner face a skeleton face, as on an
// unstructured mesh), vertices moved at random by up to 0.15 of a cell.
// A table, not pass/fail.
//
//   cellwise-benchmark-coarse-solvers [max cells per axis = 22] [max degree = 4]

#include <cellwise/dealii/amg_coarse_solver.h>
#include <cellwise/mesh/unstructured_builder.h>
#include <cellwise/multigrid/coarse_solvers.h>
#include <cellwise/multigrid/level_smoothers.h>
#include <cellwise/multigrid/multigrid_solver.h>
#include <cellwise/operators/laplace_operator.h>
#include <cellwise/storage/dirichlet_mask.h>

#include <deal.II/base/mpi.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace
{
  /// The unit cube in n³ cells with its inner vertices moved at random.
  cellwise::CoarseMesh
  make_perturbed_cube(const unsigned int n)
  {
    cellwise::CoarseMesh                   mesh;
    std::mt19937                           random(42);
    std::uniform_real_distribution<double> shift(-0.15 / n, 0.15 / n);
    const auto                             vertex = [n](unsigned int i, unsigned int j, unsigned int k) {
      return i + (n + 1) * (j + (n + 1) * k);
    };
    for (unsigned int k = 0; k <= n; ++k)
      for (unsigned int j = 0; j <= n; ++j)
        for (unsigned int i = 0; i <= n; ++i)
          {
            cellwise::Point x{{double(i) / n, double(j) / n, double(k) / n}};
            const unsigned int index[3] = {i, j, k};
            for (unsigned int d = 0; d < 3; ++d)
              if (index[d] > 0 && index[d] < n)
                x[d] += shift(random);
            mesh.vertices.push_back(x);
          }
    for (unsigned int k = 0; k < n; ++k)
      for (unsigned int j = 0; j < n; ++j)
        for (unsigned int i = 0; i < n; ++i)
          {
            std::array<unsigned int, 8> cell;
            for (unsigned int c = 0; c < 8; ++c)
              cell[c] = vertex(i + (c & 1), j + (c >> 1 & 1), k + (c >> 2 & 1));
            mesh.cells.push_back(cell);
          }
    return mesh;
  }

  double
  seconds_since(const std::chrono::steady_clock::time_point start)
  {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }

  /// Median of three solves of @p solver with right-hand side @p b.
  template <typename Solver>
  double
  solve_time(const Solver &solver, const cellwise::CellVector<double> &b)
  {
    cellwise::CellVector<double> u;
    double                       times[3];
    for (double &t : times)
      {
        const auto start = std::chrono::steady_clock::now();
        solver.solve(u, b);
        t = seconds_since(start);
      }
    std::sort(times, times + 3);
    return times[1];
  }
} // namespace

int
main(int argc, char **argv)
{
  ::dealii::Utilities::MPI::MPI_InitFinalize mpi(argc, argv, ::dealii::numbers::invalid_unsigned_int); // Trilinos needs MPI
  const unsigned int                         max_n      = argc > 1 ? std::stoul(argv[1]) : 22;
  const unsigned int                         max_degree = argc > 2 ? std::stoul(argv[2]) : 4;
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  if (!cellwise::dealii::amg_coarse_solver_available())
    {
      std::printf("deal.II has no Trilinos here: no AMG to compare\n");
      return 0;
    }
  std::vector<unsigned int> sizes; // 4, 8, 16 and max_n cells per axis
  for (const unsigned int n : {4u, 8u, 16u})
    if (n < max_n)
      sizes.push_back(n);
  sizes.push_back(max_n);
  std::printf("coarse solvers to a reduction of 1e-3, times in seconds (solve: median of 3)\n\n");
  std::printf("%2s %6s %8s %9s | %-22s | %-22s | %-12s\n", "p", "cells", "DoFs", "free", "CG + Chebyshev: set-up", "Trilinos AMG: set-up",
              "Cholesky");
  std::printf("%2s %6s %8s %9s | %8s %8s %4s | %8s %8s %4s | %5s %6s\n", "", "", "", "", "set-up", "solve", "its", "set-up", "solve",
              "its", "setup", "solve");
  for (unsigned int degree = 1; degree <= max_degree; ++degree)
    for (const unsigned int n : sizes)
      {
        const cellwise::LevelHierarchy hierarchy = cellwise::make_unstructured_hierarchy(make_perturbed_cube(n), 0, 1);
        const cellwise::Level         &level     = hierarchy.level(0);
        const std::size_t              n_dofs    = std::size_t(n * degree + 1) * (n * degree + 1) * (n * degree + 1);
        if (n_dofs > 2500000)
          continue;
        cellwise::MultigridParameters parameters; // Chebyshev, as in the tests
        const auto                    op   = std::make_shared<cellwise::LaplaceOperator<double>>(level, degree);
        const auto                    mask = cellwise::make_dirichlet_mask<double>(level, degree, {0});
        cellwise::CellVector<double>  b(level.n_cells(), degree);
        std::mt19937                  random(7);
        std::uniform_real_distribution<double> value(-1., 1.);
        for (unsigned int c = 0; c < b.n_cells(); ++c)
          for (unsigned int i = 0; i < b.dofs_per_cell(); ++i)
            b(c, i) = value(random) * mask(c, i);

        auto                                       start = std::chrono::steady_clock::now();
        const cellwise::CgCoarseSolver<cellwise::CellVector<double>> cg(
          op, cellwise::make_level_smoother(level, *op, mask, parameters), mask, false);
        const double cg_setup = seconds_since(start), cg_solve = solve_time(cg, b);

        start = std::chrono::steady_clock::now();
        const cellwise::dealii::AmgCoarseSolver<double> amg(level, *op, mask);
        const double amg_setup = seconds_since(start), amg_solve = solve_time(amg, b);

        std::printf("%2u %6u %8zu %9u | %8.3f %8.3f %4u | %8.3f %8.3f %4u", degree, level.n_cells(), n_dofs, amg.n_free_dofs(), cg_setup,
                    cg_solve, cg.last_iterations(), amg_setup, amg_solve, amg.last_iterations());
        if (amg.n_free_dofs() <= 6000)
          {
            start = std::chrono::steady_clock::now();
            const cellwise::CholeskyCoarseSolver<double> cholesky(level, *op, mask);
            const double                                 cholesky_setup = seconds_since(start);
            std::printf(" | %5.2f %6.4f\n", cholesky_setup, solve_time(cholesky, b));
          }
        else
          std::printf(" |     -      -\n");
      }
  return 0;
}
