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

/// Before a loop of compile-time trip count in shared cell arithmetic: fully
/// unrolled under nvcc (its indices then select registers and constant-bank
/// table entries), left to the optimizer elsewhere; _NONE: kept a loop under
/// nvcc (where unrolling would cost more registers than it saves).
#if defined(__CUDACC__)
#  define CELLWISE_UNROLL _Pragma("unroll")
#  define CELLWISE_UNROLL_NONE _Pragma("unroll 1")
#else
#  define CELLWISE_UNROLL
#  define CELLWISE_UNROLL_NONE
#endif
