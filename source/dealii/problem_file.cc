#include <cellwise/dealii/import.h>
#include <cellwise/dealii/problem_file.h>
#include <cellwise/dealii/vector_transfer.h>
#include <cellwise/multigrid/adaptive_v_cycle.h>
#include <cellwise/operators/laplace_operator.h>

#include <deal.II/dofs/dof_handler.h>
#include <deal.II/fe/mapping_q1.h>
#include <deal.II/lac/la_parallel_vector.h>

namespace cellwise::dealii
{
  // Without a mapping: MappingQ1, as import_dof_handler(dof_handler) takes it.
  Problem
  make_problem(const ::dealii::DoFHandler<3, 3> &dof_handler,
               const DealiiVector               &rhs,
               const DealiiVector               &solution,
               const std::vector<unsigned int>  &dirichlet_ids,
               const std::string                &description,
               const ScalarFunction             &coefficient)
  {
    return make_problem(::dealii::StaticMappingQ1<3, 3>::mapping, dof_handler, rhs, solution, dirichlet_ids, description,
                        coefficient);
  }

  Problem
  make_problem(const ::dealii::Mapping<3, 3>    &mapping,
               const ::dealii::DoFHandler<3, 3> &dof_handler,
               const DealiiVector               &rhs,
               const DealiiVector               &solution,
               const std::vector<unsigned int>  &dirichlet_ids,
               const std::string                &description,
               const ScalarFunction             &coefficient)
  {
    const ImportedHierarchy imported = import_dof_handler(mapping, dof_handler);
    const LevelHierarchy   &h        = imported.hierarchy;
    Problem                 problem;
    problem.degree          = imported.degree;
    problem.dirichlet_ids   = dirichlet_ids;
    problem.description     = description;
    problem.locally_refined = h.n_active_cells() != h.levels.back().n_cells();
    // the right-hand side as the fast entry points scatter it, the solution
    // as they gather the initial guess
    if (problem.locally_refined)
      {
        const ActiveMesh mesh = make_active_mesh(h);
        const DofMap     map  = make_active_mesh_map(imported, mesh);
        scatter_balanced(map, rhs, problem.rhs);
        gather(map, solution, problem.solution);
        if (coefficient)
          problem.cell_coefficients = cell_coefficient_averages(mesh.level, imported.degree, coefficient);
      }
    else
      {
        const DofMap &map = imported.active_dofs.back();
        scatter_balanced(map, rhs, problem.rhs);
        gather(map, solution, problem.solution);
        if (coefficient)
          problem.cell_coefficients = cell_coefficient_averages(h.levels.back(), imported.degree, coefficient);
      }
    problem.hierarchy = h;
    return problem;
  }

  void
  write_problem_file(const std::string               &filename,
                     const ::dealii::DoFHandler<3, 3> &dof_handler,
                     const DealiiVector              &rhs,
                     const DealiiVector              &solution,
                     const std::vector<unsigned int> &dirichlet_ids,
                     const std::string               &description,
                     const ScalarFunction            &coefficient)
  {
    write_problem_file(filename, ::dealii::StaticMappingQ1<3, 3>::mapping, dof_handler, rhs, solution, dirichlet_ids,
                       description, coefficient);
  }

  void
  write_problem_file(const std::string               &filename,
                     const ::dealii::Mapping<3, 3>   &mapping,
                     const ::dealii::DoFHandler<3, 3> &dof_handler,
                     const DealiiVector              &rhs,
                     const DealiiVector              &solution,
                     const std::vector<unsigned int> &dirichlet_ids,
                     const std::string               &description,
                     const ScalarFunction            &coefficient)
  {
    ::cellwise::write_problem_file(filename,
                                   make_problem(mapping, dof_handler, rhs, solution, dirichlet_ids, description, coefficient));
  }
} // namespace cellwise::dealii
