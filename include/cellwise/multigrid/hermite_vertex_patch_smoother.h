#pragma once
/**
 * @file
 * The vertex-block patch smoother of the C¹ Hermite element (001 §5.2, host
 * backend). The eight DoFs of an interior vertex v (u and its mixed first
 * derivatives) are shared by the eight cells around it; one update
 *
 *   r_v = Σ_{K ∋ v} (b~_K − A_K u_K)|_v,   δ = A_vv⁻¹ r_v,   u_K|_v += δ for every K ∋ v,
 *
 * with A_vv = Σ_K (A_K)|_vv the assembled 8 × 8 block (its dense inverse,
 * one per distinct set of cell sizes: one on a uniform level). The same
 * correction goes into every copy, so a continuous (C¹) iterate stays
 * continuous. Vertices on the clamped boundary or a refinement edge carry no
 * patch (make_vertex_patches) and are never written. The patches of one
 * colour (vertex parity) share no cell; the colours run in sequence, forward
 * (sweep_colour) or reverse: forward pre- with reverse post-smoothing is a
 * symmetric cycle.
 */

#include <cellwise/mesh/level.h>
#include <cellwise/mesh/vertex_patches.h>
#include <cellwise/multigrid/interfaces.h>
#include <cellwise/operators/hermite_biharmonic_operator.h>
#include <cellwise/storage/cell_vector.h>

#include <array>
#include <vector>

namespace cellwise
{
  /// A_vv⁻¹ (8 × 8, row-major) of the vertex patch of cells @p patch (in lane
  /// order) of @p level: the dense inverse of the assembled block Σ_K (A_K)|_vv
  /// by a Cholesky factorization. The host and the device smoother
  /// (multigrid/cuda_hermite_vertex_patch_smoother.h) both take theirs from here.
  std::array<double, 64>
  hermite_vertex_block_inverse(const Level &level, const std::array<unsigned int, 8> &patch);

  template <typename Number, typename Layout = CellContiguous>
  class HermiteVertexPatchSmoother : public LevelSmoother<CellVector<Number, MemorySpace::Host, Layout>>
  {
  public:
    using VectorType = CellVector<Number, MemorySpace::Host, Layout>;

    /// The patches of @p level and the block inverses of @p op, which is kept
    /// by reference; @p n_sweeps sweeps per smooth() call.
    HermiteVertexPatchSmoother(const Level &level, const HermiteBiharmonicOperator<Number, Layout> &op, unsigned int n_sweeps = 1);
    /// A temporary operator would dangle.
    HermiteVertexPatchSmoother(const Level &level, const HermiteBiharmonicOperator<Number, Layout> &&op, unsigned int n_sweeps = 1) = delete;

    void
    smooth(VectorType &u, const VectorType &b, bool zero_initial_guess, SweepDirection direction) const override;

    /// One colour step: all patches of @p colour (in parallel).
    void
    apply_colour(VectorType &u, const VectorType &b, unsigned int colour) const;

    const VertexPatches &
    patches() const
    {
      return patches_;
    }
    /// Number of distinct block inverses (one on a uniform level).
    unsigned int
    n_block_inverses() const
    {
      return static_cast<unsigned int>(inverses_.size() / 64);
    }

  private:
    const HermiteBiharmonicOperator<Number, Layout> *op_ = nullptr;
    unsigned int                                     n_sweeps_ = 1;
    VertexPatches                                    patches_;
    /// 8 × 8 row-major inverses, one after the other.
    std::vector<Number> inverses_;
    /// Per colour and patch: which inverse.
    std::array<std::vector<unsigned int>, VertexPatches::n_colours> inverse_index_;
  };
} // namespace cellwise
