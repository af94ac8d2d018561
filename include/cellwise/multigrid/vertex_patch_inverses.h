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
  /// (FE_Q(p) on [0, 1]), from the cells' boxes. Parallel over the patches;
  /// the result does not depend on the thread count.
  VertexPatchInverses
  make_vertex_patch_inverses(const Level &level, const VertexPatches &patches, const Matrices1D &reference);

  /// Whether all cells of @p level have the size of cell 0 up to the
  /// rounding that separates inverses: then make_vertex_patch_inverses gives
  /// every patch index 0 and the inverse of the first patch of the first
  /// colour that has one (make_uniform_patch_inverse of that patch).
  bool
  has_one_cell_size(const Level &level);

  /// The inverse of the patch of box cells @p cells (lane order) of a level
  /// of one cell size, from the sizes of its lanes 0, 1, 2, 4 as
  /// make_vertex_patch_inverses takes them; what a device search of the
  /// patches needs without the host lists.
  PatchInverse
  make_uniform_patch_inverse(const Level &level, const std::array<unsigned int, 8> &cells, const Matrices1D &reference);

  /// How a patch's sizes per axis and side come from its cells' sizes.
  enum class PatchSizeRule
  {
    /// the cells must form a tensor grid (refused otherwise): the exact
    /// inverse of the patch of box cells
    exact,
    /// the mean over the four cells of each side: a Cartesian surrogate of a
    /// patch of curved cells, or of cells with different coefficients
    /// (inexact local solves; surrogates within 1e-3 share an inverse)
    surrogate
  };

  /// The inverses from given sizes per cell (e.g. effective_cell_sizes of
  /// the operator's surrogate factors).
  VertexPatchInverses
  make_vertex_patch_inverses(const std::vector<std::array<double, 3>> &cell_sizes,
                             const VertexPatches                      &patches,
                             const Matrices1D                         &reference,
                             PatchSizeRule                             rule);

  /// The sizes of the box whose Laplacian has the metric factors @p factors
  /// (h_x = sqrt(c_y c_z) and so on; a coefficient scales them as it scales
  /// the factors): c_x = h_y h_z / h_x and its two twins, inverted.
  std::array<double, 3>
  effective_cell_sizes(const std::array<double, 3> &factors);

  /// Refuses cell @p c of size @p box.size unless every edge is positive and
  /// finite (the smoothers' metric factors divide by them).
  void
  check_cell_size(const CellBox &box, unsigned int c);
} // namespace cellwise
