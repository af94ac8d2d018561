#include <cellwise/base/config.h>
#include <cellwise/base/exceptions.h>
#include <cellwise/dealii/import.h>
#include <cellwise/dealii/threads.h>
#include <cellwise/fe/lagrange_basis_1d.h>
#include <cellwise/multigrid/adaptive_v_cycle.h>
#include <cellwise/storage/dirichlet_mask.h>

#include "import_unstructured.h"

#include <deal.II/base/mpi.h>
#include <deal.II/dofs/dof_accessor.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_tools.h>
#include <deal.II/fe/mapping_q1.h>
#include <deal.II/grid/tria.h>
#include <deal.II/grid/tria_accessor.h>
#include <deal.II/grid/tria_iterator.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>

namespace cellwise::dealii
{
  bool
  DofMap::contains(const unsigned int cell) const
  {
    return indices[static_cast<std::size_t>(cell) * dofs_per_cell()] != ::dealii::numbers::invalid_dof_index;
  }

  namespace
  {
    using Tria = ::dealii::Triangulation<3, 3>;

    /// Lower corner and edge lengths of a cell, after checking that its eight
    /// vertices are the corners of an axis-aligned box in deal.II's
    /// lexicographic vertex order (vertex v at bits (v&1, v&2, v&4)).
    CellBox
    check_box(const Tria::cell_iterator &cell, const double tolerance)
    {
      CellBox box;
      for (unsigned int d = 0; d < 3; ++d)
        {
          box.lower[d] = cell->vertex(0)[d];
          box.size[d]  = cell->vertex(7)[d] - cell->vertex(0)[d];
          CELLWISE_CHECK(box.size[d] > tolerance,
                         "cell " << cell->level() << "." << cell->index() << " is not an axis-aligned box with "
                                 << "positive edges in deal.II's standard orientation: vertex 7 minus vertex 0 is "
                                 << box.size[d] << " along axis " << d);
        }
      for (unsigned int v = 0; v < 8; ++v)
        for (unsigned int d = 0; d < 3; ++d)
          {
            const double expected = box.lower[d] + (((v >> d) & 1) ? box.size[d] : 0.);
            CELLWISE_CHECK(std::abs(cell->vertex(v)[d] - expected) <= tolerance,
                           "cell " << cell->level() << "." << cell->index()
                                   << " is not an axis-aligned box: vertex " << v << " has coordinate "
                                   << cell->vertex(v)[d] << " along axis " << d << ", the box corner is at "
                                   << expected << "; the cell-wise operator takes Cartesian cells only");
          }
      return box;
    }

    /// Integer position x = lower + k h, or a refusal.
    int
    integer_position(const double x, const double lower, const double h, const double tolerance, const char *what)
    {
      const double k = (x - lower) / h;
      const long   r = std::lround(k);
      CELLWISE_CHECK(std::abs(k - static_cast<double>(r)) * h <= tolerance,
                     "the coarse mesh is not made of the cells of a box lattice: a cell's " << what << " " << x
                                                                                    << " is not a multiple of the coarse cell size "
                                                                                    << h << " from " << lower);
      return static_cast<int>(r);
    }

    /// The active/level DoF map of one level; cells not covered get invalid indices.
    DofMap
    make_map(const unsigned int degree, const unsigned int n_cells, const dof_index n_dofs)
    {
      DofMap map;
      map.degree  = degree;
      map.n_cells = n_cells;
      map.n_dofs  = n_dofs;
      map.indices.assign(static_cast<std::size_t>(n_cells) * map.dofs_per_cell(), ::dealii::numbers::invalid_dof_index);
      return map;
    }
  } // namespace

  void
  check_fe(const ::dealii::DoFHandler<3, 3> &dof_handler)
  {
    CELLWISE_CHECK(!dof_handler.has_hp_capabilities(),
                   "the DoFHandler has hp capabilities (an hp::FECollection); cellwise takes a single FE_Q");
    const auto &fe = dof_handler.get_fe();
    const bool is_fe_q = dynamic_cast<const ::dealii::FE_Q<3, 3> *>(&fe) != nullptr;
    CELLWISE_CHECK(is_fe_q,
                   "the finite element is " << fe.get_name() << "; cellwise takes FE_Q<3>(p) only");
    check_degree(fe.degree);

    // FE_Q(p) may be built on other points than Gauss–Lobatto
    // (FE_Q(QIterated(QTrapezoid, p))): the cell kernels assume GL nodes.
    const LagrangeBasis1D           basis(fe.degree);
    const std::vector<unsigned int> lex = ::dealii::FETools::lexicographic_to_hierarchic_numbering<3>(fe.degree);
    const auto                     &points = fe.get_unit_support_points();
    const unsigned int              n      = fe.degree + 1;
    for (unsigned int i = 0; i < lex.size(); ++i)
      {
        const unsigned int ijk[3] = {i % n, (i / n) % n, i / (n * n)};
        for (unsigned int d = 0; d < 3; ++d)
          CELLWISE_CHECK(std::abs(points[lex[i]][d] - basis.nodes()[ijk[d]]) < 1e-12,
                         "the finite element " << fe.get_name()
                                               << " does not have its support points at the Gauss-Lobatto "
                                                  "points; cellwise takes FE_Q<3>(p) on Gauss-Lobatto points "
                                                  "(the default of FE_Q<3>(p))");
      }
  }

  std::optional<CoarseLattice>
  coarse_lattice(const ::dealii::Triangulation<3, 3> &tria, const double tolerance)
  {
    const auto    first = tria.begin(0);
    CoarseLattice lattice;
    for (unsigned int d = 0; d < 3; ++d)
      {
        lattice.cell_size[d] = first->vertex(7)[d] - first->vertex(0)[d];
        if (!(lattice.cell_size[d] > tolerance))
          return std::nullopt;
        lattice.box.lower[d] = first->vertex(0)[d];
        for (auto cell = tria.begin(0); cell != tria.end(0); ++cell)
          lattice.box.lower[d] = std::min(lattice.box.lower[d], cell->vertex(0)[d]);
      }
    std::set<std::array<unsigned int, 3>> positions;
    for (auto cell = tria.begin(0); cell != tria.end(0); ++cell)
      {
        std::array<unsigned int, 3> position;
        for (unsigned int d = 0; d < 3; ++d)
          {
            const double k = (cell->vertex(0)[d] - lattice.box.lower[d]) / lattice.cell_size[d];
            if (std::abs(k - std::round(k)) * lattice.cell_size[d] > tolerance || k > double(max_cells_per_axis))
              return std::nullopt;
            position[d] = static_cast<unsigned int>(std::lround(k));
            lattice.box.subdivisions[d] = std::max(lattice.box.subdivisions[d], position[d] + 1);
          }
        for (unsigned int v = 0; v < 8; ++v)
          for (unsigned int d = 0; d < 3; ++d)
            if (std::abs(cell->vertex(v)[d] - (cell->vertex(0)[d] + (((v >> d) & 1) ? lattice.cell_size[d] : 0.))) > tolerance)
              return std::nullopt;
        if (!positions.insert(position).second)
          return std::nullopt;
        lattice.position.push_back(position);
      }
    const auto &n = lattice.box.subdivisions;
    for (unsigned int d = 0; d < 3; ++d)
      lattice.box.upper[d] = lattice.box.lower[d] + n[d] * lattice.cell_size[d];
    for (unsigned int k = 0; k < n[2]; ++k)
      for (unsigned int j = 0; j < n[1]; ++j)
        for (unsigned int i = 0; i < n[0]; ++i)
          if (positions.count({{i, j, k}}) == 0)
            lattice.box.removed.push_back({{i, j, k}});
    return lattice;
  }

  namespace
  {
    /// The levels of a lattice-aligned mesh: global lattice coordinates,
    /// boxes, neighbours in one frame.
    void
    import_lattice_levels(const Tria &tria, ImportedHierarchy &result, const std::array<double, 3> &lower,
                          const std::array<double, 3> &upper, const double tolerance)
    {
      const unsigned int n_levels = tria.n_global_levels();
      std::array<double, 3> coarse_h;
      {
        const CellBox first = check_box(tria.begin(0), tolerance);
        for (unsigned int d = 0; d < 3; ++d)
          {
            coarse_h[d] = first.size[d];
            const long n = std::lround((upper[d] - lower[d]) / coarse_h[d]);
            CELLWISE_CHECK(n >= 1 && std::abs(n * coarse_h[d] - (upper[d] - lower[d])) <= n * tolerance,
                           "the coarse mesh is not made of the cells of a box lattice: the domain's extent "
                             << upper[d] - lower[d] << " along axis " << d << " is not a multiple of the first cell's edge "
                             << coarse_h[d]);
            result.hierarchy.coarse_subdivisions[d] = static_cast<unsigned int>(n);
          }
        // Any set of the box's lattice positions is a domain the cell-wise
        // levels take (deal.II's hyper_L: 7 of the 8 cells of a 2 x 2 x 2 box):
        // the faces toward the empty positions are deal.II's boundary faces.
        const auto &n = result.hierarchy.coarse_subdivisions;
        CELLWISE_CHECK(tria.n_cells(0) <= std::size_t(n[0]) * n[1] * n[2],
                       "the coarse mesh is not made of the cells of a box lattice: it has " << tria.n_cells(0)
                                                                                            << " cells, a box of " << n[0]
                                                                                            << " x " << n[1] << " x " << n[2]
                                                                                            << " cells of the first cell's size has "
                                                                                            << n[0] * n[1] * n[2]);
      }

      LevelHierarchy &hierarchy = result.hierarchy;
      hierarchy.levels.resize(n_levels);
      for (unsigned int l = 0; l < n_levels; ++l)
        {
          Level             &level   = hierarchy.levels[l];
          const unsigned int n_cells = tria.n_cells(l);
          level.boxes.resize(n_cells);
          level.coordinates.resize(n_cells);
          level.parent.assign(n_cells, -1);
          level.child_slot.assign(n_cells, 0);
          level.children.assign(n_cells, {{-1, -1, -1, -1, -1, -1, -1, -1}});
          level.neighbors.resize(n_cells);
          level.flags.assign(n_cells, 0);
          level.n_owned_cells = n_cells;
        }

      // Geometry, coordinates and family links. A cell on level l sits at
      // lower + k h0 / 2^l; checking this for every cell also checks that deal.II's
      // child numbering is the lexicographic c = c_x + 2 c_y + 4 c_z of level.h.
      // In parallel over the cells of a level (deal.II's accessors only
      // read; each cell writes its own entries and its children's parent
      // links, which no other cell writes): at 2 M cells the sequential
      // loops took most of the import.
      for (unsigned int l = 0; l < n_levels; ++l)
        {
          Level &level = hierarchy.levels[l];
          parallel_for(level.n_cells(), 256, [&](const std::size_t K) {
              const Tria::cell_iterator cell(&tria, static_cast<int>(l), static_cast<int>(K));
              // n_cells(l) cells used, each of 0..n-1 used: the indices are 0..n-1
              CELLWISE_CHECK(cell->used(),
                             "level " << l << " has holes among its cell indices (index " << K << " unused, "
                                      << level.n_cells() << " cells; left by coarsening); cellwise takes level cells "
                                         "numbered 0..n-1");
              const CellBox      box = check_box(cell, tolerance);
              level.boxes[K]         = box;
              for (unsigned int d = 0; d < 3; ++d)
                {
                  const double h         = coarse_h[d] / double(1u << l);
                  level.coordinates[K][d] = integer_position(box.lower[d], lower[d], h, tolerance, "lower corner");
                  CELLWISE_CHECK(std::abs(box.size[d] - h) <= tolerance,
                                 "cell " << l << "." << K << " has edge " << box.size[d] << " along axis " << d
                                         << ", expected " << h << " for a uniformly subdivided coarse box refined "
                                         << l << " times");
                }
              CELLWISE_CHECK(!cell->has_children() || cell->n_children() == 8,
                             "cell " << l << "." << K << " is refined anisotropically (" << cell->n_children()
                                     << " children); cellwise takes isotropic refinement only");
              level.flags[K] = cell->has_children() ? cell_flags::refined : cell_flags::active;
              if (cell->has_children())
                for (unsigned int c = 0; c < 8; ++c)
                  {
                    const auto         child = cell->child(c);
                    const unsigned int k     = child->index();
                    Level &fine              = hierarchy.levels[l + 1];
                    CELLWISE_CHECK(k < fine.n_cells(), "level " << l + 1 << " has holes among its cell indices (child "
                                                                << k << " of cell " << l << "." << K << ", "
                                                                << fine.n_cells()
                                                                << " cells; left by coarsening); cellwise takes level "
                                                                   "cells numbered 0..n-1");
                    level.children[K][c]     = static_cast<int>(k);
                    fine.parent[k]           = static_cast<int>(K);
                    fine.child_slot[k]       = static_cast<std::uint8_t>(c);
                  }
          });
        }
      for (unsigned int l = 1; l < n_levels; ++l)
        {
          const Level &coarse = hierarchy.levels[l - 1];
          const Level &fine   = hierarchy.levels[l];
          for (unsigned int k = 0; k < fine.n_cells(); ++k)
            for (unsigned int d = 0; d < 3; ++d)
              CELLWISE_CHECK(fine.coordinates[k][d] ==
                               2 * coarse.coordinates[fine.parent[k]][d] + int((fine.child_slot[k] >> d) & 1),
                             "child " << unsigned(fine.child_slot[k]) << " of cell " << l - 1 << "." << fine.parent[k]
                                      << " is not at the lexicographic position c = c_x + 2 c_y + 4 c_z");
        }
      {
        // Distinct coarse positions (a box with overlapping or missing cells
        // would pass the per-cell checks).
        std::set<std::array<int, 3>> seen(hierarchy.levels[0].coordinates.begin(), hierarchy.levels[0].coordinates.end());
        CELLWISE_CHECK(seen.size() == hierarchy.levels[0].n_cells(),
                       "the coarse mesh is not made of the cells of a box lattice: two coarse cells occupy the same position");
      }

      // Same-level neighbours: cell->neighbor(f) on level cells is on the same
      // level unless it is coarser (refinement edge: no same-level neighbour).
      for (unsigned int l = 0; l < n_levels; ++l)
        {
          Level &level = hierarchy.levels[l];
          parallel_for(level.n_cells(), 256, [&](const std::size_t K) {
              const Tria::cell_iterator cell(&tria, static_cast<int>(l), static_cast<int>(K));
              for (unsigned int f = 0; f < 6; ++f)
                {
                  CELLWISE_CHECK(!cell->has_periodic_neighbor(f),
                                 "cell " << l << "." << K << " has a periodic neighbour on face " << f
                                         << "; periodic faces are not supported by the cell-wise DSS yet");
                  if (cell->at_boundary(f))
                    level.neighbors[K][f] = face_neighbor::boundary(cell->face(f)->boundary_id());
                  else if (cell->neighbor_is_coarser(f))
                    level.neighbors[K][f] = face_neighbor::none;
                  else
                    {
                      const auto         other = cell->neighbor(f);
                      const unsigned int k     = other->index();
                      // The neighbour across face 2d+1 must sit at +1 along d.
                      const unsigned int d     = f / 2;
                      std::array<int, 3> expected = level.coordinates[K];
                      expected[d] += (f % 2) ? 1 : -1;
                      CELLWISE_CHECK(other->level() == static_cast<int>(l) && level.coordinates[k] == expected,
                                     "cell " << l << "." << K << ": the neighbour across face " << f
                                             << " is not the adjacent cell of the same level");
                      level.neighbors[K][f] = static_cast<int>(k);
                    }
                }
          });
        }

    }

    /// The level and active DoF maps, lexicographic per cell in the cell's
    /// own frame (both paths).
    void
    import_dof_maps(const ::dealii::DoFHandler<3, 3> &dof_handler, ImportedHierarchy &result)
    {
      const Tria        &tria     = dof_handler.get_triangulation();
      const unsigned int degree   = result.degree;
      const unsigned int n_levels = tria.n_global_levels();
      // DoF maps, lexicographic per cell.
      const std::vector<unsigned int> lex_to_fe = ::dealii::FETools::lexicographic_to_hierarchic_numbering<3>(degree);
      const unsigned int              n_local   = static_cast<unsigned int>(lex_to_fe.size());
      // the level numberings only where deal.II has them: the cell-wise
      // solvers make their own level connectivity and never read them (a
      // program need not call distribute_mg_dofs, 4.8 s of step-37's set-up
      // at 17 M DoFs); they are there for users comparing level by level
      const bool with_levels    = dof_handler.has_level_dofs();
      auto       active_valence = std::make_shared<std::vector<unsigned int>>(dof_handler.n_dofs(), 0u);
      for (unsigned int l = 0; l < n_levels; ++l)
        {
          const unsigned int n_cells   = tria.n_cells(l);
          DofMap             level_map = make_map(degree, with_levels ? n_cells : 0, with_levels ? dof_handler.n_dofs(l) : 0);
          DofMap             active_map = make_map(degree, n_cells, dof_handler.n_dofs());
          auto               level_valence = std::make_shared<std::vector<unsigned int>>(level_map.n_dofs, 0u);
          // the cells' indices in parallel (deal.II's DoF accessors only
          // read), each cell's own entries; the valences after, in order
          parallel_for_ranges(n_cells, 256, [&](const std::size_t begin, const std::size_t end) {
            std::vector<dof_index> fe_indices(n_local);
            for (std::size_t K = begin; K < end; ++K)
              {
                const ::dealii::DoFHandler<3, 3>::level_cell_iterator cell(&tria, static_cast<int>(l), static_cast<int>(K),
                                                                           &dof_handler);
                const std::size_t offset = K * n_local;
                if (with_levels)
                  {
                    cell->get_mg_dof_indices(fe_indices);
                    for (unsigned int i = 0; i < n_local; ++i)
                      level_map.indices[offset + i] = fe_indices[lex_to_fe[i]];
                  }
                if (cell->is_active())
                  {
                    cell->get_dof_indices(fe_indices);
                    for (unsigned int i = 0; i < n_local; ++i)
                      active_map.indices[offset + i] = fe_indices[lex_to_fe[i]];
                  }
              }
          });
          for (const dof_index i : level_map.indices)
            ++(*level_valence)[i];
          for (unsigned int K = 0; K < n_cells; ++K)
            if (active_map.contains(K))
              for (unsigned int i = 0; i < n_local; ++i)
                ++(*active_valence)[active_map.indices[static_cast<std::size_t>(K) * n_local + i]];
          level_map.valence = level_valence;
          if (with_levels)
            result.level_dofs.push_back(std::move(level_map));
          result.active_dofs.push_back(std::move(active_map));
        }
      for (DofMap &map : result.active_dofs)
        map.valence = active_valence;
    }
  } // namespace

  ImportedHierarchy
  import_dof_handler(const ::dealii::DoFHandler<3, 3> &dof_handler)
  {
    return import_dof_handler(::dealii::StaticMappingQ1<3, 3>::mapping, dof_handler);
  }

  ImportedHierarchy
  import_dof_handler(const ::dealii::Mapping<3, 3> &mapping, const ::dealii::DoFHandler<3, 3> &dof_handler)
  {
    // from here on the core's loops share deal.II's threads (threads.h)
    use_dealii_threads();
    const Tria &tria = dof_handler.get_triangulation();

    const unsigned int n_ranks = ::dealii::Utilities::MPI::n_mpi_processes(tria.get_communicator());
    CELLWISE_CHECK(n_ranks == 1,
                   "cellwise::dealii::import_dof_handler: the triangulation is distributed over "
                     << n_ranks
                     << " MPI ranks; the import takes a whole mesh on one rank. On several ranks use "
                        "cellwise::dealii::MultigridPreconditioner (dealii/multigrid_preconditioner.h)");
    CELLWISE_CHECK(tria.n_levels() > 0, "the triangulation is empty");
    for (auto cell = tria.begin(0); cell != tria.end(0); ++cell)
      CELLWISE_CHECK(cell->reference_cell() == ::dealii::ReferenceCells::Hexahedron,
                     "cell 0." << cell->index() << " is a " << cell->reference_cell().to_string()
                               << "; cellwise takes hexahedral meshes only");
    CELLWISE_CHECK(dof_handler.has_active_dofs(),
                   "the DoFHandler has no DoFs: call dof_handler.distribute_dofs(fe) before the import");
    check_fe(dof_handler);

    ImportedHierarchy result;
    const unsigned int degree = dof_handler.get_fe().degree;
    result.degree             = degree;
    const unsigned int n_levels = tria.n_global_levels();
    CELLWISE_CHECK(n_levels <= 21, "the mesh has " << n_levels << " levels; integer cell coordinates allow 21");

    // The coarse mesh: its bounding box, the coarse cell size from the first
    // cell, and every coarse cell at an integer position of that grid.
    std::array<double, 3> lower = {{1e300, 1e300, 1e300}}, upper = {{-1e300, -1e300, -1e300}};
    for (auto cell = tria.begin(0); cell != tria.end(0); ++cell)
      for (unsigned int v = 0; v < 8; ++v)
        for (unsigned int d = 0; d < 3; ++d)
          {
            lower[d] = std::min(lower[d], cell->vertex(v)[d]);
            upper[d] = std::max(upper[d], cell->vertex(v)[d]);
          }
    const double extent    = std::max({upper[0] - lower[0], upper[1] - lower[1], upper[2] - lower[2]});
    const double tolerance = 1e-10 * extent;
    result.domain_lower    = lower;
    result.domain_upper    = upper;

    if (coarse_lattice(tria, tolerance))
      import_lattice_levels(tria, result, lower, upper, tolerance);
    else
      internal::import_unstructured_levels(mapping, tria, result);
    import_dof_maps(dof_handler, result);
    result.numbering_fingerprint = numbering_fingerprint(dof_handler, !result.level_dofs.empty());
    return result;
  }

  std::uint64_t
  numbering_fingerprint(const ::dealii::DoFHandler<3, 3> &dof_handler, const bool with_level_dofs)
  {
    const bool levels = with_level_dofs && dof_handler.has_level_dofs();
    // FNV-1a over 64-bit words.
    std::uint64_t hash = 14695981039346656037ull;
    auto          mix  = [&hash](const std::uint64_t word) {
      for (unsigned int byte = 0; byte < 8; ++byte)
        {
          hash ^= (word >> (8 * byte)) & 0xffu;
          hash *= 1099511628211ull;
        }
    };
    const Tria &tria = dof_handler.get_triangulation();
    mix(dof_handler.n_dofs());
    if (!dof_handler.has_active_dofs())
      return hash;
    const unsigned int     n_local = dof_handler.get_fe().n_dofs_per_cell();
    std::vector<dof_index> indices(n_local);
    constexpr unsigned int samples = 64;
    for (unsigned int l = 0; l < tria.n_levels(); ++l)
      {
        const unsigned int n_cells = tria.n_cells(l);
        mix(n_cells);
        if (levels)
          mix(dof_handler.n_dofs(l));
        for (unsigned int s = 0; s < std::min(samples, n_cells); ++s)
          {
            const unsigned int index = static_cast<unsigned int>(static_cast<std::uint64_t>(s) * n_cells / std::min(samples, n_cells));
            const typename ::dealii::DoFHandler<3, 3>::level_cell_iterator cell(&tria, static_cast<int>(l), static_cast<int>(index),
                                                                                 &dof_handler);
            if (levels)
              {
                cell->get_mg_dof_indices(indices);
                for (const dof_index i : indices)
                  mix(i);
              }
            if (cell->is_active())
              {
                cell->get_dof_indices(indices);
                for (const dof_index i : indices)
                  mix(i);
              }
          }
      }
    return hash;
  }

  void
  check_numbering_unchanged(const ImportedHierarchy &imported, const ::dealii::DoFHandler<3, 3> &dof_handler, const char *who)
  {
    CELLWISE_CHECK(numbering_fingerprint(dof_handler, !imported.level_dofs.empty()) == imported.numbering_fingerprint,
                   who << ": the DoF numbering of the DoFHandler is not the one that was imported (renumbered, or "
                          "distribute_dofs called again, since the set-up); set the solver up again after renumbering");
  }

  DofMap
  make_active_mesh_map(const ImportedHierarchy &imported, const ActiveMesh &mesh)
  {
    const LevelHierarchy &h = imported.hierarchy;
    CELLWISE_CHECK(mesh.n_levels() == h.n_levels() && imported.active_dofs.size() == h.n_levels(),
                   "make_active_mesh_map: the active mesh has " << mesh.n_levels() << " levels, the imported hierarchy "
                                                                << h.n_levels());
    CELLWISE_CHECK(!imported.active_dofs.empty(), "make_active_mesh_map: empty hierarchy");
    const DofMap &first = imported.active_dofs.front();
    DofMap        map   = make_map(imported.degree, mesh.n_active_cells(), first.n_dofs);
    map.valence         = first.valence;
    const unsigned int n = map.dofs_per_cell();
    for (unsigned int l = 0; l < mesh.n_levels(); ++l)
      {
        const DofMap &level_map = imported.active_dofs[l];
        CELLWISE_CHECK(mesh.active_index[l].size() == level_map.n_cells,
                       "make_active_mesh_map: level " << l << " of the active mesh has " << mesh.active_index[l].size()
                                                      << " cells, the imported level " << level_map.n_cells);
        for (unsigned int j = 0; j < mesh.active_cells[l].size(); ++j)
          {
            const unsigned int cell = mesh.active_cells[l][j];
            CELLWISE_CHECK(level_map.contains(cell),
                           "make_active_mesh_map: cell " << l << "." << cell
                                                         << " is active in the active mesh but not in deal.II's mesh");
            const std::size_t a = mesh.level_offset[l] + j;
            for (unsigned int i = 0; i < n; ++i)
              map.indices[a * n + i] = level_map(cell, i);
          }
      }
    return map;
  }

  std::vector<dof_index>
  dirichlet_dofs(const ImportedHierarchy &imported, const std::vector<unsigned int> &dirichlet_ids)
  {
    const unsigned int degree  = imported.degree;
    const auto         selects = [&dirichlet_ids](const int neighbor) { return is_dirichlet_face(neighbor, dirichlet_ids); };
    const dof_index           n_dofs = imported.active_dofs.empty() ? 0 : imported.active_dofs.back().n_dofs;
    std::vector<unsigned char> on(n_dofs, 0);
    for (unsigned int l = 0; l < imported.hierarchy.n_levels(); ++l)
      {
        const Level  &level = imported.hierarchy.level(l);
        const DofMap &map   = imported.active_dofs[l];
        // a level without active cells has no DoF of deal.II's (all of a
        // uniform mesh's levels but the finest)
        bool has_active = false;
        for (unsigned int K = 0; K < level.n_cells() && !has_active; ++K)
          has_active = map.contains(K);
        if (!has_active)
          continue;
        // the DoFs of each cell's own selected faces (no DSS: a DoF at an
        // edge or vertex of such a face is on the face, in that cell)
        const CellVector<float> marker = mark_own_face_dofs<float>(level, degree, lagrange_trace_layers(degree), selects);
        for (unsigned int K = 0; K < level.n_cells(); ++K)
          if (map.contains(K))
            for (unsigned int i = 0; i < marker.dofs_per_cell(); ++i)
              if (marker(K, i) != 0.f)
                on[map(K, i)] = 1;
      }
    std::vector<dof_index> dofs;
    for (dof_index j = 0; j < n_dofs; ++j)
      if (on[j])
        dofs.push_back(j);
    return dofs;
  }
} // namespace cellwise::dealii
