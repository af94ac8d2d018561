#pragma once
/**
 * @file
 * The preconditioner of the masked DSS-Jacobi smoother (003 §3.3, §4):
 * P = D^{-1} S, dual → primal. S sums the copies (DSS), D^{-1} is the inverse
 * of the assembled diagonal stored per copy, with zeros folded in on masked
 * DoFs (Dirichlet; later the refinement edge), so that P r is continuous and
 * vanishes on them for any dual r.
 *
 * Operator is the level operator whose diagonal D is (LaplaceOperator, or
 * HermiteBiharmonicOperator for the C¹ element); S runs over the trace layers
 * it names (trace_layers()).
 */

#include <cellwise/mesh/level.h>
#include <cellwise/multigrid/interfaces.h>
#include <cellwise/operators/laplace_operator.h>
#include <cellwise/storage/cell_vector.h>
#include <cellwise/storage/dss.h>

namespace cellwise
{
  template <typename Number, typename Layout = CellContiguous, typename Operator = LaplaceOperator<Number, Layout>>
  class DssJacobiPreconditioner : public InPlacePreconditioner<CellVector<Number, MemorySpace::Host, Layout>>
  {
  public:
    using VectorType   = CellVector<Number, MemorySpace::Host, Layout>;
    using OperatorType = Operator;

    DssJacobiPreconditioner() = default;
    /// @p mask is 1 on free and 0 on masked copies.
    DssJacobiPreconditioner(const Level &level, const Operator &op, const VectorType &mask);
    /// The level is kept by reference: a temporary would dangle (@p op and
    /// @p mask are read here only).
    DssJacobiPreconditioner(const Level &&level, const Operator &op, const VectorType &mask) = delete;

    /// dst = D^{-1} S src
    void
    vmult(VectorType &dst, const VectorType &src) const;
    /// r ← S r in place: the DSS half of apply_in_place, for the step loops
    /// of the point smoothers, which apply D^{-1} inside the operator's
    /// smoother_step.
    void
    assemble(VectorType &r) const;
    /// r ← D^{-1} S r in place
    void
    apply_in_place(VectorType &r) const override;

    const VectorType &
    inverse_diagonal() const
    {
      return inverse_diagonal_;
    }

  private:
    const Level *level_ = nullptr;
    TraceLayers  layers_;
    /// The skeleton phase of the level's DSS (an unstructured mesh).
    DssSkeleton  skeleton_;
    VectorType   inverse_diagonal_;
  };
} // namespace cellwise
