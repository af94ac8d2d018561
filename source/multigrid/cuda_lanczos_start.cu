#include <cellwise/base/cuda_check.h>
#include <cellwise/multigrid/cuda_lanczos_start.h>
#include <cellwise/multigrid/point_smoother_steps.h>
#include <cellwise/storage/cuda_cell_vector.h>
#include <cellwise/storage/layout.h>

namespace cellwise
{
  namespace cuda
  {
    namespace
    {
      constexpr unsigned int block_size = 256;

      /// A thread per storage entry k: its cell and local index in the layout.
      template <typename Number, typename Layout>
      __global__ void
      lanczos_start_kernel(Number *r, const Number *mask, const unsigned int n_cells, const unsigned int dofs_per_cell,
                           const std::size_t n)
      {
        const std::size_t k = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
        if (k >= n)
          return;
        const std::size_t cell = Layout::cell_of(k, dofs_per_cell);
        r[k] = cell < n_cells ? Number(lanczos_start_value(cell, Layout::dof_of(k, dofs_per_cell), dofs_per_cell)) * mask[k]
                              : Number(0);
      }
    } // namespace

    template <typename Number, typename Layout>
    CellVector<Number, MemorySpace::CUDA, Layout>
    lanczos_start_vector(const CellVector<Number, MemorySpace::CUDA, Layout> &mask)
    {
      CellVector<Number, MemorySpace::CUDA, Layout> r;
      r.reinit(mask);
      const std::size_t n = r.storage_size();
      if (n == 0)
        return r;
      lanczos_start_kernel<Number, Layout>
        <<<static_cast<unsigned int>((n + block_size - 1) / block_size), block_size>>>(r.data(), mask.data(), r.n_cells(),
                                                                                          r.dofs_per_cell(), n);
      CELLWISE_CUDA_CHECK_LAUNCH();
      return r;
    }

#define CELLWISE_INSTANTIATE(Number, Layout)                                                                               \
  template CellVector<Number, MemorySpace::CUDA, Layout> lanczos_start_vector(const CellVector<Number, MemorySpace::CUDA, Layout> &);
    CELLWISE_INSTANTIATE(double, CellContiguous)
    CELLWISE_INSTANTIATE(float, CellContiguous)
    CELLWISE_INSTANTIATE(double, CellBlocked<32>)
    CELLWISE_INSTANTIATE(float, CellBlocked<32>)
#undef CELLWISE_INSTANTIATE
  } // namespace cuda
} // namespace cellwise
