#pragma once
/**
 * @file
 * The constant null space of the pure Neumann Laplacian on cell-wise storage.
 *
 * Without a Dirichlet boundary the assembled Laplacian A is singular: A 1 = 0
 * for the vector 1 of ones over the N unique DoFs. A u = b has a solution only
 * for 1ᵀ b = 0, and then one per constant. On cell-wise storage the dual b
 * (the copies of DoF j sum to b_j) is made compatible by subtracting
 * (Σ b / N) w, where w holds 1/valence_j on every copy of DoF j (its copies
 * sum to 1, so Σ w = N); the primal u (every copy holds u_j) gets the
 * normalization of deal.II's VectorTools::subtract_mean_value, the mean over
 * the unique DoFs Σ_j u_j / N = ⟨u, w⟩ / N subtracted.
 */

#include <cellwise/mesh/level.h>
#include <cellwise/storage/cell_vector.h>

namespace cellwise
{
  template <typename Number, typename Layout = CellContiguous>
  class ConstantNullSpace
  {
  public:
    using VectorType = CellVector<Number, MemorySpace::Host, Layout>;

    /// The weights w of @p level for FE_Q(@p degree) (one DSS).
    ConstantNullSpace(const Level &level, unsigned int degree);

    /// Number of unique DoFs N.
    double
    n_dofs() const
    {
      return n_dofs_;
    }

    /// 1ᵀ b of the dual @p b: the sum of all its copies.
    double
    dual_sum(const VectorType &b) const;

    /// b ← b − (1ᵀ b / N) w: the dual made compatible (1ᵀ b = 0).
    void
    make_compatible(VectorType &b) const;

    /// u ← u − (Σ_j u_j / N): the primal u with zero mean over the DoFs.
    void
    subtract_mean(VectorType &u) const;

  private:
    VectorType weights_;
    double     n_dofs_ = 0;
  };
} // namespace cellwise
