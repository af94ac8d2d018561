#pragma once
// The outer iterations' Dirichlet mask as the device operators' kernels read
// it (cuda::LaplaceOperator, cuda::HermiteBiharmonicOperator): an operator
// registers its solver's mask once (use_dirichlet_mask) and then reads one
// bit per DoF where the masked operator gets that very vector, instead of
// its values (8 bytes per entry in FP64) or a separate pass dst.scale(mask)
// (24 bytes per entry). The factor is the same 0 or 1, so the result is the
// composition's bit for bit. Private to source/operators (not installed).

#include <cellwise/base/cuda_check.h>
#include <cellwise/base/exceptions.h>
#include <cellwise/storage/cuda_cell_vector.h>

#include <cstddef>
#include <cstdint>

namespace cellwise
{
  namespace cuda
  {
    namespace internal
    {
      /// The mask of a masked operator: the vector, or its bits per cell
      /// (use_dirichlet_mask), or neither.
      template <typename Number>
      struct MaskArguments
      {
        const Number        *values = nullptr;
        const std::uint64_t *bits   = nullptr;
        unsigned int         words  = 0; ///< words of bits per cell
      };

      /// How the kernels read @p mask (null: none): as the bits of the
      /// registered mask when it is that vector with the same data, else as
      /// its values.
      template <typename Number, typename Vector>
      MaskArguments<Number>
      mask_arguments_for(const Vector        *mask,
                         const Vector        *registered,
                         const Number        *registered_data,
                         const std::uint64_t *bits,
                         const unsigned int   words)
      {
        MaskArguments<Number> arguments;
        if (mask && mask == registered && mask->data() == registered_data)
          arguments = {nullptr, bits, words};
        else if (mask)
          arguments.values = mask->data();
        return arguments;
      }

      /// One word of mask bits per thread (item = cell · words + word): bit b
      /// is 1 where the mask value of DoF 64 word + b is 1; a value other than
      /// 0 or 1 sets *bad. With consecutive cells in consecutive threads the
      /// blocked layout's loads coalesce (a one-time set-up pass).
      template <typename Number, typename Layout>
      __global__ void
      mask_bits_kernel(const Number       *mask,
                       const unsigned int  n_cells,
                       const unsigned int  n_dofs,
                       const unsigned int  words,
                       std::uint64_t      *bits,
                       unsigned int       *bad)
      {
        const std::size_t item = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
        if (item >= static_cast<std::size_t>(n_cells) * words)
          return;
        const unsigned int cell  = static_cast<unsigned int>(item / words);
        const unsigned int word  = static_cast<unsigned int>(item % words);
        std::uint64_t      value = 0;
        bool               wrong = false;
        for (unsigned int b = 0; b < 64 && 64 * word + b < n_dofs; ++b)
          {
            const Number m = mask[Layout::index(cell, 64 * word + b, n_dofs)];
            if (m == Number(1))
              value |= std::uint64_t(1) << b;
            else if (!(m == Number(0)))
              wrong = true;
          }
        bits[item] = value;
        if (wrong)
          atomicOr(bad, 1u);
      }

      /// The bits of @p mask on the device, (dofs per cell + 63) / 64 words
      /// per cell (the caller frees them with free_bytes); throws
      /// cellwise::Error naming @p who where a value is neither 0 nor 1.
      template <typename Number, typename Layout>
      std::uint64_t *
      make_dirichlet_bits(const CellVector<Number, MemorySpace::CUDA, Layout> &mask, const char *who)
      {
        const unsigned int n_cells = mask.n_cells(), n_dofs = mask.dofs_per_cell(), words = (n_dofs + 63) / 64;
        if (n_cells == 0)
          return nullptr;
        std::uint64_t *bits = allocate<std::uint64_t>(static_cast<std::size_t>(n_cells) * words, "the bits of a Dirichlet mask");
        unsigned int  *bad  = nullptr;
        try
          {
            bad = allocate<unsigned int>(1, "a flag of the Dirichlet mask check");
            CELLWISE_CUDA_CHECK(cudaMemset(bad, 0, sizeof(unsigned int)));
            const unsigned int threads = 256;
            const std::size_t  items   = static_cast<std::size_t>(n_cells) * words;
            mask_bits_kernel<Number, Layout><<<static_cast<unsigned int>((items + threads - 1) / threads), threads>>>(
              mask.data(), n_cells, n_dofs, words, bits, bad);
            CELLWISE_CUDA_CHECK_LAUNCH();
            unsigned int bad_host = 0;
            CELLWISE_CUDA_CHECK(cudaMemcpy(&bad_host, bad, sizeof(unsigned int), cudaMemcpyDeviceToHost));
            CELLWISE_CHECK(bad_host == 0, who << ": the mask has values other than 0 and 1");
          }
        catch (...)
          {
            free_bytes(bad);
            free_bytes(bits);
            throw;
          }
        free_bytes(bad);
        return bits;
      }
    } // namespace internal
  } // namespace cuda
} // namespace cellwise
