#include <cellwise/base/exceptions.h>
#include <cellwise/base/parallel.h>
#include <cellwise/multigrid/vertex_patch_inverses.h>

#include <cmath>
#include <map>

namespace cellwise
{
  namespace
  {
    /// @p h with its significand rounded to @p bits bits (44: relative
    /// 6e-14, sizes that differ only by the rounding of the mesh construction
    /// share a key; 10: relative 1e-3, surrogate sizes that are close share
    /// an inverse).
    double
    quantize(const double h, const int bits = 44)
    {
      int          exponent = 0;
      const double mantissa = std::frexp(h, &exponent);
      return std::ldexp(std::round(std::ldexp(mantissa, bits)), exponent - bits);
    }

    using Key = std::array<double, 6>;

    /// The sizes of patch @p k of @p colour: with PatchSizeRule::exact
    /// checked to form a tensor grid, with surrogate the mean of the four
    /// cells on each side. @p size(cell) gives a cell's sizes.
    template <typename Sizes>
    PatchSizes
    patch_sizes(const Sizes &size, const VertexPatches &patches, const unsigned int colour, const std::size_t k, const PatchSizeRule rule)
    {
      const auto &patch = patches.cells[colour][k];
      PatchSizes  sizes;
      if (rule == PatchSizeRule::surrogate)
        {
          for (unsigned int d = 0; d < 3; ++d)
            sizes[d] = {{0., 0.}};
          for (unsigned int c = 0; c < 8; ++c)
            for (unsigned int d = 0; d < 3; ++d)
              sizes[d][(c >> d) & 1] += 0.25 * size(patch[c])[d];
          return sizes;
        }
      for (unsigned int d = 0; d < 3; ++d)
        {
          sizes[d][0] = size(patch[0])[d];
          sizes[d][1] = size(patch[1u << d])[d];
        }
      for (unsigned int c = 0; c < 8; ++c)
        for (unsigned int d = 0; d < 3; ++d)
          {
            const double expected = sizes[d][(c >> d) & 1];
            CELLWISE_CHECK(std::abs(size(patch[c])[d] - expected) <= 1e-10 * expected,
                           "vertex patch at (" << patches.vertices[colour][k][0] << "," << patches.vertices[colour][k][1]
                                               << "," << patches.vertices[colour][k][2] << "): cell " << patch[c]
                                               << " (lane " << c << ") has size " << size(patch[c])[d]
                                               << " along axis " << d << " but its side of the patch has size " << expected
                                               << "; the patch cells must form a tensor grid");
          }
      return sizes;
    }

    Key
    key_of(const PatchSizes &sizes, const int bits)
    {
      return {{quantize(sizes[0][0], bits), quantize(sizes[0][1], bits), quantize(sizes[1][0], bits), quantize(sizes[1][1], bits),
               quantize(sizes[2][0], bits), quantize(sizes[2][1], bits)}};
    }

    /// The distinct keys of one chunk of patches in the order of first use,
    /// with the sizes of their first patch.
    struct ChunkKeys
    {
      std::vector<Key>        keys;
      std::vector<PatchSizes> sizes;
    };
    /// Whether all cells have the sizes of cell 0 up to the rounding that
    /// key_of() ignores (a uniform level).
    template <typename Sizes>
    bool
    has_one_cell_size(const Sizes &size, const unsigned int n_cells)
    {
      if (n_cells == 0)
        return false;
      const std::array<double, 3> &h0 = size(0);
      const std::array<double, 3>  q0 = {{quantize(h0[0]), quantize(h0[1]), quantize(h0[2])}};
      const double                 n_other = deterministic_sum(n_cells, 1 << 16, [&](const std::size_t begin, const std::size_t end) {
        double count = 0;
        for (std::size_t c = begin; c < end; ++c)
          for (unsigned int d = 0; d < 3; ++d)
            if (quantize(size(static_cast<unsigned int>(c))[d]) != q0[d])
              {
                ++count;
                break;
              }
        return count;
      });
      return n_other == 0;
    }

    template <typename Sizes>
    VertexPatchInverses
    make_inverses(const Sizes &size, const unsigned int n_cells, const VertexPatches &patches, const Matrices1D &reference,
                  const PatchSizeRule rule)
    {
      // Chunks of patches find their keys in parallel (consecutive patches
      // mostly share theirs, all of them on a uniform level, so the last key is
      // compared before the chunk's map is searched); the chunks' keys are then
      // numbered in chunk order, which is the order of first use.
      constexpr std::size_t chunk = 1 << 14;
      const int             bits  = rule == PatchSizeRule::exact ? 44 : 10;
      VertexPatchInverses   result;
      if (has_one_cell_size(size, n_cells))
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
                result.distinct.emplace_back(reference, patch_sizes(size, patches, colour, 0, PatchSizeRule::exact));
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
                const PatchSizes sizes = patch_sizes(size, patches, colour, k, rule);
                const Key        key   = key_of(sizes, bits);
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
  } // namespace

  void
  check_cell_size(const CellBox &box, const unsigned int c)
  {
    for (unsigned int d = 0; d < 3; ++d)
      CELLWISE_CHECK(box.size[d] > 0 && std::isfinite(box.size[d]),
                     "cell " << c << " has invalid size " << box.size[d] << " along axis " << d);
  }

  bool
  has_one_cell_size(const Level &level)
  {
    return has_one_cell_size([&level](const unsigned int c) -> const std::array<double, 3> & { return level.boxes[c].size; },
                             level.n_cells());
  }

  PatchInverse
  make_uniform_patch_inverse(const Level &level, const std::array<unsigned int, 8> &cells, const Matrices1D &reference)
  {
    PatchSizes sizes;
    for (unsigned int d = 0; d < 3; ++d)
      {
        CELLWISE_CHECK(cells[0] < level.n_cells() && cells[1u << d] < level.n_cells(),
                       "make_uniform_patch_inverse: a patch cell is not a cell of the level's " << level.n_cells());
        sizes[d][0] = level.boxes[cells[0]].size[d];
        sizes[d][1] = level.boxes[cells[1u << d]].size[d];
      }
    return PatchInverse(reference, sizes);
  }

  VertexPatchInverses
  make_vertex_patch_inverses(const Level &level, const VertexPatches &patches, const Matrices1D &reference)
  {
    return make_inverses([&level](const unsigned int c) -> const std::array<double, 3> & { return level.boxes[c].size; }, level.n_cells(),
                         patches, reference, PatchSizeRule::exact);
  }

  VertexPatchInverses
  make_vertex_patch_inverses(const std::vector<std::array<double, 3>> &cell_sizes,
                             const VertexPatches                      &patches,
                             const Matrices1D                         &reference,
                             const PatchSizeRule                       rule)
  {
    return make_inverses([&cell_sizes](const unsigned int c) -> const std::array<double, 3> & { return cell_sizes[c]; },
                         static_cast<unsigned int>(cell_sizes.size()), patches, reference, rule);
  }

  std::array<double, 3>
  effective_cell_sizes(const std::array<double, 3> &factors)
  {
    for (unsigned int d = 0; d < 3; ++d)
      CELLWISE_CHECK(factors[d] > 0 && std::isfinite(factors[d]),
                     "effective_cell_sizes: metric factor " << factors[d] << " along axis " << d << " is not positive and finite");
    return {{std::sqrt(factors[1] * factors[2]), std::sqrt(factors[0] * factors[2]), std::sqrt(factors[0] * factors[1])}};
  }
} // namespace cellwise
