#pragma once
/**
 * @file
 * Error handling: every check that guards user input or a library call stays
 * active in Release builds and throws a cellwise::Error whose message names
 * the offending value and what is allowed.
 */

#include <cstring>
#include <sstream>
#include <stdexcept>
#include <string>

namespace cellwise
{
  /// The one exception type of the library; what() is a complete sentence.
  class Error : public std::runtime_error
  {
  public:
    using std::runtime_error::runtime_error;
  };

  /// A solver stopped without reaching its tolerance (iteration limit,
  /// divergence, or a NaN in the monitored value).
  class NoConvergence : public Error
  {
  public:
    NoConvergence(const std::string &what, unsigned int last_step, double last_value)
      : Error(what)
      , last_step(last_step)
      , last_value(last_value)
    {}
    unsigned int last_step;
    double       last_value;
  };

  namespace internal
  {
    /// Throws Error(message [file:line]) with the file's name only: the
    /// path of the machine that built the library means nothing to a user
    /// of the installed one.
    [[noreturn]] inline void
    throw_error(const char *file, int line, const std::string &message)
    {
      const char *name = std::strrchr(file, '/');
      std::ostringstream out;
      out << message << " [" << (name != nullptr ? name + 1 : file) << ":" << line << "]";
      throw Error(out.str());
    }
  } // namespace internal
} // namespace cellwise

/**
 * Throw cellwise::Error with a streamed message unless @p condition holds.
 * Example: CELLWISE_CHECK(degree <= 8, "degree " << degree << " is not in 1..8");
 */
#define CELLWISE_CHECK(condition, message)                                    \
  do                                                                           \
    {                                                                          \
      if (!(condition))                                                        \
        {                                                                      \
          std::ostringstream cellwise_check_stream_;                           \
          cellwise_check_stream_ << message;                                   \
          ::cellwise::internal::throw_error(__FILE__,                          \
                                            __LINE__,                          \
                                            cellwise_check_stream_.str());     \
        }                                                                      \
    }                                                                          \
  while (false)
