#pragma once
/**
 * @file
 * The vertex patches of a level found on the device: the device twin of
 * cellwise::make_vertex_patches (mesh/vertex_patches.h), with the same
 * lists in the same order (per colour, the patches by their smallest cell),
 * built where the device smoother reads them. At L = 8 on an H200 machine
 * the patch smoothers' set-up of all levels took 0.87–0.90 s of the
 * solver's 1.4 s with the host search and the upload of its lists, and
 * 0.19 s with this search, which uploads the neighbour table and the
 * coordinates (36 bytes per cell) instead (doc/performance-log.md).
 *
 * For a serial level without skeleton faces (can_find_vertex_patches): a
 * rank's part of a distributed level (ghost cells) and unstructured levels
 * keep the host search, whose rules for them this does not repeat.
 *
 * Compiles with a plain C++ compiler; the kernels live in
 * source/mesh/cuda_vertex_patches.cu.
 */

#include <cellwise/mesh/level.h>
#include <cellwise/mesh/vertex_patches.h>

#include <array>

namespace cellwise
{
  namespace cuda
  {
    /// Device arrays of patch cell lists, one per colour: 8 cell indices per
    /// patch (lane order of mesh/vertex_patches.h). Owns its arrays.
    class VertexPatchLists
    {
    public:
      VertexPatchLists() = default;
      VertexPatchLists(const VertexPatchLists &) = delete;
      VertexPatchLists &
      operator=(const VertexPatchLists &) = delete;
      VertexPatchLists(VertexPatchLists &&other) noexcept;
      VertexPatchLists &
      operator=(VertexPatchLists &&other) noexcept;
      ~VertexPatchLists();

      unsigned int
      n_patches(const unsigned int colour) const
      {
        return n_patches_[colour];
      }
      const unsigned int *
      cells(const unsigned int colour) const
      {
        return cells_[colour];
      }
      /// Hands the list of @p colour over to the caller (who frees it with
      /// cuda::free_bytes); the list here becomes empty.
      unsigned int *
      release(unsigned int colour);

    private:
      friend VertexPatchLists
      find_vertex_patches(const Level &level);
      std::array<unsigned int *, VertexPatches::n_colours> cells_{};
      std::array<unsigned int, VertexPatches::n_colours>   n_patches_{};
    };

    /// Whether find_vertex_patches takes @p level: no ghost cells, no
    /// skeleton faces.
    bool
    can_find_vertex_patches(const Level &level);

    /// The patches of @p level on the device, equal to
    /// cellwise::make_vertex_patches(level).cells; the same check of the
    /// neighbour table against the coordinates (an error names the first
    /// cell where they disagree).
    VertexPatchLists
    find_vertex_patches(const Level &level);
  } // namespace cuda
} // namespace cellwise
