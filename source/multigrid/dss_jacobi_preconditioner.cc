#include <cellwise/multigrid/dss_jacobi_preconditioner.h>
#include <cellwise/operators/hermite_biharmonic_operator.h>
#include <cellwise/storage/dss.h>

namespace cellwise
{
  template <typename Number, typename Layout, typename Operator>
  DssJacobiPreconditioner<Number, Layout, Operator>::DssJacobiPreconditioner(const Level      &level,
                                                                             const Operator   &op,
                                                                             const VectorType &mask)
    : level_(&level)
    , layers_(op.trace_layers())
  {
    CELLWISE_CHECK(op.n_cells() == level.n_cells(),
                   "Jacobi: operator of " << op.n_cells() << " cells on a level of " << level.n_cells());
    if (level.has_skeleton()) // built once: the skeleton phase of every DSS here
      {
        CELLWISE_CHECK(layers_.n_layers == 1, "Jacobi: an unstructured mesh takes FE_Q only");
        skeleton_ = DssSkeleton(level, layers_.n_1d - 1);
      }
    op.compute_cell_diagonals(inverse_diagonal_);
    inverse_diagonal_.check_compatible(mask);
    assemble(inverse_diagonal_);
    for (unsigned int cell = 0; cell < inverse_diagonal_.n_cells(); ++cell)
      for (unsigned int i = 0; i < inverse_diagonal_.dofs_per_cell(); ++i)
        {
          Number &d = inverse_diagonal_(cell, i);
          CELLWISE_CHECK(d > 0, "assembled diagonal entry " << d << " at cell " << cell << ", DoF " << i << " is not positive");
          d = mask(cell, i) != Number(0) ? Number(1) / d : Number(0);
        }
  }

  template <typename Number, typename Layout, typename Operator>
  void
  DssJacobiPreconditioner<Number, Layout, Operator>::apply_in_place(VectorType &r) const
  {
    assemble(r);
    r.scale(inverse_diagonal_);
  }

  template <typename Number, typename Layout, typename Operator>
  void
  DssJacobiPreconditioner<Number, Layout, Operator>::assemble(VectorType &r) const
  {
    if (level_->has_skeleton())
      apply_dss(*level_, skeleton_, r, DssMode::sum);
    else
      apply_dss(*level_, r, DssMode::sum, layers_);
  }

  template <typename Number, typename Layout, typename Operator>
  void
  DssJacobiPreconditioner<Number, Layout, Operator>::vmult(VectorType &dst, const VectorType &src) const
  {
    dst = src;
    apply_in_place(dst);
  }

  CELLWISE_INSTANTIATE_NUMBERS_AND_LAYOUTS(DssJacobiPreconditioner)
  CELLWISE_INSTANTIATE_NUMBERS_AND_LAYOUTS_OF_OPERATOR(DssJacobiPreconditioner, HermiteBiharmonicOperator)
} // namespace cellwise
