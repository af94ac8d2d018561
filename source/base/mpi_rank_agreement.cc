#include <cellwise/base/exceptions.h>
#include <cellwise/base/mpi_check.h>
#include <cellwise/base/mpi_rank_agreement.h>

#include <sstream>

namespace cellwise
{
  std::uint64_t
  fnv1a_64(const std::string &text, std::uint64_t hash)
  {
    for (const unsigned char c : text)
      hash = (hash ^ c) * 1099511628211ull;
    return hash;
  }

  namespace
  {
    /// @p text of rank @p root on every rank (collective).
    std::string
    text_of_rank(const std::string &text, const int root, const MPI_Comm comm)
    {
      unsigned long long length = text.size();
      CELLWISE_MPI_CHECK(MPI_Bcast(&length, 1, MPI_UNSIGNED_LONG_LONG, root, comm));
      std::string result = mpi_rank(comm) == root ? text : std::string(length, '\0');
      if (length > 0)
        CELLWISE_MPI_CHECK(MPI_Bcast(result.data(), static_cast<int>(length), MPI_CHAR, root, comm));
      return result;
    }
  } // namespace

  void
  RankAgreement::check(const MPI_Comm comm) const
  {
    if (mpi_size(comm) == 1)
      return;
    // the number of settings first (the largest and the smallest): the
    // digests' reduction runs over the settings every rank has
    unsigned long long count[2] = {settings_.size(), ~static_cast<unsigned long long>(settings_.size())};
    CELLWISE_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, count, 2, MPI_UNSIGNED_LONG_LONG, MPI_MAX, comm));
    const std::size_t n_common = ~count[1];

    // per setting: the largest digest and the largest complement (the
    // smallest digest): equal on every rank exactly where all agree
    std::vector<unsigned long long> digests(2 * n_common);
    for (std::size_t i = 0; i < n_common; ++i)
      {
        const unsigned long long h = fnv1a_64(settings_[i].second, fnv1a_64(settings_[i].first + "="));
        digests[2 * i]             = h;
        digests[2 * i + 1]         = ~h;
      }
    if (n_common > 0)
      CELLWISE_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, digests.data(), static_cast<int>(digests.size()), MPI_UNSIGNED_LONG_LONG,
                                       MPI_MAX, comm));
    std::ostringstream differences;
    unsigned int       n_different = 0;
    const int          rank = mpi_rank(comm), size = mpi_size(comm);
    for (std::size_t i = 0; i < n_common; ++i)
      if (digests[2 * i] != ~digests[2 * i + 1])
        {
          // every rank knows the same differing settings, so the calls
          // below match: rank 0's digest, the first rank that differs from
          // it, and the values of both
          const unsigned long long mine = fnv1a_64(settings_[i].second, fnv1a_64(settings_[i].first + "="));
          unsigned long long       zero = mine;
          CELLWISE_MPI_CHECK(MPI_Bcast(&zero, 1, MPI_UNSIGNED_LONG_LONG, 0, comm));
          int first = mine != zero ? rank : size;
          CELLWISE_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, comm));
          const std::string on_zero  = text_of_rank(settings_[i].second, 0, comm);
          const std::string on_first = text_of_rank(settings_[i].second, first, comm);
          differences << (n_different++ ? "; " : "") << settings_[i].first << ": rank 0 has " << on_zero << ", rank " << first
                      << " has " << on_first;
          if (rank != 0 && rank != first && mine != zero)
            differences << " (this rank, " << rank << ": " << settings_[i].second << ")";
        }
    if (count[0] != n_common)
      differences << (n_different++ ? "; " : "") << "and the ranks passed different numbers of settings (" << settings_.size()
                  << " on this rank, " << n_common << " to " << count[0] << " over the ranks)";
    if (n_different > 0)
      {
        std::ostringstream message;
        message << who_ << ": the ranks of this job disagree on what every rank must pass alike: " << differences.str();
        internal::throw_error(__FILE__, __LINE__, message.str());
      }
  }
} // namespace cellwise
