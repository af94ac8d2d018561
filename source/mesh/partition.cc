#include <cellwise/base/exceptions.h>
#include <cellwise/mesh/partition.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <tuple>

namespace cellwise
{
  namespace
  {
    /// Bits of x, y, z interleaved (x lowest), 21 bits each.
    std::uint64_t
    morton_code(const std::uint64_t x, const std::uint64_t y, const std::uint64_t z)
    {
      std::uint64_t code = 0;
      for (unsigned int bit = 0; bit < 21; ++bit)
        code |= ((x >> bit) & 1) << (3 * bit) | ((y >> bit) & 1) << (3 * bit + 1) | ((z >> bit) & 1) << (3 * bit + 2);
      return code;
    }

    /// The cells other than @p cell within one cell of it along every axis
    /// that a path of face steps along distinct axes reaches (on a uniform
    /// lattice: the 26 neighbours that exist). Structured pairs only.
    std::vector<unsigned int>
    vertex_neighbors(const Level &level, const unsigned int cell)
    {
      std::vector<unsigned int> found;
      // (cell, axes used so far as a bit set)
      std::vector<std::pair<unsigned int, unsigned int>> frontier{{cell, 0u}};
      for (unsigned int step = 0; step < 3; ++step)
        {
          std::vector<std::pair<unsigned int, unsigned int>> next;
          for (const auto &[from, used] : frontier)
            for (unsigned int d = 0; d < 3; ++d)
              if (!((used >> d) & 1))
                for (const unsigned int face : {2 * d, 2 * d + 1})
                  {
                    const int neighbor = level.structured_neighbor(from, face);
                    if (face_neighbor::is_cell(neighbor))
                      {
                        next.emplace_back(static_cast<unsigned int>(neighbor), used | (1u << d));
                        found.push_back(static_cast<unsigned int>(neighbor));
                      }
                  }
          frontier = std::move(next);
        }
      std::sort(found.begin(), found.end());
      found.erase(std::unique(found.begin(), found.end()), found.end());
      return found;
    }
  } // namespace

  std::vector<std::vector<int>>
  morton_partition(const LevelHierarchy &hierarchy, const int n_ranks)
  {
    CELLWISE_CHECK(n_ranks >= 1, "morton_partition: " << n_ranks << " ranks");
    const unsigned int n_levels = hierarchy.n_levels();
    CELLWISE_CHECK(n_levels >= 1, "morton_partition: the hierarchy has no level");
    const unsigned int finest = n_levels - 1;
    CELLWISE_CHECK(finest <= 20, "morton_partition: " << n_levels << " levels; the Morton keys take 21");
    for (const Level &level : hierarchy.levels)
      CELLWISE_CHECK(!level.has_skeleton(), "morton_partition: unstructured coarse meshes (skeleton faces) are not "
                                            "partitioned yet; distributed runs take box and lattice meshes");

    // (coarse cell, Morton code at the finest level's resolution, level, cell) of every active cell
    using Key = std::tuple<unsigned int, std::uint64_t, unsigned int, unsigned int>;
    std::vector<Key> active;
    const Level     &coarse = hierarchy.level(0);
    for (unsigned int l = 0; l < n_levels; ++l)
      {
        const Level &level = hierarchy.level(l);
        for (unsigned int c = 0; c < level.n_cells(); ++c)
          {
            if (!level.is_active(c))
              continue;
            unsigned int tree = c;
            for (unsigned int k = l; k > 0; --k)
              tree = static_cast<unsigned int>(hierarchy.level(k).parent[tree]);
            std::uint64_t local[3];
            for (unsigned int d = 0; d < 3; ++d)
              local[d] = static_cast<std::uint64_t>(level.coordinates[c][d] - (coarse.coordinates[tree][d] << l)) << (finest - l);
            active.emplace_back(tree, morton_code(local[0], local[1], local[2]), l, c);
          }
      }
    const std::size_t n_active = active.size();
    CELLWISE_CHECK(n_active >= std::size_t(n_ranks), "the mesh has " << n_active << " active cells for " << n_ranks
                                                                     << " MPI ranks: every rank needs at least one (use "
                                                                        "fewer ranks or refine)");
    std::sort(active.begin(), active.end());

    // the even cut, rank of the k-th active cell in forest order
    std::vector<int> rank_of(n_active);
    for (int rank = 0; rank < n_ranks; ++rank)
      {
        const std::size_t begin = n_active * std::size_t(rank) / std::size_t(n_ranks);
        const std::size_t end   = n_active * std::size_t(rank + 1) / std::size_t(n_ranks);
        for (std::size_t k = begin; k < end; ++k)
          rank_of[k] = rank;
      }
    // p4est's partition for coarsening, which deal.II asks for: a family of
    // eight sibling leaves that a cut splits goes to the rank holding most
    // of it, the lowest such rank on a tie (p4est_partition_correction)
    for (std::size_t k = 0; k + 8 <= n_active; ++k)
      {
        const unsigned int l = std::get<2>(active[k]);
        if (l == 0 || rank_of[k] == rank_of[k + 7])
          continue;
        const Level &level  = hierarchy.level(l);
        const int    parent = level.parent[std::get<3>(active[k])];
        bool         family = level.child_slot[std::get<3>(active[k])] == 0;
        for (unsigned int s = 1; s < 8 && family; ++s)
          family = std::get<2>(active[k + s]) == l && level.parent[std::get<3>(active[k + s])] == parent &&
                   level.child_slot[std::get<3>(active[k + s])] == s;
        if (!family)
          continue;
        std::map<int, unsigned int> held;
        for (unsigned int s = 0; s < 8; ++s)
          ++held[rank_of[k + s]];
        int          taker = rank_of[k];
        unsigned int most  = 0;
        for (const auto &[rank, n] : held) // increasing rank: the lowest wins a tie
          if (n > most)
            {
              most  = n;
              taker = rank;
            }
        for (unsigned int s = 0; s < 8; ++s)
          rank_of[k + s] = taker;
        k += 7;
      }

    std::vector<std::size_t> held(n_ranks, 0);
    for (const int rank : rank_of)
      ++held[rank];
    for (int rank = 0; rank < n_ranks; ++rank)
      CELLWISE_CHECK(held[rank] > 0, "the mesh has " << n_active << " active cells for " << n_ranks
                                                    << " MPI ranks: rank " << rank
                                                    << " keeps none once the families of sibling cells are kept whole, as "
                                                       "p4est does (use fewer ranks or refine)");

    std::vector<std::vector<int>> owner(n_levels);
    for (unsigned int l = 0; l < n_levels; ++l)
      owner[l].assign(hierarchy.level(l).n_cells(), -1);
    for (std::size_t k = 0; k < n_active; ++k)
      owner[std::get<2>(active[k])][std::get<3>(active[k])] = rank_of[k];
    // refined cells: the owner of the first child, from the finest level down
    for (unsigned int l = n_levels - 1; l-- > 0;)
      {
        const Level &level = hierarchy.level(l);
        for (unsigned int c = 0; c < level.n_cells(); ++c)
          if (level.is_refined(c))
            {
              const int child = level.children[c][0];
              CELLWISE_CHECK(child >= 0, "morton_partition: refined cell " << c << " of level " << l << " has no first child");
              owner[l][c] = owner[l + 1][child];
            }
        for (unsigned int c = 0; c < level.n_cells(); ++c)
          CELLWISE_CHECK(owner[l][c] >= 0, "morton_partition: cell " << c << " of level " << l
                                                                     << " is neither active nor refined");
      }
    return owner;
  }

  LocalLevel
  make_local_level(const Level                     &serial,
                   const std::vector<int>          &owner,
                   const int                        rank,
                   const GhostLayer                 ghost_layer,
                   const std::vector<unsigned int> &extra_ghosts)
  {
    const unsigned int n = serial.n_cells();
    CELLWISE_CHECK(owner.size() == n, "make_local_level: " << owner.size() << " owners for " << n << " cells");
    CELLWISE_CHECK(!serial.has_skeleton(), "make_local_level: unstructured coarse meshes (skeleton faces) are not "
                                           "distributed yet");
    LocalLevel local;
    local.ghost_layer = ghost_layer;
    std::vector<int> local_index(n, -1);
    for (unsigned int c = 0; c < n; ++c)
      if (owner[c] == rank)
        {
          local_index[c] = static_cast<int>(local.serial_index.size());
          local.serial_index.push_back(c);
        }
    const unsigned int n_owned = static_cast<unsigned int>(local.serial_index.size());
    std::vector<unsigned int> ghosts;
    for (unsigned int k = 0; k < n_owned; ++k)
      {
        const unsigned int cell = local.serial_index[k];
        if (ghost_layer == GhostLayer::faces)
          for (unsigned int face = 0; face < 6; ++face)
            {
              const int neighbor = serial.neighbors[cell][face];
              if (face_neighbor::is_cell(neighbor) && owner[neighbor] != rank)
                ghosts.push_back(static_cast<unsigned int>(neighbor));
            }
        else
          // the cells at offsets in {-1, 0, 1}^3, reached by up to three
          // face steps along distinct axes in every order: a cell of a
          // vertex patch around a corner of this cell is reached through
          // the patch's own cells, which all exist where the patch does
          for (const unsigned int reached : vertex_neighbors(serial, cell))
            if (owner[reached] != rank)
              ghosts.push_back(reached);
      }
    for (const unsigned int g : extra_ghosts)
      {
        CELLWISE_CHECK(g < n, "make_local_level: extra ghost " << g << " of a level of " << n << " cells");
        if (owner[g] != rank)
          ghosts.push_back(g);
      }
    std::sort(ghosts.begin(), ghosts.end());
    ghosts.erase(std::unique(ghosts.begin(), ghosts.end()), ghosts.end());
    for (const unsigned int g : ghosts)
      {
        local_index[g] = static_cast<int>(local.serial_index.size());
        local.serial_index.push_back(g);
      }

    const unsigned int count = static_cast<unsigned int>(local.serial_index.size());
    resize_local_level(local, count, n_owned);
    Level &level = local.level;
    for (unsigned int k = 0; k < count; ++k)
      {
        const unsigned int c = local.serial_index[k];
        local.owner[k]       = owner[c];
        level.boxes[k]       = serial.boxes[c];
        level.coordinates[k] = serial.coordinates[c];
        level.parent[k]      = -1;
        level.child_slot[k]  = serial.child_slot[c];
        level.children[k]    = {{-1, -1, -1, -1, -1, -1, -1, -1}};
        level.flags[k]       = static_cast<std::uint8_t>(serial.flags[c] | (k < n_owned ? 0 : cell_flags::ghost));
        for (unsigned int face = 0; face < 6; ++face)
          {
            const int neighbor     = serial.neighbors[c][face];
            level.neighbors[k][face] = face_neighbor::is_cell(neighbor) ? local_index[neighbor] : neighbor;
          }
      }
    if (!serial.mapping.empty())
      {
        level.mapping.degree = serial.mapping.degree;
        const unsigned int m = serial.mapping.nodes_per_cell();
        level.mapping.nodes.resize(std::size_t(count) * m);
        for (unsigned int k = 0; k < count; ++k)
          std::copy(serial.mapping.cell_nodes(local.serial_index[k]), serial.mapping.cell_nodes(local.serial_index[k]) + m,
                    level.mapping.nodes.data() + std::size_t(k) * m);
      }
    return local;
  }

  void
  resize_local_level(LocalLevel &local, const unsigned int count, const unsigned int n_owned)
  {
    Level &level = local.level;
    level.boxes.resize(count);
    level.coordinates.resize(count);
    level.parent.resize(count);
    level.child_slot.resize(count);
    level.children.resize(count);
    level.neighbors.resize(count);
    level.flags.resize(count);
    level.n_owned_cells = n_owned;
    local.serial_index.resize(count);
    local.owner.resize(count);
  }

  std::vector<long>
  owned_local_indices(const LocalLevel &local, const unsigned int n_serial_cells)
  {
    std::vector<long> index(n_serial_cells, -1);
    for (unsigned int k = 0; k < local.n_owned_cells(); ++k)
      {
        CELLWISE_CHECK(local.serial_index[k] < n_serial_cells, "owned_local_indices: local cell "
                                                                 << k << " is serial cell " << local.serial_index[k]
                                                                 << " of a level of " << n_serial_cells);
        index[local.serial_index[k]] = k;
      }
    return index;
  }
} // namespace cellwise
