#pragma once
/**
 * @file
 * LevelOperator: the interface of a cell-wise operator of one level, as the
 * V-cycle, the smoothers and the outer iterations (multigrid/interfaces.h) see
 * it. A template over the vector type, implemented by the host and the CUDA
 * Laplace operators.
 */

namespace cellwise
{
  /// The cell-wise operator of one level: input primal, output dual.
  template <typename VectorType>
  class LevelOperator
  {
  public:
    virtual ~LevelOperator() = default;
    /// dst = A src
    virtual void
    vmult(VectorType &dst, const VectorType &src) const = 0;
    /// dst = b − A u in one pass
    virtual void
    residual(VectorType &dst, const VectorType &b, const VectorType &u) const = 0;
    /// dst = mask ∘ (A src): the outer iterations' operator output with the
    /// Dirichlet entries zeroed (a backend may fold the mask into its pass;
    /// the result must equal this composition bit for bit).
    virtual void
    masked_vmult(VectorType &dst, const VectorType &src, const VectorType &mask) const
    {
      vmult(dst, src);
      dst.scale(mask);
    }
    /// dst = mask ∘ (A src) as masked_vmult, and the pairing ⟨src, dst⟩ (CG's
    /// ⟨p, A p⟩). A backend may form the pairing in the operator's pass,
    /// which saves reading both vectors again; dst is then the same bit for
    /// bit, the pairing the same sum in another order.
    virtual double
    masked_vmult_dot(VectorType &dst, const VectorType &src, const VectorType &mask) const
    {
      masked_vmult(dst, src, mask);
      return src.dot(dst);
    }
    /// dst = mask ∘ (b − A u), as masked_vmult.
    virtual void
    masked_residual(VectorType &dst, const VectorType &b, const VectorType &u, const VectorType &mask) const
    {
      residual(dst, b, u);
      dst.scale(mask);
    }
  };
} // namespace cellwise
