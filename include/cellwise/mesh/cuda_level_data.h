#pragma once
/**
 * @file
 * The device copy of what the kernels of one level need from a Level: the six
 * same-level face neighbours per cell (encoded as in face_neighbor), the
 * cell sizes and whether the cells fill a box of the lattice. Uploaded once at construction; compiles with a plain C++
 * compiler (implemented in source/mesh/cuda_level_data.cu).
 */

#include <cellwise/mesh/level.h>

#include <array>

namespace cellwise
{
  namespace cuda
  {
    class LevelData
    {
    public:
      LevelData() = default;
      explicit LevelData(const Level &level);
      LevelData(const LevelData &) = delete;
      LevelData &
      operator=(const LevelData &) = delete;
      LevelData(LevelData &&other) noexcept;
      LevelData &
      operator=(LevelData &&other) noexcept;
      ~LevelData();

      /// Upload the neighbour table and cell sizes of @p level.
      void
      reinit(const Level &level);

      unsigned int
      n_cells() const
      {
        return n_cells_;
      }
      /// Device array of 6 n_cells() entries: neighbours[6 cell + face].
      const int *
      neighbors() const
      {
        return neighbors_;
      }
      /// Device array of 3 n_cells() entries: sizes[3 cell + d] = h_d.
      const double *
      cell_sizes() const
      {
        return sizes_;
      }
      /// Level::fills_box() of the level (the device DSS then runs as one pass).
      bool
      fills_box() const
      {
        return fills_box_;
      }

    private:
      void
      release() noexcept;

      unsigned int n_cells_   = 0;
      int         *neighbors_ = nullptr;
      double      *sizes_     = nullptr;
      bool         fills_box_ = false;
    };
  } // namespace cuda
} // namespace cellwise
