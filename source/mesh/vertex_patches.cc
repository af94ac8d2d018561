#include <cellwise/base/exceptions.h>
#include <cellwise/base/parallel.h>
#include <cellwise/mesh/vertex_patches.h>

#include <algorithm>
#include <numeric>

namespace cellwise
{
  VertexPatches
  make_vertex_patches(const Level &level)
  {
    CELLWISE_CHECK(level.neighbors.size() == level.n_cells() && level.coordinates.size() == level.n_cells(),
                   "make_vertex_patches: the level has " << level.n_cells() << " cells but " << level.neighbors.size()
                                                          << " neighbour entries and " << level.coordinates.size()
                                                          << " coordinates");
    // The step from lane c to lane c + 2^d along axis d is taken from lane c
    // with bit d unset; lanes built in increasing order, every lane > 0 from
    // the lane with its highest set bit cleared. One patch per cell at most
    // (the one at its upper corner): found in parallel, cell by cell, then
    // listed per colour in cell order (10^7 cells at L = 8).
    const unsigned int                       n_cells = level.n_cells();
    UninitializedVector<std::array<unsigned int, 8>> patch_of(n_cells);
    UninitializedVector<unsigned char>               colour_of(n_cells); // n_colours: no patch
    parallel_for(n_cells, cell_grain, [&](const std::size_t cell) {
      colour_of[cell] = VertexPatches::n_colours;
      std::array<int, 8> lane;
      lane[0] = static_cast<int>(cell);
      for (unsigned int c = 1; c < 8; ++c)
        {
          const unsigned int d    = (c >= 4) ? 2 : (c >= 2 ? 1 : 0);
          const unsigned int from = c - (1u << d);
          // structured pairs only: no patch reaches across a skeleton face
          const int          nb   = level.structured_neighbor(static_cast<unsigned int>(lane[from]), 2 * d + 1);
          if (!face_neighbor::is_cell(nb))
            return;
          lane[c] = nb;
        }
      // a patch of ghost cells alone is another rank's (mesh/partition.h)
      if (std::all_of(lane.begin(), lane.end(), [&](const int c) { return (level.flags[c] & cell_flags::ghost) != 0; }))
        return;
      const std::array<int, 3> &base = level.coordinates[cell];
      for (unsigned int c = 0; c < 8; ++c)
        {
          for (unsigned int d = 0; d < 3; ++d)
            CELLWISE_CHECK(level.coordinates[lane[c]][d] == base[d] + static_cast<int>((c >> d) & 1),
                           "make_vertex_patches: cell " << lane[c] << " found as lane " << c << " of the patch at the upper corner of cell "
                                                        << cell << " has coordinate " << level.coordinates[lane[c]][d]
                                                        << " along axis " << d << ", expected "
                                                        << base[d] + static_cast<int>((c >> d) & 1)
                                                        << ": neighbour table and coordinates disagree");
          patch_of[cell][c] = static_cast<unsigned int>(lane[c]);
        }
      colour_of[cell] = static_cast<unsigned char>(vertex_colour({{base[0] + 1, base[1] + 1, base[2] + 1}}));
    });

    // Per colour, the patches sorted by their smallest cell index. A cell
    // lies in at most one patch of a colour (its checked coordinates fix the
    // vertex of each parity), so the smallest cells of one colour's patches
    // differ: the sort is a scatter into an array indexed by the smallest
    // cell, then a compaction in chunks (counts, prefix sum, writes), all
    // parallel but the prefix sum over the chunks.
    VertexPatches             result;
    constexpr unsigned int    no_patch = ~0u;
    std::vector<unsigned int> smallest(n_cells), owner(n_cells);
    parallel_for(n_cells, cell_grain, [&](const std::size_t cell) {
      if (colour_of[cell] < VertexPatches::n_colours)
        smallest[cell] = *std::min_element(patch_of[cell].begin(), patch_of[cell].end());
    });
    const std::size_t        chunk    = 1 << 16;
    const std::size_t        n_chunks = (std::size_t(n_cells) + chunk - 1) / chunk;
    std::vector<std::size_t> offset(n_chunks + 1);
    for (unsigned int colour = 0; colour < VertexPatches::n_colours; ++colour)
      {
        parallel_for(n_cells, cell_grain, [&](const std::size_t cell) { owner[cell] = no_patch; });
        parallel_for(n_cells, cell_grain, [&](const std::size_t cell) {
          if (colour_of[cell] == colour)
            owner[smallest[cell]] = static_cast<unsigned int>(cell);
        });
        parallel_for(n_chunks, 1, [&](const std::size_t k) {
          std::size_t count = 0;
          for (std::size_t s = k * chunk; s < std::min<std::size_t>(n_cells, (k + 1) * chunk); ++s)
            count += owner[s] != no_patch;
          offset[k + 1] = count;
        });
        offset[0] = 0;
        std::partial_sum(offset.begin(), offset.end(), offset.begin());
        const std::size_t n_patches = offset[n_chunks];
        const double n_of_colour = deterministic_sum(n_cells, chunk, [&](const std::size_t begin, const std::size_t end) {
          return double(std::count(colour_of.begin() + begin, colour_of.begin() + end, colour));
        });
        CELLWISE_CHECK(double(n_patches) == n_of_colour,
                       "make_vertex_patches: two patches of colour " << colour << " share their smallest cell");
        result.cells[colour].resize(n_patches);
        result.vertices[colour].resize(n_patches);
        parallel_for(n_chunks, 1, [&](const std::size_t k) {
          std::size_t index = offset[k];
          for (std::size_t s = k * chunk; s < std::min<std::size_t>(n_cells, (k + 1) * chunk); ++s)
            if (owner[s] != no_patch)
              {
                const unsigned int        cell = owner[s];
                const std::array<int, 3> &base = level.coordinates[cell];
                result.cells[colour][index]    = patch_of[cell];
                result.vertices[colour][index] = {{base[0] + 1, base[1] + 1, base[2] + 1}};
                ++index;
              }
        });
      }
    return result;
  }

  std::vector<std::array<unsigned char, VertexPatches::n_colours>>
  count_patch_memberships(const VertexPatches &patches, const unsigned int n_cells)
  {
    std::vector<std::array<unsigned char, VertexPatches::n_colours>> count(n_cells);
    for (auto &c : count)
      c.fill(0);
    for (unsigned int colour = 0; colour < VertexPatches::n_colours; ++colour)
      for (const auto &patch : patches.cells[colour])
        for (const unsigned int cell : patch)
          {
            CELLWISE_CHECK(cell < n_cells, "count_patch_memberships: patch cell " << cell << " is not below the "
                                                                                   << n_cells << " cells of the level");
            ++count[cell][colour];
          }
    return count;
  }
} // namespace cellwise
