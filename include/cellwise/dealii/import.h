#pragma once
/**
 * @file
 * Import of a deal.II mesh with its multigrid hierarchy into the cell-wise
 * data model: the LevelHierarchy (level cells, family links, same-level
 * neighbours, boundary ids) and the maps between deal.II's DoF numbering
 * (level and active) and the copies of a cell-wise vector.
 *
 * What the cell-wise operator can take is checked once, here, and refused
 * with a message naming the offending object: dim = 3 only (the API takes
 * DoFHandler<3>), FE_Q(p) on Gauss–Lobatto points with 1 <= p <= 8,
 * hexahedral cells (a lattice of boxes, or any coarse mesh with a MappingQ),
 * isotropic refinement, no periodic faces, level cells numbered without holes
 * (no coarsening), one MPI rank (distributed DSS does not exist yet; with
 * more ranks the result would be wrong, so it is refused).
 *
 * Locally refined meshes are taken as they are (deal.II's level cells are the
 * cellwise data model of a locally refined hierarchy): level l holds the
 * children of the refined cells of level l-1, each cell flagged active or
 * refined as deal.II says; a face whose level neighbour is coarser
 * (neighbor_is_coarser) has no same-level neighbour (face_neighbor::none, the
 * refinement edge). No 2:1 balance is required by cellwise, but
 * distribute_mg_dofs needs Triangulation::limit_level_difference_at_vertices.
 *
 * Hanging nodes: deal.II's active numbering gives a hanging DoF its own index
 * (constrained by AffineConstraints); only the fine cells refer to it. The
 * active maps hold, for each active cell, its own DoF indices, so for a deal.II
 * vector that satisfies the hanging-node constraints (after
 * AffineConstraints::distribute) G is the plain copy and the fine-side copies
 * carry the interpolated values; G^T of a dual puts the fine-side sums on the
 * hanging DoFs, and AffineConstraints::condense routes them to the masters
 * (C^T). make_active_mesh_map() gives the map over all active cells in the
 * order of cellwise::ActiveMesh.
 *
 * Cell indices: cell K of level l of the hierarchy is deal.II's level cell
 * with index() K on level l. Local DoF i of a cell is lexicographic
 * (i = i_x + (p+1) i_y + (p+1)^2 i_z), FE_Q's numbering permuted by
 * FETools::lexicographic_to_hierarchic_numbering.
 */

#include <cellwise/base/exceptions.h>
#include <cellwise/mesh/box_builder.h>
#include <cellwise/mesh/level.h>

#include <deal.II/base/types.h>

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace dealii
{
  template <int dim, int spacedim>
  class DoFHandler;
  template <int dim, int spacedim>
  class Mapping;
  template <int dim, int spacedim>
  class Triangulation;
} // namespace dealii

namespace cellwise
{
  struct ActiveMesh;
}

namespace cellwise::dealii
{
  /// deal.II's global DoF index type.
  using dof_index = ::dealii::types::global_dof_index;

  /**
   * The map between the copies of a cell-wise vector on one level and one of
   * deal.II's DoF numberings (the level numbering of that level, or the
   * active numbering restricted to the active cells of that level).
   */
  struct DofMap
  {
    /// FE_Q degree p; (p+1)^3 copies per cell.
    unsigned int degree = 0;
    /// Number of cells of the level (including cells outside the map).
    unsigned int n_cells = 0;
    /// Size of the deal.II vector this map refers to.
    dof_index n_dofs = 0;
    /// deal.II index of local DoF i (lexicographic) of cell K at
    /// [K (p+1)^3 + i]; ::dealii::numbers::invalid_dof_index for the cells that
    /// the map does not cover (non-active cells in an active map).
    std::vector<dof_index> indices;
    /// Number of copies of each deal.II DoF (size n_dofs): over this level for
    /// a level map, over the active cells of all levels for an active map.
    std::shared_ptr<const std::vector<unsigned int>> valence;

    unsigned int
    dofs_per_cell() const
    {
      return (degree + 1) * (degree + 1) * (degree + 1);
    }
    /// Whether @p cell is covered by the map.
    bool
    contains(unsigned int cell) const;
    /// deal.II index of local DoF @p i of @p cell.
    dof_index
    operator()(const unsigned int cell, const unsigned int i) const
    {
      return indices[static_cast<std::size_t>(cell) * dofs_per_cell() + i];
    }
  };

  /// A deal.II mesh and DoFHandler seen through the cell-wise data model.
  struct ImportedHierarchy
  {
    /// Levels 0..L of deal.II's triangulation, in deal.II's level cell order.
    LevelHierarchy hierarchy;
    /// FE_Q degree.
    unsigned int degree = 0;
    /// Per level: the level DoF numbering (from distribute_mg_dofs); empty
    /// where the DoFHandler has no level DoFs (the solvers do not use them).
    std::vector<DofMap> level_dofs;
    /// Per level: the active DoF numbering on that level's active cells
    /// (keyed by (level, cell); cells that are refined are not covered).
    std::vector<DofMap> active_dofs;
    /// Lower corner of the domain (the bounding box of the coarse mesh).
    std::array<double, 3> domain_lower = {{0., 0., 0.}};
    /// Upper corner of the domain.
    std::array<double, 3> domain_upper = {{0., 0., 0.}};
    /// numbering_fingerprint of the DoFHandler at the import: the maps above
    /// hold its numbering, and a solve through them after a renumbering of
    /// the same size would be wrong (check_numbering_unchanged).
    std::uint64_t numbering_fingerprint = 0;
  };

  /**
   * A cheap fingerprint of the DoF numberings of @p dof_handler: the number
   * of DoFs of the active numbering and, with @p with_level_dofs where it
   * has level DoFs, of every level, and the DoF indices (those levels', and
   * active where the cell is active) of up to 64 evenly spaced
   * cells of every level, mixed into 64 bits. Its cost does not grow with the
   * mesh, so the adapters take it at every solve. A renumbering (e.g.
   * DoFRenumbering::random, Cuthill_McKee, component_wise, or distribute_dofs
   * on a changed mesh) changes the indices of the sampled cells and the
   * fingerprint; one that moves only DoFs outside the sample is not seen.
   * An import without level DoFs takes it without them: a later
   * distribute_mg_dofs() does not change what its solves read.
   */
  std::uint64_t
  numbering_fingerprint(const ::dealii::DoFHandler<3, 3> &dof_handler, bool with_level_dofs = true);

  /// Throws cellwise::Error, naming @p who, if the numbering of @p
  /// dof_handler is not the one @p imported was made from.
  void
  check_numbering_unchanged(const ImportedHierarchy &imported, const ::dealii::DoFHandler<3, 3> &dof_handler, const char *who);

  /// A coarse mesh whose cells are axis-aligned boxes of one size in deal.II's
  /// standard orientation (vertex v at the corner (v & 1, v >> 1 & 1,
  /// v >> 2 & 1)) at distinct places of one lattice.
  struct CoarseLattice
  {
    /// The lattice's bounding box in coarse cells; its places without a
    /// cell are left out (hyper_L).
    BoxDescription box;
    /// The size of a coarse cell.
    std::array<double, 3> cell_size = {{0., 0., 0.}};
    /// Per coarse cell (deal.II's index on level 0): its place.
    std::vector<std::array<unsigned int, 3>> position;
  };

  /// The lattice of @p tria's coarse mesh, or nothing where the coarse mesh
  /// is not one (vertices compared to @p tolerance).
  std::optional<CoarseLattice>
  coarse_lattice(const ::dealii::Triangulation<3, 3> &tria, double tolerance);

  /// Throws cellwise::Error unless @p dof_handler has one element, FE_Q<3>(p)
  /// of a supported degree on Gauss–Lobatto points (the cell kernels'
  /// nodes; FE_Q(QIterated(QTrapezoid, p)) is refused).
  void
  check_fe(const ::dealii::DoFHandler<3, 3> &dof_handler);

  /**
   * Import @p dof_handler (FE_Q(p); its level DoFs from distribute_mg_dofs,
   * where there are, into level_dofs)
   * and its triangulation (Triangulation<3> or, on one rank,
   * parallel::distributed::Triangulation<3>).
   *
   * @throws cellwise::Error with a message saying what is not supported.
   */
  ImportedHierarchy
  import_dof_handler(const ::dealii::DoFHandler<3, 3> &dof_handler);

  /**
   * The same with the program's @p mapping (MappingQ1 or MappingQ(k)). A
   * coarse mesh whose cells are axis-aligned boxes of one lattice in
   * deal.II's standard orientation is imported as lattices of box cells
   * (the mapping is then the identity). Any other hexahedral coarse mesh
   * (hyper_ball, hyper_shell, a rotated or distorted box, with manifolds) is
   * imported as blocks, one per coarse cell in its own frame, with skeleton
   * faces between them, and every level cell carries the support points of
   * @p mapping as its cell mapping: the cell-wise operator is then the one
   * deal.II's MatrixFree builds with @p mapping (doc/geometry.md). The
   * one-argument version uses MappingQ1, deal.II's default.
   */
  ImportedHierarchy
  import_dof_handler(const ::dealii::Mapping<3, 3> &mapping, const ::dealii::DoFHandler<3, 3> &dof_handler);

  /**
   * The active DoF map over the active mesh: cell a of the map is active cell
   * a of @p mesh (level 0's active cells in increasing cell index, then level
   * 1's, ...; make_active_mesh(imported.hierarchy)), with deal.II's active
   * numbering; n_dofs = dof_handler.n_dofs(), valence over all active cells.
   * Use it with the functions of vector_transfer.h on active vectors
   * (MultigridSolver).
   *
   * @throws cellwise::Error if @p mesh is not the active mesh of @p imported.
   */
  DofMap
  make_active_mesh_map(const ImportedHierarchy &imported, const ActiveMesh &mesh);

  /**
   * deal.II's (active) DoFs on the boundary faces of @p imported whose
   * boundary id is in @p dirichlet_ids (every boundary face if empty): the
   * DoFs of every active cell's own such faces, through its active map,
   * sorted. The set deal.II's DoFTools::extract_boundary_dofs gives for
   * those ids, from the cell-wise data: its loop over the active cells runs
   * on one thread (0.48 s at 17 M DoFs), this one marks the faces on the
   * host's threads.
   */
  std::vector<dof_index>
  dirichlet_dofs(const ImportedHierarchy &imported, const std::vector<unsigned int> &dirichlet_ids);
} // namespace cellwise::dealii
