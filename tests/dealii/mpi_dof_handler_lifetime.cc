// dof_handler_lifetime on the ranks of a parallel::distributed::Triangulation:
// the front door (its distributed implementation), its vmult and its solve,
// used after the DoFHandler was destroyed throws cellwise::Error on every
// rank (the check is collective: no rank is left waiting in the cycle),
// instead of reading freed memory. A temporary DoFHandler is refused at
// compile time.

#include <cellwise/dealii/multigrid_preconditioner.h>

#include <deal.II/base/exceptions.h>
#include <deal.II/base/mpi.h>
#include <deal.II/distributed/tria.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/lac/la_parallel_vector.h>
#include <deal.II/lac/solver_control.h>

#include <fstream>
#include <memory>
#include <string>
#include <type_traits>

#include "collective_refusal.h"

namespace
{
  using namespace dealii;
  using cellwise::dealii::DealiiVector;
  using cellwise::dealii::MultigridPreconditioner;

  static_assert(!std::is_constructible_v<MultigridPreconditioner, DoFHandler<3> &&>);
  static_assert(std::is_constructible_v<MultigridPreconditioner, const DoFHandler<3> &>);

  /// Runs @p f; writes on how many ranks it threw cellwise::Error and rank
  /// 0's message (without the source location), or "ok" on every rank.
  template <typename F>
  void
  run(std::ostream &out, const std::string &what, const F &f)
  {
    const CollectiveRefusal refusal = collective_refusal(f);
    if (refusal.n_refused == 0)
      out << what << ": ok" << std::endl;
    else
      out << what << ": refused on " << refusal.where() << ": " << refusal.message << std::endl;
  }
} // namespace

int
main(int argc, char **argv)
{
  Utilities::MPI::MPI_InitFinalize mpi(argc, argv, 1);
  deal_II_exceptions::disable_abort_on_exception(); // debug deal.II: ExcInUse reported, not fatal
  const MPI_Comm comm = MPI_COMM_WORLD;
  std::ofstream  out;
  if (Utilities::MPI::this_mpi_process(comm) == 0)
    out.open("output");
  out << "temporaries refused at compile time: yes" << std::endl;

  parallel::distributed::Triangulation<3> tria(comm,
                                               Triangulation<3>::limit_level_difference_at_vertices,
                                               parallel::distributed::Triangulation<3>::construct_multigrid_hierarchy);
  GridGenerator::subdivided_hyper_rectangle(tria, {2, 1, 1}, Point<3>(0., 0., 0.), Point<3>(2., 1., 1.));
  tria.refine_global(2);
  const FE_Q<3> fe(2);
  auto          dof_handler = std::make_unique<DoFHandler<3>>(tria);
  dof_handler->distribute_dofs(fe);
  dof_handler->distribute_mg_dofs();

  const MultigridPreconditioner front_door(*dof_handler);
  DealiiVector                  src(dof_handler->locally_owned_dofs(), comm), dst(src), x(src);
  src = 1.;
  SolverControl control(100, 1e-8);
  out << front_door.describe() << std::endl;
  run(out, "MultigridPreconditioner::vmult, DoFHandler alive", [&] { front_door.vmult(dst, src); });
  run(out, "MultigridPreconditioner::solve, DoFHandler alive", [&] { front_door.solve(x, src, control); });

  dof_handler.reset();
  run(out, "MultigridPreconditioner::vmult", [&] { front_door.vmult(dst, src); });
  run(out, "MultigridPreconditioner::solve", [&] { front_door.solve(x, src, control); });
  return 0;
}
