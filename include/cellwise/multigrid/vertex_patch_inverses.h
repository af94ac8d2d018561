#pragma once
/**
 * @file
 * The patch inverses of a level's vertex patches (000 §3): the distinct
 * fast-diagonalization inverses A_v^{-1} (one per distinct set of patch cell
 * sizes, one on a uniform level) and, per colour and patch, which one the
 * patch uses. Shared by the host smoother (multigrid/vertex_patch_smoother.h)
 * and the device one (multigrid/cuda_vertex_patch_smoother.h), which must
 * agree on both.
 *
 * The patch matrix is a Kronecker sum only where the eight cells form a
 * tensor grid (every lane has the size of its side along each axis); a patch
 * that does not is refused with its vertex and cell. Sizes that differ only by
 * the rounding of the mesh construction (relative 6e-14) share an inverse.
 */

#include <cellwise/base/uninitialized_vector.h>
#include <cellwise/fe/matrices_1d.h>
#include <cellwise/fe/patch_fast_diagonalization.h>
#include <cellwise/mesh/level.h>
#include <cellwise/mesh/vertex_patches.h>

#include <array>
#include <vector>

namespace cellwise
{
  struct VertexPatchInverses
  {
    /// The distinct inverses in the order of first use: colour by colour,
    /// patch by patch.
    std::vector<PatchInverse> distinct;
    /// Per colour and patch: the index of its inverse in distinct.
    std::array<UninitializedVector<unsigned int>, VertexPatches::n_colours> index;
  };

  /// The inverses of @p patches of @p level for the 1D matrices @p reference
  /// (FE_Q(p) on [0, 1]). Parallel over the patches; the result does not
  /// depend on the thread count.
  VertexPatchInverses
  make_vertex_patch_inverses(const Level &level, const VertexPatches &patches, const Matrices1D &reference);

  /// Refuses cell @p c of size @p box.size unless every edge is positive and
  /// finite (the smoothers' metric factors divide by them).
  void
  check_cell_size(const CellBox &box, unsigned int c);
} // namespace cellwise
