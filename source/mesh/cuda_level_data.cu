#include <cellwise/base/cuda_check.h>
#include <cellwise/base/parallel.h>
#include <cellwise/mesh/cuda_level_data.h>

#include <array>
#include <utility>

namespace cellwise
{
  namespace cuda
  {
    LevelData::LevelData(const Level &level)
    {
      reinit(level);
    }

    LevelData::LevelData(LevelData &&other) noexcept
      : n_cells_(std::exchange(other.n_cells_, 0))
      , neighbors_(std::exchange(other.neighbors_, nullptr))
      , sizes_(std::exchange(other.sizes_, nullptr))
      , fills_box_(std::exchange(other.fills_box_, false))
    {}

    LevelData &
    LevelData::operator=(LevelData &&other) noexcept
    {
      std::swap(n_cells_, other.n_cells_);
      std::swap(neighbors_, other.neighbors_);
      std::swap(sizes_, other.sizes_);
      std::swap(fills_box_, other.fills_box_);
      return *this;
    }

    LevelData::~LevelData()
    {
      release();
    }

    void
    LevelData::release() noexcept
    {
      free_bytes(neighbors_);
      free_bytes(sizes_);
      neighbors_ = nullptr;
      sizes_     = nullptr;
      n_cells_   = 0;
      fills_box_ = false;
    }

    void
    LevelData::reinit(const Level &level)
    {
      release();
      CELLWISE_CHECK(!level.has_skeleton(), "cuda::LevelData: the device DSS takes structured levels only so far; this level has "
                                               << level.skeleton_faces.size() << " skeleton faces (an unstructured coarse mesh)");
      const unsigned int n = level.n_cells();
      CELLWISE_CHECK(level.neighbors.size() == n,
                     "LevelData: the level has " << n << " cells but " << level.neighbors.size() << " neighbour entries");
      // The neighbour table goes up as it is stored (six ints per cell); the
      // sizes are packed out of the boxes in parallel (10^7 cells at L = 8).
      static_assert(sizeof(std::array<int, 6>) == 6 * sizeof(int), "the neighbour table must be packed");
      UninitializedVector<double> sizes(3 * static_cast<std::size_t>(n));
      parallel_for(n, cell_grain, [&](const std::size_t c) {
        for (unsigned int d = 0; d < 3; ++d)
          sizes[3 * c + d] = level.boxes[c].size[d];
      });
      neighbors_ = upload(reinterpret_cast<const int *>(level.neighbors.data()), 6 * static_cast<std::size_t>(n),
                          "the neighbour table of a level");
      sizes_     = upload(sizes, "the cell sizes of a level");
      n_cells_   = n;
      fills_box_ = level.fills_box();
    }
  } // namespace cuda
} // namespace cellwise
