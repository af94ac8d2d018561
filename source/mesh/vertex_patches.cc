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
    std::vector<std::array<unsigned int, 8>> patch_of(n_cells);
    std::vector<unsigned char>               colour_of(n_cells, VertexPatches::n_colours); // n_colours: no patch
    parallel_for(n_cells, cell_grain, [&](const std::size_t cell) {
      std::array<int, 8> lane;
      lane[0] = static_cast<int>(cell);
      for (unsigned int c = 1; c < 8; ++c)
        {
          const unsigned int d    = (c >= 4) ? 2 : (c >= 2 ? 1 : 0);
          const unsigned int from = c - (1u << d);
          const int          nb   = level.neighbors[lane[from]][2 * d + 1];
          if (!face_neighbor::is_cell(nb))
            return;
          lane[c] = nb;
        }
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

    // Per colour, the patches sorted by their smallest cell index, ties in
    // cell order (the order of the former stable sort): a counting sort.
    VertexPatches             result;
    std::vector<unsigned int> smallest(n_cells), start(static_cast<std::size_t>(n_cells) + 1);
    parallel_for(n_cells, cell_grain, [&](const std::size_t cell) {
      if (colour_of[cell] < VertexPatches::n_colours)
        smallest[cell] = *std::min_element(patch_of[cell].begin(), patch_of[cell].end());
    });
    for (unsigned int colour = 0; colour < VertexPatches::n_colours; ++colour)
      {
        std::fill(start.begin(), start.end(), 0u);
        std::size_t n_patches = 0;
        for (unsigned int cell = 0; cell < n_cells; ++cell)
          if (colour_of[cell] == colour)
            {
              ++start[smallest[cell] + 1];
              ++n_patches;
            }
        std::partial_sum(start.begin(), start.end(), start.begin());
        result.cells[colour].resize(n_patches);
        result.vertices[colour].resize(n_patches);
        for (unsigned int cell = 0; cell < n_cells; ++cell)
          if (colour_of[cell] == colour)
            {
              const unsigned int        k    = start[smallest[cell]]++;
              const std::array<int, 3> &base = level.coordinates[cell];
              result.cells[colour][k]        = patch_of[cell];
              result.vertices[colour][k]     = {{base[0] + 1, base[1] + 1, base[2] + 1}};
            }
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
