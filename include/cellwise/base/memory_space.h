#pragma once
/**
 * @file
 * Tags for where a vector's values live.
 */

namespace cellwise
{
  namespace MemorySpace
  {
    /// Ordinary host memory.
    struct Host
    {};
    /// Device memory of the CUDA backend (plain cudaMalloc, no managed memory).
    struct CUDA
    {};
  } // namespace MemorySpace
} // namespace cellwise
