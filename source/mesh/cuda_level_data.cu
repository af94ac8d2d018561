#include <cellwise/base/cuda_check.h>
#include <cellwise/base/parallel.h>
#include <cellwise/mesh/cuda_level_data.h>

#include <utility>
#include <vector>

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
      const unsigned int n = level.n_cells();
      CELLWISE_CHECK(level.neighbors.size() == n,
                     "LevelData: the level has " << n << " cells but " << level.neighbors.size() << " neighbour entries");
      std::vector<int>    neighbors(6 * static_cast<std::size_t>(n));
      std::vector<double> sizes(3 * static_cast<std::size_t>(n));
      // packed in parallel: a fine level of 10^7 cells took seconds on one thread
      parallel_for(n, cell_grain, [&](const std::size_t c) {
        for (unsigned int f = 0; f < 6; ++f)
          neighbors[6 * c + f] = level.neighbors[c][f];
        for (unsigned int d = 0; d < 3; ++d)
          sizes[3 * c + d] = level.boxes[c].size[d];
      });
      neighbors_ = allocate<int>(neighbors.size(), "the neighbour table of a level");
      sizes_     = allocate<double>(sizes.size(), "the cell sizes of a level");
      n_cells_   = n;
      fills_box_ = level.fills_box();
      if (n > 0)
        {
          CELLWISE_CUDA_CHECK(cudaMemcpy(neighbors_, neighbors.data(), neighbors.size() * sizeof(int), cudaMemcpyHostToDevice));
          CELLWISE_CUDA_CHECK(cudaMemcpy(sizes_, sizes.data(), sizes.size() * sizeof(double), cudaMemcpyHostToDevice));
        }
    }
  } // namespace cuda
} // namespace cellwise
