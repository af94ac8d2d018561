#include <cellwise/base/exceptions.h>
#include <cellwise/base/parallel.h>
#include <cellwise/mesh/box_builder.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iomanip>
#include <limits>
#include <unordered_map>

namespace cellwise
{
  namespace
  {
    std::uint64_t
    coordinate_key(const std::array<int, 3> &c)
    {
      // 21 bits per axis: up to 2^21 cells per axis and level.
      return (static_cast<std::uint64_t>(c[2]) << 42) | (static_cast<std::uint64_t>(c[1]) << 21) |
             static_cast<std::uint64_t>(c[0]);
    }

    /// Same-level neighbours from integer coordinates: a face whose mirror
    /// position lies outside the domain is boundary, one whose mirror cell is
    /// missing from the level is part of the refinement edge.
    void
    compute_neighbors(Level &level, const std::array<unsigned int, 3> &cells_per_axis, const bool missing_is_boundary = false)
    {
      std::unordered_map<std::uint64_t, int> index_of;
      index_of.reserve(level.n_cells());
      for (unsigned int c = 0; c < level.n_cells(); ++c)
        index_of[coordinate_key(level.coordinates[c])] = static_cast<int>(c);

      level.neighbors.resize(level.n_cells());
      for (unsigned int c = 0; c < level.n_cells(); ++c)
        for (unsigned int face = 0; face < 6; ++face)
          {
            const unsigned int  d    = face / 2;
            std::array<int, 3> other = level.coordinates[c];
            other[d] += (face % 2 == 0) ? -1 : 1;
            if (other[d] < 0 || other[d] >= static_cast<int>(cells_per_axis[d]))
              level.neighbors[c][face] = face_neighbor::boundary(face);
            else
              {
                const auto it            = index_of.find(coordinate_key(other));
                level.neighbors[c][face] = it != index_of.end() ? it->second
                                           : missing_is_boundary ? face_neighbor::boundary(removed_boundary_id)
                                                                 : face_neighbor::none;
              }
          }
    }

    /// The same neighbours for the children of a refinement, from the
    /// parents' neighbours without a search (the coordinate map costs seconds
    /// for 10^7 cells): across face f (axis d) the neighbour of the child in
    /// slot s is its sibling s ^ (1 << d) if the child lies on the inner side
    /// of its parent, otherwise the child in slot s ^ (1 << d) of the parent's
    /// neighbour across f — boundary if that is boundary, none (refinement
    /// edge) if it is none or not refined.
    void
    compute_child_neighbors(const Level &coarse, Level &fine)
    {
      fine.neighbors.resize(fine.n_cells());
      parallel_for(fine.n_cells(), cell_grain, [&](const std::size_t c) {
        const int          parent = fine.parent[c];
        const unsigned int slot   = fine.child_slot[c];
        for (unsigned int face = 0; face < 6; ++face)
          {
            const unsigned int d     = face / 2;
            const unsigned int upper = face % 2;
            const unsigned int other = slot ^ (1u << d);
            if (((slot >> d) & 1) != upper) // the face is inside the parent
              fine.neighbors[c][face] = coarse.children[parent][other];
            else
              {
                const int across = coarse.neighbors[parent][face];
                if (!face_neighbor::is_cell(across))
                  fine.neighbors[c][face] = across; // boundary (same id) or none
                else
                  {
                    const int child         = coarse.children[across][other];
                    fine.neighbors[c][face] = child >= 0 ? child : face_neighbor::none;
                  }
              }
          }
      });
    }

    std::array<unsigned int, 3>
    cells_per_axis(const LevelHierarchy &hierarchy, const unsigned int level)
    {
      std::array<unsigned int, 3> n;
      for (unsigned int d = 0; d < 3; ++d)
        n[d] = hierarchy.coarse_subdivisions[d] << level;
      return n;
    }
  } // namespace

  LevelHierarchy
  make_coarse_box(const BoxDescription &box)
  {
    check_box_geometry(box, 0);
    for (unsigned int d = 0; d < 3; ++d)
      {
        CELLWISE_CHECK(box.subdivisions[d] >= 1 && box.subdivisions[d] <= (1u << 20),
                       "box subdivisions along axis " << d << " is " << box.subdivisions[d]
                                                      << ", allowed are 1.." << (1u << 20));
      }

    const std::size_t n_coarse = std::size_t(box.subdivisions[0]) * box.subdivisions[1] * box.subdivisions[2];
    CELLWISE_CHECK(n_coarse <= max_cells_per_level, "a coarse box of " << box.subdivisions[0] << " x " << box.subdivisions[1] << " x "
                                                                        << box.subdivisions[2] << " = " << n_coarse
                                                                        << " cells exceeds the " << max_cells_per_level
                                                                        << " cells a level can hold");

    const auto &n = box.subdivisions;
    std::vector<bool> left_out(n_coarse, false);
    for (const auto &r : box.removed)
      {
        CELLWISE_CHECK(r[0] < n[0] && r[1] < n[1] && r[2] < n[2],
                       "the left-out coarse cell (" << r[0] << ", " << r[1] << ", " << r[2] << ") is not a cell of the "
                                                     << n[0] << " x " << n[1] << " x " << n[2] << " box");
        left_out[(std::size_t(r[2]) * n[1] + r[1]) * n[0] + r[0]] = true;
      }
    CELLWISE_CHECK(std::count(left_out.begin(), left_out.end(), false) > 0, "the box leaves out all of its coarse cells");

    // the coarse cells' lattice positions in their order
    std::vector<std::array<unsigned int, 3>> order;
    if (box.tree_order.empty())
      {
        for (unsigned int k = 0; k < n[2]; ++k)
          for (unsigned int j = 0; j < n[1]; ++j)
            for (unsigned int i = 0; i < n[0]; ++i)
              if (!left_out[(std::size_t(k) * n[1] + j) * n[0] + i])
                order.push_back({{i, j, k}});
      }
    else
      {
        std::vector<bool> placed(n_coarse, false);
        for (const auto &x : box.tree_order)
          {
            const std::size_t at = (std::size_t(x[2]) * n[1] + x[1]) * n[0] + x[0];
            CELLWISE_CHECK(x[0] < n[0] && x[1] < n[1] && x[2] < n[2] && !left_out[at] && !placed[at],
                           "the coarse cell order names (" << x[0] << ", " << x[1] << ", " << x[2]
                                                          << "), which is outside the box, left out or named before");
            placed[at] = true;
          }
        CELLWISE_CHECK(box.tree_order.size() == std::size_t(std::count(left_out.begin(), left_out.end(), false)),
                       "the coarse cell order names " << box.tree_order.size() << " of the box's "
                                                      << std::count(left_out.begin(), left_out.end(), false) << " cells");
        order = box.tree_order;
      }

    LevelHierarchy hierarchy;
    hierarchy.coarse_subdivisions = box.subdivisions;
    Level &level                  = hierarchy.levels.emplace_back();

    for (const std::array<unsigned int, 3> &ijk : order)
      {
        CellBox cell;
        for (unsigned int d = 0; d < 3; ++d)
          {
            // Compute both ends from the same formula so that neighbours
            // share their face coordinate exactly.
            const double t0 = static_cast<double>(ijk[d]) / n[d];
            const double t1 = static_cast<double>(ijk[d] + 1) / n[d];
            const double x0 = box.lower[d] + t0 * (box.upper[d] - box.lower[d]);
            const double x1 = (ijk[d] + 1 == n[d]) ? box.upper[d] : box.lower[d] + t1 * (box.upper[d] - box.lower[d]);
            cell.lower[d]   = x0;
            cell.size[d]    = x1 - x0;
          }
        level.boxes.push_back(cell);
        level.coordinates.push_back({{static_cast<int>(ijk[0]), static_cast<int>(ijk[1]), static_cast<int>(ijk[2])}});
        level.parent.push_back(-1);
        level.child_slot.push_back(0);
        level.children.push_back({{-1, -1, -1, -1, -1, -1, -1, -1}});
        level.flags.push_back(cell_flags::active);
      }
    level.n_owned_cells = level.n_cells();
    compute_neighbors(level, cells_per_axis(hierarchy, 0), true);
    return hierarchy;
  }

  BoxDescription
  make_lshape_description(const double left, const double right)
  {
    BoxDescription box;
    box.lower        = {{left, left, left}};
    box.upper        = {{right, right, right}};
    box.subdivisions = {{2, 2, 2}};
    box.removed      = {{{1, 1, 1}}};
    return box;
  }

  void
  refine_finest_level(LevelHierarchy &hierarchy, const CellOrdering ordering, const std::function<bool(unsigned int)> &refine)
  {
    CELLWISE_CHECK(hierarchy.n_levels() > 0, "cannot refine an empty hierarchy");
    CELLWISE_CHECK(hierarchy.n_levels() < 22,
                   "a hierarchy of " << hierarchy.n_levels() + 1 << " levels exceeds the 21 levels that integer cell coordinates allow");
    Level &coarse = hierarchy.levels.back();

    std::vector<unsigned int> parents;
    for (unsigned int c = 0; c < coarse.n_owned_cells; ++c)
      if (coarse.is_active(c) && (!refine || refine(c)))
        parents.push_back(c);

    // Checked before anything of the new level is allocated: 8 children per
    // parent and twice the cells per axis must fit the level's index types.
    const std::size_t n_children = 8 * parents.size();
    CELLWISE_CHECK(n_children <= max_cells_per_level,
                   "refining " << parents.size() << " cells of level " << hierarchy.n_levels() - 1 << " gives " << n_children
                               << " cells, more than the " << max_cells_per_level << " cells a level can hold");
    const std::array<unsigned int, 3> coarse_axis = cells_per_axis(hierarchy, hierarchy.n_levels() - 1);
    for (unsigned int d = 0; d < 3; ++d)
      CELLWISE_CHECK(2 * std::size_t(coarse_axis[d]) <= max_cells_per_axis,
                     "refining level " << hierarchy.n_levels() - 1 << " gives " << 2 * std::size_t(coarse_axis[d])
                                       << " cells along axis " << d << ", more than the " << max_cells_per_axis
                                       << " a level can hold");

    Level fine;
    const unsigned int n_parents = static_cast<unsigned int>(parents.size());
    const unsigned int n_fine    = static_cast<unsigned int>(n_children);
    fine.boxes.resize(n_fine);
    fine.coordinates.resize(n_fine);
    fine.parent.resize(n_fine);
    fine.child_slot.resize(n_fine);
    fine.children.resize(n_fine);
    fine.flags.resize(n_fine);
    fine.n_owned_cells = n_fine;

    // Each parent writes its own eight children and its own entries: the
    // parents are independent (10^7 children at L = 8). The arrays were sized
    // without being written (level.h): every entry is written here, so that
    // the pages are first touched in parallel.
    parallel_for(n_parents, cell_grain, [&](const std::size_t e) {
      const unsigned int parent = parents[e];
      const unsigned int i      = static_cast<unsigned int>(e);
      const CellBox     &box    = coarse.boxes[parent];
      for (unsigned int slot = 0; slot < 8; ++slot)
        {
          const unsigned int index = (ordering == CellOrdering::child_major) ? slot * n_parents + i : 8 * i + slot;
          CellBox            child;
          for (unsigned int d = 0; d < 3; ++d)
            {
              const unsigned int bit = (slot >> d) & 1;
              const double       mid = box.lower[d] + 0.5 * box.size[d];
              const double       end = box.lower[d] + box.size[d];
              child.lower[d]         = bit ? mid : box.lower[d];
              child.size[d]          = bit ? end - mid : mid - box.lower[d];
              fine.coordinates[index][d] = 2 * coarse.coordinates[parent][d] + static_cast<int>(bit);
            }
          fine.boxes[index]              = child;
          fine.parent[index]             = static_cast<int>(parent);
          fine.child_slot[index]         = static_cast<std::uint8_t>(slot);
          fine.children[index]           = {{-1, -1, -1, -1, -1, -1, -1, -1}};
          fine.flags[index]              = cell_flags::active;
          coarse.children[parent][slot]  = static_cast<int>(index);
        }
      coarse.flags[parent] = cell_flags::refined;
    });

    compute_child_neighbors(coarse, fine);
    hierarchy.levels.push_back(std::move(fine));
  }

  void
  check_box_geometry(const BoxDescription &box, const int n_refinements)
  {
    CELLWISE_CHECK(n_refinements >= 0 && n_refinements <= 30,
                   "number of refinements " << n_refinements << " is not allowed: use 0..30");
    for (unsigned int d = 0; d < 3; ++d)
      {
        CELLWISE_CHECK(std::isfinite(box.lower[d]) && std::isfinite(box.upper[d]) && box.upper[d] > box.lower[d],
                       "degenerate box along axis " << d << ": lower " << box.lower[d] << ", upper " << box.upper[d]
                                                    << " (need lower < upper, both finite)");
        CELLWISE_CHECK(std::isfinite(box.upper[d] - box.lower[d]),
                       "the box's width along axis " << d << " overflows: lower " << box.lower[d] << ", upper "
                                                     << box.upper[d] << " are finite, upper - lower is not "
                                                     << "(scale the problem to moderate lengths)");
        // A cell's size is the difference of its rounded corners: its error
        // is up to about ε M for coordinates of magnitude M. 2^20 ε M keeps
        // it below 1e-6 of the size.
        const double magnitude  = std::max(std::abs(box.lower[d]), std::abs(box.upper[d]));
        const double resolution = std::ldexp(std::numeric_limits<double>::epsilon(), 20) * magnitude;
        const double width      = (box.upper[d] - box.lower[d]) /
                             (std::max(1u, box.subdivisions[d]) * std::ldexp(1., n_refinements));
        CELLWISE_CHECK(width >= resolution,
                       "degenerate box along axis " << d << ": the cells of width " << width << " of refinement "
                                                    << n_refinements << " of [" << std::setprecision(15) << box.lower[d] << ", "
                                                    << box.upper[d] << std::setprecision(6) << "] are below the resolution of doubles at coordinates of magnitude "
                                                    << magnitude << " (need width >= 2^20 eps |x| = " << resolution
                                                    << ", or their corners round to uneven or equal values; shift the "
                                                       "box toward the origin or refine less)");
      }
  }

  void
  check_box_hierarchy_size(const BoxDescription &box, const int n_refinements)
  {
    CELLWISE_CHECK(n_refinements >= 0 && n_refinements <= 20,
                   "number of refinements " << n_refinements << " is not allowed: use 0..20");
    check_box_geometry(box, n_refinements);
    // The finest level is the largest.
    for (unsigned int d = 0; d < 3; ++d)
      CELLWISE_CHECK(box.subdivisions[d] >= 1 && (std::size_t(box.subdivisions[d]) << n_refinements) <= max_cells_per_axis,
                     "a box of " << box.subdivisions[d] << " cells along axis " << d << " refined " << n_refinements
                                 << " times has " << (std::size_t(box.subdivisions[d]) << n_refinements)
                                 << " cells along that axis, more than the " << max_cells_per_axis << " a level can hold");
    const std::size_t n_finest = (std::size_t(box.subdivisions[0]) * box.subdivisions[1] * box.subdivisions[2])
                                 << (3 * n_refinements);
    CELLWISE_CHECK(n_finest <= max_cells_per_level, "a box of " << box.subdivisions[0] << " x " << box.subdivisions[1] << " x "
                                                                 << box.subdivisions[2] << " cells refined " << n_refinements
                                                                 << " times has " << n_finest
                                                                 << " cells on its finest level, more than the "
                                                                 << max_cells_per_level << " a level can hold");
  }

  LevelHierarchy
  make_box_hierarchy(const BoxDescription &box, const int n_refinements, const CellOrdering ordering)
  {
    check_box_hierarchy_size(box, n_refinements); // before anything is allocated
    LevelHierarchy hierarchy = make_coarse_box(box);
    for (int l = 0; l < n_refinements; ++l)
      refine_finest_level(hierarchy, ordering);
    return hierarchy;
  }
} // namespace cellwise
