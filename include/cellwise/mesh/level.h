#pragma once
/**
 * @file
 * One level of the multigrid hierarchy: the cells of one refinement level with
 * their geometry, family links and same-level face neighbours.
 *
 * The data model is that of a locally refined hierarchy: a level holds only the
 * cells that exist on it (children of refined cells of the level below), each
 * cell is either active (a leaf) or refined, and a face may have no same-level
 * neighbour although it is interior to the domain (the refinement edge). A
 * uniform level is the special case where every face has a neighbour or lies
 * on the boundary.
 *
 * Faces are numbered as in deal.II: face 2d is the lower face normal to axis d,
 * face 2d+1 the upper one. Child slots are c = c_x + 2 c_y + 4 c_z with c_d = 1
 * for the upper half along axis d.
 */

#include <cellwise/base/exceptions.h>
#include <cellwise/base/uninitialized_vector.h>
#include <cellwise/mesh/cell_mapping.h>

#include <array>
#include <cstdint>
#include <vector>

namespace cellwise
{
  /// An axis-aligned box cell: lower corner and edge lengths per axis (on a
  /// level with a mapping: the cell's box in the reference lattice).
  struct CellBox
  {
    std::array<double, 3> lower;
    std::array<double, 3> size;
  };

  /// Encoding of what lies across a face: a same-level cell index (>= 0),
  /// the domain boundary with its id, or nothing on this level.
  namespace face_neighbor
  {
    /// Interior face whose neighbour is coarser: part of the refinement edge.
    constexpr int none = -1;
    constexpr int
    boundary(const unsigned int boundary_id)
    {
      return -2 - static_cast<int>(boundary_id);
    }
    constexpr bool
    is_cell(const int neighbor)
    {
      return neighbor >= 0;
    }
    constexpr bool
    is_boundary(const int neighbor)
    {
      return neighbor <= -2;
    }
    constexpr unsigned int
    boundary_id(const int neighbor)
    {
      return static_cast<unsigned int>(-2 - neighbor);
    }
  } // namespace face_neighbor

  /**
   * A face across which the neighbour's frame does not continue the cell's:
   * a face between two coarse cells of an unstructured mesh (or between their
   * descendants), where the neighbour's matching face need not be the
   * opposite one and its face coordinates may be swapped or reversed. Face
   * coordinates (a, b) are those of fe/face_dofs.h (the two other axes in
   * increasing order, 0..p). The node (a, b) of this face is the node
   * (a', b') of the neighbour's face, with (t0, t1) = (b, a) if bit 0 of
   * @p orientation is set, else (a, b); a' = p − t0 if bit 1 is set, else
   * t0; b' = p − t1 if bit 2 is set, else t1. Listed from both sides.
   */
  struct SkeletonFace
  {
    unsigned int cell          = 0;
    std::uint8_t face          = 0;
    int          neighbor      = -1;
    std::uint8_t neighbor_face = 0;
    std::uint8_t orientation   = 0;
  };

  /// The neighbour's face coordinates of the node (@p a, @p b) of a skeleton
  /// face with @p orientation, nodes 0..@p p per axis.
  inline std::array<unsigned int, 2>
  oriented_face_point(const std::uint8_t orientation, const unsigned int a, const unsigned int b, const unsigned int p)
  {
    const unsigned int t0 = orientation & 1 ? b : a, t1 = orientation & 1 ? a : b;
    return {{orientation & 2 ? p - t0 : t0, orientation & 4 ? p - t1 : t1}};
  }

  /// Cell state bits.
  namespace cell_flags
  {
    constexpr std::uint8_t active  = 1; ///< a leaf of the refinement tree
    constexpr std::uint8_t refined = 2; ///< has 8 children on the next level
    constexpr std::uint8_t ghost   = 4; ///< owned by another MPI rank
  } // namespace cell_flags

  /// The most cells a level can hold: cell indices are int in the tables of
  /// parents, children and neighbours (2^31 − 1).
  constexpr std::size_t max_cells_per_level = 2147483647;
  /// The most cells along an axis of a level: integer coordinates are keyed
  /// with 21 bits per axis.
  constexpr std::size_t max_cells_per_axis = std::size_t(1) << 21;

  /// The per-cell arrays are UninitializedVector: resize() leaves them
  /// unwritten, so whoever sizes a level writes every entry (in parallel on
  /// large levels; zeroing them first on one thread cost more than filling).
  struct Level
  {
    /// Geometry per cell.
    UninitializedVector<CellBox> boxes;
    /// Integer position of the cell in units of this level's cell size,
    /// relative to the coarse grid of the domain (used for vertex parities and
    /// structured paths; (i, j, k) of level l has children (2i+c_x, ...)).
    UninitializedVector<std::array<int, 3>> coordinates;
    /// Parent cell index on the level below (-1 on level 0).
    UninitializedVector<int> parent;
    /// Slot of the cell among its parent's children (0 on level 0).
    UninitializedVector<std::uint8_t> child_slot;
    /// Children on the next level by slot, -1 where the cell is not refined.
    UninitializedVector<std::array<int, 8>> children;
    /// Same-level neighbour per face, encoded as in face_neighbor.
    UninitializedVector<std::array<int, 6>> neighbors;
    /// Bits of cell_flags.
    UninitializedVector<std::uint8_t> flags;
    /// Locally owned cells come first; ghost cells (cells of other MPI
    /// ranks, mesh/partition.h) follow. A serial level owns all its cells.
    unsigned int n_owned_cells = 0;
    /// The cells' map from the reference cube where they are not their boxes
    /// (curved or deformed cells; mesh/cell_mapping.h). Empty: box cells.
    CellMapping mapping;
    /// The skeleton faces (unstructured meshes; empty on a lattice): the
    /// neighbours table holds their neighbour cells, and skeleton_mask bit f
    /// of a cell says that its face f is one. The structured DSS cascade,
    /// the vertex patches and the lattice paths skip these faces; the DSS
    /// completes their nodes in a second phase (storage/dss.h).
    std::vector<SkeletonFace> skeleton_faces;
    UninitializedVector<std::uint8_t> skeleton_mask;

    unsigned int
    n_cells() const
    {
      CELLWISE_CHECK(boxes.size() <= max_cells_per_level,
                     "a level of " << boxes.size() << " cells exceeds the " << max_cells_per_level << " cells a level can hold");
      return static_cast<unsigned int>(boxes.size());
    }
    bool
    is_active(const unsigned int cell) const
    {
      return flags[cell] & cell_flags::active;
    }
    bool
    is_refined(const unsigned int cell) const
    {
      return flags[cell] & cell_flags::refined;
    }
    /// Whether the level has skeleton faces (an unstructured mesh).
    bool
    has_skeleton() const
    {
      return !skeleton_faces.empty();
    }
    /// Whether face @p face of @p cell is a skeleton face.
    bool
    is_skeleton_face(const unsigned int cell, const unsigned int face) const
    {
      return !skeleton_mask.empty() && ((skeleton_mask[cell] >> face) & 1);
    }
    /// The neighbour across @p face of @p cell if the pair continues the
    /// lattice (a structured pair: its face 2d+1 meets the neighbour's face
    /// 2d with equal face coordinates); otherwise what the face has that is
    /// not a structured neighbour: boundary, none, or none for a skeleton face.
    int
    structured_neighbor(const unsigned int cell, const unsigned int face) const
    {
      return is_skeleton_face(cell, face) ? face_neighbor::none : neighbors[cell][face];
    }
    /// Number of cells with children on the next level.
    unsigned int
    n_refined_cells() const;
    /// Number of leaf cells.
    unsigned int
    n_active_cells() const;
    /// Whether the cells fill a box of the level's lattice: every position
    /// between the least and the largest coordinates holds one cell, and the
    /// face neighbours are exactly the cells one position away (boundary or
    /// none beyond the box). A uniform level of a box is one; a level with a
    /// refinement edge is not. Then the copies of every node lie in a 2×2×2
    /// sub-box of cells, which lets the device DSS run as one pass.
    bool
    fills_box() const;
  };

  /// The levels 0..L of a (possibly locally refined) mesh.
  class LevelHierarchy
  {
  public:
    std::vector<Level> levels;
    /// Coarse cells per axis of the domain (the range of level-0 coordinates).
    std::array<unsigned int, 3> coarse_subdivisions = {{1, 1, 1}};

    unsigned int
    n_levels() const
    {
      return static_cast<unsigned int>(levels.size());
    }
    unsigned int
    max_level() const
    {
      return n_levels() - 1;
    }
    const Level &
    level(const unsigned int l) const
    {
      return levels.at(l);
    }
    /// Number of active cells over all levels.
    unsigned int
    n_active_cells() const;
  };
} // namespace cellwise
