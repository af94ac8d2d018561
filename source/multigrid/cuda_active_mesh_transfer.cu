// Distribution (17) and reassembly (18) of the adaptive V-cycle: the copies
// between an active vector and the level vectors, one launch per level.
//
// Both kernels walk the *written* vector in chunks of C consecutive cells
// (C = 32 for CellContiguous, C = B for CellBlocked<B>): the C n^3 entries of
// a chunk are one contiguous range of storage in either layout, so a block
// writes consecutive addresses. The read side goes through the level's map,
// which is increasing, so it is read in (nearly) contiguous runs too.
//
// Thread mapping, one block of 256 threads per chunk, n3 = (p+1)^3, the
// block loops over the chunk's entries e = threadIdx.x + 256 j < C n3:
//
//   layout           | cell in chunk cc | DoF i  | written entry
//   -----------------+------------------+--------+---------------------
//   CellContiguous   | e / n3           | e % n3 | C n3 chunk + e
//   CellBlocked<B>   | e % B            | e / B  | C n3 chunk + e
//   (for B < 32 a chunk is several layout blocks: e = B n3 s + r,
//    cc = B s + r % B, i = r / B)
//
//   distribute (level ℓ):  chunk = blockIdx.x over the level's cells;
//     cell c = C chunk + cc; a = active_index[c];
//     level(c, i) = a >= 0 ? active(a, i) : 0        (every entry written once)
//   reassemble (level ℓ):  chunk = begin / C + blockIdx.x over the active
//     indices [begin, end) of ℓ (the first chunk may start before begin, the
//     last end after end; those threads do nothing);
//     a = C chunk + cc; active(a, i) = level(active_cells[a − begin], i)
//
// Padding cells of the blocked layout are never written (they stay zero), and
// every output entry is owned by one thread: no atomics.

#include <cellwise/base/cuda_check.h>
#include <cellwise/multigrid/cuda_active_mesh_transfer.h>

namespace cellwise
{
  namespace cuda
  {
    namespace
    {
      constexpr unsigned int block_size = 256;

      /// Cells per chunk: a whole number of layout blocks, at least 32.
      template <typename Layout>
      __host__ __device__ constexpr unsigned int
      chunk_cells()
      {
        return ((32u + Layout::cell_block - 1) / Layout::cell_block) * Layout::cell_block;
      }

      /// Cell in chunk and local DoF of the chunk entry @p e (see the table).
      template <typename Layout>
      __device__ inline void
      split_entry(const unsigned int e, const unsigned int n3, unsigned int &cell_in_chunk, unsigned int &dof)
      {
        constexpr unsigned int B = Layout::cell_block;
        if constexpr (B > 1 && chunk_cells<Layout>() == B)
          {
            cell_in_chunk = e % B;
            dof           = e / B;
          }
        else if constexpr (B > 1)
          {
            // a chunk is one or more whole layout blocks of B n3 entries each
            const unsigned int block = e / (B * n3), rest = e % (B * n3);
            cell_in_chunk            = block * B + rest % B;
            dof                      = rest / B;
          }
        else
          {
            cell_in_chunk = e / n3;
            dof           = e % n3;
          }
      }

      template <typename Number, typename Layout>
      __global__ void __launch_bounds__(block_size)
      distribute_kernel(const Number *__restrict__ active,
                        const int *__restrict__ active_index,
                        Number *__restrict__ level,
                        const unsigned int n_level_cells,
                        const unsigned int n3)
      {
        constexpr unsigned int C     = chunk_cells<Layout>();
        const std::size_t      first = static_cast<std::size_t>(blockIdx.x) * C;
        Number *const          out   = level + first * n3;
        for (unsigned int e = threadIdx.x; e < C * n3; e += block_size)
          {
            unsigned int cc, i;
            split_entry<Layout>(e, n3, cc, i);
            const std::size_t cell = first + cc;
            if (cell >= n_level_cells)
              continue;
            const int a = active_index[cell];
            out[e]      = a >= 0 ? active[Layout::index(static_cast<std::size_t>(a), i, n3)] : Number(0);
          }
      }

      template <typename Number, typename Layout>
      __global__ void __launch_bounds__(block_size)
      reassemble_kernel(const Number *__restrict__ level,
                        const unsigned int *__restrict__ active_cells,
                        Number *__restrict__ active,
                        const unsigned int begin,
                        const unsigned int end,
                        const unsigned int n3)
      {
        constexpr unsigned int C     = chunk_cells<Layout>();
        const std::size_t      first = (static_cast<std::size_t>(begin / C) + blockIdx.x) * C;
        Number *const          out   = active + first * n3;
        for (unsigned int e = threadIdx.x; e < C * n3; e += block_size)
          {
            unsigned int cc, i;
            split_entry<Layout>(e, n3, cc, i);
            const std::size_t a = first + cc;
            if (a < begin || a >= end)
              continue;
            out[e] = level[Layout::index(active_cells[a - begin], i, n3)];
          }
      }
    } // namespace

    template <typename Number, typename Layout>
    ActiveMeshTransfer<Number, Layout>::ActiveMeshTransfer(const ActiveMesh &mesh)
    {
      reinit(mesh);
    }

    template <typename Number, typename Layout>
    ActiveMeshTransfer<Number, Layout>::~ActiveMeshTransfer()
    {
      release();
    }

    template <typename Number, typename Layout>
    void
    ActiveMeshTransfer<Number, Layout>::release() noexcept
    {
      for (int *p : active_index_)
        free_bytes(p);
      for (unsigned int *p : active_cells_)
        free_bytes(p);
      active_index_.clear();
      active_cells_.clear();
      level_offset_.clear();
      level_n_cells_.clear();
    }

    template <typename Number, typename Layout>
    void
    ActiveMeshTransfer<Number, Layout>::reinit(const ActiveMesh &mesh)
    {
      const unsigned int n_levels = mesh.n_levels();
      CELLWISE_CHECK(n_levels >= 1 && mesh.level_offset.size() == n_levels + 1 && mesh.active_index.size() == n_levels,
                     "cuda::ActiveMeshTransfer: the active mesh has inconsistent level tables (" << n_levels << " levels, "
                                                                                              << mesh.level_offset.size()
                                                                                              << " offsets)");
      release();
      level_offset_ = mesh.level_offset;
      for (unsigned int l = 0; l < n_levels; ++l)
        {
          CELLWISE_CHECK(mesh.active_cells[l].size() == mesh.level_offset[l + 1] - mesh.level_offset[l],
                         "cuda::ActiveMeshTransfer: level " << l << " has " << mesh.active_cells[l].size()
                                                            << " active cells, its offsets say "
                                                            << mesh.level_offset[l + 1] - mesh.level_offset[l]);
          level_n_cells_.push_back(static_cast<unsigned int>(mesh.active_index[l].size()));
          active_index_.push_back(upload(mesh.active_index[l], "the active indices of a level"));
          active_cells_.push_back(upload(mesh.active_cells[l], "the active cells of a level"));
        }
    }

    template <typename Number, typename Layout>
    void
    ActiveMeshTransfer<Number, Layout>::check_shapes(const unsigned int level,
                                                     const VectorType  &active,
                                                     const VectorType  &level_vector,
                                                     const char        *what) const
    {
      CELLWISE_CHECK(level < n_levels(), "cuda::ActiveMeshTransfer::" << what << ": level " << level << " of " << n_levels());
      CELLWISE_CHECK(active.n_cells() == n_active_cells(),
                     "cuda::ActiveMeshTransfer::" << what << ": active vector of " << active.n_cells() << " cells for "
                                                  << n_active_cells() << " active cells");
      CELLWISE_CHECK(level_vector.n_cells() == level_n_cells_[level] && level_vector.degree() == active.degree(),
                     "cuda::ActiveMeshTransfer::" << what << ": level " << level << " vector of " << level_vector.n_cells()
                                                  << " cells of degree " << level_vector.degree() << ", the level has "
                                                  << level_n_cells_[level] << " cells, the active vector degree "
                                                  << active.degree());
    }

    template <typename Number, typename Layout>
    void
    ActiveMeshTransfer<Number, Layout>::distribute_level(const unsigned int level,
                                                         const VectorType  &active,
                                                         VectorType        &level_vector) const
    {
      check_shapes(level, active, level_vector, "distribute_level");
      const unsigned int n_cells = level_n_cells_[level];
      if (n_cells == 0)
        return;
      constexpr unsigned int C        = chunk_cells<Layout>();
      const unsigned int     n_chunks = (n_cells + C - 1) / C;
      distribute_kernel<Number, Layout><<<n_chunks, block_size>>>(active.data(), active_index_[level], level_vector.data(),
                                                                 n_cells, active.dofs_per_cell());
      CELLWISE_CUDA_CHECK_LAUNCH();
    }

    template <typename Number, typename Layout>
    void
    ActiveMeshTransfer<Number, Layout>::reassemble_level(const unsigned int level,
                                                         const VectorType  &level_vector,
                                                         VectorType        &active) const
    {
      check_shapes(level, active, level_vector, "reassemble_level");
      const unsigned int begin = level_offset_[level], end = level_offset_[level + 1];
      if (begin == end)
        return;
      constexpr unsigned int C        = chunk_cells<Layout>();
      const unsigned int     n_chunks = (end + C - 1) / C - begin / C;
      reassemble_kernel<Number, Layout><<<n_chunks, block_size>>>(level_vector.data(), active_cells_[level], active.data(),
                                                                 begin, end, active.dofs_per_cell());
      CELLWISE_CUDA_CHECK_LAUNCH();
    }

    template <typename Number, typename Layout>
    void
    ActiveMeshTransfer<Number, Layout>::distribute(const VectorType &active, std::vector<VectorType> &level_vectors) const
    {
      CELLWISE_CHECK(level_vectors.size() == n_levels(),
                     "cuda::ActiveMeshTransfer::distribute: " << level_vectors.size() << " level vectors for " << n_levels()
                                                              << " levels");
      for (unsigned int l = 0; l < n_levels(); ++l)
        distribute_level(l, active, level_vectors[l]);
    }

    template <typename Number, typename Layout>
    void
    ActiveMeshTransfer<Number, Layout>::reassemble(const std::vector<VectorType> &level_vectors, VectorType &active) const
    {
      CELLWISE_CHECK(level_vectors.size() == n_levels() && !level_vectors.empty(),
                     "cuda::ActiveMeshTransfer::reassemble: " << level_vectors.size() << " level vectors for " << n_levels()
                                                              << " levels");
      // every active entry is written below: no zeroing needed
      if (active.n_cells() != n_active_cells() || active.degree() != level_vectors[0].degree())
        active.reinit(static_cast<unsigned int>(n_active_cells()), level_vectors[0].degree());
      for (unsigned int l = 0; l < n_levels(); ++l)
        reassemble_level(l, level_vectors[l], active);
    }

    CELLWISE_INSTANTIATE_NUMBERS_AND_LAYOUTS(ActiveMeshTransfer)
  } // namespace cuda
} // namespace cellwise
