#pragma once
// The deal.II tests' check that a refusal is collective: every rank throws
// cellwise::Error (none is left waiting in a collective call the others
// skipped).

#include <cellwise/base/exceptions.h>

#include <deal.II/base/mpi.h>

#include <string>

/// What @p what did on the ranks of MPI_COMM_WORLD.
struct CollectiveRefusal
{
  /// Ranks that threw cellwise::Error, and all ranks.
  unsigned int n_refused = 0, n_ranks = 1;
  /// This rank's message, without the source location " [file:line]".
  std::string message;

  bool
  on_every_rank() const
  {
    return n_refused == n_ranks;
  }
  /// "every rank" or "some ranks only".
  const char *
  where() const
  {
    return on_every_rank() ? "every rank" : "some ranks only";
  }
};

/// Runs @p what on this rank (collective: every rank calls it).
template <typename What>
CollectiveRefusal
collective_refusal(const What &what)
{
  CollectiveRefusal result;
  unsigned int      refused = 0;
  try
    {
      what();
    }
  catch (const cellwise::Error &e)
    {
      refused        = 1;
      result.message = e.what();
      result.message = result.message.substr(0, result.message.rfind(" ["));
    }
  result.n_refused = ::dealii::Utilities::MPI::sum(refused, MPI_COMM_WORLD);
  result.n_ranks   = ::dealii::Utilities::MPI::n_mpi_processes(MPI_COMM_WORLD);
  return result;
}
