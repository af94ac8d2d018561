// The transfers between a global vector and a device cell vector: one thread
// per cell copy, 256 per block, the copies in the cell-contiguous order (the
// reads of the global vector follow the numbering, the cell vector's writes
// are coalesced in the cell-contiguous layout and within a cell's block of
// 32 in the blocked one); one thread per unique DoF for the first copies.

#include <cellwise/base/cuda_check.h>
#include <cellwise/storage/cuda_numbered_vector_transfer.h>

namespace cellwise
{
  namespace cuda
  {
    namespace
    {
      constexpr unsigned int threads = 256;

      unsigned int
      blocks_for(const std::size_t count)
      {
        const std::size_t blocks = (count + threads - 1) / threads;
        CELLWISE_CHECK(blocks < (1ull << 31),
                       "cuda::NumberedVectorTransfer: " << count << " entries are too many for one launch");
        return static_cast<unsigned int>(blocks);
      }

      /// valence == nullptr: the primal gather (every copy the value).
      template <typename Number, typename Layout>
      __global__ void __launch_bounds__(threads)
      scatter_kernel(const double        *global,
                     const unsigned int  *global_index,
                     const std::uint16_t *valence,
                     const std::size_t    n_copies,
                     const unsigned int   dofs_per_cell,
                     Number              *cells)
      {
        const std::size_t entry = static_cast<std::size_t>(blockIdx.x) * threads + threadIdx.x;
        if (entry >= n_copies)
          return;
        const unsigned int j     = global_index[entry];
        const double       value = valence == nullptr ? global[j] : global[j] / valence[j];
        cells[Layout::index(entry / dofs_per_cell, static_cast<unsigned int>(entry % dofs_per_cell), dofs_per_cell)] =
          static_cast<Number>(value);
      }

      template <typename Number, typename Layout>
      __global__ void __launch_bounds__(threads)
      first_copies_kernel(const Number        *cells,
                          const std::uint64_t *first_copy,
                          const std::size_t    n_unique,
                          const unsigned int   dofs_per_cell,
                          double              *global)
      {
        const std::size_t j = static_cast<std::size_t>(blockIdx.x) * threads + threadIdx.x;
        if (j >= n_unique)
          return;
        const std::uint64_t entry = first_copy[j];
        global[j] =
          static_cast<double>(cells[Layout::index(entry / dofs_per_cell, static_cast<unsigned int>(entry % dofs_per_cell), dofs_per_cell)]);
      }
    } // namespace

    NumberedVectorTransfer::NumberedVectorTransfer(const DofNumbering &numbering, const DofCopies &copies)
      : degree_(numbering.degree)
      , n_cells_(static_cast<unsigned int>(numbering.global_index.size() / numbering.dofs_per_cell()))
      , n_unique_(numbering.n_unique)
    {
      CELLWISE_CHECK(copies.valence.size() == n_unique_ && copies.first_copy.size() == n_unique_,
                     "cuda::NumberedVectorTransfer: the copies (" << copies.valence.size() << " DoFs) do not belong to the numbering ("
                                                                 << n_unique_ << " DoFs): make them with make_dof_copies");
      try
        {
          global_index_ = upload(numbering.global_index, "the numbering's global indices");
          valence_      = upload(copies.valence, "the valence of the unique DoFs");
          first_copy_   = upload(copies.first_copy, "the first copies of the unique DoFs");
        }
      catch (...)
        {
          free_bytes(global_index_);
          free_bytes(valence_);
          throw;
        }
    }

    NumberedVectorTransfer::~NumberedVectorTransfer()
    {
      free_bytes(global_index_);
      free_bytes(valence_);
      free_bytes(first_copy_);
    }

    template <typename Number, typename Layout>
    void
    NumberedVectorTransfer::scatter(const double                                  *global,
                                    const std::uint16_t                           *valence,
                                    CellVector<Number, MemorySpace::CUDA, Layout> &dst) const
    {
      if (dst.n_cells() != n_cells_ || dst.degree() != degree_)
        dst.reinit(n_cells_, degree_);
      const std::size_t n_copies = std::size_t(n_cells_) * dst.dofs_per_cell();
      if (n_copies == 0)
        return;
      scatter_kernel<Number, Layout>
        <<<blocks_for(n_copies), threads>>>(global, global_index_, valence, n_copies, dst.dofs_per_cell(), dst.data());
      CELLWISE_CUDA_CHECK_LAUNCH();
    }

    template <typename Number, typename Layout>
    void
    NumberedVectorTransfer::scatter_balanced(const double *global, CellVector<Number, MemorySpace::CUDA, Layout> &dst) const
    {
      scatter(global, valence_, dst);
    }

    template <typename Number, typename Layout>
    void
    NumberedVectorTransfer::gather(const double *global, CellVector<Number, MemorySpace::CUDA, Layout> &dst) const
    {
      scatter(global, nullptr, dst);
    }

    template <typename Number, typename Layout>
    void
    NumberedVectorTransfer::gather_first_copies(const CellVector<Number, MemorySpace::CUDA, Layout> &src, double *global) const
    {
      CELLWISE_CHECK(src.n_cells() == n_cells_ && src.degree() == degree_,
                     "cuda::NumberedVectorTransfer::gather_first_copies: the vector has " << src.n_cells() << " cells of degree "
                                                                                         << src.degree() << ", the numbering "
                                                                                         << n_cells_ << " of degree " << degree_);
      if (n_unique_ == 0)
        return;
      first_copies_kernel<Number, Layout>
        <<<blocks_for(n_unique_), threads>>>(src.data(), first_copy_, n_unique_, src.dofs_per_cell(), global);
      CELLWISE_CUDA_CHECK_LAUNCH();
    }

#define CELLWISE_INSTANTIATE(Number, Layout)                                                                                 \
  template void NumberedVectorTransfer::scatter_balanced(const double *, CellVector<Number, MemorySpace::CUDA, Layout> &) \
    const;                                                                                                                   \
  template void NumberedVectorTransfer::gather(const double *, CellVector<Number, MemorySpace::CUDA, Layout> &) const;       \
  template void NumberedVectorTransfer::gather_first_copies(const CellVector<Number, MemorySpace::CUDA, Layout> &, double *)  \
    const;
    CELLWISE_INSTANTIATE(double, CellContiguous)
    CELLWISE_INSTANTIATE(double, CellBlocked<32>)
    CELLWISE_INSTANTIATE(float, CellContiguous)
    CELLWISE_INSTANTIATE(float, CellBlocked<32>)
#undef CELLWISE_INSTANTIATE
  } // namespace cuda
} // namespace cellwise
