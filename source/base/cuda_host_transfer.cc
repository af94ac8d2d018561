#include <cellwise/base/cuda_check.h>
#include <cellwise/base/cuda_host_transfer.h>
#include <cellwise/base/parallel.h>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstring>
#include <mutex>

namespace cellwise
{
  namespace cuda
  {
    namespace
    {
      /// Per staging buffer; two of them alternate.
      constexpr std::size_t chunk_bytes = std::size_t(32) << 20;
      /// Below this a single cudaMemcpy is as fast (no pipeline to fill).
      constexpr std::size_t direct_bytes = std::size_t(8) << 20;
      /// The host copy of a chunk in pieces of this size, in parallel.
      constexpr std::size_t piece_bytes = std::size_t(1) << 20;

      /// The staging buffers, their stream and events, made on first use on
      /// the device current then; never destroyed (the CUDA runtime may be
      /// torn down before static objects are).
      struct Staging
      {
        std::mutex   mutex;
        bool         ready  = false;
        int          device = -1;
        void        *buffer[2]{};
        cudaEvent_t  done[2]{};
        cudaStream_t stream{};
      };

      Staging &
      staging()
      {
        static Staging *instance = new Staging;
        return *instance;
      }

      /// The staging set of the current device, or nullptr where it belongs
      /// to another device (then the copy is a plain cudaMemcpy).
      Staging *
      staging_for_current_device()
      {
        Staging &s       = staging();
        int      current = 0;
        CELLWISE_CUDA_CHECK(cudaGetDevice(&current));
        if (!s.ready)
          {
            // a blocking stream: ordered with the legacy default stream
            CELLWISE_CUDA_CHECK(cudaStreamCreate(&s.stream));
            for (unsigned int b = 0; b < 2; ++b)
              {
                CELLWISE_CUDA_CHECK(cudaHostAlloc(&s.buffer[b], chunk_bytes, cudaHostAllocPortable));
                CELLWISE_CUDA_CHECK(cudaEventCreateWithFlags(&s.done[b], cudaEventDisableTiming));
                CELLWISE_CUDA_CHECK(cudaEventRecord(s.done[b], s.stream));
              }
            s.device = current;
            s.ready  = true;
          }
        return s.device == current ? &s : nullptr;
      }

      /// memcpy of @p bytes in pieces on the loop executor's threads.
      void
      parallel_memcpy(void *to, const void *from, const std::size_t bytes)
      {
        const std::size_t n_pieces = (bytes + piece_bytes - 1) / piece_bytes;
        parallel_for(n_pieces, 1, [&](const std::size_t k) {
          const std::size_t begin = k * piece_bytes;
          std::memcpy(static_cast<char *>(to) + begin, static_cast<const char *>(from) + begin,
                      std::min(piece_bytes, bytes - begin));
        });
      }
    } // namespace

    void
    copy_host_to_device(void *device, const void *host, const std::size_t bytes)
    {
      if (bytes < direct_bytes)
        {
          if (bytes > 0)
            CELLWISE_CUDA_CHECK(cudaMemcpy(device, host, bytes, cudaMemcpyHostToDevice));
          return;
        }
      std::lock_guard<std::mutex> lock(staging().mutex);
      Staging                    *s = staging_for_current_device();
      if (!s)
        {
          CELLWISE_CUDA_CHECK(cudaMemcpy(device, host, bytes, cudaMemcpyHostToDevice));
          return;
        }
      // fill buffer b while the other one is on its way
      for (std::size_t offset = 0, k = 0; offset < bytes; offset += chunk_bytes, ++k)
        {
          const unsigned int b      = k % 2;
          const std::size_t  length = std::min(chunk_bytes, bytes - offset);
          CELLWISE_CUDA_CHECK(cudaEventSynchronize(s->done[b]));
          parallel_memcpy(s->buffer[b], static_cast<const char *>(host) + offset, length);
          CELLWISE_CUDA_CHECK(cudaMemcpyAsync(static_cast<char *>(device) + offset, s->buffer[b], length,
                                              cudaMemcpyHostToDevice, s->stream));
          CELLWISE_CUDA_CHECK(cudaEventRecord(s->done[b], s->stream));
        }
      CELLWISE_CUDA_CHECK(cudaStreamSynchronize(s->stream));
    }

    void
    copy_device_to_host(void *host, const void *device, const std::size_t bytes)
    {
      if (bytes < direct_bytes)
        {
          if (bytes > 0)
            CELLWISE_CUDA_CHECK(cudaMemcpy(host, device, bytes, cudaMemcpyDeviceToHost));
          return;
        }
      std::lock_guard<std::mutex> lock(staging().mutex);
      Staging                    *s = staging_for_current_device();
      if (!s)
        {
          CELLWISE_CUDA_CHECK(cudaMemcpy(host, device, bytes, cudaMemcpyDeviceToHost));
          return;
        }
      const std::size_t n_chunks = (bytes + chunk_bytes - 1) / chunk_bytes;
      auto              fetch    = [&](const std::size_t k) {
        const std::size_t offset = k * chunk_bytes;
        CELLWISE_CUDA_CHECK(cudaMemcpyAsync(s->buffer[k % 2], static_cast<const char *>(device) + offset,
                                            std::min(chunk_bytes, bytes - offset), cudaMemcpyDeviceToHost, s->stream));
        CELLWISE_CUDA_CHECK(cudaEventRecord(s->done[k % 2], s->stream));
      };
      // chunk k + 1 on its way while chunk k is copied out
      fetch(0);
      for (std::size_t k = 0; k < n_chunks; ++k)
        {
          if (k + 1 < n_chunks)
            fetch(k + 1);
          CELLWISE_CUDA_CHECK(cudaEventSynchronize(s->done[k % 2]));
          const std::size_t offset = k * chunk_bytes;
          parallel_memcpy(static_cast<char *>(host) + offset, s->buffer[k % 2], std::min(chunk_bytes, bytes - offset));
        }
      CELLWISE_CUDA_CHECK(cudaStreamSynchronize(s->stream));
    }
  } // namespace cuda
} // namespace cellwise
