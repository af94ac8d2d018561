#include <cellwise/base/exceptions.h>
#include <cellwise/base/parallel.h>
#include <cellwise/fe/lagrange_basis_1d.h>
#include <cellwise/mesh/unstructured_builder.h>

#include <algorithm>
#include <cmath>
#include <map>

namespace cellwise
{
  namespace
  {
    /// Trilinear interpolation of the eight corners at ξ.
    Point
    trilinear(const std::array<Point, 8> &corner, const Point &xi)
    {
      Point x = {{0., 0., 0.}};
      for (unsigned int c = 0; c < 8; ++c)
        {
          double w = 1;
          for (unsigned int d = 0; d < 3; ++d)
            w *= (c >> d) & 1 ? xi[d] : 1. - xi[d];
          for (unsigned int e = 0; e < 3; ++e)
            x[e] += w * corner[c][e];
        }
      return x;
    }
  } // namespace

  unsigned int
  face_corner(const unsigned int face, const unsigned int a, const unsigned int b)
  {
    const unsigned int d = face / 2, s = face % 2;
    if (d == 0)
      return s + 2 * a + 4 * b;
    if (d == 1)
      return a + 2 * s + 4 * b;
    return a + 2 * b + 4 * s;
  }

  std::uint8_t
  match_face_orientation(const std::array<unsigned int, 8> &v, const unsigned int f, const std::array<unsigned int, 8> &w,
                         const unsigned int g)
  {
    for (std::uint8_t o = 0; o < 8; ++o)
      {
        bool matches = true;
        for (unsigned int b = 0; b < 2 && matches; ++b)
          for (unsigned int a = 0; a < 2 && matches; ++a)
            {
              const auto there = oriented_face_point(o, a, b, 1);
              matches          = v[face_corner(f, a, b)] == w[face_corner(g, there[0], there[1])];
            }
        if (matches)
          return o;
      }
    CELLWISE_CHECK(false, "two cells share the vertices of a face but not as a quadrilateral (face " << f << " of one, face " << g
                                                                                                   << " of the other)");
  }

  LevelHierarchy
  make_unstructured_hierarchy(const CoarseMesh &coarse, const int n_refinements, const unsigned int mapping_degree)
  {
    const unsigned int n_coarse = static_cast<unsigned int>(coarse.cells.size());
    CELLWISE_CHECK(n_coarse >= 1, "make_unstructured_hierarchy: the coarse mesh has no cells");
    CELLWISE_CHECK(coarse.maps.empty() || coarse.maps.size() == n_coarse,
                   "make_unstructured_hierarchy: " << coarse.maps.size() << " maps for " << n_coarse << " cells");
    CELLWISE_CHECK(n_refinements >= 0 && n_refinements <= 12, "make_unstructured_hierarchy: " << n_refinements << " refinements (0..12)");
    CELLWISE_CHECK(mapping_degree >= 1, "make_unstructured_hierarchy: the mapping degree must be at least 1");
    for (const auto &cell : coarse.cells)
      for (const unsigned int v : cell)
        CELLWISE_CHECK(v < coarse.vertices.size(), "make_unstructured_hierarchy: vertex " << v << " of " << coarse.vertices.size());

    LevelHierarchy hierarchy;
    // level 0: one block per cell, faces matched by their vertex sets
    {
      Level &level = hierarchy.levels.emplace_back();
      level.boxes.resize(n_coarse);
      level.coordinates.resize(n_coarse);
      level.parent.resize(n_coarse);
      level.child_slot.resize(n_coarse);
      level.children.resize(n_coarse);
      level.neighbors.resize(n_coarse);
      level.flags.resize(n_coarse);
      level.skeleton_mask.resize(n_coarse);
      level.n_owned_cells = n_coarse;
      std::map<std::array<unsigned int, 4>, std::vector<std::pair<unsigned int, unsigned int>>> faces;
      for (unsigned int c = 0; c < n_coarse; ++c)
        {
          level.boxes[c]       = CellBox{{{0., 0., 0.}}, {{1., 1., 1.}}};
          level.coordinates[c] = {{0, 0, 0}};
          level.parent[c]      = -1;
          level.child_slot[c]  = 0;
          level.children[c]    = {{-1, -1, -1, -1, -1, -1, -1, -1}};
          level.flags[c]       = cell_flags::active;
          level.skeleton_mask[c] = 0;
          for (unsigned int f = 0; f < 6; ++f)
            {
              std::array<unsigned int, 4> key = {{coarse.cells[c][face_corner(f, 0, 0)], coarse.cells[c][face_corner(f, 1, 0)],
                                                   coarse.cells[c][face_corner(f, 0, 1)], coarse.cells[c][face_corner(f, 1, 1)]}};
              std::sort(key.begin(), key.end());
              faces[key].emplace_back(c, f);
            }
        }
      for (const auto &entry : faces)
        {
          const auto &sides = entry.second;
          CELLWISE_CHECK(sides.size() <= 2, "make_unstructured_hierarchy: a face is shared by " << sides.size() << " coarse cells");
          if (sides.size() == 1)
            {
              level.neighbors[sides[0].first][sides[0].second] = face_neighbor::boundary(coarse.boundary_id);
              continue;
            }
          for (unsigned int k = 0; k < 2; ++k)
            {
              const auto [c, f]       = sides[k];
              const auto [other, g]   = sides[1 - k];
              CELLWISE_CHECK(c != other, "make_unstructured_hierarchy: coarse cell " << c << " meets itself across a face");
              level.neighbors[c][f]   = static_cast<int>(other);
              level.skeleton_mask[c] |= std::uint8_t(1u << f);
              level.skeleton_faces.push_back(
                {c, static_cast<std::uint8_t>(f), static_cast<int>(other), static_cast<std::uint8_t>(g),
                 match_face_orientation(coarse.cells[c], f, coarse.cells[other], g)});
            }
        }
    }

    // the coarse cell (block) of every cell, level by level
    std::vector<std::vector<unsigned int>> block(1);
    for (unsigned int c = 0; c < n_coarse; ++c)
      block[0].push_back(c);

    for (int l = 0; l < n_refinements; ++l)
      {
        const Level &parent_level = hierarchy.levels.back();
        Level        level;
        const unsigned int n_parents = parent_level.n_cells(), n = 8 * n_parents;
        level.boxes.resize(n);
        level.coordinates.resize(n);
        level.parent.resize(n);
        level.child_slot.resize(n);
        level.children.resize(n);
        level.neighbors.resize(n);
        level.flags.resize(n);
        level.skeleton_mask.resize(n);
        level.n_owned_cells = n;
        block.emplace_back(n);
        // children of parent e: 8 e + slot
        for (unsigned int e = 0; e < n_parents; ++e)
          for (unsigned int s = 0; s < 8; ++s)
            {
              const unsigned int k = 8 * e + s;
              const CellBox     &b = parent_level.boxes[e];
              for (unsigned int d = 0; d < 3; ++d)
                {
                  const unsigned int bit = (s >> d) & 1;
                  level.boxes[k].size[d]  = 0.5 * b.size[d];
                  level.boxes[k].lower[d] = b.lower[d] + bit * 0.5 * b.size[d];
                  level.coordinates[k][d] = 2 * parent_level.coordinates[e][d] + int(bit);
                }
              level.parent[k]        = static_cast<int>(e);
              level.child_slot[k]    = static_cast<std::uint8_t>(s);
              level.children[k]      = {{-1, -1, -1, -1, -1, -1, -1, -1}};
              level.flags[k]         = cell_flags::active;
              level.skeleton_mask[k] = 0;
              block.back()[k]        = block[l][e];
            }
        // the parents' skeleton faces by (parent, face)
        std::map<std::pair<unsigned int, unsigned int>, const SkeletonFace *> parent_skeleton;
        for (const SkeletonFace &f : parent_level.skeleton_faces)
          parent_skeleton[{f.cell, f.face}] = &f;
        for (unsigned int k = 0; k < n; ++k)
          {
            const unsigned int e = k / 8, s = k % 8;
            for (unsigned int f = 0; f < 6; ++f)
              {
                const unsigned int d = f / 2, upper = f % 2;
                if (((s >> d) & 1) != upper) // inside the parent
                  {
                    level.neighbors[k][f] = static_cast<int>(8 * e + (s ^ (1u << d)));
                    continue;
                  }
                const int across = parent_level.neighbors[e][f];
                if (!face_neighbor::is_cell(across))
                  {
                    level.neighbors[k][f] = across;
                    continue;
                  }
                const auto it = parent_skeleton.find({e, f});
                if (it == parent_skeleton.end()) // a structured pair inside a block
                  {
                    level.neighbors[k][f] = static_cast<int>(8 * unsigned(across) + (s ^ (1u << d)));
                    continue;
                  }
                // across a skeleton face: the child at the oriented position
                const SkeletonFace &pf = *it->second;
                const unsigned int  a0 = d == 0 ? 1 : 0, a1 = d == 2 ? 1 : 2; // the face's axes
                const auto          there = oriented_face_point(pf.orientation, (s >> a0) & 1, (s >> a1) & 1, 1);
                const unsigned int  g = pf.neighbor_face, dg = g / 2;
                const unsigned int  g0 = dg == 0 ? 1 : 0, g1 = dg == 2 ? 1 : 2;
                const unsigned int  t  = ((g % 2) << dg) | (there[0] << g0) | (there[1] << g1);
                const unsigned int  other = 8 * unsigned(pf.neighbor) + t;
                level.neighbors[k][f]     = static_cast<int>(other);
                level.skeleton_mask[k] |= std::uint8_t(1u << f);
                level.skeleton_faces.push_back({k, static_cast<std::uint8_t>(f), static_cast<int>(other), static_cast<std::uint8_t>(g),
                                                pf.orientation});
              }
          }
        Level &parents = hierarchy.levels.back();
        for (unsigned int e = 0; e < n_parents; ++e)
          {
            for (unsigned int s = 0; s < 8; ++s)
              parents.children[e][s] = static_cast<int>(8 * e + s);
            parents.flags[e] = cell_flags::refined;
          }
        hierarchy.levels.push_back(std::move(level));
      }

    // every level's mapping through its blocks' maps
    const LagrangeBasis1D basis(mapping_degree);
    const unsigned int    m = mapping_degree + 1;
    for (unsigned int l = 0; l < hierarchy.n_levels(); ++l)
      {
        Level &level          = hierarchy.levels[l];
        level.mapping.degree = mapping_degree;
        level.mapping.nodes.resize(static_cast<std::size_t>(level.n_cells()) * level.mapping.nodes_per_cell());
        parallel_for(level.n_cells(), cell_grain, [&](const std::size_t c) {
          const unsigned int   b = block[l][c];
          std::array<Point, 8> corner;
          for (unsigned int v = 0; v < 8; ++v)
            corner[v] = coarse.vertices[coarse.cells[b][v]];
          const CellBox &box = level.boxes[c];
          Point         *out = level.mapping.nodes.data() + c * level.mapping.nodes_per_cell();
          for (unsigned int k = 0; k < m; ++k)
            for (unsigned int j = 0; j < m; ++j)
              for (unsigned int i = 0; i < m; ++i)
                {
                  const Point xi = {{box.lower[0] + basis.nodes()[i] * box.size[0], box.lower[1] + basis.nodes()[j] * box.size[1],
                                     box.lower[2] + basis.nodes()[k] * box.size[2]}};
                  out[(k * m + j) * m + i] = coarse.maps.empty() || !coarse.maps[b] ? trilinear(corner, xi) : coarse.maps[b](xi);
                }
        });
      }
    return hierarchy;
  }

  CoarseMesh
  make_ball_coarse_mesh(const double radius)
  {
    CELLWISE_CHECK(radius > 0 && std::isfinite(radius), "make_ball_coarse_mesh: radius " << radius);
    const double s = 0.4 * radius;
    CoarseMesh   mesh;
    // vertices 0..7: the inner cube's corners (±s), 8..15 their projections
    // onto the sphere, both in the bit order x + 2 y + 4 z
    for (unsigned int outer = 0; outer < 2; ++outer)
      for (unsigned int c = 0; c < 8; ++c)
        {
          Point x = {{(c & 1) ? s : -s, (c & 2) ? s : -s, (c & 4) ? s : -s}};
          if (outer)
            for (double &v : x)
              v *= radius / (std::sqrt(3.) * s);
          mesh.vertices.push_back(x);
        }
    // the inner cube, in the global frame
    mesh.cells.push_back({{0, 1, 2, 3, 4, 5, 6, 7}});
    mesh.maps.push_back([s](const Point &xi) { return Point{{s * (2 * xi[0] - 1), s * (2 * xi[1] - 1), s * (2 * xi[2] - 1)}}; });
    // six outer cells: ξ0 radial (0 on the cube), (ξ1, ξ2) along (e1, e2) with
    // (n, e1, e2) right-handed, so that every map keeps the orientation
    struct Frame
    {
      Point n, e1, e2;
    };
    const Frame directions[6] = {{{{1, 0, 0}}, {{0, 1, 0}}, {{0, 0, 1}}},  {{{-1, 0, 0}}, {{0, 0, 1}}, {{0, 1, 0}}},
                                 {{{0, 1, 0}}, {{0, 0, 1}}, {{1, 0, 0}}},  {{{0, -1, 0}}, {{1, 0, 0}}, {{0, 0, 1}}},
                                 {{{0, 0, 1}}, {{1, 0, 0}}, {{0, 1, 0}}},  {{{0, 0, -1}}, {{0, 1, 0}}, {{1, 0, 0}}}};
    for (const Frame &f : directions)
      {
        std::array<unsigned int, 8> cell;
        for (unsigned int c = 0; c < 8; ++c)
          {
            const double u = (c >> 1) & 1 ? 1. : -1., v = (c >> 2) & 1 ? 1. : -1.;
            Point        x;
            for (unsigned int d = 0; d < 3; ++d)
              x[d] = s * (f.n[d] + u * f.e1[d] + v * f.e2[d]);
            // the inner corner's bit index, then its projection if radial end
            const unsigned int corner = (x[0] > 0 ? 1 : 0) + (x[1] > 0 ? 2 : 0) + (x[2] > 0 ? 4 : 0);
            cell[c]                   = corner + ((c & 1) ? 8 : 0);
          }
        mesh.cells.push_back(cell);
        mesh.maps.push_back([f, s, radius](const Point &xi) {
          Point  P;
          double norm = 0;
          for (unsigned int d = 0; d < 3; ++d)
            {
              P[d] = s * (f.n[d] + (2 * xi[1] - 1) * f.e1[d] + (2 * xi[2] - 1) * f.e2[d]);
              norm += P[d] * P[d];
            }
          norm = std::sqrt(norm);
          Point x;
          for (unsigned int d = 0; d < 3; ++d)
            x[d] = (1 - xi[0]) * P[d] + xi[0] * radius * P[d] / norm;
          return x;
        });
      }
    return mesh;
  }
} // namespace cellwise
