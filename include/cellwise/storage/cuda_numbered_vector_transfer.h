#pragma once
/**
 * @file
 * The device twin of storage/numbered_vector_transfer.h: the numbering and
 * the copies uploaded once, and the three transfers between a global vector
 * in device memory (n_unique entries) and a device cell vector, one thread
 * per cell copy (scatter_balanced, gather) or per unique DoF
 * (gather_first_copies), asynchronous on the default stream. Device memory:
 * 4 bytes per cell copy, 10 per unique DoF. Compiles with a plain C++
 * compiler (kernels in source/storage/cuda_numbered_vector_transfer.cu).
 */

#include <cellwise/storage/cuda_cell_vector.h>
#include <cellwise/storage/numbered_vector_transfer.h>

#include <cstddef>
#include <cstdint>

namespace cellwise
{
  namespace cuda
  {
    class NumberedVectorTransfer
    {
    public:
      /// Uploads @p numbering's global indices and @p copies.
      NumberedVectorTransfer(const DofNumbering &numbering, const DofCopies &copies);
      ~NumberedVectorTransfer();
      NumberedVectorTransfer(const NumberedVectorTransfer &) = delete;
      NumberedVectorTransfer &
      operator=(const NumberedVectorTransfer &) = delete;

      /// Entries of the global vectors.
      std::size_t
      n_unique() const
      {
        return n_unique_;
      }
      unsigned int
      n_cells() const
      {
        return n_cells_;
      }

      /// @p dst = the balanced dual of the device array @p global; @p dst
      /// is resized to the numbering's cells.
      template <typename Number, typename Layout>
      void
      scatter_balanced(const double *global, CellVector<Number, MemorySpace::CUDA, Layout> &dst) const;

      /// @p dst = G @p global (device array); @p dst is resized.
      template <typename Number, typename Layout>
      void
      gather(const double *global, CellVector<Number, MemorySpace::CUDA, Layout> &dst) const;

      /// The device array @p global = the first copy of every DoF in @p src.
      template <typename Number, typename Layout>
      void
      gather_first_copies(const CellVector<Number, MemorySpace::CUDA, Layout> &src, double *global) const;

    private:
      /// Every copy of @p dst from @p global, divided by the valence where
      /// @p valence is given (the balanced dual), as it is where not (G).
      template <typename Number, typename Layout>
      void
      scatter(const double *global, const std::uint16_t *valence, CellVector<Number, MemorySpace::CUDA, Layout> &dst) const;

      unsigned int   degree_   = 0;
      unsigned int   n_cells_  = 0;
      std::size_t    n_unique_ = 0;
      unsigned int  *global_index_ = nullptr;
      std::uint16_t *valence_      = nullptr;
      std::uint64_t *first_copy_   = nullptr;
    };
  } // namespace cuda
} // namespace cellwise
