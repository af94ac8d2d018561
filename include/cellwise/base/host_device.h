#pragma once
/**
 * @file
 * CELLWISE_HOST_DEVICE marks cell arithmetic that both backends share: it
 * compiles as __host__ __device__ under nvcc and as a plain function elsewhere.
 */
#if defined(__CUDACC__)
#  define CELLWISE_HOST_DEVICE __host__ __device__
#else
#  define CELLWISE_HOST_DEVICE
#endif
