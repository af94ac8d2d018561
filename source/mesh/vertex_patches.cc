#include <cellwise/base/exceptions.h>
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
    // the lane with its highest set bit cleared.
    std::array<std::vector<std::array<unsigned int, 8>>, 8> cells;
    std::array<std::vector<std::array<int, 3>>, 8>          vertices;

    for (unsigned int cell = 0; cell < level.n_cells(); ++cell)
      {
        std::array<int, 8> lane;
        lane[0]    = static_cast<int>(cell);
        bool found = true;
        for (unsigned int c = 1; c < 8 && found; ++c)
          {
            const unsigned int d    = (c >= 4) ? 2 : (c >= 2 ? 1 : 0);
            const unsigned int from = c - (1u << d);
            const int          nb   = level.neighbors[lane[from]][2 * d + 1];
            if (face_neighbor::is_cell(nb))
              lane[c] = nb;
            else
              found = false;
          }
        if (!found)
          continue;

        const std::array<int, 3> &base = level.coordinates[cell];
        std::array<unsigned int, 8> patch;
        for (unsigned int c = 0; c < 8; ++c)
          {
            for (unsigned int d = 0; d < 3; ++d)
              CELLWISE_CHECK(level.coordinates[lane[c]][d] == base[d] + static_cast<int>((c >> d) & 1),
                             "make_vertex_patches: cell " << lane[c] << " found as lane " << c << " of the patch at the upper corner of cell "
                                                          << cell << " has coordinate " << level.coordinates[lane[c]][d]
                                                          << " along axis " << d << ", expected "
                                                          << base[d] + static_cast<int>((c >> d) & 1)
                                                          << ": neighbour table and coordinates disagree");
            patch[c] = static_cast<unsigned int>(lane[c]);
          }
        const std::array<int, 3> v      = {{base[0] + 1, base[1] + 1, base[2] + 1}};
        const unsigned int       colour = vertex_colour(v);
        cells[colour].push_back(patch);
        vertices[colour].push_back(v);
      }

    VertexPatches result;
    for (unsigned int colour = 0; colour < 8; ++colour)
      {
        const auto               &list = cells[colour];
        std::vector<unsigned int> order(list.size());
        std::iota(order.begin(), order.end(), 0u);
        std::vector<unsigned int> smallest(list.size());
        for (std::size_t k = 0; k < list.size(); ++k)
          smallest[k] = *std::min_element(list[k].begin(), list[k].end());
        std::stable_sort(order.begin(), order.end(), [&](const unsigned int a, const unsigned int b) {
          return smallest[a] < smallest[b];
        });
        result.cells[colour].reserve(list.size());
        result.vertices[colour].reserve(list.size());
        for (const unsigned int k : order)
          {
            result.cells[colour].push_back(list[k]);
            result.vertices[colour].push_back(vertices[colour][k]);
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
