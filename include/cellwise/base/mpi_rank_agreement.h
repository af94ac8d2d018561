#pragma once
/**
 * @file
 * What the ranks of one job must agree on, compared collectively. Every
 * rank of a distributed set-up or solve passes its own copy of the
 * parameters, options and sizes; where one rank's differ (a script that
 * builds the command line per rank, a rank that read another input file),
 * the job used to hang (one rank throws, the others wait in a collective
 * call), end in MPI_ERR_TRUNCATE, or finish with an answer of no single
 * problem. RankAgreement lists the settings as (name, value) text, and
 * check() compares a 64-bit digest of each over the ranks (two
 * MPI_Allreduce of one word per setting): if any differs, every rank throws
 * cellwise::Error naming the settings and their values on rank 0 and on the
 * rank itself, before anything else collective happens.
 *
 *     RankAgreement("cellwise::DistributedMultigridSolver")
 *       .add("degree", degree).add("smoother", to_string(smoother)).check(comm);
 */

#include <mpi.h>

#include <cstdint>
#include <iomanip>
#include <limits>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace cellwise
{
  class RankAgreement
  {
  public:
    /// @p who: the class or program whose inputs these are (the error's
    /// first words).
    explicit RankAgreement(std::string who)
      : who_(std::move(who))
    {}

    /// A setting as text (compared exactly).
    RankAgreement &
    add(const std::string &name, const std::string &value)
    {
      settings_.emplace_back(name, value);
      return *this;
    }
    RankAgreement &
    add(const std::string &name, const char *value)
    {
      return add(name, std::string(value));
    }
    /// A number: integers as they are, floating point with every digit
    /// (two ranks agree only on the same double).
    template <typename T, typename = std::enable_if_t<std::is_arithmetic_v<T>>>
    RankAgreement &
    add(const std::string &name, const T value)
    {
      std::ostringstream text;
      if constexpr (std::is_floating_point_v<T>)
        text << std::setprecision(std::numeric_limits<T>::max_digits10) << value;
      else
        text << +value;
      return add(name, text.str());
    }
    /// A list of numbers (e.g. boundary ids), as one setting.
    template <typename T>
    RankAgreement &
    add(const std::string &name, const std::vector<T> &values)
    {
      std::ostringstream text;
      text << "{";
      for (std::size_t i = 0; i < values.size(); ++i)
        text << (i ? ", " : "") << +values[i];
      text << "}";
      return add(name, text.str());
    }

    /// Several settings (e.g. settings(MultigridParameters)).
    RankAgreement &
    add(const std::vector<std::pair<std::string, std::string>> &settings)
    {
      settings_.insert(settings_.end(), settings.begin(), settings.end());
      return *this;
    }

    /// Collective over @p comm: throws cellwise::Error on every rank if
    /// the ranks' settings differ (in number, names or values).
    void
    check(MPI_Comm comm) const;

    /// The settings as added.
    const std::vector<std::pair<std::string, std::string>> &
    settings() const
    {
      return settings_;
    }

  private:
    std::string                                      who_;
    std::vector<std::pair<std::string, std::string>> settings_;
  };

  /// FNV-1a 64 of @p text continuing from @p hash (the digest of a setting).
  std::uint64_t
  fnv1a_64(const std::string &text, std::uint64_t hash = 14695981039346656037ull);
} // namespace cellwise
