#pragma once
/**
 * @file
 * Vertex patches of one level (000 §3): the 2^3 cells around an interior vertex,
 * for every vertex whose eight cells all lie on the level. Only such vertices
 * carry patches, so the DoFs on the domain boundary and on refinement edges lie
 * on patch rims and are never written by the patch smoother.
 *
 * A vertex is named by its integer position v in units of the level's cell size
 * (Level::coordinates): it is the upper corner of the cell at v − (1,1,1).
 *
 *  - Lane order: lane c = c_x + 2 c_y + 4 c_z, with c_d = 1 for the cell on the
 *    upper side of the vertex along axis d, i.e. the cell of lane c sits at
 *    integer position v − (1,1,1) + (c_x, c_y, c_z) (same bit order as the
 *    child slots of level.h).
 *  - Colours: colour = (v_x & 1) + 2 (v_y & 1) + 4 (v_z & 1). Two patches of one
 *    colour have centres that differ by at least two cells along some axis, so
 *    they share no cell and can be updated concurrently.
 *  - Per colour the patches are sorted by storage order (by their smallest cell
 *    index), so that a colour step streams through memory.
 */

#include <cellwise/base/uninitialized_vector.h>
#include <cellwise/mesh/level.h>

#include <array>
#include <vector>

namespace cellwise
{
  /// The lane bit c_d along one axis (1: the cell lies on the upper side of
  /// the patch vertex) of the cell at integer coordinate @p k in its patch of
  /// the colour whose bit along that axis is @p colour_bit: the vertex lies at
  /// k + e, e = (colour_bit − k) mod 2 (a vertex's parity is its colour), so
  /// c_d = 1 − e.
  constexpr unsigned int
  patch_lane_bit(const int k, const unsigned int colour_bit)
  {
    return 1u - ((colour_bit - static_cast<unsigned int>(k)) & 1u);
  }

  /// The first of the p patch-interior nodes along an axis of a cell in lane
  /// bit @p c: nodes 1 − c … p − c; its other node lies on the patch rim.
  /// The patch smoother writes these nodes only, and the halo exchange of
  /// its colour steps sends these only.
  constexpr int
  first_patch_interior_node(const unsigned int c)
  {
    return 1 - static_cast<int>(c);
  }

  struct VertexPatches
  {
    /// Number of colours (vertex parities in 3D).
    static constexpr unsigned int n_colours = 8;

    /// Per colour: the patches, each the cell indices of its 8 lanes.
    std::array<UninitializedVector<std::array<unsigned int, 8>>, n_colours> cells;
    /// Per colour and patch: the integer position of the centre vertex.
    std::array<UninitializedVector<std::array<int, 3>>, n_colours> vertices;

    /// Number of patches of @p colour.
    unsigned int
    n_patches(const unsigned int colour) const
    {
      return static_cast<unsigned int>(cells[colour].size());
    }
    /// Number of patches over all colours (= number of interior vertices).
    unsigned int
    n_patches() const
    {
      unsigned int n = 0;
      for (const auto &c : cells)
        n += static_cast<unsigned int>(c.size());
      return n;
    }
  };

  /// Colour of the vertex at integer position @p v.
  inline unsigned int
  vertex_colour(const std::array<int, 3> &v)
  {
    return static_cast<unsigned int>((v[0] & 1) + 2 * (v[1] & 1) + 4 * (v[2] & 1));
  }

  /**
   * The vertex patches of @p level. Every cell is taken as lane 0 of the patch
   * of its upper corner; the other lanes are found through the same-level face
   * neighbours (lane 1 = x+ of lane 0, lane 3 = y+ of lane 1, ...). A vertex
   * carries a patch exactly when all seven steps find a same-level cell. The
   * integer coordinates are checked for consistency. On a rank's part of a
   * distributed level (mesh/partition.h) the patches are those that touch
   * an owned cell (with every cell of theirs, owned or ghost): a patch of
   * ghost cells alone is left to the ranks that own them.
   */
  VertexPatches
  make_vertex_patches(const Level &level);

  /**
   * For every cell and colour, the number of patches of that colour that
   * contain the cell: at most one by construction of the colouring (the
   * property that makes a colour step race-free), exactly one for a cell all of
   * whose eight corners carry patches (an interior cell).
   */
  std::vector<std::array<unsigned char, VertexPatches::n_colours>>
  count_patch_memberships(const VertexPatches &patches, unsigned int n_cells);
} // namespace cellwise
