#pragma once
/**
 * @file
 * A problem on cell-wise storage in one file: the level hierarchy, the degree,
 * the Dirichlet boundary ids, a right-hand side and a reference solution. The
 * deal.II adapters write it from a DoFHandler (cellwise/dealii/problem_file.h),
 * and the core reads it without deal.II, so that a problem born in a deal.II
 * program can be solved on a machine that has no deal.II (the GPU machine):
 * `cellwise-poisson --problem-file F` solves it on either backend and reports
 * the difference to the stored solution.
 *
 * Format, version 3 (all integers little-endian, doubles IEEE 754 binary64):
 *
 *   magic "CWPROBLM" (8 bytes), version u32, header bytes u32
 *   header: degree u32, n_levels u32, coarse_subdivisions 3 x u32,
 *           locally_refined u8, n_dirichlet_ids u32, description length u32
 *   dirichlet ids (u32 each), description (UTF-8, not terminated)
 *   per level: n_cells u32, n_owned_cells u32, then per cell
 *           box lower and size (6 f64), coordinates (3 i32), parent (i32),
 *           child slot (u8), children (8 i32), neighbours (6 i32), flags (u8);
 *           then the cell mapping: degree k u32 (0: box cells), and for k > 0
 *           the (k+1)^3 nodes of every cell (3 f64 each, cell by cell, as
 *           CellMapping stores them); then the skeleton faces: count u32,
 *           each cell u32, face u8, neighbour i32, neighbour's face u8,
 *           orientation u8 (Level::skeleton_faces)
 *   vectors: n_cells u32, degree u32, then the values, cell by cell, of the
 *           right-hand side (a dual vector) and the reference solution (a
 *           primal one): of the finest level, or, if locally_refined, of the
 *           active cells in the order of cellwise::ActiveMesh
 *   coefficient: n_values u32 (0, or the vectors' n_cells), then one f64 per
 *           cell of the vectors: the coefficient, constant on the cell
 *   checksum: FNV-1a 64 of every byte before it, u64
 *
 * The reader reads a regular file only (a FIFO, a directory or a device is
 * refused before anything is read, so that opening never blocks). It checks
 * the magic, the version, every count before allocating (against the bytes
 * left in the file and a bound of its own: at most 22 levels, each axis of
 * the finest lattice within max_cells_per_axis, a description of at most
 * 1 MiB, at most 65536 Dirichlet ids, a level > 0 of exactly the 8 children
 * of each refined cell below it, at most 6 skeleton faces per cell), the
 * skeleton faces (against the neighbour table, listed from both sides with
 * inverse orientations) and the checksum. A checksum protects against
 * accidents, not against a wrong writer, so the reader then validates the
 * structure of what it read (a serial hierarchy):
 *   - links: parent and child agree, a cell is active (no children) or
 *     refined (8 children), every cell owned;
 *   - lattice: level 0's cell 0 gives the cell size h0 and the origin; a cell
 *     of level l has the size h0 / 2^l, its lower corner at its coordinates,
 *     which lie in the level's lattice (coarse_subdivisions · 2^l per axis);
 *   - tiling: the child in slot s has the half of its parent's box and the
 *     coordinates 2 x + s_d;
 *   - neighbours: the table is symmetric (n across face f of c: c across
 *     face f ^ 1 of n, or across a skeleton face of n), a structured
 *     neighbour is at the adjacent lattice position and the faces coincide;
 *     on level 0 of a lattice the adjacent cell or boundary, never the
 *     refinement edge; on finer levels what the parent says: the sibling
 *     inside the parent, and on the parent's face the same boundary id (a
 *     face's boundary id is the same on every level), the refinement edge
 *     or the child of the refined neighbour;
 *   - mappings: the nodes of two neighbours coincide on their common face
 *     (a skeleton face with its orientation), a child's corner at its
 *     parent's corner is the parent's corner node;
 *   - values: the vectors finite, the coefficient positive and finite.
 * Geometric tolerances: 1e-10 of the domain's extent for boxes (that of the
 * deal.II import, so every mesh it takes is written and read), 1e-8 of the
 * cells' extent for mapping nodes. Every refusal throws cellwise::Error
 * naming the file, the level, the cell and what is wrong: a truncated,
 * foreign, corrupt or inconsistent file never becomes a wrong problem. The
 * reader stays linear in the cells. Older files are read too: version 1 has no
 * coefficient section (the constant-coefficient Laplacian), versions 1 and 2
 * no mapping and skeleton sections (box cells on a lattice). A coefficient
 * per cell goes with box cells only (cell_coefficient_function looks cells
 * up by position).
 */

#include <cellwise/base/function.h>
#include <cellwise/mesh/level.h>
#include <cellwise/storage/cell_vector.h>

#include <cstdint>
#include <string>
#include <vector>

namespace cellwise
{
  /// The version write_problem_file writes and read_problem_file reads.
  constexpr std::uint32_t problem_file_version = 3;

  struct Problem
  {
    LevelHierarchy            hierarchy;
    unsigned int              degree = 0;
    /// Homogeneous Dirichlet ids (empty: every boundary face).
    std::vector<unsigned int> dirichlet_ids;
    /// True: the vectors are active vectors (ActiveMesh order), the problem
    /// is for the adaptive solvers; false: vectors of the finest level.
    bool                      locally_refined = false;
    /// Right-hand side (dual: the copies of a DoF sum to its load).
    CellVector<double>        rhs;
    /// Reference solution (primal: every copy holds the DoF value).
    CellVector<double>        solution;
    /// Where the problem comes from (free text, one line).
    std::string               description;
    /// The coefficient of −∇·(a∇u), one positive value per cell of the
    /// vectors (constant on the cell: what the cell-wise operator takes);
    /// empty: a = 1.
    std::vector<double>       cell_coefficients;
  };

  /**
   * The coefficient of @p problem as a function of space, for
   * MultigridParameters::coefficient: at a point, the value of the cell of
   * the vectors (finest, or active) that contains it. On those cells the
   * solvers' cell averages are the stored values exactly; on the coarser
   * levels (the preconditioner) they average the stored values. Safe to call
   * concurrently. Throws cellwise::Error if the problem has no coefficient or
   * its cells are not on the lattice of their level.
   */
  ScalarFunction
  cell_coefficient_function(const Problem &problem);

  /// Writes @p problem to @p filename; throws cellwise::Error if the file
  /// cannot be written completely or the problem is inconsistent: the
  /// structure the reader validates (links, lattice, tiling, neighbours,
  /// boundary ids, values; not the mappings and skeleton lists, which the
  /// reader refuses by name) is checked before the file is made.
  void
  write_problem_file(const std::string &filename, const Problem &problem);

  /// Reads a problem written by write_problem_file; throws cellwise::Error
  /// naming the file and the defect.
  Problem
  read_problem_file(const std::string &filename);
} // namespace cellwise
