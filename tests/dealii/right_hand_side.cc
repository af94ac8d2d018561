// The front door's load vector, MultigridPreconditioner::
// assemble_right_hand_side, against deal.II's own: an FEValues loop over the
// locally owned cells with the same Gauss rule and mapping, summed into
// deal.II's DoFs (compress on several ranks), the Dirichlet DoFs set to
// zero. The function is not a polynomial (the two agree only where both
// integrate at the same points with the same weights and Jacobians). The
// meshes: a colorized box (Dirichlet on two of its faces; Q2 and Q3, the
// rule p + 1 and the default p + 2), the unit cube refined locally around
// a corner (hanging nodes: both leave the hanging DoFs their own load), and
// on one rank the ball with MappingQ(2) (curved cells; on several ranks the
// front door takes boxes only). Then the solve from the front door's load
// vector equals the solve from deal.II's. Also: a vector of another size,
// a rule of 100 points per direction and a function of two components are
// refused (on several ranks the size check is the collective one of the
// locally owned range).

#include <cellwise/dealii/multigrid_preconditioner.h>

#include <deal.II/base/function.h>
#include <deal.II/base/mpi.h>
#include <deal.II/base/quadrature_lib.h>
#include <deal.II/distributed/tria.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_values.h>
#include <deal.II/fe/mapping_q.h>
#include <deal.II/fe/mapping_q1.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/lac/la_parallel_vector.h>
#include <deal.II/lac/solver_control.h>

#include <cmath>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "collective_refusal.h"
#include "test_backend.h"

using namespace dealii;

namespace
{
  using Vector = LinearAlgebra::distributed::Vector<double>;

  class Load : public Function<3>
  {
  public:
    double
    value(const Point<3> &p, const unsigned int = 0) const override
    {
      return 1. + std::sin(2. * p[0]) * std::exp(p[1]) + p[2] * p[2] * p[0];
    }
  };

  /// deal.II's load vector: ∫ f φ_j on the locally owned cells with
  /// QGauss(n_q), zero on the Dirichlet DoFs of @p ids.
  void
  dealii_load(const Mapping<3>                  &mapping,
              const DoFHandler<3>               &dof_handler,
              const unsigned int                 n_q,
              const std::set<types::boundary_id> &ids,
              Vector                            &rhs)
  {
    const Load    f;
    FEValues<3>   fe_values(mapping, dof_handler.get_fe(), QGauss<3>(n_q),
                          update_values | update_quadrature_points | update_JxW_values);
    const auto    n = dof_handler.get_fe().n_dofs_per_cell();
    std::vector<types::global_dof_index> dofs(n);
    rhs = 0.;
    for (const auto &cell : dof_handler.active_cell_iterators())
      if (cell->is_locally_owned())
        {
          fe_values.reinit(cell);
          cell->get_dof_indices(dofs);
          for (unsigned int i = 0; i < n; ++i)
            {
              double sum = 0;
              for (unsigned int q = 0; q < fe_values.n_quadrature_points; ++q)
                sum += f.value(fe_values.quadrature_point(q)) * fe_values.shape_value(i, q) * fe_values.JxW(q);
              rhs(dofs[i]) += sum;
            }
        }
    rhs.compress(VectorOperation::add);
    const IndexSet boundary = DoFTools::extract_boundary_dofs(dof_handler, ComponentMask(), ids);
    for (const auto j : boundary)
      if (rhs.locally_owned_elements().is_element(j))
        rhs(j) = 0.;
  }

  /// Compares the two load vectors and the solves from them; one line.
  void
  check(const std::string                   &name,
        const Mapping<3>                    &mapping,
        const DoFHandler<3>                 &dof_handler,
        const std::vector<unsigned int>     &dirichlet_ids,
        const unsigned int                   n_q_points,
        std::ostream                        &out)
  {
    const MPI_Comm comm = dof_handler.get_communicator();
    const IndexSet owned = dof_handler.locally_owned_dofs(), relevant = DoFTools::extract_locally_relevant_dofs(dof_handler);
    cellwise::MultigridParameters parameters = test::parameters(); // the solves on CELLWISE_TEST_BACKEND's backend
    parameters.dirichlet_ids                 = dirichlet_ids;
    const cellwise::dealii::MultigridPreconditioner mg(mapping, dof_handler, parameters);

    Vector ours(owned, relevant, comm), theirs(owned, relevant, comm);
    mg.assemble_right_hand_side(Load(), ours, n_q_points);
    const std::set<types::boundary_id> ids(dirichlet_ids.begin(), dirichlet_ids.end());
    dealii_load(mapping, dof_handler, n_q_points == 0 ? dof_handler.get_fe().degree + 2 : n_q_points, ids, theirs);

    Vector difference(owned, comm);
    difference.copy_locally_owned_data_from(ours);
    difference -= theirs;
    const double relative = difference.linfty_norm() / theirs.linfty_norm();
    // the ghosts of a ghosted vector are updated: those of a DoF on another
    // rank's cell equal the owner's value
    Vector owner_values(owned, relevant, comm);
    owner_values.copy_locally_owned_data_from(theirs);
    owner_values.update_ghost_values();
    double ghost_difference = 0;
    for (const auto j : relevant)
      ghost_difference = std::max(ghost_difference, std::abs(ours(j) - owner_values(j)));
    ghost_difference = Utilities::MPI::max(ghost_difference, comm) / theirs.linfty_norm();

    // the solves from the two agree
    SolverControl control_ours(100, 1e-12 * theirs.l2_norm()), control_theirs(100, 1e-12 * theirs.l2_norm());
    Vector        u_ours(owned, comm), u_theirs(owned, comm);
    mg.solve(u_ours, ours, control_ours);
    mg.solve(u_theirs, theirs, control_theirs);
    u_ours -= u_theirs;
    const double solution_difference = u_ours.linfty_norm() / u_theirs.linfty_norm();

    out << name << ", " << dof_handler.n_dofs() << " DoFs, " << (n_q_points == 0 ? dof_handler.get_fe().degree + 2 : n_q_points)
        << " points per direction: deal.II's load vector to 1e-13: " << (relative < 1e-13 ? "yes" : "NO")
        << ", ghosts the owners' values: " << (ghost_difference < 1e-13 ? "yes" : "NO")
        << ", solutions to 1e-12: " << (solution_difference < 1e-12 ? "yes" : "NO") << ", " << control_ours.last_step()
        << " iterations" << std::endl;
  }

  template <typename What>
  void
  expect_refusal(const char *name, const What &what, std::ostream &out)
  {
    const CollectiveRefusal refusal = collective_refusal(what);
    out << name << ": refused on " << refusal.where() << std::endl << "  " << refusal.message << std::endl;
  }
} // namespace

int
main(int argc, char **argv)
{
  Utilities::MPI::MPI_InitFinalize mpi(argc, argv, 1);
  test::backend(); // stops at once where the backend cannot run
  const MPI_Comm                   comm = MPI_COMM_WORLD;
  const bool                       one_rank = Utilities::MPI::n_mpi_processes(comm) == 1;
  std::ofstream                    file(Utilities::MPI::this_mpi_process(comm) == 0 ? "output" : "/dev/null");
  const MappingQ1<3>               mapping;

  for (const unsigned int degree : {2u, 3u})
    for (const unsigned int n_q : {degree + 1, 0u})
      {
        parallel::distributed::Triangulation<3> tria(comm, Triangulation<3>::limit_level_difference_at_vertices,
                                                     parallel::distributed::Triangulation<3>::construct_multigrid_hierarchy);
        GridGenerator::subdivided_hyper_rectangle(tria, {2, 1, 1}, Point<3>(0, 0, 0), Point<3>(2, 1.2, 0.8), true);
        tria.refine_global(2);
        const FE_Q<3> fe(degree);
        DoFHandler<3> dof_handler(tria);
        dof_handler.distribute_dofs(fe);
        check("Q" + std::to_string(degree) + ", 2 x 1 x 1 box, Dirichlet ids 0 3", mapping, dof_handler, {0, 3}, n_q, file);
      }

  {
    parallel::distributed::Triangulation<3> tria(comm, Triangulation<3>::limit_level_difference_at_vertices,
                                                 parallel::distributed::Triangulation<3>::construct_multigrid_hierarchy);
    GridGenerator::hyper_cube(tria, 0., 1.);
    tria.refine_global(2);
    for (unsigned int step = 0; step < 2; ++step)
      {
        for (const auto &cell : tria.active_cell_iterators())
          if (cell->is_locally_owned() && cell->center().norm() < 0.45)
            cell->set_refine_flag();
        tria.execute_coarsening_and_refinement();
      }
    const FE_Q<3> fe(2);
    DoFHandler<3> dof_handler(tria);
    dof_handler.distribute_dofs(fe);
    check("Q2, unit cube refined locally at a corner (hanging nodes)", mapping, dof_handler, {}, 0, file);

    LinearAlgebra::distributed::Vector<double> wrong_size(10);
    const cellwise::dealii::MultigridPreconditioner mg(mapping, dof_handler, test::parameters());
    expect_refusal("a vector of another size", [&] { mg.assemble_right_hand_side(Load(), wrong_size); }, file);
    LinearAlgebra::distributed::Vector<double> rhs(dof_handler.locally_owned_dofs(), comm);
    expect_refusal("a rule of 100 points per direction", [&] { mg.assemble_right_hand_side(Load(), rhs, 100); }, file);
    expect_refusal("a function of two components",
                   [&] { mg.assemble_right_hand_side(Functions::ConstantFunction<3>(1., 2), rhs); }, file);
  }

  if (one_rank)
    {
      Triangulation<3> tria(Triangulation<3>::limit_level_difference_at_vertices);
      GridGenerator::hyper_ball(tria);
      tria.refine_global(1);
      const FE_Q<3>     fe(2);
      const MappingQ<3> curved(2);
      DoFHandler<3>     dof_handler(tria);
      dof_handler.distribute_dofs(fe);
      check("Q2, ball, MappingQ(2)", curved, dof_handler, {}, 3, file);
    }
  else
    file << "Q2, ball, MappingQ(2): on one rank only" << std::endl;
}
