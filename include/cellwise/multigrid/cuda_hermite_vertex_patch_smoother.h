#pragma once
/**
 * @file
 * The vertex-block patch smoother of the C¹ Hermite element on the device
 * (001 §5.2): the twin of cellwise::HermiteVertexPatchSmoother
 * (multigrid/hermite_vertex_patch_smoother.h, the oracle in the tests), with
 * its patches (make_vertex_patches), its block inverse
 * (hermite_vertex_block_inverse) and its semantics: colours 0..7 forward and
 * 7..0 reverse (sweep_colour), u zeroed first with zero_initial_guess, u and
 * b distinct, clamped and refinement-edge vertices never written.
 *
 * Levels whose cells share one size (common_box_size: every level of a box
 * and of its local refinements), so that one cell matrix A_K and one block
 * inverse A_vv⁻¹ serve every patch; other levels are refused (the host
 * smoother takes them).
 *
 * One colour step is one kernel (source/multigrid/
 * cuda_hermite_vertex_patch_smoother.cu). A block of 128 threads takes 32
 * patches at a time, thread (w, p) lanes w and w + 4 of patch p: per lane
 * the 8 rows of A_K at the patch vertex (corner 7 − lane of the cell) times
 * the cell's 64 values, subtracted from the cell's 8 values of b~ at the
 * vertex; the four warps' partial residuals summed in shared memory, δ =
 * A_vv⁻¹ r_v, and δ added to the lanes' copies. The rows are read by a whole
 * warp at one address (one lane per warp: a broadcast from shared memory).
 * Per cell and colour it reads the cell's 64 values of u and 8 of b~ and
 * writes 8 of u: the bytes per sweep printed by cellwise-benchmark-hermite.
 *
 * Compiles with a plain C++ compiler.
 */

#include <cellwise/mesh/level.h>
#include <cellwise/multigrid/interfaces.h>
#include <cellwise/storage/cuda_cell_vector.h>

#include <array>

namespace cellwise
{
  namespace cuda
  {
    template <typename Number, typename Layout = CellContiguous>
    class HermiteVertexPatchSmoother : public LevelSmoother<CellVector<Number, MemorySpace::CUDA, Layout>>
    {
    public:
      using value_type = Number;
      using VectorType = CellVector<Number, MemorySpace::CUDA, Layout>;

      /// The patches, the cell matrix and the block inverse of @p level,
      /// computed on the host and uploaded; @p n_sweeps sweeps per smooth()
      /// call. Throws cellwise::Error for a level of several cell sizes.
      explicit HermiteVertexPatchSmoother(const Level &level, unsigned int n_sweeps = 1);
      HermiteVertexPatchSmoother(const HermiteVertexPatchSmoother &) = delete;
      HermiteVertexPatchSmoother &
      operator=(const HermiteVertexPatchSmoother &) = delete;
      ~HermiteVertexPatchSmoother() override;

      void
      smooth(VectorType &u, const VectorType &b, bool zero_initial_guess, SweepDirection direction) const override;

      /// One colour step: all patches of @p colour.
      void
      apply_colour(VectorType &u, const VectorType &b, unsigned int colour) const;

      /// At most @p max_blocks blocks per colour step (0, the default: as
      /// many as are resident at once). Each block loops over groups of 32
      /// patches, so a small grid makes it take many: tests run that loop
      /// on small meshes so.
      void
      limit_grid(const unsigned int max_blocks)
      {
        grid_limit_ = max_blocks;
      }

      unsigned int
      n_cells() const
      {
        return n_cells_;
      }
      /// Number of patches of @p colour (those of make_vertex_patches).
      unsigned int
      n_patches(const unsigned int colour) const
      {
        return n_patches_[colour];
      }

    private:
      void
      release() noexcept;

      unsigned int                 n_cells_  = 0;
      unsigned int                 n_sweeps_ = 1;
      unsigned int                 grid_blocks_ = 0; ///< of the persistent grid
      unsigned int                 grid_limit_  = 0; ///< limit_grid()
      std::array<unsigned int, 8>  n_patches_{};
      /// Per colour: 8 cell indices per patch (device).
      std::array<unsigned int *, 8> patch_cells_{};
      /// The kernel's rows of A_K (lane, column, row at the vertex), then
      /// A_vv⁻¹ (row-major): 4096 + 64 numbers (device).
      Number *tables_ = nullptr;
    };
  } // namespace cuda
} // namespace cellwise
