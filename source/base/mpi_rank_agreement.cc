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
    /// @p text of rank 0 on every rank (collective).
    std::string
    rank_zero_text(const std::string &text, const MPI_Comm comm)
    {
      unsigned long long length = text.size();
      CELLWISE_MPI_CHECK(MPI_Bcast(&length, 1, MPI_UNSIGNED_LONG_LONG, 0, comm));
      std::string result = mpi_rank(comm) == 0 ? text : std::string(length, '\0');
      if (length > 0)
        CELLWISE_MPI_CHECK(MPI_Bcast(result.data(), static_cast<int>(length), MPI_CHAR, 0, comm));
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
    for (std::size_t i = 0; i < n_common; ++i)
      if (digests[2 * i] != ~digests[2 * i + 1])
        {
          // every rank knows the same differing settings: the broadcasts match
          const std::string on_zero = rank_zero_text(settings_[i].first + " = " + settings_[i].second, comm);
          differences << (n_different++ ? "; " : "") << "rank 0 has " << on_zero << ", this rank (" << mpi_rank(comm)
                      << ") " << settings_[i].first << " = " << settings_[i].second;
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
