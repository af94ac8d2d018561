#include <cellwise/base/mpi_check.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstring>

// Open MPI declares its CUDA query here (MPIX_CUDA_AWARE_SUPPORT)
#if __has_include(<mpi-ext.h>)
#  include <mpi-ext.h>
#endif

namespace cellwise
{
  namespace
  {
    double exchange_seconds_total = 0; // the MPI parts run on one thread
  }

  double
  exchange_seconds()
  {
    return exchange_seconds_total;
  }

  ExchangeTimer::ExchangeTimer()
    : start_(MPI_Wtime())
  {}

  ExchangeTimer::~ExchangeTimer()
  {
    exchange_seconds_total += MPI_Wtime() - start_;
  }

  bool
  mpi_cuda_aware()
  {
    const char *staging = std::getenv("CELLWISE_MPI_STAGING");
    CELLWISE_CHECK(staging == nullptr || std::strcmp(staging, "0") == 0 || std::strcmp(staging, "1") == 0,
                   "CELLWISE_MPI_STAGING is '" << staging << "': 1 stages device exchanges through pinned host buffers, "
                                               << "0 (or unset) lets MPI's reported CUDA support decide");
    if (staging != nullptr && std::strcmp(staging, "1") == 0)
      return false;
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
    return MPIX_Query_cuda_support() == 1;
#else
    return false;
#endif
  }

  void
  check_collectively(const MPI_Comm comm, const bool condition, const std::string &message)
  {
    // the lowest failing rank, or size if none fails
    const int rank = mpi_rank(comm), size = mpi_size(comm);
    int       mine = condition ? size : rank, lowest = size;
    CELLWISE_MPI_CHECK(MPI_Allreduce(&mine, &lowest, 1, MPI_INT, MPI_MIN, comm));
    if (lowest == size)
      return;
    CELLWISE_CHECK(condition, message);
    CELLWISE_CHECK(false, "rank " << lowest << " of " << size << " failed a collective check (its message is on that rank)");
  }

  void
  run_collectively(const MPI_Comm comm, const std::function<void()> &what)
  {
    std::string message;
    try
      {
        what();
      }
    catch (const Error &e)
      {
        message = e.what();
        if (message.empty())
          message = "a rank-local step failed";
      }
    check_collectively(comm, message.empty(), message);
  }

  std::vector<std::vector<unsigned int>>
  exchange_lists(const MPI_Comm comm, const std::vector<std::vector<unsigned int>> &outgoing, const std::string &what)
  {
    const int size = mpi_size(comm);
    check_collectively(comm, outgoing.size() == std::size_t(size), what + ": exchange_lists needs one list per rank");
    std::vector<int> outgoing_count(size), incoming_count(size);
    bool             fits = true;
    for (int r = 0; r < size; ++r)
      {
        fits &= outgoing[r].size() <= std::size_t(INT_MAX);
        outgoing_count[r] = static_cast<int>(std::min<std::size_t>(outgoing[r].size(), INT_MAX));
      }
    check_collectively(comm, fits, what + ": a list of identities exceeds MPI's int count");
    CELLWISE_MPI_CHECK(MPI_Alltoall(outgoing_count.data(), 1, MPI_INT, incoming_count.data(), 1, MPI_INT, comm));

    std::vector<std::vector<unsigned int>> incoming(size);
    std::vector<MPI_Request>               requests;
    requests.reserve(2 * size);
    constexpr int tag = 1017;
    for (int r = 0; r < size; ++r)
      if (incoming_count[r] > 0)
        {
          incoming[r].resize(incoming_count[r]);
          requests.emplace_back();
          CELLWISE_MPI_CHECK(MPI_Irecv(incoming[r].data(), incoming_count[r], MPI_UNSIGNED, r, tag, comm, &requests.back()));
        }
    for (int r = 0; r < size; ++r)
      if (outgoing_count[r] > 0)
        {
          requests.emplace_back();
          CELLWISE_MPI_CHECK(MPI_Isend(outgoing[r].data(), outgoing_count[r], MPI_UNSIGNED, r, tag, comm, &requests.back()));
        }
    CELLWISE_MPI_CHECK(MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE));
    return incoming;
  }

  void
  check_matching_exchange(const MPI_Comm                                comm,
                          const std::vector<std::vector<unsigned int>> &outgoing,
                          const std::vector<std::vector<unsigned int>> &expected,
                          const std::string                            &what)
  {
    const int size = mpi_size(comm), rank = mpi_rank(comm);
    check_collectively(comm, expected.size() == std::size_t(size), what + ": check_matching_exchange needs one list per rank");
    const std::vector<std::vector<unsigned int>> incoming = exchange_lists(comm, outgoing, what);

    std::ostringstream problem;
    bool               match = true;
    for (int r = 0; r < size && match; ++r)
      if (incoming[r] != expected[r])
        {
          match = false;
          problem << what << ": the ranks disagree: rank " << rank << " expects " << expected[r].size()
                  << " identities from rank " << r << " and receives " << incoming[r].size()
                  << (incoming[r].size() == expected[r].size() ? ", not the same ones" : "")
                  << " (every rank must build its part from the same partition)";
        }
    check_collectively(comm, match, problem.str());
  }
} // namespace cellwise
