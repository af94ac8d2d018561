// Device DSS: three launches, one per axis d = 0, 1, 2 (the order of the host
// apply_dss). Inside a pass, every face pair (cell K, upper face 2d+1) <->
// (neighbour K', lower face 2d) is handled by one thread per face DoF (a, b),
// owned by the lower cell K; no two threads touch the same entry (for p >= 1
// the lower and upper face DoFs of a cell differ), so no atomics.
//
// Thread mapping, m = n^2 face DoFs per face, n = p + 1:
//
//   layout           | global thread t               | cell K            | face DoF ab = a + n b
//   -----------------+-------------------------------+-------------------+----------------------
//   CellContiguous   | t = m K + ab                  | t / m             | t % m
//   CellBlocked<B>   | t = B m (K / B) + B ab + K%B  | B (t / (B m)) + t%B | (t / B) % m
//
// With the blocked layout the B threads of one face DoF are B consecutive
// cells, which are B consecutive entries in memory: coalesced.

#include <cellwise/base/cuda_check.h>
#include <cellwise/cuda/dss.h>
#include <cellwise/kernels/face_dofs.h>

namespace cellwise
{
  namespace cuda
  {
    namespace
    {
      template <typename Number, typename Layout>
      __global__ void
      dss_pass_kernel(Number            *v,
                      const int         *neighbors,
                      const unsigned int n_cells,
                      const unsigned int n,
                      const unsigned int d,
                      const Number       factor)
      {
        constexpr unsigned int B     = Layout::cell_block;
        const unsigned int     m     = n * n;
        const std::size_t      t     = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
        const std::size_t      group = t / (static_cast<std::size_t>(B) * m);
        const unsigned int     rest  = static_cast<unsigned int>(t % (static_cast<std::size_t>(B) * m));
        const std::size_t      cell  = group * B + rest % B;
        const unsigned int     ab    = rest / B;
        if (cell >= n_cells)
          return;
        const int other = neighbors[6 * cell + 2 * d + 1];
        if (other < 0)
          return;
        const unsigned int a             = ab % n;
        const unsigned int b             = ab / n;
        const unsigned int dofs_per_cell = m * n;
        Number &mine   = v[Layout::index(cell, kernels::face_dof(n, d, 1, a, b), dofs_per_cell)];
        Number &theirs = v[Layout::index(other, kernels::face_dof(n, d, 0, a, b), dofs_per_cell)];
        // Same expression as the host: factor * (mine + theirs), rounded once in Number.
        const Number s = factor * (mine + theirs);
        mine           = s;
        theirs         = s;
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
      const unsigned int n       = v.degree() + 1;
      const Number       factor  = mode == DssMode::mean ? Number(0.5) : Number(1);
      constexpr unsigned int B   = Layout::cell_block;
      const std::size_t  threads = ((static_cast<std::size_t>(v.n_cells()) + B - 1) / B) * B * n * n;
      const unsigned int block   = 256;
      const unsigned int blocks  = static_cast<unsigned int>((threads + block - 1) / block);
      for (unsigned int d = 0; d < 3; ++d)
        {
          dss_pass_kernel<Number, Layout>
            <<<blocks, block>>>(v.data(), level_data.neighbors(), v.n_cells(), n, d, factor);
          CELLWISE_CUDA_CHECK_LAUNCH();
        }
    }

    template void apply_dss(const LevelData &, CellVector<double, MemorySpace::CUDA, CellContiguous> &, DssMode);
    template void apply_dss(const LevelData &, CellVector<float, MemorySpace::CUDA, CellContiguous> &, DssMode);
    template void apply_dss(const LevelData &, CellVector<double, MemorySpace::CUDA, CellBlocked<32>> &, DssMode);
    template void apply_dss(const LevelData &, CellVector<float, MemorySpace::CUDA, CellBlocked<32>> &, DssMode);
  } // namespace cuda
} // namespace cellwise
