#pragma once
/**
 * @file
 * The lock of an object's work space: what makes a `const` member that
 * writes mutable work vectors (a solve, a V-cycle, a smoother, a coarse
 * solver) safe to call from several threads at once.
 *
 * In C++ a const member is expected to be safe to call concurrently; the
 * solvers keep work vectors between calls (an allocation and a zero fill of
 * a large vector per call would cost more than the call on the device), so
 * they are not, without this lock. Each such class holds one WorkSpaceLock
 * and opens it at the start of every const member that writes its work
 * space:
 *
 *     const auto lock = work_space_lock_.lock("cellwise::VCycle::vmult");
 *
 * A call from a second thread waits until the first one is done: both get
 * the answer each would get alone (the calls are serialized, not run side by
 * side; two objects run side by side). A call from the thread that holds the
 * lock — the object re-entered from inside its own call, through a callback
 * or a component that calls back — would overwrite the work space it is
 * using: it throws cellwise::Error naming the member, instead of a wrong
 * answer or a deadlock.
 *
 * An uncontended lock costs tens of nanoseconds, against microseconds of the
 * cheapest level operation. A copy of an object gets a lock of its own.
 *
 * On MPI ranks the calls of one solver are collective: serializing them on
 * each rank keeps each solve whole, and, as for every collective operation,
 * the program issues them in the same order on every rank.
 */

#include <cellwise/base/exceptions.h>

#include <atomic>
#include <mutex>
#include <thread>

namespace cellwise
{
  class WorkSpaceLock
  {
  public:
    WorkSpaceLock() = default;
    /// A copy is a new object with work space of its own: a fresh lock.
    WorkSpaceLock(const WorkSpaceLock &) {}
    WorkSpaceLock &
    operator=(const WorkSpaceLock &)
    {
      return *this;
    }

    /// Held while it lives; released by its destructor.
    class Holder
    {
    public:
      explicit Holder(const WorkSpaceLock &owner)
        : owner_(&owner)
      {}
      Holder(Holder &&other) noexcept
        : owner_(other.owner_)
      {
        other.owner_ = nullptr;
      }
      Holder(const Holder &) = delete;
      Holder &
      operator=(const Holder &) = delete;
      Holder &
      operator=(Holder &&) = delete;
      ~Holder()
      {
        if (owner_ != nullptr)
          owner_->release();
      }

    private:
      const WorkSpaceLock *owner_;
    };

    /// Takes the lock for the call of @p member (its qualified name, for the
    /// error on re-entry); waits while another thread holds it.
    [[nodiscard]] Holder
    lock(const char *member) const
    {
      const std::thread::id self = std::this_thread::get_id();
      CELLWISE_CHECK(owner_.load(std::memory_order_acquire) != self,
                     member << " was called again from inside its own call on the same thread (from a callback or a "
                               "component that calls back into it); its work space is in use: give the inner call an "
                               "object of its own");
      mutex_.lock();
      owner_.store(self, std::memory_order_release);
      return Holder(*this);
    }

  private:
    void
    release() const
    {
      owner_.store(std::thread::id(), std::memory_order_release);
      mutex_.unlock();
    }

    mutable std::mutex                   mutex_;
    mutable std::atomic<std::thread::id> owner_{};
  };
} // namespace cellwise
