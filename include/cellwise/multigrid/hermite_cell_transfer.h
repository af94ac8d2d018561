#pragma once
/**
 * @file
 * Cell-wise transfers of the C¹ cubic Hermite element between consecutive
 * levels (host backend; 001 §3.1, doc/hermite.md). In the stored physical
 * derivative DoFs,
 *
 *   child = S_child⁻¹ (P_{c_z} ⊗ P_{c_y} ⊗ P_{c_x}) S_parent parent,
 *
 * P_c the reference Hermite prolongation (values of the parent polynomial at
 * the child's vertices, reference derivatives scaled by the width ratio 1/2)
 * and S the scaling to reference derivatives of each cell's widths. The
 * restriction of the unassembled child residual is the transpose, summed over
 * the children into the parent, with b − A u formed inside (fused), as
 * CellTransfer does for FE_Q (same sum-factorized kernels).
 */

#include <cellwise/mesh/level.h>
#include <cellwise/multigrid/interfaces.h>
#include <cellwise/storage/cell_vector.h>

#include <array>

namespace cellwise
{
  template <typename Number, typename Layout = CellContiguous>
  class HermiteCellTransfer : public LevelTransfer<CellVector<Number, MemorySpace::Host, Layout>>
  {
  public:
    using VectorType = CellVector<Number, MemorySpace::Host, Layout>;

    HermiteCellTransfer() = default;
    explicit HermiteCellTransfer(const LevelHierarchy &hierarchy);
    /// The hierarchy is kept by reference: a temporary would dangle.
    explicit HermiteCellTransfer(const LevelHierarchy &&hierarchy) = delete;

    void
    reinit(const LevelHierarchy &hierarchy);
    void
    reinit(const LevelHierarchy &&hierarchy) = delete;

    void
    prolongate_add(unsigned int to_level, VectorType &fine, const VectorType &coarse) const override;

    void
    restrict_residual_add(unsigned int      from_level,
                          VectorType       &coarse,
                          const VectorType &fine_b,
                          const VectorType &fine_Au) const override;

    /// coarse += R fine (the restriction of a dual vector without a residual).
    void
    restrict_add(unsigned int from_level, VectorType &coarse, const VectorType &fine) const;

  private:
    const LevelHierarchy *hierarchy_ = nullptr;
    /// P_0, P_1 (4 × 4 row-major each), reference.
    std::array<Number, 32> prolongation_{};
  };
} // namespace cellwise
