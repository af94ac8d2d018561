#include <cellwise/dealii/multigrid_preconditioner.h>
#include <cellwise/dealii/vector_transfer.h>

#include <deal.II/lac/la_parallel_vector.h>

namespace cellwise::dealii
{
  MultigridPreconditioner::MultigridPreconditioner(const ::dealii::DoFHandler<3, 3> &dof_handler,
                                                   const MultigridParameters        &parameters,
                                                   std::ostream                     *log)
    : dof_handler_(&dof_handler, "cellwise::dealii::MultigridPreconditioner")
    , solver_(dof_handler, parameters, log)
  {}

  void
  MultigridPreconditioner::vmult(DealiiVector &dst, const DealiiVector &src) const
  {
    CELLWISE_CHECK(&dst != &src, "cellwise::dealii::MultigridPreconditioner::vmult: dst and src must be different vectors");
    const ImportedHierarchy &imported = solver_.imported();
    check_numbering_unchanged(imported, *dof_handler_, "cellwise::dealii::MultigridPreconditioner::vmult");
    const DofMap      &map = imported.active_dofs.back();
    CellVector<double> r, z;
    scatter_balanced(map, src, r);
    solver_.solver().precondition(z, r);
    dst = 0;
    gather_mean_add(map, z, dst);
  }
} // namespace cellwise::dealii
