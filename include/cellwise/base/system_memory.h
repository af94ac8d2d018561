#pragma once
/**
 * @file
 * What the operating system says about host memory, for the checks that
 * refuse a problem before allocating what does not fit, and for reporting
 * what a run used.
 */

#include <cstddef>
#include <string>

namespace cellwise
{
  /// Bytes of host memory available to a new allocation without swapping
  /// (MemAvailable of /proc/meminfo); 0 where the system does not say.
  std::size_t
  available_host_memory();

  /// The largest resident set of this process so far (getrusage's
  /// ru_maxrss), in bytes; 0 where the system does not say.
  std::size_t
  peak_resident_memory();

  /// @p bytes in readable units ("17.4 GB", "512 MB").
  std::string
  format_bytes(double bytes);
} // namespace cellwise
