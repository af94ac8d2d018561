// Listed entries of a device cell vector to and from a buffer: one thread per
// listed entry, 256 per block. The lists of an exchange are short (face
// layers of the cells on a rank boundary), so a plain gather is enough: the
// reads are scattered, the buffer writes coalesced.

#include <cellwise/base/cuda_check.h>
#include <cellwise/storage/cuda_cell_entry_gather.h>

namespace cellwise
{
  namespace cuda
  {
    namespace
    {
      constexpr unsigned int threads = 256;

      template <typename Layout>
      __device__ inline std::size_t
      storage_index(const std::uint64_t entry, const unsigned int dofs_per_cell)
      {
        return Layout::index(entry / dofs_per_cell, static_cast<unsigned int>(entry % dofs_per_cell), dofs_per_cell);
      }

      template <typename Number, typename Layout>
      __global__ void __launch_bounds__(threads)
      gather_kernel(const Number *v, const std::uint64_t *entries, const std::size_t count, const unsigned int n, Number *buffer)
      {
        const std::size_t j = static_cast<std::size_t>(blockIdx.x) * threads + threadIdx.x;
        if (j < count)
          buffer[j] = v[storage_index<Layout>(entries[j], n)];
      }

      template <typename Number, typename Layout>
      __global__ void __launch_bounds__(threads)
      scatter_kernel(Number *v, const std::uint64_t *entries, const std::size_t count, const unsigned int n, const Number *buffer)
      {
        const std::size_t j = static_cast<std::size_t>(blockIdx.x) * threads + threadIdx.x;
        if (j < count)
          v[storage_index<Layout>(entries[j], n)] = buffer[j];
      }

      unsigned int
      blocks_for(const std::size_t count)
      {
        const std::size_t blocks = (count + threads - 1) / threads;
        CELLWISE_CHECK(blocks < (1ull << 31), "cuda::gather_entries: " << count << " entries are too many for one launch");
        return static_cast<unsigned int>(blocks);
      }
    } // namespace

    template <typename Number, typename Layout>
    void
    gather_entries(const CellVector<Number, MemorySpace::CUDA, Layout> &v,
                   const std::uint64_t                                 *entries,
                   const std::size_t                                    count,
                   Number                                              *buffer)
    {
      if (count == 0)
        return;
      gather_kernel<Number, Layout><<<blocks_for(count), threads>>>(v.data(), entries, count, v.dofs_per_cell(), buffer);
      CELLWISE_CUDA_CHECK_LAUNCH();
    }

    template <typename Number, typename Layout>
    void
    scatter_entries(CellVector<Number, MemorySpace::CUDA, Layout> &v,
                    const std::uint64_t                           *entries,
                    const std::size_t                              count,
                    const Number                                  *buffer)
    {
      if (count == 0)
        return;
      scatter_kernel<Number, Layout><<<blocks_for(count), threads>>>(v.data(), entries, count, v.dofs_per_cell(), buffer);
      CELLWISE_CUDA_CHECK_LAUNCH();
    }

#define CELLWISE_INSTANTIATE(Number, Layout)                                                                            \
  template void gather_entries(const CellVector<Number, MemorySpace::CUDA, Layout> &, const std::uint64_t *, std::size_t, \
                               Number *);                                                                               \
  template void scatter_entries(CellVector<Number, MemorySpace::CUDA, Layout> &, const std::uint64_t *, std::size_t,    \
                                const Number *);
    CELLWISE_INSTANTIATE(double, CellContiguous)
    CELLWISE_INSTANTIATE(float, CellContiguous)
    CELLWISE_INSTANTIATE(double, CellBlocked<32>)
    CELLWISE_INSTANTIATE(float, CellBlocked<32>)
#undef CELLWISE_INSTANTIATE
  } // namespace cuda
} // namespace cellwise
