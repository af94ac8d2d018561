#pragma once
/**
 * @file
 * Cell-wise transfers between consecutive levels (host backend, 003 §3.1):
 * prolongation parent → child by (P_{c_z} ⊗ P_{c_y} ⊗ P_{c_x}) and restriction
 * as its transpose on the unassembled child residual, summed over the
 * children into the parent — no weights, no assembly (003 Lemma 2). The
 * restriction forms the residual b − A u inside (fused).
 */

#include <cellwise/mesh/level.h>
#include <cellwise/multigrid/interfaces.h>
#include <cellwise/storage/cell_vector.h>

#include <vector>

namespace cellwise
{
  /// Throws cellwise::Error unless vectors of @p fine_cells cells of degree
  /// @p fine_degree and @p coarse_cells cells of degree @p coarse_degree fit
  /// levels @p fine_level and @p fine_level − 1 of @p hierarchy for a transfer
  /// of degree @p degree (shared by the host and CUDA transfers).
  void
  check_transfer_levels(const LevelHierarchy *hierarchy,
                        unsigned int          degree,
                        unsigned int          fine_level,
                        unsigned int          fine_cells,
                        unsigned int          fine_degree,
                        unsigned int          coarse_cells,
                        unsigned int          coarse_degree);

  /// The 1D prolongations onto the lower and the upper child of FE_Q(@p
  /// degree), P_0 then P_1, (p+1) × (p+1) row-major each: the packed form
  /// the transfer kernels take (host, device and distributed transfers).
  template <typename Number>
  std::vector<Number>
  packed_prolongation_matrices(unsigned int degree);

  template <typename Number, typename Layout = CellContiguous>
  class CellTransfer : public LevelTransfer<CellVector<Number, MemorySpace::Host, Layout>>
  {
  public:
    using VectorType = CellVector<Number, MemorySpace::Host, Layout>;

    CellTransfer() = default;
    CellTransfer(const LevelHierarchy &hierarchy, unsigned int degree);
    /// The hierarchy is kept by reference: a temporary would dangle.
    CellTransfer(const LevelHierarchy &&hierarchy, unsigned int degree) = delete;

    void
    reinit(const LevelHierarchy &hierarchy, unsigned int degree);
    void
    reinit(const LevelHierarchy &&hierarchy, unsigned int degree) = delete;

    void
    prolongate_add(unsigned int to_level, VectorType &fine, const VectorType &coarse) const override;

    void
    restrict_residual_add(unsigned int      from_level,
                          VectorType       &coarse,
                          const VectorType &fine_b,
                          const VectorType &fine_Au) const override;

    /// coarse += R fine (restriction of a dual vector without the residual).
    void
    restrict_add(unsigned int from_level, VectorType &coarse, const VectorType &fine) const;

  private:
    void
    check_level(unsigned int fine_level, const VectorType &fine, const VectorType &coarse) const;

    const LevelHierarchy *hierarchy_ = nullptr;
    unsigned int          degree_    = 0;
    /// P_0 then P_1, (p+1) x (p+1) row-major each.
    std::vector<Number> prolongation_;
  };
} // namespace cellwise
