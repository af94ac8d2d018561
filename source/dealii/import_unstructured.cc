// Unstructured and curved coarse meshes from deal.II (doc/geometry.md): each
// coarse cell and its refinement tree is a block in the coarse cell's own
// frame (deal.II's local vertex and child numbering), faces between blocks
// are skeleton faces whose orientation comes from their shared vertices, and
// every level cell gets the support points of the user's MappingQ(k) as its
// mapping nodes, so that the cell-wise operator is the one deal.II's
// MatrixFree builds with that mapping.

#include "import_unstructured.h"

#include <cellwise/base/exceptions.h>
#include <cellwise/base/parallel.h>
#include <cellwise/fe/lagrange_basis_1d.h>
#include <cellwise/mesh/unstructured_builder.h>

#include <deal.II/base/quadrature.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_values.h>
#include <deal.II/fe/mapping_q.h>
#include <deal.II/grid/tria.h>
#include <deal.II/grid/tria_accessor.h>
#include <deal.II/grid/tria_iterator.h>

#include <array>
#include <vector>

namespace cellwise::dealii::internal
{
  void
  import_unstructured_levels(const ::dealii::Mapping<3, 3> &mapping, const ::dealii::Triangulation<3, 3> &tria, ImportedHierarchy &result)
  {
    const auto *mapping_q = dynamic_cast<const ::dealii::MappingQ<3, 3> *>(&mapping);
    CELLWISE_CHECK(mapping_q != nullptr, "the coarse mesh is not a lattice of boxes, and its mapping is not a MappingQ(k) "
                                         "(MappingQ1 or MappingQ): cellwise represents such cells by the support points of "
                                         "their MappingQ");
    const unsigned int k = mapping_q->get_degree();
    CELLWISE_CHECK(k >= 1 && k <= 8, "the mapping degree " << k << " is not in 1..8");

    const unsigned int n_levels  = tria.n_global_levels();
    LevelHierarchy    &hierarchy = result.hierarchy;
    hierarchy.levels.resize(n_levels);
    hierarchy.coarse_subdivisions = {{1, 1, 1}};
    std::vector<std::vector<unsigned int>> block(n_levels);
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
        level.skeleton_mask.resize(n_cells);
        level.n_owned_cells = n_cells;
        block[l].assign(n_cells, 0);
      }

    // family links, block-local coordinates and reference boxes; deal.II's
    // child c of an isotropically refined hexahedron is at the lexicographic
    // position c = c_x + 2 c_y + 4 c_z of its parent's frame
    for (unsigned int l = 0; l < n_levels; ++l)
      {
        Level       &level = hierarchy.levels[l];
        const double h     = 1. / double(1u << l);
        for (auto cell = tria.begin(l); cell != tria.end(l); ++cell)
          {
            const unsigned int K = cell->index();
            CELLWISE_CHECK(K < level.n_cells(), "cell " << l << "." << K << " has an index beyond the " << level.n_cells()
                                                        << " cells of its level (holes left by coarsening)");
            if (l == 0)
              {
                level.coordinates[K] = {{0, 0, 0}};
                block[0][K]          = K;
              }
            level.skeleton_mask[K] = 0;
            for (unsigned int d = 0; d < 3; ++d)
              {
                level.boxes[K].lower[d] = h * level.coordinates[K][d];
                level.boxes[K].size[d]  = h;
              }
            CELLWISE_CHECK(!cell->has_children() || cell->n_children() == 8,
                           "cell " << l << "." << K << " is refined anisotropically (" << cell->n_children()
                                   << " children); cellwise takes isotropic refinement only");
            level.flags[K] = cell->has_children() ? cell_flags::refined : cell_flags::active;
            if (cell->has_children())
              for (unsigned int c = 0; c < 8; ++c)
                {
                  const unsigned int child = cell->child(c)->index();
                  Level             &fine  = hierarchy.levels[l + 1];
                  level.children[K][c]     = static_cast<int>(child);
                  fine.parent[child]       = static_cast<int>(K);
                  fine.child_slot[child]   = static_cast<std::uint8_t>(c);
                  block[l + 1][child]      = block[l][K];
                  for (unsigned int d = 0; d < 3; ++d)
                    fine.coordinates[child][d] = 2 * level.coordinates[K][d] + int((c >> d) & 1);
                }
          }
      }

    // neighbours: structured inside a block, skeleton between blocks
    for (unsigned int l = 0; l < n_levels; ++l)
      {
        Level &level = hierarchy.levels[l];
        for (auto cell = tria.begin(l); cell != tria.end(l); ++cell)
          {
            const unsigned int K = cell->index();
            for (unsigned int f = 0; f < 6; ++f)
              {
                CELLWISE_CHECK(!cell->has_periodic_neighbor(f), "cell " << l << "." << K << " has a periodic neighbour on face " << f
                                                                      << "; periodic faces are not supported by the cell-wise DSS yet");
                if (cell->at_boundary(f))
                  {
                    level.neighbors[K][f] = face_neighbor::boundary(cell->face(f)->boundary_id());
                    continue;
                  }
                if (cell->neighbor_is_coarser(f))
                  {
                    level.neighbors[K][f] = face_neighbor::none;
                    continue;
                  }
                const auto         other = cell->neighbor(f);
                const unsigned int k_nb  = other->index();
                const unsigned int g     = cell->neighbor_of_neighbor(f);
                level.neighbors[K][f]    = static_cast<int>(k_nb);
                if (block[l][K] == block[l][k_nb])
                  {
                    CELLWISE_CHECK(g == (f ^ 1u), "cell " << l << "." << K << ": inside one coarse cell the neighbour across face "
                                                          << f << " meets it with its face " << g);
                    continue;
                  }
                std::array<unsigned int, 8> mine, theirs;
                for (unsigned int v = 0; v < 8; ++v)
                  {
                    mine[v]   = cell->vertex_index(v);
                    theirs[v] = other->vertex_index(v);
                  }
                level.skeleton_mask[K] |= std::uint8_t(1u << f);
                level.skeleton_faces.push_back({K, static_cast<std::uint8_t>(f), static_cast<int>(k_nb), static_cast<std::uint8_t>(g),
                                                match_face_orientation(mine, f, theirs, g)});
              }
          }
      }

    // the mapping's support points as every cell's mapping nodes: the
    // mapping at the Gauss-Lobatto nodes of degree k (lexicographic, x
    // fastest), where it interpolates its support points. An FEValues that
    // updates only the points computes the cell's support points once per
    // reinit; transform_unit_to_real_cell computed them again for each of
    // the (k + 1)³ nodes (hyper_ball at Q3, L = 5: the whole import took
    // 21.2 s on one core; the nodes now take 0.7 s there). The nodes agree
    // to rounding (a few 1e-16).
    const LagrangeBasis1D           basis(k);
    std::vector<::dealii::Point<1>> nodes_1d;
    for (const double x : basis.nodes())
      nodes_1d.emplace_back(x);
    // a tensor product (x fastest, the nodes' lexicographic order), which
    // MappingQ evaluates by sum factorization; the weights are never read
    const ::dealii::Quadrature<3> at_nodes(::dealii::Quadrature<1>(nodes_1d, std::vector<double>(nodes_1d.size(), 1.)));
    const ::dealii::FE_Q<3>       linear(1); // FEValues needs an element; the points are the mapping's
    for (unsigned int l = 0; l < n_levels; ++l)
      {
        Level &level          = hierarchy.levels[l];
        level.mapping.degree = k;
        level.mapping.nodes.resize(static_cast<std::size_t>(level.n_cells()) * level.mapping.nodes_per_cell());
        // the cells in parallel, an FEValues per range: deal.II's own
        // MatrixFree set-up evaluates a mapping (and its manifolds) from
        // several threads the same way
        parallel_for_ranges(level.n_cells(), 64, [&](const std::size_t begin, const std::size_t end) {
          ::dealii::FEValues<3> fe_values(mapping, linear, at_nodes, ::dealii::update_quadrature_points);
          for (std::size_t K = begin; K < end; ++K)
            {
              fe_values.reinit(::dealii::Triangulation<3, 3>::cell_iterator(&tria, static_cast<int>(l), static_cast<int>(K)));
              Point *out = level.mapping.nodes.data() + K * level.mapping.nodes_per_cell();
              for (unsigned int i = 0; i < at_nodes.size(); ++i)
                {
                  const ::dealii::Point<3> &x = fe_values.quadrature_point(i);
                  out[i]                      = {{x[0], x[1], x[2]}};
                }
            }
        });
      }
  }
} // namespace cellwise::dealii::internal
