// Device DSS: three launches, one per axis d = 0, 1, 2 (the order of the host
// apply_dss). Inside a pass, every face pair (cell K, upper face 2d+1) <->
// (neighbour K', lower face 2d) is handled face DoF by face DoF, owned by the
// lower cell K; no two items touch the same entry (for p >= 1 the lower and
// upper face DoFs of a cell differ), so no atomics and no ordering between
// items.
//
// Item e (one face DoF (a, b) of one cell), m = n^2 face DoFs per face:
//
//   layout           | item e                        | cell K              | face DoF ab = a + n b
//   -----------------+-------------------------------+---------------------+----------------------
//   CellContiguous   | e = m K + ab                  | e / m               | e % m
//   CellBlocked<B>   | e = B m (K / B) + B ab + K%B  | B (e / (B m)) + e%B | (e / B) % m
//
// Block b, thread t handles the U items e = U T b + T u + t, u = 0..U−1, T
// threads per block: for every u, consecutive threads hold consecutive items,
// i.e. consecutive face DoFs of one cell (contiguous: the z face is n^2
// consecutive entries, a y face n runs of n, an x face a stride-n comb) or one
// face DoF of consecutive cells (blocked: one 32-cell run). The old kernel
// had one item per thread: a neighbour load, then a load depending on it,
// i.e. two memory latencies for two 8-byte loads per thread. Now a thread
// issues its U neighbour loads together (the m items of a face read the same
// entry: one transaction per face and warp), then its 2U entry loads, then
// its 2U stores: U times the loads in flight per thread. The degree is a
// template parameter so that the item decode divides by constants.

#include <cellwise/base/cuda_check.h>
#include <cellwise/base/degree_dispatch.h>
#include <cellwise/cuda/dss.h>
#include <cellwise/kernels/face_dofs.h>

#include <limits>

namespace cellwise
{
  namespace cuda
  {
    namespace
    {
      constexpr unsigned int dss_threads = 256;
      constexpr unsigned int dss_items   = 4; // U, items per thread

      template <int p, typename Number, typename Layout>
      __global__ void __launch_bounds__(dss_threads)
      dss_pass_kernel(Number            *v,
                      const int *__restrict__ neighbors,
                      const unsigned int n_cells,
                      const unsigned int n_items,
                      const unsigned int d,
                      const Number       factor)
      {
        constexpr unsigned int B             = Layout::cell_block;
        constexpr unsigned int n             = p + 1;
        constexpr unsigned int m             = n * n;
        constexpr unsigned int dofs_per_cell = m * n;
        constexpr unsigned int U             = dss_items;
        const unsigned int     first         = blockIdx.x * (U * dss_threads) + threadIdx.x;

        unsigned int cell[U], ab[U];
        int          other[U];
#pragma unroll
        for (unsigned int u = 0; u < U; ++u)
          {
            const unsigned int item = first + u * dss_threads;
            const unsigned int rest = item % (B * m);
            cell[u]                 = (item / (B * m)) * B + rest % B;
            ab[u]                   = rest / B;
            // padding cells of the blocked layout (cell >= n_cells) have no pair
            other[u] = item < n_items && cell[u] < n_cells ? neighbors[6 * static_cast<std::size_t>(cell[u]) + 2 * d + 1] : -1;
          }
        std::size_t mine[U], theirs[U];
        Number      a[U], b[U];
#pragma unroll
        for (unsigned int u = 0; u < U; ++u)
          if (other[u] >= 0)
            {
              mine[u]   = Layout::index(cell[u], kernels::face_dof(n, d, 1, ab[u] % n, ab[u] / n), dofs_per_cell);
              theirs[u] = Layout::index(other[u], kernels::face_dof(n, d, 0, ab[u] % n, ab[u] / n), dofs_per_cell);
              a[u]      = v[mine[u]];
              b[u]      = v[theirs[u]];
            }
#pragma unroll
        for (unsigned int u = 0; u < U; ++u)
          if (other[u] >= 0)
            {
              // Same expression as the host: factor * (mine + theirs), rounded once in Number.
              const Number s = factor * (a[u] + b[u]);
              v[mine[u]]     = s;
              v[theirs[u]]   = s;
            }
      }
    } // namespace

    template <typename Number, typename Layout>
    void
    apply_dss(const LevelData &level_data, CellVector<Number, MemorySpace::CUDA, Layout> &v, const DssMode mode)
    {
      CELLWISE_CHECK(v.n_cells() == level_data.n_cells(),
                     "cuda::apply_dss: vector has " << v.n_cells() << " cells, the level " << level_data.n_cells());
      if (v.n_cells() == 0)
        return;
      const unsigned int     n      = v.degree() + 1;
      const Number           factor = mode == DssMode::mean ? Number(0.5) : Number(1);
      constexpr unsigned int B      = Layout::cell_block;
      const std::size_t      items  = ((static_cast<std::size_t>(v.n_cells()) + B - 1) / B) * B * n * n;
      CELLWISE_CHECK(items + dss_items * dss_threads < std::numeric_limits<unsigned int>::max(),
                     "cuda::apply_dss: " << v.n_cells() << " cells of degree " << v.degree()
                                         << " have too many face DoFs for 32-bit item indices");
      const unsigned int per_block = dss_items * dss_threads;
      const unsigned int blocks    = static_cast<unsigned int>((items + per_block - 1) / per_block);
      dispatch_degree(v.degree(), [&](auto degree) {
        constexpr int p = decltype(degree)::value;
        for (unsigned int d = 0; d < 3; ++d)
          {
            dss_pass_kernel<p, Number, Layout><<<blocks, dss_threads>>>(
              v.data(), level_data.neighbors(), v.n_cells(), static_cast<unsigned int>(items), d, factor);
            CELLWISE_CUDA_CHECK_LAUNCH();
          }
      });
    }

    template void apply_dss(const LevelData &, CellVector<double, MemorySpace::CUDA, CellContiguous> &, DssMode);
    template void apply_dss(const LevelData &, CellVector<float, MemorySpace::CUDA, CellContiguous> &, DssMode);
    template void apply_dss(const LevelData &, CellVector<double, MemorySpace::CUDA, CellBlocked<32>> &, DssMode);
    template void apply_dss(const LevelData &, CellVector<float, MemorySpace::CUDA, CellBlocked<32>> &, DssMode);
  } // namespace cuda
} // namespace cellwise
