#pragma once
// Checked parsing of command-line option values, shared by the example
// programs: every malformed or out-of-range value raises UsageError with one
// line naming the option, the value and what is allowed (the programs print
// it and exit with status 2).

#include <stdexcept>
#include <string>
#include <vector>

struct UsageError : std::runtime_error
{
  using std::runtime_error::runtime_error;
};

/// Throws UsageError("invalid value 'value' for option: allowed").
[[noreturn]] void
fail_option(const std::string &option, const std::string &value, const std::string &allowed);

/// A finite number, the whole of @p value.
double
parse_double(const std::string &option, const std::string &value);

/// An integer in [min, max], the whole of @p value (no sign wrap: "-1" for
/// an unsigned count is out of range, not 4294967295).
long
parse_integer(const std::string &option, const std::string &value, long min, long max);

/// @p value cut at every @p separator (an empty last part is kept).
std::vector<std::string>
split(const std::string &value, char separator);
