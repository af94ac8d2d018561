// The vertex-patch search on the device, step for step the host's
// (source/mesh/vertex_patches.cc), so that the lists are equal:
//
//  1. find_kernel, one thread per cell: the cell is lane 0 of the patch at
//     its upper corner; lanes 1..7 are found by structured face steps (lane c
//     from lane c − 2^d along axis d), the coordinates of the lanes checked
//     against the cell's. It records the patch (8 cells), its smallest cell
//     and its colour, and counts the patches per colour.
//  2. per colour: the patches scattered into an array indexed by their
//     smallest cell (a cell is the smallest of at most one patch per colour),
//     compacted in index order (cub::DeviceSelect), checked against the
//     count of step 1 (two patches of one colour with one smallest cell would
//     lose one), and their cells gathered into the colour's list.

#include <cellwise/base/config.h>
#include <cellwise/base/cuda_check.h>
#include <cellwise/mesh/cuda_vertex_patches.h>

#include <cub/device/device_select.cuh>

#include <cstdint>
#include <utility>
#include <vector>

namespace cellwise
{
  namespace cuda
  {
    namespace
    {
      constexpr unsigned int no_patch  = ~0u;
      constexpr int          no_error  = 0x7fffffff;
      constexpr int          n_colours = VertexPatches::n_colours;

      __global__ void
      find_kernel(const int *__restrict__ neighbors,
                  const int *__restrict__ coordinates,
                  const unsigned int n_cells,
                  unsigned int *__restrict__ patch_of,
                  unsigned int *__restrict__ smallest_of,
                  std::uint8_t *__restrict__ colour_of,
                  unsigned int *__restrict__ colour_count,
                  int *__restrict__ first_error)
      {
        __shared__ unsigned int count[n_colours];
        if (threadIdx.x < n_colours)
          count[threadIdx.x] = 0;
        __syncthreads();
        const unsigned int cell = blockIdx.x * blockDim.x + threadIdx.x;
        if (cell < n_cells)
          {
            int  lane[8];
            bool found = true;
            lane[0]    = static_cast<int>(cell);
#pragma unroll
            for (int c = 1; c < 8; ++c)
              {
                const int d    = c >= 4 ? 2 : (c >= 2 ? 1 : 0);
                const int from = c - (1 << d);
                const int nb   = found ? neighbors[6 * static_cast<std::size_t>(lane[from]) + 2 * d + 1] : -1;
                found          = found && nb >= 0;
                lane[c]        = nb;
              }
            unsigned char colour = n_colours;
            if (found)
              {
                const int *base     = coordinates + 3 * static_cast<std::size_t>(cell);
                bool       coherent = true;
                unsigned int smallest = cell;
#pragma unroll
                for (int c = 0; c < 8; ++c)
                  {
#pragma unroll
                    for (int d = 0; d < 3; ++d)
                      coherent = coherent && coordinates[3 * static_cast<std::size_t>(lane[c]) + d] == base[d] + ((c >> d) & 1);
                    patch_of[8 * static_cast<std::size_t>(cell) + c] = static_cast<unsigned int>(lane[c]);
                    smallest = min(smallest, static_cast<unsigned int>(lane[c]));
                  }
                if (!coherent)
                  atomicMin(first_error, static_cast<int>(cell));
                smallest_of[cell] = smallest;
                colour = static_cast<unsigned char>(((base[0] + 1) & 1) + 2 * ((base[1] + 1) & 1) + 4 * ((base[2] + 1) & 1));
                atomicAdd(&count[colour], 1u);
              }
            colour_of[cell] = colour;
          }
        __syncthreads();
        if (threadIdx.x < n_colours && count[threadIdx.x] > 0)
          atomicAdd(&colour_count[threadIdx.x], count[threadIdx.x]);
      }

      __global__ void
      scatter_kernel(const std::uint8_t *__restrict__ colour_of,
                     const unsigned int *__restrict__ smallest_of,
                     const unsigned int n_cells,
                     const unsigned char colour,
                     unsigned int *__restrict__ owner)
      {
        const unsigned int cell = blockIdx.x * blockDim.x + threadIdx.x;
        if (cell < n_cells && colour_of[cell] == colour)
          owner[smallest_of[cell]] = cell;
      }

      __global__ void
      gather_kernel(const unsigned int *__restrict__ owners,
                    const unsigned int n_patches,
                    const unsigned int *__restrict__ patch_of,
                    unsigned int *__restrict__ cells)
      {
        const std::size_t k = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
        if (k < 8 * static_cast<std::size_t>(n_patches))
          cells[k] = patch_of[8 * static_cast<std::size_t>(owners[k / 8]) + k % 8];
      }

      struct HasPatch
      {
        __device__ bool
        operator()(const unsigned int owner) const
        {
          return owner != no_patch;
        }
      };

      /// Device arrays freed at the end of the search, also on an error.
      struct Scratch
      {
        std::vector<void *> pointers;
        template <typename T>
        T *
        get(const std::size_t n, const char *what)
        {
          pointers.push_back(nullptr);
          pointers.back() = allocate<T>(n, what);
          return static_cast<T *>(pointers.back());
        }
        ~Scratch()
        {
          for (void *p : pointers)
            free_bytes(p);
        }
      };

      unsigned int
      n_blocks(const std::size_t n, const unsigned int threads)
      {
        return static_cast<unsigned int>((n + threads - 1) / threads);
      }
    } // namespace

    VertexPatchLists::VertexPatchLists(VertexPatchLists &&other) noexcept
      : cells_(std::exchange(other.cells_, {}))
      , n_patches_(std::exchange(other.n_patches_, {}))
    {}

    VertexPatchLists &
    VertexPatchLists::operator=(VertexPatchLists &&other) noexcept
    {
      std::swap(cells_, other.cells_);
      std::swap(n_patches_, other.n_patches_);
      return *this;
    }

    VertexPatchLists::~VertexPatchLists()
    {
      for (unsigned int *cells : cells_)
        free_bytes(cells);
    }

    unsigned int *
    VertexPatchLists::release(const unsigned int colour)
    {
      n_patches_[colour] = 0;
      return std::exchange(cells_[colour], nullptr);
    }

    bool
    can_find_vertex_patches(const Level &level)
    {
      return level.n_owned_cells == level.n_cells() && !level.has_skeleton();
    }

    VertexPatchLists
    find_vertex_patches(const Level &level)
    {
      CELLWISE_CHECK(can_find_vertex_patches(level), "cuda::find_vertex_patches: the level has "
                                                       << (level.has_skeleton() ? "skeleton faces" : "ghost cells")
                                                       << "; its patches are found on the host (make_vertex_patches)");
      const unsigned int n_cells = level.n_cells();
      CELLWISE_CHECK(level.neighbors.size() == n_cells && level.coordinates.size() == n_cells,
                     "cuda::find_vertex_patches: the level has " << n_cells << " cells but " << level.neighbors.size()
                                                                 << " neighbour entries and " << level.coordinates.size()
                                                                 << " coordinates");
      VertexPatchLists result;
      if (n_cells == 0)
        return result;
      static_assert(sizeof(std::array<int, 6>) == 6 * sizeof(int) && sizeof(std::array<int, 3>) == 3 * sizeof(int),
                    "neighbour and coordinate arrays must be packed");
      Scratch       scratch;
      int          *neighbors   = scratch.get<int>(6 * std::size_t(n_cells), "the neighbour table of the patch search");
      int          *coordinates = scratch.get<int>(3 * std::size_t(n_cells), "the coordinates of the patch search");
      copy_host_to_device(neighbors, level.neighbors.data(), 6 * std::size_t(n_cells) * sizeof(int));
      copy_host_to_device(coordinates, level.coordinates.data(), 3 * std::size_t(n_cells) * sizeof(int));
      auto *patch_of     = scratch.get<unsigned int>(8 * std::size_t(n_cells), "the patches of the patch search");
      auto *smallest_of  = scratch.get<unsigned int>(n_cells, "the smallest cells of the patch search");
      auto *colour_of    = scratch.get<std::uint8_t>(n_cells, "the colours of the patch search");
      auto *owner        = scratch.get<unsigned int>(n_cells, "the owners of the patch search");
      auto *owners       = scratch.get<unsigned int>(n_cells, "the compacted owners of the patch search");
      auto *counters     = scratch.get<unsigned int>(n_colours + 1, "the counters of the patch search");
      auto *first_error  = scratch.get<int>(1, "the error flag of the patch search");
      CELLWISE_CUDA_CHECK(cudaMemset(counters, 0, (n_colours + 1) * sizeof(unsigned int)));
      CELLWISE_CUDA_CHECK(cudaMemcpy(first_error, &no_error, sizeof(int), cudaMemcpyHostToDevice));

      constexpr unsigned int threads = 256;
      find_kernel<<<n_blocks(n_cells, threads), threads>>>(neighbors, coordinates, n_cells, patch_of, smallest_of, colour_of,
                                                           counters, first_error);
      CELLWISE_CUDA_CHECK_LAUNCH();
      unsigned int colour_count[n_colours];
      int          error_cell = no_error;
      CELLWISE_CUDA_CHECK(cudaMemcpy(colour_count, counters, sizeof(colour_count), cudaMemcpyDeviceToHost));
      CELLWISE_CUDA_CHECK(cudaMemcpy(&error_cell, first_error, sizeof(int), cudaMemcpyDeviceToHost));
      CELLWISE_CHECK(error_cell == no_error, "cuda::find_vertex_patches: the patch at the upper corner of cell "
                                               << error_cell << " has a cell whose coordinates do not match its lane: "
                                               << "neighbour table and coordinates disagree");

      std::size_t temp_bytes = 0;
      unsigned int *n_selected = counters + n_colours;
      CELLWISE_CUDA_CHECK(cub::DeviceSelect::If(nullptr, temp_bytes, owner, owners, n_selected, n_cells, HasPatch()));
      void *temp = scratch.get<unsigned char>(temp_bytes, "the compaction scratch of the patch search");
      for (unsigned int colour = 0; colour < n_colours; ++colour)
        {
          CELLWISE_CUDA_CHECK(cudaMemset(owner, 0xff, std::size_t(n_cells) * sizeof(unsigned int)));
          scatter_kernel<<<n_blocks(n_cells, threads), threads>>>(colour_of, smallest_of, n_cells,
                                                                  static_cast<unsigned char>(colour), owner);
          CELLWISE_CUDA_CHECK_LAUNCH();
          CELLWISE_CUDA_CHECK(cub::DeviceSelect::If(temp, temp_bytes, owner, owners, n_selected, n_cells, HasPatch()));
          unsigned int n_patches = 0;
          CELLWISE_CUDA_CHECK(cudaMemcpy(&n_patches, n_selected, sizeof(unsigned int), cudaMemcpyDeviceToHost));
          CELLWISE_CHECK(n_patches == colour_count[colour],
                         "cuda::find_vertex_patches: two patches of colour " << colour << " share their smallest cell");
          result.n_patches_[colour] = n_patches;
          if (n_patches == 0)
            continue;
          result.cells_[colour] = allocate<unsigned int>(8 * std::size_t(n_patches), "the vertex-patch cell lists");
          gather_kernel<<<n_blocks(8 * std::size_t(n_patches), threads), threads>>>(owners, n_patches, patch_of,
                                                                                   result.cells_[colour]);
          CELLWISE_CUDA_CHECK_LAUNCH();
        }
      CELLWISE_CUDA_CHECK(cudaDeviceSynchronize());
      return result;
    }
  } // namespace cuda
} // namespace cellwise
