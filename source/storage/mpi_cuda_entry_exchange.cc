// The device side of an exchange of listed entries (storage/mpi_cuda_entry_exchange.h).

#include <cellwise/base/cuda_check.h>
#include <cellwise/base/mpi_check.h>
#include <cellwise/storage/cuda_cell_entry_gather.h>
#include <cellwise/storage/mpi_cuda_entry_exchange.h>

#include <cuda_runtime_api.h>

namespace cellwise
{
  namespace cuda
  {
    EntryExchange::EntryExchange(const std::vector<std::uint64_t> &sent,
                                 const std::vector<std::uint64_t> &received,
                                 const char                       *what)
      : n_sent_(sent.size())
      , n_received_(received.size())
      , cuda_aware_(mpi_cuda_aware())
    {
      try
        {
          sent_     = upload(sent, what);
          received_ = upload(received, what);
          send_     = static_cast<unsigned char *>(allocate_bytes(n_sent_ * sizeof(double), what));
          receive_  = static_cast<unsigned char *>(allocate_bytes(n_received_ * sizeof(double), what));
          if (!cuda_aware_)
            {
              if (n_sent_ > 0)
                CELLWISE_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void **>(&send_host_), n_sent_ * sizeof(double)));
              if (n_received_ > 0)
                CELLWISE_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void **>(&receive_host_), n_received_ * sizeof(double)));
            }
        }
      catch (...)
        {
          release(); // the destructor does not run for a constructor that throws
          throw;
        }
    }

    EntryExchange::~EntryExchange()
    {
      release();
    }

    void
    EntryExchange::release() noexcept
    {
      free_bytes(sent_);
      free_bytes(received_);
      free_bytes(send_);
      free_bytes(receive_);
      if (send_host_ != nullptr)
        cudaFreeHost(send_host_);
      if (receive_host_ != nullptr)
        cudaFreeHost(receive_host_);
      sent_ = received_ = nullptr;
      send_ = receive_ = send_host_ = receive_host_ = nullptr;
    }

    template <typename Number, typename Layout>
    void
    EntryExchange::exchange(CellVector<Number, MemorySpace::CUDA, Layout>     &v,
                            const std::function<void(const void *, void *)> &post_and_wait) const
    {
      exchange(v, post_and_wait, [] {}, [] {});
    }

    template <typename Number, typename Layout>
    void
    EntryExchange::exchange(CellVector<Number, MemorySpace::CUDA, Layout>     &v,
                            const std::function<void(const void *, void *)> &post,
                            const std::function<void()>                     &overlapped,
                            const std::function<void()>                     &wait) const
    {
      Number *const send    = reinterpret_cast<Number *>(send_);
      Number *const receive = reinterpret_cast<Number *>(receive_);
      gather_entries(v, sent_, n_sent_, send);
      if (cuda_aware_)
        {
          CELLWISE_CUDA_CHECK(cudaDeviceSynchronize()); // the packed values, before MPI reads them
          post(send, receive);
          overlapped();
          wait();
        }
      else
        {
          // cudaMemcpy to pinned memory waits for the gather before it copies
          if (n_sent_ > 0)
            CELLWISE_CUDA_CHECK(cudaMemcpy(send_host_, send, n_sent_ * sizeof(Number), cudaMemcpyDeviceToHost));
          post(send_host_, receive_host_);
          overlapped();
          wait();
          // on the default stream: after the overlapped work
          if (n_received_ > 0)
            CELLWISE_CUDA_CHECK(cudaMemcpy(receive, receive_host_, n_received_ * sizeof(Number), cudaMemcpyHostToDevice));
        }
      scatter_entries(v, received_, n_received_, receive);
    }

#define CELLWISE_INSTANTIATE(Number, Layout)                                                                      \
  template void EntryExchange::exchange(CellVector<Number, MemorySpace::CUDA, Layout> &,                          \
                                        const std::function<void(const void *, void *)> &) const;                  \
  template void EntryExchange::exchange(CellVector<Number, MemorySpace::CUDA, Layout> &,                          \
                                        const std::function<void(const void *, void *)> &,                         \
                                        const std::function<void()> &, const std::function<void()> &) const;
    CELLWISE_INSTANTIATE(double, CellContiguous)
    CELLWISE_INSTANTIATE(float, CellContiguous)
    CELLWISE_INSTANTIATE(double, CellBlocked<32>)
    CELLWISE_INSTANTIATE(float, CellBlocked<32>)
#undef CELLWISE_INSTANTIATE
  } // namespace cuda
} // namespace cellwise
