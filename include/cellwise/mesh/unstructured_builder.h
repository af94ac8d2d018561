#pragma once
/**
 * @file
 * Level hierarchies of unstructured hexahedral coarse meshes: any number of
 * coarse cells, any vertex valence, any relative orientation of neighbouring
 * cells (003 §4.3, "unstructured inter-block interfaces"). Each coarse cell
 * and its refinement tree is a block with its own frame: inside it the level
 * is a lattice (block-local coordinates, structured face pairs); every face
 * between two blocks is a skeleton face (Level::skeleton_faces) with the
 * neighbour's face and the orientation of the face coordinates, found from
 * the shared vertices. Each level's cells are mapped by a mapping of the
 * given degree through their coarse cell's map (curved cells). Boxes hold
 * each cell's sub-box of its coarse cell's reference cube.
 */

#include <cellwise/mesh/cell_mapping.h>
#include <cellwise/mesh/level.h>

#include <array>
#include <cstdint>
#include <vector>

namespace cellwise
{
  struct CoarseMesh
  {
    std::vector<Point> vertices;
    /// Per cell its eight vertices in the lexicographic order of the
    /// reference cube (vertex c at ξ = (c & 1, c >> 1 & 1, c >> 2 & 1)),
    /// deal.II's order.
    std::vector<std::array<unsigned int, 8>> cells;
    /// Per cell the map of its reference cube (its corners must be the
    /// cell's vertices); empty: the trilinear map through the vertices.
    std::vector<PointMap> maps;
    /// Boundary id of every boundary face.
    unsigned int boundary_id = 0;
  };

  /// Local vertex (deal.II's lexicographic numbering) at corner (@p a, @p b)
  /// ∈ {0,1}² of face @p face, in the face coordinates of fe/face_dofs.h.
  unsigned int
  face_corner(unsigned int face, unsigned int a, unsigned int b);

  /// The orientation code of SkeletonFace that takes the corners of face
  /// @p f of a cell with vertex ids @p v to the corners with the same ids of
  /// face @p g of a cell with vertex ids @p w; throws cellwise::Error if the
  /// two faces do not share their four vertices as quadrilaterals.
  std::uint8_t
  match_face_orientation(const std::array<unsigned int, 8> &v, unsigned int f, const std::array<unsigned int, 8> &w, unsigned int g);

  /// The hierarchy of @p coarse refined @p n_refinements times, every level
  /// mapped by a mapping of degree @p mapping_degree. Throws cellwise::Error
  /// for a face shared by more than two cells, faces that do not match as
  /// quadrilaterals, or a cell inverted by its map.
  LevelHierarchy
  make_unstructured_hierarchy(const CoarseMesh &coarse, int n_refinements, unsigned int mapping_degree);

  /// The ball of radius @p radius in 7 coarse cells as deal.II's hyper_ball:
  /// a cube of half-width 0.4 @p radius in the middle and six cells between
  /// its faces and the sphere, each mapped by the transfinite map
  /// x = (1 − λ) P + λ radius P / |P| (P on the cube's face, λ radial), so
  /// that the outer faces lie on the sphere and neighbouring cells agree on
  /// their shared faces. The six outer cells' frames differ.
  CoarseMesh
  make_ball_coarse_mesh(double radius = 1.);
} // namespace cellwise
