#include <cellwise/base/exceptions.h>
#include <cellwise/base/parallel.h>
#include <cellwise/multigrid/vertex_patch_inverses.h>

#include <cmath>
#include <map>

namespace cellwise
{
  namespace
  {
    /// @p h with its significand rounded to 44 bits (relative 6e-14): sizes
    /// that differ only by the rounding of the mesh construction share a key.
    double
    quantize(const double h)
    {
      int          exponent = 0;
      const double mantissa = std::frexp(h, &exponent);
      return std::ldexp(std::round(std::ldexp(mantissa, 44)), exponent - 44);
    }

    using Key = std::array<double, 6>;

    /// The sizes of patch @p k of @p colour, checked to form a tensor grid.
    PatchSizes
    checked_patch_sizes(const Level &level, const VertexPatches &patches, const unsigned int colour, const std::size_t k)
    {
      const auto &patch = patches.cells[colour][k];
      PatchSizes  sizes;
      for (unsigned int d = 0; d < 3; ++d)
        {
          sizes[d][0] = level.boxes[patch[0]].size[d];
          sizes[d][1] = level.boxes[patch[1u << d]].size[d];
        }
      for (unsigned int c = 0; c < 8; ++c)
        for (unsigned int d = 0; d < 3; ++d)
          {
            const double expected = sizes[d][(c >> d) & 1];
            CELLWISE_CHECK(std::abs(level.boxes[patch[c]].size[d] - expected) <= 1e-10 * expected,
                           "vertex patch at (" << patches.vertices[colour][k][0] << "," << patches.vertices[colour][k][1]
                                               << "," << patches.vertices[colour][k][2] << "): cell " << patch[c]
                                               << " (lane " << c << ") has size " << level.boxes[patch[c]].size[d]
                                               << " along axis " << d << " but its side of the patch has size " << expected
                                               << "; the patch cells must form a tensor grid");
          }
      return sizes;
    }

    Key
    key_of(const PatchSizes &sizes)
    {
      return {{quantize(sizes[0][0]), quantize(sizes[0][1]), quantize(sizes[1][0]), quantize(sizes[1][1]),
               quantize(sizes[2][0]), quantize(sizes[2][1])}};
    }

    /// The distinct keys of one chunk of patches in the order of first use,
    /// with the sizes of their first patch.
    struct ChunkKeys
    {
      std::vector<Key>        keys;
      std::vector<PatchSizes> sizes;
    };
    /// Whether all cells of @p level have the sizes of cell 0 up to the
    /// rounding that key_of() ignores (a uniform level).
    bool
    has_one_cell_size(const Level &level)
    {
      if (level.n_cells() == 0)
        return false;
      const std::array<double, 3> &h0 = level.boxes[0].size;
      const std::array<double, 3>  q0 = {{quantize(h0[0]), quantize(h0[1]), quantize(h0[2])}};
      const double                 n_other = deterministic_sum(level.n_cells(), 1 << 16, [&](const std::size_t begin, const std::size_t end) {
        double count = 0;
        for (std::size_t c = begin; c < end; ++c)
          for (unsigned int d = 0; d < 3; ++d)
            if (quantize(level.boxes[c].size[d]) != q0[d])
              {
                ++count;
                break;
              }
        return count;
      });
      return n_other == 0;
    }
  } // namespace

  void
  check_cell_size(const CellBox &box, const unsigned int c)
  {
    for (unsigned int d = 0; d < 3; ++d)
      CELLWISE_CHECK(box.size[d] > 0 && std::isfinite(box.size[d]),
                     "cell " << c << " has invalid size " << box.size[d] << " along axis " << d);
  }

  VertexPatchInverses
  make_vertex_patch_inverses(const Level &level, const VertexPatches &patches, const Matrices1D &reference)
  {
    // Chunks of patches find their keys in parallel (consecutive patches
    // mostly share theirs, all of them on a uniform level, so the last key is
    // compared before the chunk's map is searched); the chunks' keys are then
    // numbered in chunk order, which is the order of first use.
    constexpr std::size_t chunk = 1 << 14;
    VertexPatchInverses   result;
    if (has_one_cell_size(level))
      {
        // every patch is a tensor grid with one key: the general search's
        // result (the inverse of the first patch's sizes, index 0 for all)
        // without 10^7 patch visits
        for (unsigned int colour = 0; colour < VertexPatches::n_colours; ++colour)
          {
            auto &index = result.index[colour];
            index.resize(patches.n_patches(colour));
            parallel_for(index.size(), value_grain, [&](const std::size_t k) { index[k] = 0; });
            if (result.distinct.empty() && !index.empty())
              result.distinct.emplace_back(reference, checked_patch_sizes(level, patches, colour, 0));
          }
        return result;
      }
    std::map<Key, unsigned int> known;
    for (unsigned int colour = 0; colour < VertexPatches::n_colours; ++colour)
      {
        const std::size_t n_patches = patches.n_patches(colour);
        const std::size_t n_chunks  = (n_patches + chunk - 1) / chunk;
        auto             &index     = result.index[colour];
        index.resize(n_patches);
        std::vector<ChunkKeys> chunk_keys(n_chunks);
        parallel_for(n_chunks, 1, [&](const std::size_t q) {
          ChunkKeys                  &local = chunk_keys[q];
          std::map<Key, unsigned int> local_index;
          unsigned int                last = 0;
          for (std::size_t k = q * chunk; k < std::min(n_patches, (q + 1) * chunk); ++k)
            {
              const PatchSizes sizes = checked_patch_sizes(level, patches, colour, k);
              const Key        key   = key_of(sizes);
              if (local.keys.empty() || key != local.keys[last])
                {
                  const auto it = local_index.emplace(key, static_cast<unsigned int>(local.keys.size()));
                  if (it.second)
                    {
                      local.keys.push_back(key);
                      local.sizes.push_back(sizes);
                    }
                  last = it.first->second;
                }
              index[k] = last; // local for now
            }
        });
        std::vector<std::vector<unsigned int>> to_global(n_chunks);
        for (std::size_t q = 0; q < n_chunks; ++q)
          for (std::size_t i = 0; i < chunk_keys[q].keys.size(); ++i)
            {
              const auto it = known.emplace(chunk_keys[q].keys[i], static_cast<unsigned int>(result.distinct.size()));
              if (it.second)
                result.distinct.emplace_back(reference, chunk_keys[q].sizes[i]);
              to_global[q].push_back(it.first->second);
            }
        parallel_for(n_chunks, 1, [&](const std::size_t q) {
          for (std::size_t k = q * chunk; k < std::min(n_patches, (q + 1) * chunk); ++k)
            index[k] = to_global[q][index[k]];
        });
      }
    return result;
  }
} // namespace cellwise
