// The front door used after the DoFHandler it was built for was destroyed
// throws cellwise::Error, naming the class and saying to build it again,
// instead of reading freed memory (numbering_fingerprint walked the freed
// DoFHandler: deal.II's SmartPointer only asserts in its debug build, and
// cellwise links the release one): its vmult and its solve, with either of
// the solvers it sets up on one rank (the uniform one on a globally refined
// mesh, local smoothing on a locally refined one). It watches the DoFHandler
// and its Triangulation through a subscription of its own
// (dealii/live_pointer.h). A temporary DoFHandler (or ImportedHierarchy, for
// the MG pieces) is refused at compile time; a temporary Mapping, only read
// at the set-up, is not.

#include <cellwise/dealii/mg_adapters.h>
#include <cellwise/dealii/multigrid_preconditioner.h>

#include "test_backend.h"

#include <deal.II/base/exceptions.h>
#include <deal.II/base/mpi.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/mapping_q1.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/grid/tria.h>
#include <deal.II/lac/la_parallel_vector.h>
#include <deal.II/lac/solver_control.h>

#include <fstream>
#include <memory>
#include <string>
#include <type_traits>

namespace
{
  using namespace dealii;
  using cellwise::dealii::DealiiVector;
  using cellwise::dealii::MultigridPreconditioner;
  using Params = cellwise::MultigridParameters;

  // kept: the DoFHandler; only read: the mapping
  static_assert(!std::is_constructible_v<MultigridPreconditioner, DoFHandler<3> &&>);
  static_assert(!std::is_constructible_v<MultigridPreconditioner, const Mapping<3> &, DoFHandler<3> &&, const Params &>);
  static_assert(std::is_constructible_v<MultigridPreconditioner, const DoFHandler<3> &, const Params &>);
  static_assert(std::is_constructible_v<MultigridPreconditioner, MappingQ1<3> &&, const DoFHandler<3> &>);
  static_assert(!std::is_constructible_v<MultigridPreconditioner, const Mapping<3> &, DoFHandler<3> &&>);
  static_assert(std::is_constructible_v<MultigridPreconditioner, const DoFHandler<3> &>);
  // kept: the imported hierarchy and the level transfer
  using Levels = cellwise::CellVector<float>;
  static_assert(!std::is_constructible_v<cellwise::dealii::MGTransfer<Levels>, cellwise::dealii::ImportedHierarchy &&,
                                         const cellwise::LevelTransfer<Levels> &>);
  static_assert(!std::is_constructible_v<cellwise::dealii::MGTransfer<Levels>, const cellwise::dealii::ImportedHierarchy &,
                                         cellwise::CellTransfer<float> &&>);
  static_assert(!std::is_constructible_v<cellwise::dealii::MultigridComponents<float>, const cellwise::dealii::ImportedHierarchy &&,
                                         const Params &>);
  static_assert(std::is_constructible_v<cellwise::dealii::MultigridComponents<float>, const cellwise::dealii::ImportedHierarchy &,
                                        const Params &>);

  /// A unit cube refined twice, with FE_Q(2) and level DoFs; with
  /// @p locally_refined one cell refined once more (hanging nodes).
  void
  make_mesh(Triangulation<3> &tria, const bool locally_refined = false)
  {
    GridGenerator::hyper_cube(tria);
    tria.refine_global(2);
    if (locally_refined)
      {
        tria.begin_active()->set_refine_flag();
        tria.execute_coarsening_and_refinement();
      }
  }
  std::unique_ptr<DoFHandler<3>>
  make_dofs(const Triangulation<3> &tria, const FE_Q<3> &fe)
  {
    auto dof_handler = std::make_unique<DoFHandler<3>>(tria);
    dof_handler->distribute_dofs(fe);
    dof_handler->distribute_mg_dofs();
    return dof_handler;
  }

  /// Runs @p f and writes "<what>: ok" or the cellwise::Error it threw
  /// (without the source location).
  template <typename F>
  void
  run(std::ostream &out, const std::string &what, const F &f)
  {
    try
      {
        f();
        out << what << ": ok" << std::endl;
      }
    catch (const cellwise::Error &e)
      {
        std::string message = e.what();
        message             = message.substr(0, message.rfind(" ["));
        out << what << ": refused: " << message << std::endl;
      }
  }
} // namespace

int
main(int argc, char **argv)
{
  Utilities::MPI::MPI_InitFinalize mpi(argc, argv, 1);
  test::backend(); // stops here where the asked backend cannot run
  // In a debug build of deal.II, destroying a DoFHandler that a solver
  // still watches raises ExcInUse (as with a SmartPointer): report it, do
  // not abort. The release build (what cellwise links) says nothing there.
  deal_II_exceptions::disable_abort_on_exception();
  std::ofstream out("output");
  out << "temporaries refused at compile time: yes" << std::endl;

  const FE_Q<3> fe(2);
  const Params  parameters = test::parameters();

  // the DoFHandler destroyed, its triangulation alive: the uniform solver,
  // and local smoothing on a mesh with hanging nodes
  for (const bool locally_refined : {false, true})
    {
      const std::string mesh = locally_refined ? " (locally refined)" : "";
      Triangulation<3>  tria(Triangulation<3>::limit_level_difference_at_vertices);
      make_mesh(tria, locally_refined);
      auto                          dof_handler = make_dofs(tria, fe);
      const MultigridPreconditioner preconditioner(*dof_handler, parameters);
      DealiiVector                  src(dof_handler->n_dofs()), dst(dof_handler->n_dofs()), x(dof_handler->n_dofs());
      src = 1.;
      SolverControl control(100, 1e-8);
      run(out, "MultigridPreconditioner::vmult" + mesh + ", DoFHandler alive", [&] { preconditioner.vmult(dst, src); });
      run(out, "MultigridPreconditioner::solve" + mesh + ", DoFHandler alive", [&] { preconditioner.solve(x, src, control); });
      dof_handler.reset();
      run(out, "MultigridPreconditioner::vmult" + mesh, [&] { preconditioner.vmult(dst, src); });
      run(out, "MultigridPreconditioner::solve" + mesh, [&] { preconditioner.solve(x, src, control); });
    }

  // the DoFHandler and its triangulation gone with the scope that made them
  {
    std::unique_ptr<const MultigridPreconditioner> preconditioner;
    std::unique_ptr<DealiiVector>                  src, dst;
    {
      Triangulation<3> tria;
      make_mesh(tria);
      const auto dof_handler = make_dofs(tria, fe);
      preconditioner         = std::make_unique<const MultigridPreconditioner>(MappingQ1<3>(), *dof_handler, parameters);
      src                    = std::make_unique<DealiiVector>(dof_handler->n_dofs());
      dst                    = std::make_unique<DealiiVector>(dof_handler->n_dofs());
      *src                   = 1.;
    }
    run(out, "MultigridPreconditioner::vmult after the scope", [&] { preconditioner->vmult(*dst, *src); });
  }
  return 0;
}
