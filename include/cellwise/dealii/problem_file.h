#pragma once
/**
 * @file
 * A deal.II problem as a problem file (storage/problem_file.h), so that the
 * core can solve it where deal.II is not installed (the GPU machine):
 * `cellwise-poisson --problem-file F [--backend cuda]`.
 */

#include <cellwise/dealii/import.h>
#include <cellwise/dealii/solver.h>
#include <cellwise/storage/problem_file.h>

#include <string>
#include <vector>

namespace cellwise::dealii
{
  /**
   * The problem of @p dof_handler (imported as import_dof_handler() does:
   * FE_Q(p) with level DoFs, MappingQ1) with deal.II's load vector
   * @p rhs (zero on constrained DoFs, or the plain load vector on a locally
   * refined mesh, as the fast entry points take it) and deal.II's solution
   * @p solution, homogeneous Dirichlet conditions on @p dirichlet_ids (empty:
   * every boundary face). A locally refined mesh gives a problem for the
   * adaptive solvers (vectors on the active cells). With @p coefficient
   * (e.g. to_scalar_function of a deal.II Function) the file stores its
   * average over every cell of the vectors, as the cell-wise operator takes
   * it (cell_coefficient_averages).
   */
  Problem
  make_problem(const ::dealii::DoFHandler<3, 3>  &dof_handler,
               const DealiiVector               &rhs,
               const DealiiVector               &solution,
               const std::vector<unsigned int>  &dirichlet_ids = {},
               const std::string                &description   = "",
               const ScalarFunction             &coefficient   = {});

  /**
   * The same with the program's @p mapping, imported as
   * import_dof_handler(mapping, dof_handler) does: on a coarse mesh that is
   * not a lattice of boxes (hyper_ball, hyper_shell, a distorted box) the
   * file carries every level's cell mapping (the support points of
   * @p mapping) and the skeleton faces between the coarse cells' blocks
   * (problem file version 3), so that the core solves the problem deal.II
   * solved with that mapping. A coefficient per cell goes with box cells
   * only (refused otherwise).
   */
  Problem
  make_problem(const ::dealii::Mapping<3, 3>    &mapping,
               const ::dealii::DoFHandler<3, 3> &dof_handler,
               const DealiiVector               &rhs,
               const DealiiVector               &solution,
               const std::vector<unsigned int>  &dirichlet_ids = {},
               const std::string                &description   = "",
               const ScalarFunction             &coefficient   = {});

  /// make_problem() written to @p filename.
  void
  write_problem_file(const std::string               &filename,
                     const ::dealii::DoFHandler<3, 3> &dof_handler,
                     const DealiiVector              &rhs,
                     const DealiiVector              &solution,
                     const std::vector<unsigned int> &dirichlet_ids = {},
                     const std::string               &description   = "",
                     const ScalarFunction            &coefficient   = {});

  /// make_problem() with the program's @p mapping written to @p filename.
  void
  write_problem_file(const std::string               &filename,
                     const ::dealii::Mapping<3, 3>   &mapping,
                     const ::dealii::DoFHandler<3, 3> &dof_handler,
                     const DealiiVector              &rhs,
                     const DealiiVector              &solution,
                     const std::vector<unsigned int> &dirichlet_ids = {},
                     const std::string               &description   = "",
                     const ScalarFunction            &coefficient   = {});
} // namespace cellwise::dealii
