// The update-only smoother step on the device: one thread per stored entry,
// padding included (z and D^{-1} are zero there, so the padding stays zero),
// the correction formed by smoother_correction as in every other step.

#include <cellwise/base/cuda_check.h>
#include <cellwise/operators/cuda_smoother_update.h>

namespace cellwise
{
  namespace cuda
  {
    namespace
    {
      template <typename Number>
      __global__ void
      smoother_update_kernel(Number *u, const Number *z, Number *update, const Number *inverse_diagonal, const Number alpha,
                             const Number beta, const bool read_u, const bool read_update, const bool store_update,
                             const std::size_t n)
      {
        const std::size_t k = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
        if (k >= n)
          return;
        const Number d =
          smoother_correction(alpha, beta, read_update, z[k], inverse_diagonal[k], read_update ? update[k] : Number(0));
        u[k] = read_u ? u[k] + d : d;
        if (store_update)
          update[k] = d;
      }
    } // namespace

    template <typename Number, typename Layout>
    void
    apply_smoother_update(CellVector<Number, MemorySpace::CUDA, Layout>       &u,
                          const CellVector<Number, MemorySpace::CUDA, Layout> &r,
                          CellVector<Number, MemorySpace::CUDA, Layout>       *update,
                          const CellVector<Number, MemorySpace::CUDA, Layout> &inverse_diagonal,
                          const SmootherStep<Number>                          &step)
    {
      const std::size_t n = r.storage_size();
      if (n == 0)
        return;
      smoother_update_kernel<Number><<<static_cast<unsigned int>((n + 255) / 256), 256>>>(
        u.data(), r.data(), step.uses_update() ? update->data() : nullptr, inverse_diagonal.data(), step.alpha, step.beta,
        !step.zero_initial_guess, step.alpha != Number(0), step.store_update, n);
      CELLWISE_CUDA_CHECK_LAUNCH();
    }

    template void apply_smoother_update(CellVector<double, MemorySpace::CUDA, CellContiguous> &,
                                        const CellVector<double, MemorySpace::CUDA, CellContiguous> &,
                                        CellVector<double, MemorySpace::CUDA, CellContiguous> *,
                                        const CellVector<double, MemorySpace::CUDA, CellContiguous> &,
                                        const SmootherStep<double> &);
    template void apply_smoother_update(CellVector<float, MemorySpace::CUDA, CellContiguous> &,
                                        const CellVector<float, MemorySpace::CUDA, CellContiguous> &,
                                        CellVector<float, MemorySpace::CUDA, CellContiguous> *,
                                        const CellVector<float, MemorySpace::CUDA, CellContiguous> &,
                                        const SmootherStep<float> &);
    template void apply_smoother_update(CellVector<double, MemorySpace::CUDA, CellBlocked<32>> &,
                                        const CellVector<double, MemorySpace::CUDA, CellBlocked<32>> &,
                                        CellVector<double, MemorySpace::CUDA, CellBlocked<32>> *,
                                        const CellVector<double, MemorySpace::CUDA, CellBlocked<32>> &,
                                        const SmootherStep<double> &);
    template void apply_smoother_update(CellVector<float, MemorySpace::CUDA, CellBlocked<32>> &,
                                        const CellVector<float, MemorySpace::CUDA, CellBlocked<32>> &,
                                        CellVector<float, MemorySpace::CUDA, CellBlocked<32>> *,
                                        const CellVector<float, MemorySpace::CUDA, CellBlocked<32>> &,
                                        const SmootherStep<float> &);
  } // namespace cuda
} // namespace cellwise
