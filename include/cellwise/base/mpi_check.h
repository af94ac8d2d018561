#pragma once
/**
 * @file
 * Error checking of MPI calls and the collective checks of distributed
 * set-ups. Every MPI call goes through CELLWISE_MPI_CHECK, which turns an
 * error code into a cellwise::Error naming the call. A condition that one
 * rank may find and the others not (a rank with bad data) goes through
 * check_collectively: every rank learns that some rank failed, and every rank
 * throws, with the failing ranks' own messages on them, so that no rank waits
 * in a later collective call for one that has left (no hang).
 */

#include <cellwise/base/exceptions.h>

#include <mpi.h>

#include <functional>
#include <sstream>
#include <string>
#include <vector>

namespace cellwise
{
  namespace internal
  {
    [[noreturn]] inline void
    throw_mpi_error(const int code, const char *call, const char *file, const int line)
    {
      char text[MPI_MAX_ERROR_STRING];
      int  length = 0;
      if (MPI_Error_string(code, text, &length) != MPI_SUCCESS)
        length = 0;
      std::ostringstream out;
      out << "MPI call '" << call << "' failed with error " << code << ": " << std::string(text, length);
      throw_error(file, line, out.str());
    }
  } // namespace internal

#define CELLWISE_MPI_CHECK(call)                                                  \
  do                                                                              \
    {                                                                             \
      const int cellwise_mpi_code_ = (call);                                      \
      if (cellwise_mpi_code_ != MPI_SUCCESS)                                      \
        ::cellwise::internal::throw_mpi_error(cellwise_mpi_code_, #call, __FILE__, __LINE__); \
    }                                                                             \
  while (false)

  /**
   * The exchange time alone: seconds this process has spent in the
   * exchanges of the distributed components (DSS face layers, patch halos,
   * transfer families, the coarse gather: packing, messages, waiting and
   * unpacking) since it started. An ExchangeTimer adds the seconds of its
   * scope. Waiting includes waiting for a slower neighbour.
   */
  double
  exchange_seconds();

  class ExchangeTimer
  {
  public:
    ExchangeTimer();
    ~ExchangeTimer();
    ExchangeTimer(const ExchangeTimer &) = delete;
    ExchangeTimer &
    operator=(const ExchangeTimer &) = delete;

  private:
    double start_;
  };

  /**
   * Whether device buffers may be handed to MPI: the MPI library reports
   * CUDA support at run time (Open MPI's MPIX_Query_cuda_support; false
   * where the library cannot say), unless the environment variable
   * CELLWISE_MPI_STAGING=1 asks for staging through pinned host buffers
   * (0 or unset: the library decides; any other value throws
   * cellwise::Error naming it).
   * The device exchanges stage through host buffers where it is false.
   */
  bool
  mpi_cuda_aware();

  /// Rank and size of @p comm.
  inline int
  mpi_rank(const MPI_Comm comm)
  {
    int rank = 0;
    CELLWISE_MPI_CHECK(MPI_Comm_rank(comm, &rank));
    return rank;
  }
  inline int
  mpi_size(const MPI_Comm comm)
  {
    int size = 0;
    CELLWISE_MPI_CHECK(MPI_Comm_size(comm, &size));
    return size;
  }

  /**
   * Collective: throws cellwise::Error on every rank of @p comm if
   * @p condition is false on any rank. A failing rank's error carries
   * @p message; the others name the lowest failing rank.
   */
  void
  check_collectively(MPI_Comm comm, bool condition, const std::string &message);

  /**
   * Collective: runs @p what (which must not itself communicate) and throws
   * on every rank of @p comm if it threw cellwise::Error on any, as
   * check_collectively with the failing rank's message. For the rank-local
   * steps of a set-up that can fail on some ranks only, e.g. a coefficient
   * that is not positive on one rank's cells.
   */
  void
  run_collectively(MPI_Comm comm, const std::function<void()> &what);

  /**
   * Collective: sends @p outgoing[q] (identities, e.g. serial cell indices)
   * to rank q and returns what each rank sent to this one (entry q from
   * rank q). One entry per rank; empty lists travel as no message. A set-up
   * step (an MPI_Alltoall of the counts, then the lists point to point).
   */
  std::vector<std::vector<unsigned int>>
  exchange_lists(MPI_Comm comm, const std::vector<std::vector<unsigned int>> &outgoing, const std::string &what);

  /**
   * Collective set-up check of a point-to-point exchange: @p outgoing[q]
   * lists the identities (e.g. serial cell indices) of what this rank will
   * send to rank q, @p expected[q] what it expects to receive from q, both
   * in the order of the messages. Each rank receives what the others
   * actually send (so a mismatch is reported, not waited for) and compares;
   * throws cellwise::Error on every rank if any rank's lists differ, naming
   * @p what. Both vectors have one entry per rank.
   */
  void
  check_matching_exchange(MPI_Comm                                      comm,
                          const std::vector<std::vector<unsigned int>> &outgoing,
                          const std::vector<std::vector<unsigned int>> &expected,
                          const std::string                            &what);
} // namespace cellwise
