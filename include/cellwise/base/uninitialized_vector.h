#pragma once
/**
 * @file
 * UninitializedVector<T>: a std::vector whose growth (resize, the size
 * constructor) default-initializes its elements instead of value-initializing
 * them, i.e. leaves numbers and plain structs of numbers uninitialized.
 *
 * Why: the large per-cell arrays (a level of 10^7 cells, vectors of 10^9
 * values) are written by parallel loops right after they are sized. With a
 * plain std::vector one thread zeroes them first, which at that size costs
 * more than the parallel loop that fills them, and touches every page from
 * one core. Whoever sizes such a vector writes every element.
 *
 * Arrays of at least large_allocation_bytes are also placed on transparent
 * huge pages where the system offers them (Linux, madvise mode, the default
 * of Debian and Ubuntu): their first touch, a page fault per 4 KiB otherwise,
 * ran at 12 GB/s with 4 KiB pages and 34 GB/s with 2 MiB pages on the H200
 * machine's 16 host cores (2026-12-01), and a 455 M DoF problem touches tens
 * of GB in its set-up.
 */

#include <cstddef>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace cellwise
{
  namespace internal
  {
    /// From this size on, an UninitializedVector's storage is aligned to
    /// 2 MiB and advised to use huge pages.
    constexpr std::size_t large_allocation_bytes = std::size_t(64) << 20;

    /// @p bytes (>= large_allocation_bytes) aligned to 2 MiB, advised to use
    /// transparent huge pages; std::bad_alloc if none is left.
    void *
    allocate_large(std::size_t bytes);
    /// Frees what allocate_large returned.
    void
    deallocate_large(void *pointer) noexcept;

    /// std::allocator whose construct() without arguments default-initializes,
    /// and whose large blocks lie on huge pages.
    template <typename T>
    struct DefaultInitAllocator : std::allocator<T>
    {
      using value_type = T;
      template <typename U>
      struct rebind
      {
        using other = DefaultInitAllocator<U>;
      };
      DefaultInitAllocator() = default;
      template <typename U>
      DefaultInitAllocator(const DefaultInitAllocator<U> &) noexcept
      {}
      T *
      allocate(const std::size_t n)
      {
        if (n >= large_allocation_bytes / sizeof(T))
          return static_cast<T *>(allocate_large(n * sizeof(T)));
        return std::allocator<T>::allocate(n);
      }
      void
      deallocate(T *pointer, const std::size_t n) noexcept
      {
        if (n >= large_allocation_bytes / sizeof(T))
          deallocate_large(pointer);
        else
          std::allocator<T>::deallocate(pointer, n);
      }
      template <typename U>
      void
      construct(U *p) noexcept(std::is_nothrow_default_constructible_v<U>)
      {
        ::new (static_cast<void *>(p)) U;
      }
      template <typename U, typename... Args>
      void
      construct(U *p, Args &&...args)
      {
        ::new (static_cast<void *>(p)) U(std::forward<Args>(args)...);
      }
    };

    template <typename T, typename U>
    bool
    operator==(const DefaultInitAllocator<T> &, const DefaultInitAllocator<U> &) noexcept
    {
      return true;
    }
    template <typename T, typename U>
    bool
    operator!=(const DefaultInitAllocator<T> &, const DefaultInitAllocator<U> &) noexcept
    {
      return false;
    }
  } // namespace internal

  template <typename T>
  using UninitializedVector = std::vector<T, internal::DefaultInitAllocator<T>>;
} // namespace cellwise
