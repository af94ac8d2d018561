#include <cellwise/base/exceptions.h>
#include <cellwise/base/parallel.h>
#include <cellwise/mesh/box_partition.h>

#include <algorithm>
#include <map>

namespace cellwise
{
  namespace
  {
    using u128 = unsigned __int128;

    /// The low 21 bits of @p x spread to every third bit (bit b to bit 3 b).
    std::uint64_t
    spread(std::uint64_t x)
    {
      x &= 0x1fffff;
      x = (x | x << 32) & 0x1f00000000ffff;
      x = (x | x << 16) & 0x1f0000ff0000ff;
      x = (x | x << 8) & 0x100f00f00f00f00f;
      x = (x | x << 4) & 0x10c30c30c30c30c3;
      x = (x | x << 2) & 0x1249249249249249;
      return x;
    }

    /// Every third bit of @p x (bit 3 b to bit b): spread's inverse.
    std::uint64_t
    compact(std::uint64_t x)
    {
      x &= 0x1249249249249249;
      x = (x ^ (x >> 2)) & 0x10c30c30c30c30c3;
      x = (x ^ (x >> 4)) & 0x100f00f00f00f00f;
      x = (x ^ (x >> 8)) & 0x1f0000ff0000ff;
      x = (x ^ (x >> 16)) & 0x1f00000000ffff;
      x = (x ^ (x >> 32)) & 0x1fffff;
      return x;
    }

    /// Bits of x, y, z interleaved (x lowest), @p bits each (at most 20):
    /// the Morton code of morton_partition and the box builder's cell_major
    /// order. By bit spreading (magic masks) rather than a loop over the
    /// bits: the local levels of a rank of 10^7 cells call it 30 times per
    /// cell.
    std::uint64_t
    interleave(const std::array<std::uint64_t, 3> &x, const unsigned int bits)
    {
      const std::uint64_t keep = (std::uint64_t(1) << bits) - 1;
      return spread(x[0] & keep) | spread(x[1] & keep) << 1 | spread(x[2] & keep) << 2;
    }

    std::array<std::uint64_t, 3>
    deinterleave(const std::uint64_t code, const unsigned int bits)
    {
      const std::uint64_t keep = bits == 0 ? 0 : code & ((std::uint64_t(1) << (3 * bits)) - 1);
      return {{compact(keep), compact(keep >> 1), compact(keep >> 2)}};
    }

    std::uint64_t
    power_of_8(const unsigned int k)
    {
      return std::uint64_t(1) << (3 * k);
    }

    /// Per coarse lattice position (x fastest): the coarse cell there, −1 if
    /// left out.
    std::vector<int>
    coarse_cells_by_position(const Level &coarse, const std::array<unsigned int, 3> &subdivisions)
    {
      std::vector<int> index(std::size_t(subdivisions[0]) * subdivisions[1] * subdivisions[2], -1);
      for (unsigned int c = 0; c < coarse.n_cells(); ++c)
        {
          const auto &x = coarse.coordinates[c];
          index[(std::size_t(x[2]) * subdivisions[1] + x[1]) * subdivisions[0] + x[0]] = static_cast<int>(c);
        }
      return index;
    }
  } // namespace

  BoxPartition::BoxPartition(const BoxDescription &box, const unsigned int n_refinements, const int n_ranks, const CellOrdering ordering)
    : coarse_(make_coarse_box(box))
    , n_refinements_(n_refinements)
    , n_ranks_(n_ranks)
    , ordering_(ordering)
    , subdivisions_(box.subdivisions)
    , coarse_index_(coarse_cells_by_position(coarse_.level(0), subdivisions_))
  {
    CELLWISE_CHECK(n_ranks >= 1, "BoxPartition: " << n_ranks << " ranks");
    const std::uint64_t n_cells = n_finest_cells();
    const u128          n       = n_cells;
    CELLWISE_CHECK(n_cells >= std::uint64_t(n_ranks), "the mesh has " << n_cells << " active cells for " << n_ranks
                                                                      << " MPI ranks: every rank needs at least one (use "
                                                                         "fewer ranks or refine)");

    // the even cut: rank of the i-th finest cell, floor(((i + 1) P − 1) / N)
    const auto even_rank = [&](const std::uint64_t i) {
      return static_cast<int>((u128(i + 1) * u128(n_ranks) - 1) / n);
    };
    // p4est's partition for coarsening: a family that a cut splits goes to
    // the rank holding most of it, the lowest on a tie (none on level 0)
    const auto rank_of = [&](const std::uint64_t i) {
      if (n_refinements == 0)
        return even_rank(i);
      const std::uint64_t first = i - i % 8;
      if (even_rank(first) == even_rank(first + 7))
        return even_rank(first);
      std::map<int, unsigned int> held;
      for (unsigned int s = 0; s < 8; ++s)
        ++held[even_rank(first + s)];
      int          taker = even_rank(first);
      unsigned int most  = 0;
      for (const auto &[rank, count] : held) // increasing rank: the lowest wins a tie
        if (count > most)
          {
            most  = count;
            taker = rank;
          }
      return taker;
    };
    // rank_of is non-decreasing: cut r is the first cell of rank >= r
    cuts_.assign(std::size_t(n_ranks) + 1, n_cells);
    for (int r = 0; r < n_ranks; ++r)
      {
        std::uint64_t low = 0, high = n_cells; // the first i with rank_of(i) >= r lies in [low, high]
        while (low < high)
          {
            const std::uint64_t mid = low + (high - low) / 2;
            if (rank_of(mid) >= r)
              high = mid;
            else
              low = mid + 1;
          }
        cuts_[r] = low;
      }
    for (int r = 0; r < n_ranks; ++r)
      CELLWISE_CHECK(cuts_[r + 1] > cuts_[r], "the mesh has " << n_cells << " active cells for " << n_ranks << " MPI ranks: rank "
                                                              << r
                                                              << " keeps none once the families of sibling cells are kept whole, as "
                                                                 "p4est does (use fewer ranks or refine)");
  }

  BoxPartition::BoxPartition(const BoxDescription      &box,
                             const unsigned int         n_refinements,
                             std::vector<std::uint64_t> finest_cuts,
                             const CellOrdering         ordering)
    : coarse_(make_coarse_box(box))
    , n_refinements_(n_refinements)
    , n_ranks_(static_cast<int>(finest_cuts.size()) - 1)
    , ordering_(ordering)
    , subdivisions_(box.subdivisions)
    , coarse_index_(coarse_cells_by_position(coarse_.level(0), subdivisions_))
    , cuts_(std::move(finest_cuts))
  {
    const std::uint64_t n = n_finest_cells();
    CELLWISE_CHECK(n_ranks_ >= 1 && cuts_.front() == 0 && cuts_.back() == n,
                   "BoxPartition: the cuts of the finest level run from " << (cuts_.empty() ? 0 : cuts_.front()) << " to "
                                                                          << (cuts_.empty() ? 0 : cuts_.back())
                                                                          << " over " << n_ranks_ << " ranks; they must run from 0 to "
                                                                          << n);
    // (an empty range is a rank without cells; owner() skips it, as the
    // upper bound of a cell's first descendant lands past equal cuts)
    for (int r = 0; r < n_ranks_; ++r)
      CELLWISE_CHECK(cuts_[r + 1] >= cuts_[r], "BoxPartition: the cuts of ranks " << r << " and " << r + 1 << " of " << n_ranks_
                                                                                  << " decrease (" << cuts_[r] << ", "
                                                                                  << cuts_[r + 1] << ")");
  }

  std::uint64_t
  BoxPartition::n_finest_cells() const
  {
    CELLWISE_CHECK(n_refinements_ <= 20, "BoxPartition: " << n_refinements_ << " refinements; the Morton keys take 20");
    const u128 n = u128(coarse().n_cells()) * power_of_8(n_refinements_);
    CELLWISE_CHECK(n < (u128(1) << 62), "BoxPartition: too many cells for 64-bit forest indices");
    return static_cast<std::uint64_t>(n);
  }

  std::uint64_t
  BoxPartition::n_cells(const unsigned int l) const
  {
    return std::uint64_t(coarse().n_cells()) * power_of_8(l);
  }

  std::uint64_t
  BoxPartition::forest_index(const unsigned int l, const std::uint64_t index) const
  {
    if (ordering_ == CellOrdering::cell_major || l == 0)
      return index;
    // child_major: index = tree + Σ_k slot_k · n_{k−1}, n_k the cells of level k
    const std::uint64_t trees = coarse().n_cells();
    std::uint64_t       rest  = index, code = 0;
    for (unsigned int k = l; k >= 1; --k)
      {
        const std::uint64_t n_parents = trees * power_of_8(k - 1);
        code |= (rest / n_parents) << (3 * (l - k)); // level k's slot: Morton digit l − k
        rest %= n_parents;
      }
    return rest * power_of_8(l) + code;
  }

  std::uint64_t
  BoxPartition::serial_index(const unsigned int l, const std::uint64_t forest) const
  {
    if (ordering_ == CellOrdering::cell_major || l == 0)
      return forest;
    const std::uint64_t trees = coarse().n_cells(), code = forest % power_of_8(l);
    std::uint64_t       index = forest / power_of_8(l);
    for (unsigned int k = 1; k <= l; ++k)
      index += ((code >> (3 * (l - k))) & 7) * trees * power_of_8(k - 1);
    return index;
  }

  int
  BoxPartition::owner(const unsigned int l, const std::uint64_t index) const
  {
    CELLWISE_CHECK(l <= n_refinements_ && index < n_cells(l), "BoxPartition::owner: cell " << index << " of level " << l);
    // the rank of the first descendant on the finest level
    const std::uint64_t first = forest_index(l, index) * power_of_8(n_refinements_ - l);
    return static_cast<int>(std::upper_bound(cuts_.begin(), cuts_.end(), first) - cuts_.begin()) - 1;
  }

  std::array<std::uint64_t, 2>
  BoxPartition::forest_range(const unsigned int l, const int rank) const
  {
    CELLWISE_CHECK(l <= n_refinements_ && rank >= 0 && rank < n_ranks_, "BoxPartition: level " << l << ", rank " << rank);
    // cells whose first descendant lies in [cuts_[rank], cuts_[rank + 1])
    const std::uint64_t s = power_of_8(n_refinements_ - l);
    return {{(cuts_[rank] + s - 1) / s, (cuts_[rank + 1] + s - 1) / s}};
  }

  std::vector<std::uint64_t>
  BoxPartition::owned_cells(const unsigned int l, const int rank) const
  {
    const std::array<std::uint64_t, 2> range = forest_range(l, rank);
    std::vector<std::uint64_t>         cells(range[1] - range[0]);
    parallel_for(cells.size(), value_grain, [&](const std::size_t k) { cells[k] = serial_index(l, range[0] + k); });
    if (ordering_ == CellOrdering::child_major) // serial order differs from the forest's
      std::sort(cells.begin(), cells.end());
    return cells;
  }

  std::int64_t
  BoxPartition::forest_at(const unsigned int l, const std::array<int, 3> &x) const
  {
    std::array<std::uint64_t, 3> position, local;
    for (unsigned int d = 0; d < 3; ++d)
      {
        if (x[d] < 0 || std::uint64_t(x[d]) >= (std::uint64_t(subdivisions_[d]) << l))
          return -1;
        position[d] = std::uint64_t(x[d]) >> l;
        local[d]    = std::uint64_t(x[d]) - (position[d] << l);
      }
    const int tree = coarse_index_[(position[2] * subdivisions_[1] + position[1]) * subdivisions_[0] + position[0]];
    if (tree < 0)
      return -1;
    return static_cast<std::int64_t>(std::uint64_t(tree) * power_of_8(l) + interleave(local, l));
  }

  std::array<int, 3>
  BoxPartition::coordinates_of_forest(const unsigned int l, const std::uint64_t forest) const
  {
    const std::uint64_t tree  = forest / power_of_8(l);
    const auto          local = deinterleave(forest % power_of_8(l), l);
    std::array<int, 3>  x;
    for (unsigned int d = 0; d < 3; ++d)
      x[d] = static_cast<int>((std::uint64_t(coarse().coordinates[tree][d]) << l) + local[d]);
    return x;
  }

  std::int64_t
  BoxPartition::index_of(const unsigned int l, const std::array<int, 3> &x) const
  {
    const std::int64_t forest = forest_at(l, x);
    return forest < 0 ? -1 : static_cast<std::int64_t>(serial_index(l, std::uint64_t(forest)));
  }

  std::array<int, 3>
  BoxPartition::coordinates_of(const unsigned int l, const std::uint64_t index) const
  {
    return coordinates_of_forest(l, forest_index(l, index));
  }

  CellBox
  BoxPartition::box_of(const unsigned int l, const std::uint64_t index) const
  {
    const std::uint64_t forest = forest_index(l, index);
    const std::uint64_t tree   = forest / power_of_8(l);
    const auto          local  = deinterleave(forest % power_of_8(l), l);
    CellBox             box    = coarse().boxes[tree];
    // the builder's halvings, level by level from the coarse cell
    for (unsigned int k = l; k-- > 0;)
      for (unsigned int d = 0; d < 3; ++d)
        {
          const bool   upper = (local[d] >> k) & 1;
          const double mid   = box.lower[d] + 0.5 * box.size[d];
          const double end   = box.lower[d] + box.size[d];
          if (upper)
            {
              box.lower[d] = mid;
              box.size[d]  = end - mid;
            }
          else
            box.size[d] = mid - box.lower[d];
        }
    return box;
  }

  std::int64_t
  BoxPartition::forest_neighbor(const unsigned int l, const std::array<int, 3> &coordinates, const unsigned int face) const
  {
    std::array<int, 3> x = coordinates;
    const unsigned int d = face / 2;
    x[d] += face % 2 ? 1 : -1;
    if (x[d] < 0 || std::uint64_t(x[d]) >= (std::uint64_t(subdivisions_[d]) << l))
      return face_neighbor::boundary(face);
    const std::int64_t other = forest_at(l, x);
    return other >= 0 ? other : face_neighbor::boundary(removed_boundary_id);
  }

  // Every cell of a level but the finest is refined, so the families follow
  // from the ordering without coordinates: child_major numbers the child in
  // slot s of cell c (of n cells) s n + c, cell_major 8 c + s.
  std::int64_t
  BoxPartition::parent(const unsigned int l, const std::uint64_t index) const
  {
    if (l == 0)
      return -1;
    const std::uint64_t n_parents = n_cells(l - 1);
    return static_cast<std::int64_t>(ordering_ == CellOrdering::child_major ? index % n_parents : index / 8);
  }

  std::array<std::uint64_t, 8>
  BoxPartition::children(const unsigned int l, const std::uint64_t index) const
  {
    CELLWISE_CHECK(l < n_refinements_, "BoxPartition::children: cell " << index << " of the finest level " << l);
    const std::uint64_t          n_parents = n_cells(l);
    std::array<std::uint64_t, 8> children;
    for (unsigned int slot = 0; slot < 8; ++slot)
      children[slot] = ordering_ == CellOrdering::child_major ? slot * n_parents + index : 8 * index + slot;
    return children;
  }

  std::vector<unsigned int>
  BoxPartition::family_ghosts(const unsigned int l, const int rank) const
  {
    CELLWISE_CHECK(l <= n_refinements_, "BoxPartition::family_ghosts: level " << l << " of " << n_levels());
    // In forest order the eight children of a cell are consecutive and the
    // rank's cells of a level are one range [first, last): cells of level l
    // outside it that the rank needs are
    //  - the siblings of its cells: the families of first and last − 1,
    //  - the children of its cells of level l − 1: [8 first', 8 last'),
    //  - the parents of its cells of level l + 1: [first'' / 8, ⌈last'' / 8⌉),
    // each a range that overlaps [first, last) but for a few cells.
    const std::array<std::uint64_t, 2> mine = forest_range(l, rank);
    std::vector<std::array<std::uint64_t, 2>> needed;
    // (a rank may own no cell of a coarse level: an empty range needs nothing)
    if (l > 0 && mine[1] > mine[0])
      needed.push_back({{mine[0] - mine[0] % 8, mine[1] + (8 - mine[1] % 8) % 8}});
    if (l > 0)
      {
        const std::array<std::uint64_t, 2> parents = forest_range(l - 1, rank);
        needed.push_back({{8 * parents[0], 8 * parents[1]}});
      }
    if (l < n_refinements_)
      {
        const std::array<std::uint64_t, 2> children = forest_range(l + 1, rank);
        if (children[1] > children[0])
          needed.push_back({{children[0] / 8, (children[1] + 7) / 8}});
      }
    std::vector<unsigned int> cells;
    const auto add = [&](const std::uint64_t first, const std::uint64_t last) {
      for (std::uint64_t f = first; f < std::min(last, n_cells(l)); ++f)
        cells.push_back(static_cast<unsigned int>(serial_index(l, f)));
    };
    for (const auto &[first, last] : needed) // the parts below and above the owned range
      {
        add(first, std::min(last, mine[0]));
        add(std::max(first, mine[1]), last);
      }
    std::sort(cells.begin(), cells.end());
    cells.erase(std::unique(cells.begin(), cells.end()), cells.end());
    return cells;
  }

  LocalLevel
  BoxPartition::local_level(const unsigned int l, const int rank, const GhostLayer ghost_layer,
                            const std::vector<unsigned int> &extra_ghosts) const
  {
    return make_local_box_level(*this, l, rank, ghost_layer, extra_ghosts);
  }

  LocalLevel
  make_local_box_level(const BoxPartition              &partition,
                       const unsigned int               l,
                       const int                        rank,
                       const GhostLayer                 ghost_layer,
                       const std::vector<unsigned int> &extra_ghosts)
  {
    CELLWISE_CHECK(l < partition.n_levels(), "make_local_box_level: level " << l << " of " << partition.n_levels());
    // The rank's cells are one range of forest indices, so whether a cell is
    // owned is a comparison; the work is in lattice coordinates and forest
    // indices, the serial numbering only where the level stores it. Loops
    // in parallel: at L = 8 a rank has millions of cells.
    const std::array<std::uint64_t, 2> range    = partition.forest_range(l, rank);
    const auto                         is_owned = [&](const std::int64_t f) {
      return std::uint64_t(f) >= range[0] && std::uint64_t(f) < range[1];
    };
    const std::vector<std::uint64_t> owned = partition.owned_cells(l, rank);

    // the ghosts: the face neighbours, or the cells at the 26 offsets of the
    // vertex layer (the cells sharing a vertex with an owned cell)
    std::vector<std::array<int, 3>> offsets;
    for (int z = -1; z <= 1; ++z)
      for (int y = -1; y <= 1; ++y)
        for (int x = -1; x <= 1; ++x)
          if ((x != 0) + (y != 0) + (z != 0) == 1 ||
              (ghost_layer == GhostLayer::vertices && (x != 0 || y != 0 || z != 0)))
            offsets.push_back({{x, y, z}});
    const std::uint64_t n_owned = owned.size();
    // Only cells on the surface of the rank's region can have a neighbour
    // elsewhere: the range is a union of aligned cubes of the forest order
    // (8^k consecutive cells from a multiple of 8^k), and a cell inside its
    // cube has all 26 neighbours in it. So the search visits the surface
    // cells of these cubes: O(n^(2/3)) cells instead of n.
    std::vector<std::array<int, 3>> surface;
    for (std::uint64_t f = range[0]; f < range[1];)
      {
        unsigned int k = 0;
        while (k < l && f % power_of_8(k + 1) == 0 && f + power_of_8(k + 1) <= range[1])
          ++k;
        const std::array<int, 3> corner = partition.coordinates_of_forest(l, f);
        const int                side   = 1 << k;
        for (int z = 0; z < side; ++z)
          for (int y = 0; y < side; ++y)
            {
              // whole rows on the cube's faces z and y, else the row's ends
              const bool face_row = z == 0 || z == side - 1 || y == 0 || y == side - 1;
              for (int x = 0; x < side; x += face_row || x == side - 1 ? 1 : side - 1)
                surface.push_back({{corner[0] + x, corner[1] + y, corner[2] + z}});
            }
        f += power_of_8(k);
      }
    const std::size_t                       chunk = 4096;
    std::vector<std::vector<std::uint64_t>> found((surface.size() + chunk - 1) / chunk);
    parallel_for(found.size(), 1, [&](const std::size_t part) {
      for (std::size_t j = part * chunk; j < std::min(surface.size(), (part + 1) * chunk); ++j)
        {
          const std::array<int, 3> &x = surface[j];
          for (const std::array<int, 3> &o : offsets)
            {
              const std::int64_t g = partition.forest_at(l, {{x[0] + o[0], x[1] + o[1], x[2] + o[2]}});
              if (g >= 0 && !is_owned(g))
                found[part].push_back(partition.serial_index(l, std::uint64_t(g)));
            }
        }
    });
    std::vector<std::uint64_t> ghosts;
    for (const std::vector<std::uint64_t> &part : found)
      ghosts.insert(ghosts.end(), part.begin(), part.end());
    for (const unsigned int g : extra_ghosts)
      {
        CELLWISE_CHECK(g < partition.n_cells(l), "make_local_box_level: extra ghost " << g << " of a level of "
                                                                                       << partition.n_cells(l) << " cells");
        if (!is_owned(std::int64_t(partition.forest_index(l, g))))
          ghosts.push_back(g);
      }
    std::sort(ghosts.begin(), ghosts.end());
    ghosts.erase(std::unique(ghosts.begin(), ghosts.end()), ghosts.end());

    const std::uint64_t count = n_owned + ghosts.size();
    CELLWISE_CHECK(count <= max_cells_per_level, "make_local_box_level: " << count << " local cells exceed a level's "
                                                                          << max_cells_per_level);
    CELLWISE_CHECK(partition.n_cells(l) <= std::uint64_t(~0u), "make_local_box_level: level " << l << " has "
                                                                                               << partition.n_cells(l)
                                                                                               << " cells, beyond 32-bit serial indices");
    LocalLevel local;
    local.ghost_layer = ghost_layer;
    resize_local_level(local, static_cast<unsigned int>(count), static_cast<unsigned int>(n_owned));
    Level &level = local.level;
    // the serial indices first: the neighbours' local indices are found in them
    parallel_for(count, value_grain, [&](const std::size_t k) {
      local.serial_index[k] = static_cast<unsigned int>(k < n_owned ? owned[k] : ghosts[k - n_owned]);
    });
    // an owned cell's local index by its forest index (the owned cells are
    // sorted by serial index, which child_major orders otherwise), a ghost's
    // by a search of the ghosts
    std::vector<unsigned int> owned_local(n_owned);
    parallel_for(n_owned, value_grain, [&](const std::size_t k) {
      owned_local[partition.forest_index(l, owned[k]) - range[0]] = static_cast<unsigned int>(k);
    });
    const auto local_of_forest = [&](const std::uint64_t g) -> long {
      if (is_owned(std::int64_t(g)))
        return owned_local[g - range[0]];
      const unsigned int c     = static_cast<unsigned int>(partition.serial_index(l, g));
      const auto         first = local.serial_index.begin() + n_owned, last = local.serial_index.end();
      const auto         at    = std::lower_bound(first, last, c);
      return at != last && *at == c ? long(at - local.serial_index.begin()) : -1L;
    };
    const std::uint8_t       kind = l + 1 < partition.n_levels() ? cell_flags::refined : cell_flags::active;
    parallel_for(count, cell_grain, [&](const std::size_t k) {
      const std::uint64_t c      = local.serial_index[k];
      const std::uint64_t forest = partition.forest_index(l, c);
      const auto          x      = partition.coordinates_of_forest(l, forest);
      local.owner[k]             = k < n_owned ? rank : partition.owner(l, c);
      level.boxes[k]             = partition.box_of(l, c);
      level.coordinates[k]       = x;
      level.parent[k]            = -1;
      level.child_slot[k]        = l == 0 ? 0 : static_cast<std::uint8_t>((x[0] & 1) | ((x[1] & 1) << 1) | ((x[2] & 1) << 2));
      level.children[k]          = {{-1, -1, -1, -1, -1, -1, -1, -1}};
      level.flags[k]             = static_cast<std::uint8_t>(kind | (k < n_owned ? 0 : cell_flags::ghost));
      for (unsigned int face = 0; face < 6; ++face)
        {
          const std::int64_t g = partition.forest_neighbor(l, x, face);
          if (g < 0)
            level.neighbors[k][face] = static_cast<int>(g); // a boundary value
          else
            {
              const long j             = local_of_forest(std::uint64_t(g));
              level.neighbors[k][face] = j >= 0 ? static_cast<int>(j) : face_neighbor::none;
            }
        }
    });
    return local;
  }
} // namespace cellwise
