#pragma once
/**
 * @file
 * Pointers to deal.II objects that a cell-wise solver keeps after its set-up
 * (the DoFHandler, and through it the Triangulation) and that know whether
 * the object still lives.
 *
 * deal.II's SmartPointer subscribes to the object (a Subscriptor), whose
 * destructor then clears the pointer's validity flag; but in deal.II 9.4 the
 * flag is private and only asserted in debug builds: in a release build
 * (what cellwise links) operator* and operator-> return the freed object and
 * operator T*() its old address, so a solve after the DoFHandler was destroyed
 * read freed memory (numbering_fingerprint). LivePointer subscribes the same
 * way, with a flag of its own, and throws cellwise::Error on a use after the
 * destruction, in every build. (In a debug build of deal.II, destroying a
 * subscribed object also raises deal.II's ExcInUse, as for SmartPointer.)
 */

#include <cellwise/base/exceptions.h>

#include <deal.II/base/subscriptor.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/grid/tria.h>

#include <atomic>
#include <string>
#include <utility>

namespace cellwise::dealii
{
  /// A pointer to a deal.II Subscriptor @p T that throws cellwise::Error with
  /// a given message on a use after the object was destroyed. Not copyable
  /// (each pointer is one subscription).
  template <typename T>
  class LivePointer
  {
  public:
    /// Subscribes to @p object as @p owner (the name deal.II lists in
    /// ExcInUse); @p destroyed_message is the error of a use after the
    /// object's destruction.
    LivePointer(T &object, std::string owner, std::string destroyed_message)
      : object_(&object)
      , owner_(std::move(owner))
      , destroyed_message_(std::move(destroyed_message))
    {
      object_->subscribe(&alive_, owner_);
    }
    /// A temporary would be destroyed at once.
    LivePointer(T &&object, std::string owner, std::string destroyed_message) = delete;

    LivePointer(const LivePointer &) = delete;
    LivePointer &
    operator=(const LivePointer &) = delete;

    ~LivePointer()
    {
      if (alive_)
        object_->unsubscribe(&alive_, owner_);
    }

    /// Whether the object still lives.
    bool
    alive() const
    {
      return alive_;
    }
    /// The error of a use after the destruction.
    const std::string &
    destroyed_message() const
    {
      return destroyed_message_;
    }
    /// Throws cellwise::Error if the object was destroyed.
    void
    check() const
    {
      CELLWISE_CHECK(alive_, destroyed_message_);
    }

    /// The object; throws cellwise::Error if it was destroyed.
    T &
    operator*() const
    {
      check();
      return *object_;
    }
    T *
    operator->() const
    {
      check();
      return object_;
    }

  private:
    T                *object_;
    std::string       owner_;
    std::string       destroyed_message_;
    std::atomic<bool> alive_{false};
  };

  /**
   * The DoFHandler a solver was built for, and its Triangulation: a use
   * after either was destroyed throws cellwise::Error "<owner>: the
   * DoFHandler it was built for has been destroyed; build the <what> again"
   * (or "the Triangulation of the DoFHandler ...") instead of reading freed
   * memory.
   */
  class LiveDoFHandler
  {
  public:
    /// @p owner: the class that keeps it (cellwise::dealii::...); @p what:
    /// what the user builds again ("preconditioner", "solver").
    LiveDoFHandler(const ::dealii::DoFHandler<3, 3> &dof_handler, const std::string &owner, const std::string &what)
      : dof_handler_(dof_handler, owner,
                     owner + ": the DoFHandler it was built for has been destroyed; build the " + what + " again")
      , triangulation_(dof_handler.get_triangulation(), owner,
                       owner + ": the Triangulation of the DoFHandler it was built for has been destroyed; build the " +
                         what + " again")
    {}
    LiveDoFHandler(const ::dealii::DoFHandler<3, 3> &&, const std::string &, const std::string &) = delete;

    /// Whether the DoFHandler and its Triangulation still live.
    bool
    alive() const
    {
      return dof_handler_.alive() && triangulation_.alive();
    }
    /// The error of a use after a destruction ("" while both live).
    std::string
    destroyed_message() const
    {
      return !dof_handler_.alive() ? dof_handler_.destroyed_message() :
             !triangulation_.alive() ? triangulation_.destroyed_message() :
                                        std::string();
    }
    /// Throws cellwise::Error if the DoFHandler or its Triangulation was
    /// destroyed.
    void
    check() const
    {
      dof_handler_.check();
      triangulation_.check();
    }

    /// The DoFHandler; throws cellwise::Error if it or its Triangulation was
    /// destroyed.
    const ::dealii::DoFHandler<3, 3> &
    operator*() const
    {
      check();
      return *dof_handler_;
    }
    const ::dealii::DoFHandler<3, 3> *
    operator->() const
    {
      check();
      return dof_handler_.operator->();
    }

  private:
    LivePointer<const ::dealii::DoFHandler<3, 3>>    dof_handler_;
    LivePointer<const ::dealii::Triangulation<3, 3>> triangulation_;
  };
} // namespace cellwise::dealii
