#pragma once
/**
 * @file
 * The multiplicative vertex-patch smoother on cell-wise storage (000 §3, host
 * backend; derivation in doc/vertex_patch_smoother.md).
 *
 * For the patch ω_v of the eight cells around an interior vertex v:
 *
 *   u_K ← u_K + G_{v,K} A_v^{-1} Σ_{K'∈ω_v} G_{v,K'}^T (b~_K' − A_K' u_K'),  K ∈ ω_v,
 *
 * with G_{v,K} the injection of the (2p−1)^3 patch-interior DoFs into the local
 * DoFs of K (zero on the cell's rim positions). The residual is assembled from
 * the cells' own residuals (a patch-interior DoF is held only by cells of the
 * patch), the local problem is solved exactly by fast diagonalization, and the
 * same correction is added into every copy: a continuous iterate stays
 * continuous without DSS. Rim DoFs (boundary, refinement edge) are never
 * written.
 *
 * One sweep processes the eight colours in sequence, the forward sweep in the
 * order 7, 6, ..., 0 and the reverse sweep in 0, 1, ..., 7 (see
 * sweep_colour(): the order that reproduces 000 Table 10); the patches of one
 * colour share no cell and run in parallel (OpenMP). Forward pre- with reverse
 * post-smoothing gives a symmetric cycle.
 */

#include <cellwise/fe/matrices_1d.h>
#include <cellwise/fe/patch_fast_diagonalization.h>
#include <cellwise/mesh/level.h>
#include <cellwise/mesh/vertex_patches.h>
#include <cellwise/multigrid/interfaces.h>
#include <cellwise/multigrid/jacobi_smoother.h>
#include <cellwise/multigrid/vertex_patch_inverses.h>
#include <cellwise/operators/laplace_operator.h>
#include <cellwise/storage/cell_vector.h>

#include <array>
#include <functional>
#include <memory>
#include <vector>

namespace cellwise
{
  /// The colours of a forward sweep in the order they are processed. Colour
  /// c = (v_x & 1) + 2 (v_y & 1) + 4 (v_z & 1) of the centre vertex v
  /// (vertex_colour()); in the parities of the patch's lowest cell v − (1,1,1)
  /// the same sweep is the lexicographic order 0, 1, ..., 7, which is how we
  /// read 000 §3 ("colours by the parities of the integer coordinates",
  /// processed one after another). It starts with the patches around the
  /// all-odd vertices (among them those next to the corners of the box) and
  /// ends with those around the vertices of the next coarser level (all
  /// even). This order reproduces all three rows of 000 Table 10 (doc/results.md); the
  /// order 0, 1, ..., 7 of the centre-vertex parities does not (forward cycle
  /// 3.87 instead of 3.70 cycles, symmetric stationary 5.0 instead of 7.25).
  inline constexpr std::array<unsigned int, 8> forward_colour_order = {{7, 6, 5, 4, 3, 2, 1, 0}};

  /// The colour processed in sub-step @p step (0..7) of a sweep in
  /// @p direction: forward_colour_order, or that order reversed (the adjoint
  /// sweep). Shared by the host and CUDA smoothers, which must agree.
  inline constexpr unsigned int
  sweep_colour(const unsigned int step, const SweepDirection direction)
  {
    return direction == SweepDirection::forward ? forward_colour_order[step] : forward_colour_order[7 - step];
  }

  template <typename Number, typename Layout = CellContiguous>
  class VertexPatchSmoother : public LevelSmoother<CellVector<Number, MemorySpace::Host, Layout>>
  {
  public:
    using value_type = Number;
    using VectorType = CellVector<Number, MemorySpace::Host, Layout>;

    VertexPatchSmoother() = default;
    /// Patches and patch inverses of @p level for the Laplacian of the box
    /// cells of @p level with FE_Q(@p degree), no coefficient (the smoother
    /// holds that operator); @p n_sweeps sweeps per smooth() call.
    VertexPatchSmoother(const Level &level, unsigned int degree, unsigned int n_sweeps = 1);
    /// The same for the operator @p op of @p level (kept by reference): the
    /// cell residuals of the patches are @p op's, so a coefficient and curved
    /// cells enter them exactly. The local solves are exact on box cells with
    /// one coefficient per patch; otherwise they solve the Cartesian
    /// surrogate of the patch (PatchSizeRule::surrogate: the boxes whose
    /// metric factors are the cells' diagonal metric sums), an inexact local
    /// solve whose effect on the counts doc/geometry.md measures.
    ///
    /// On an unstructured mesh the patches stay inside the coarse cells'
    /// blocks, and the DoFs on the skeleton are interior to no patch: each
    /// sweep then ends (forward) or starts (reverse) with three damped
    /// Jacobi steps on those DoFs, ω = 1/λ_max of D⁻¹A on them, which needs
    /// the level's Dirichlet @p mask (1 on free copies).
    VertexPatchSmoother(const Level                           &level,
                        const LaplaceOperator<Number, Layout> &op,
                        unsigned int                           n_sweeps = 1,
                        const VectorType                      *mask     = nullptr);

    /// The operator (and, on an unstructured mesh, the level) is kept by
    /// reference: temporaries would dangle.
    VertexPatchSmoother(const Level &&level, const LaplaceOperator<Number, Layout> &op, unsigned int n_sweeps = 1,
                        const VectorType *mask = nullptr) = delete;
    VertexPatchSmoother(const Level &level, const LaplaceOperator<Number, Layout> &&op, unsigned int n_sweeps = 1,
                        const VectorType *mask = nullptr) = delete;

    void
    reinit(const Level &level, unsigned int degree, unsigned int n_sweeps = 1);
    void
    reinit(const Level &level, const LaplaceOperator<Number, Layout> &op, unsigned int n_sweeps = 1, const VectorType *mask = nullptr);
    void
    reinit(const Level &&level, const LaplaceOperator<Number, Layout> &op, unsigned int n_sweeps = 1,
           const VectorType *mask = nullptr) = delete;
    void
    reinit(const Level &level, const LaplaceOperator<Number, Layout> &&op, unsigned int n_sweeps = 1,
           const VectorType *mask = nullptr) = delete;

    /// Free DoFs interior to no patch (the skeleton of an unstructured mesh),
    /// which the Jacobi step smooths (0 on other meshes).
    std::size_t
    n_uncovered_dofs() const
    {
      return n_uncovered_;
    }

    /// Whether the local solves are exact (box cells, one coefficient per
    /// patch) or those of the surrogate, each damped by ω_v = 1 / (1.05 λ_v)
    /// where λ_v, the largest eigenvalue of Ã_v^{-1} A_v (power iteration at
    /// set-up), exceeds 1/1.05: a damped local solve never overshoots, so the
    /// symmetric cycle stays positive definite on strongly deformed cells.
    bool
    exact_local_solves() const
    {
      return exact_local_solves_;
    }

    /// u ← S(u, b): n_sweeps sweeps over the colours in @p direction, colour
    /// sweep_colour(step, direction) in step 0..7. With @p zero_initial_guess,
    /// u is set to zero first and the first colour skips the operator
    /// application (its residual is b~).
    void
    smooth(VectorType &u, const VectorType &b, bool zero_initial_guess, SweepDirection direction) const override;

    /// smooth() calling @p after_colour(colour, last) after each colour
    /// step, last = whether it was the call's final one: the distributed
    /// smoother updates its ghost cells there (multigrid/
    /// mpi_distributed_vertex_patch_smoother.h).
    void
    smooth(VectorType                                                &u,
           const VectorType                                          &b,
           bool                                                       zero_initial_guess,
           SweepDirection                                             direction,
           const std::function<void(unsigned int colour, bool last)> &after_colour) const;

    /// One colour step: all patches of @p colour (in parallel).
    void
    apply_colour(VectorType &u, const VectorType &b, unsigned int colour, bool u_is_zero = false) const;

    /// The update of one patch (patch @p index of @p colour), for tests.
    void
    apply_patch(VectorType &u, const VectorType &b, unsigned int colour, unsigned int index) const;

    const VertexPatches &
    patches() const
    {
      return patches_;
    }
    unsigned int
    degree() const
    {
      return degree_;
    }
    unsigned int
    n_sweeps() const
    {
      return n_sweeps_;
    }
    unsigned int
    n_cells() const
    {
      return operator_ ? operator_->n_cells() : 0;
    }
    /// Number of distinct patch inverses (one on a uniform mesh).
    unsigned int
    n_patch_inverses() const
    {
      return static_cast<unsigned int>(inverses_.size());
    }
    /// The patch inverse used by patch @p index of @p colour.
    const PatchInverse &
    patch_inverse(const unsigned int colour, const unsigned int index) const
    {
      return inverses_[inverse_index_[colour][index]];
    }
    /// The index of that inverse among the distinct ones (numbered in the
    /// order of first use: colour by colour, patch by patch).
    unsigned int
    patch_inverse_index(const unsigned int colour, const unsigned int index) const
    {
      return inverse_index_[colour][index];
    }
    /// Distinct patch inverse @p i (0 <= i < n_patch_inverses()).
    const PatchInverse &
    distinct_patch_inverse(const unsigned int i) const
    {
      return inverses_[i];
    }

  private:
    /// The data of one patch inverse in the compute type.
    struct InverseData
    {
      std::array<std::vector<Number>, 3> eigenvectors; // m x m row-major per axis
      std::vector<Number>                inverse_eigenvalues;
    };

    /// The local solve of one patch: R ← Ã_v^{-1} R (T: scratch of m^3).
    template <int p>
    void
    local_solve(const InverseData &data, Number *R, Number *T) const;

    /// The dampings of the surrogate local solves (damping_).
    template <int p>
    void
    compute_dampings();

    template <int p>
    void
    update_patches(VectorType &u, const VectorType &b, unsigned int colour, unsigned int first, unsigned int last,
                   bool u_is_zero) const;

    void
    check_vectors(const VectorType &u, const VectorType &b) const;

    unsigned int                                           degree_   = 0;
    unsigned int                                           n_sweeps_ = 1;
    Matrices1D                                             matrices_;
    std::vector<Number>                                    mass_, stiffness_;
    /// The operator of the constructor that takes a degree (owned there).
    std::shared_ptr<const LaplaceOperator<Number, Layout>> own_operator_;
    const LaplaceOperator<Number, Layout>                 *operator_           = nullptr;
    bool                                                   exact_local_solves_ = true;
    VertexPatches                                          patches_;
    std::vector<PatchInverse>                 inverses_;
    std::vector<InverseData>                  inverse_data_;
    std::array<UninitializedVector<unsigned int>, 8> inverse_index_;
    /// Per colour and patch the damping ω ≤ 1 of a surrogate local solve
    /// (empty where the local solves are exact).
    std::array<std::vector<Number>, 8> damping_;
    /// The Jacobi step on the DoFs of no patch (unstructured meshes).
    std::shared_ptr<const LevelSmoother<VectorType>>      uncovered_smoother_;
    VectorType                                            uncovered_mask_;
    std::size_t                                           n_uncovered_ = 0;
  };
} // namespace cellwise
