#include <cellwise/base/uninitialized_vector.h>

#include <cstdlib>
#include <new>

#ifdef __linux__
#  include <sys/mman.h>
#endif

namespace cellwise
{
  namespace internal
  {
    namespace
    {
      constexpr std::size_t huge_page = std::size_t(2) << 20;
    }

    void *
    allocate_large(const std::size_t bytes)
    {
      const std::size_t rounded = (bytes + huge_page - 1) / huge_page * huge_page;
      void             *pointer = nullptr;
      if (posix_memalign(&pointer, huge_page, rounded) != 0 || pointer == nullptr)
        throw std::bad_alloc();
#ifdef __linux__
      // only advice: where the system has no transparent huge pages (or they
      // are off) the block stays on normal pages
      madvise(pointer, rounded, MADV_HUGEPAGE);
#endif
      return pointer;
    }

    void
    deallocate_large(void *pointer) noexcept
    {
      std::free(pointer);
    }
  } // namespace internal
} // namespace cellwise
