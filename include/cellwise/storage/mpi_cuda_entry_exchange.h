#pragma once
/**
 * @file
 * The device side of an exchange between MPI ranks of listed entries of a
 * device cell vector: what the DSS across ranks (its face layers) and the
 * whole-cell halo exchange do on device vectors. The entries sent are
 * packed by a device gather (storage/cuda_cell_entry_gather.h) into a
 * device buffer; where MPI is CUDA-aware (mpi_cuda_aware(), asked once at
 * construction) the messages take the device buffers, otherwise the packed
 * values are copied to a pinned host buffer, travel from there, and the
 * received ones come back through a second pinned buffer; a device scatter
 * unpacks them into the vector. The messages themselves are the caller's
 * (the same posting code as on the host).
 *
 * Built into cellwise::mpi with the CUDA backend only.
 */

#include <cellwise/storage/cuda_cell_vector.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace cellwise
{
  namespace cuda
  {
    class EntryExchange
    {
    public:
      /// Uploads the entries (cell · dofs_per_cell + i) sent and received,
      /// in buffer order, and allocates buffers for FP64 values (FP32 ones
      /// fit too). @p what names it in allocation errors.
      EntryExchange(const std::vector<std::uint64_t> &sent, const std::vector<std::uint64_t> &received, const char *what);
      EntryExchange(const EntryExchange &) = delete;
      EntryExchange &
      operator=(const EntryExchange &) = delete;
      ~EntryExchange();

      /// Packs the sent entries of @p v, calls @p post_and_wait(send,
      /// receive) on the buffers MPI may take (device or pinned host) and
      /// unpacks the received entries into @p v.
      template <typename Number, typename Layout>
      void
      exchange(CellVector<Number, MemorySpace::CUDA, Layout>     &v,
               const std::function<void(const void *, void *)> &post_and_wait) const;

      /// The same in three steps, with @p overlapped run while the messages
      /// travel: @p post(send, receive) posts them on the buffers MPI may
      /// take, @p overlapped() queues device work that needs none of the
      /// received values (the DSS's pairs of owned cells; it runs on the
      /// device while the host waits), @p wait() completes them.
      template <typename Number, typename Layout>
      void
      exchange(CellVector<Number, MemorySpace::CUDA, Layout>     &v,
               const std::function<void(const void *, void *)> &post,
               const std::function<void()>                     &overlapped,
               const std::function<void()>                     &wait) const;

      bool
      cuda_aware() const
      {
        return cuda_aware_;
      }

    private:
      void
      release() noexcept;

      std::size_t    n_sent_ = 0, n_received_ = 0;
      std::uint64_t *sent_ = nullptr, *received_ = nullptr;
      unsigned char *send_ = nullptr, *receive_ = nullptr;
      unsigned char *send_host_ = nullptr, *receive_host_ = nullptr;
      bool           cuda_aware_ = false;
    };
  } // namespace cuda
} // namespace cellwise
