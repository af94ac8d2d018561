#include <cellwise/base/cuda_check.h>
#include <cellwise/base/parallel.h>
#include <cellwise/storage/cuda_level_data.h>
#include <cellwise/storage/dss.h>

#include "cuda_box_vertex_gather.h"

#include <array>
#include <utility>
#include <vector>

namespace cellwise
{
  namespace cuda
  {
    namespace
    {
      /// The table of LevelData::sub_boxes(), one thread per cell: the
      /// composition of face neighbours (box_gather::sub_box_above) that the
      /// vertex kernels made with dependent loads in every call, made once.
      __global__ void
      sub_boxes_kernel(const int *__restrict__ neighbors, const unsigned int n_cells, int *__restrict__ table)
      {
        const unsigned int cell = blockIdx.x * blockDim.x + threadIdx.x;
        if (cell >= n_cells)
          return;
        int  c[8];
        bool below[3];
        box_gather::sub_box_above(neighbors, cell, c, below);
        // slot 0 is the cell itself: its place holds the bits of the neighbours below
        c[0]            = int(below[0]) | int(below[1]) << 1 | int(below[2]) << 2;
        int4 *const out = reinterpret_cast<int4 *>(table + 8 * static_cast<std::size_t>(cell));
        out[0]          = make_int4(c[0], c[1], c[2], c[3]);
        out[1]          = make_int4(c[4], c[5], c[6], c[7]);
      }
    } // namespace

    LevelData::LevelData(const Level &level, const unsigned int fe_degree)
    {
      reinit(level, fe_degree);
    }

    LevelData::LevelData(LevelData &&other) noexcept
      : n_cells_(std::exchange(other.n_cells_, 0))
      , neighbors_(std::exchange(other.neighbors_, nullptr))
      , sub_boxes_(std::exchange(other.sub_boxes_, nullptr))
      , sizes_(std::exchange(other.sizes_, nullptr))
      , fills_box_(std::exchange(other.fills_box_, false))
      , skeleton_(std::exchange(other.skeleton_, DeviceDssSkeleton()))
    {}

    LevelData &
    LevelData::operator=(LevelData &&other) noexcept
    {
      std::swap(n_cells_, other.n_cells_);
      std::swap(neighbors_, other.neighbors_);
      std::swap(sub_boxes_, other.sub_boxes_);
      std::swap(sizes_, other.sizes_);
      std::swap(fills_box_, other.fills_box_);
      std::swap(skeleton_, other.skeleton_);
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
      free_bytes(sub_boxes_);
      free_bytes(sizes_);
      free_bytes(const_cast<std::size_t *>(skeleton_.group_start));
      free_bytes(const_cast<unsigned int *>(skeleton_.cells));
      free_bytes(const_cast<unsigned int *>(skeleton_.dofs));
      free_bytes(const_cast<std::uint8_t *>(skeleton_.weights));
      neighbors_ = nullptr;
      sub_boxes_ = nullptr;
      sizes_     = nullptr;
      skeleton_  = DeviceDssSkeleton();
      n_cells_   = 0;
      fills_box_ = false;
    }

    void
    LevelData::reinit(const Level &level, const unsigned int fe_degree)
    {
      release();
      const unsigned int n = level.n_cells();
      CELLWISE_CHECK(level.neighbors.size() == n,
                     "LevelData: the level has " << n << " cells but " << level.neighbors.size() << " neighbour entries");
      CELLWISE_CHECK(!level.has_skeleton() || (fe_degree >= 1 && fe_degree <= 8),
                     "cuda::LevelData: the level has " << level.skeleton_faces.size()
                                                       << " skeleton faces (an unstructured coarse mesh), whose DSS phase "
                                                          "needs the degree 1..8 of the FE_Q field; got "
                                                       << fe_degree);
      // The neighbour table goes up as it is stored (six ints per cell), with
      // the skeleton faces as none: the cascade pairs structured faces only.
      // The sizes are packed out of the boxes in parallel (10^7 cells at L = 8).
      static_assert(sizeof(std::array<int, 6>) == 6 * sizeof(int), "the neighbour table must be packed");
      UninitializedVector<double> sizes(3 * static_cast<std::size_t>(n));
      parallel_for(n, cell_grain, [&](const std::size_t c) {
        for (unsigned int d = 0; d < 3; ++d)
          sizes[3 * c + d] = level.boxes[c].size[d];
      });
      try
        {
          if (level.has_skeleton())
            {
              UninitializedVector<int> structured(6 * static_cast<std::size_t>(n));
              parallel_for(n, cell_grain, [&](const std::size_t c) {
                for (unsigned int f = 0; f < 6; ++f)
                  structured[6 * c + f] = level.structured_neighbor(static_cast<unsigned int>(c), f);
              });
              neighbors_ = upload(structured, "the structured neighbour table of a level");
              upload_skeleton(level, fe_degree);
            }
          else
            neighbors_ = upload(reinterpret_cast<const int *>(level.neighbors.data()), 6 * static_cast<std::size_t>(n),
                                "the neighbour table of a level");
          sizes_ = upload(sizes, "the cell sizes of a level");
        }
      catch (...)
        {
          release();
          throw;
        }
      n_cells_   = n;
      fills_box_ = level.fills_box();
    }

    const int *
    LevelData::sub_boxes() const
    {
      CELLWISE_CHECK(fills_box_, "cuda::LevelData::sub_boxes: the level of " << n_cells_ << " cells does not fill a box");
      if (!sub_boxes_ && n_cells_ > 0)
        {
          int *const table = allocate<int>(8 * static_cast<std::size_t>(n_cells_), "the sub-boxes of cells above the cells of a level");
          sub_boxes_kernel<<<(n_cells_ + 255) / 256, 256>>>(neighbors_, n_cells_, table);
          const cudaError_t launched = cudaGetLastError();
          if (launched != cudaSuccess)
            {
              free_bytes(table);
              CELLWISE_CUDA_CHECK(launched);
            }
          sub_boxes_ = table;
        }
      return sub_boxes_;
    }

    void
    LevelData::upload_skeleton(const Level &level, const unsigned int fe_degree)
    {
      const DssSkeleton                  host(level, fe_degree);
      const std::size_t                  n_copies = host.copies().size();
      std::vector<unsigned int>          cells(n_copies), dofs(n_copies);
      for (std::size_t k = 0; k < n_copies; ++k)
        {
          cells[k] = host.copies()[k].first;
          dofs[k]  = host.copies()[k].second;
        }
      skeleton_.degree      = fe_degree;
      skeleton_.group_start = upload(host.group_starts(), "the DSS skeleton's group starts");
      skeleton_.cells       = upload(cells, "the DSS skeleton's copy cells");
      skeleton_.dofs        = upload(dofs, "the DSS skeleton's copy DoFs");
      skeleton_.weights     = upload(host.weights(), "the DSS skeleton's weights");
      skeleton_.n_groups    = host.n_groups(); // last: a level has a skeleton once all of it is up
    }
  } // namespace cuda
} // namespace cellwise
