#include "option_values.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>

void
fail_option(const std::string &option, const std::string &value, const std::string &allowed)
{
  throw UsageError("invalid value '" + value + "' for " + option + ": " + allowed);
}

double
parse_double(const std::string &option, const std::string &value)
{
  char *end = nullptr;
  errno     = 0;
  const double x = std::strtod(value.c_str(), &end);
  if (value.empty() || *end != '\0' || errno != 0 || !std::isfinite(x))
    fail_option(option, value, "expected a finite number");
  return x;
}

long
parse_integer(const std::string &option, const std::string &value, const long min, const long max)
{
  char *end = nullptr;
  errno     = 0;
  const long x = std::strtol(value.c_str(), &end, 10);
  if (value.empty() || *end != '\0' || errno != 0)
    fail_option(option, value, "expected an integer");
  if (x < min || x > max)
    fail_option(option, value, "allowed are " + std::to_string(min) + ".." + std::to_string(max));
  return x;
}

std::vector<std::string>
split(const std::string &value, const char separator)
{
  std::vector<std::string> parts;
  std::stringstream        stream(value);
  std::string              part;
  while (std::getline(stream, part, separator))
    parts.push_back(part);
  if (!value.empty() && value.back() == separator)
    parts.emplace_back();
  return parts;
}
