// The staged host-device copies (base/cuda_host_transfer.h) against plain
// cudaMemcpy: every size class (none, below the direct limit, one chunk, many
// chunks with a ragged end), unaligned offsets, the round trip, ordering with
// a kernel-free default-stream memset before and after, and two threads
// copying at once.

#include <cellwise/base/cuda_check.h>
#include <cellwise/base/cuda_host_transfer.h>

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "cuda/cuda_test_utilities.h"

using namespace cellwise;

namespace
{
  std::vector<std::uint8_t>
  random_bytes(const std::size_t n, const unsigned int seed)
  {
    std::mt19937                       generator(seed);
    std::uniform_int_distribution<int> byte(0, 255);
    std::vector<std::uint8_t>          v(n);
    for (auto &b : v)
      b = static_cast<std::uint8_t>(byte(generator));
    return v;
  }

  /// Up through copy_host_to_device, down through plain cudaMemcpy, and the
  /// other way round; both must give the bytes back.
  void
  check_round_trip(const std::size_t bytes, const std::size_t offset, const unsigned int seed)
  {
    SCOPED_TRACE(::testing::Message() << bytes << " bytes at offset " << offset);
    const std::vector<std::uint8_t> data = random_bytes(bytes + offset, seed);
    std::uint8_t *device = static_cast<std::uint8_t *>(cuda::allocate_bytes(bytes + offset + 1, "test"));
    // a default-stream memset first: the staged copy must come after it
    CELLWISE_CUDA_CHECK(cudaMemset(device, 0xab, bytes + offset + 1));
    cuda::copy_host_to_device(device + offset, data.data() + offset, bytes);
    std::vector<std::uint8_t> back(bytes + offset + 1, 0);
    CELLWISE_CUDA_CHECK(cudaMemcpy(back.data(), device, bytes + offset + 1, cudaMemcpyDeviceToHost));
    for (std::size_t i = 0; i < offset; ++i)
      ASSERT_EQ(back[i], 0xab) << "byte " << i << " before the range was written";
    for (std::size_t i = offset; i < offset + bytes; ++i)
      ASSERT_EQ(back[i], data[i]) << "byte " << i;
    ASSERT_EQ(back[bytes + offset], 0xab) << "the byte after the range was written";

    // down through the staged copy, after a default-stream memset of the
    // upper half that it must see
    const std::size_t half = bytes / 2;
    CELLWISE_CUDA_CHECK(cudaMemset(device + offset + half, 0x5c, bytes - half));
    std::vector<std::uint8_t> down(bytes, 0);
    cuda::copy_device_to_host(down.data(), device + offset, bytes);
    for (std::size_t i = 0; i < bytes; ++i)
      ASSERT_EQ(down[i], i < half ? data[offset + i] : 0x5c) << "byte " << i;
    cuda::free_bytes(device);
  }
} // namespace

TEST(CudaHostTransfer, CopiesOfEverySizeMatchCudaMemcpy)
{
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  const std::size_t MiB = std::size_t(1) << 20;
  unsigned int      seed = 1;
  for (const std::size_t bytes : {std::size_t(0), std::size_t(1), std::size_t(4097), 8 * MiB - 1, 8 * MiB, 32 * MiB,
                                  32 * MiB + 1, 3 * 32 * MiB + 12345, 200 * MiB + 7})
    for (const std::size_t offset : {std::size_t(0), std::size_t(3)})
      check_round_trip(bytes, offset, seed++);
}

TEST(CudaHostTransfer, TwoThreadsCopyingAtOnceGetTheirOwnBytes)
{
  CELLWISE_SKIP_WITHOUT_CUDA_DEVICE();
  const std::size_t bytes = (std::size_t(100) << 20) + 11;
  std::vector<std::vector<std::uint8_t>> data = {random_bytes(bytes, 7), random_bytes(bytes, 8)};
  std::vector<std::vector<std::uint8_t>> back(2, std::vector<std::uint8_t>(bytes, 0));
  std::vector<void *>                    device = {cuda::allocate_bytes(bytes, "test"), cuda::allocate_bytes(bytes, "test")};
  std::vector<std::string>               errors(2);
  std::vector<std::thread>               threads;
  for (unsigned int t = 0; t < 2; ++t)
    threads.emplace_back([&, t] {
      try
        {
          for (int repeat = 0; repeat < 3; ++repeat)
            {
              cuda::copy_host_to_device(device[t], data[t].data(), bytes);
              cuda::copy_device_to_host(back[t].data(), device[t], bytes);
            }
        }
      catch (const std::exception &e)
        {
          errors[t] = e.what();
        }
    });
  for (auto &thread : threads)
    thread.join();
  for (unsigned int t = 0; t < 2; ++t)
    {
      EXPECT_EQ(errors[t], "") << "thread " << t;
      EXPECT_TRUE(back[t] == data[t]) << "thread " << t;
      cuda::free_bytes(device[t]);
    }
}
