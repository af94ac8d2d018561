#include <cellwise/base/system_memory.h>

#include <sys/resource.h>

#include <cstdio>
#include <fstream>
#include <sstream>

namespace cellwise
{
  std::size_t
  available_host_memory()
  {
    std::ifstream meminfo("/proc/meminfo");
    std::string   key, unit;
    std::size_t   kilobytes = 0;
    while (meminfo >> key >> kilobytes >> unit)
      if (key == "MemAvailable:")
        return kilobytes * 1024;
    return 0;
  }

  std::size_t
  peak_resident_memory()
  {
    rusage usage{};
    if (getrusage(RUSAGE_SELF, &usage) != 0)
      return 0;
    return static_cast<std::size_t>(usage.ru_maxrss) * 1024; // kilobytes on Linux
  }

  std::string
  format_bytes(const double bytes)
  {
    const char *units[] = {"B", "kB", "MB", "GB", "TB", "PB"};
    double      value   = bytes;
    unsigned    u       = 0;
    while (value >= 1000. && u + 1 < sizeof(units) / sizeof(units[0]))
      {
        value /= 1000.;
        ++u;
      }
    char text[32];
    std::snprintf(text, sizeof(text), value < 10 ? "%.1f %s" : "%.0f %s", value, units[u]);
    return text;
  }
} // namespace cellwise
