#include <cellwise/base/system_memory.h>

#include <sys/resource.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace cellwise
{
  namespace
  {
    /// The whole of a small text file; empty where it cannot be read.
    std::string
    read_text_file(const std::string &path)
    {
      std::ifstream      file(path);
      std::ostringstream text;
      if (file)
        text << file.rdbuf();
      return text.str();
    }

    bool
    file_exists(const std::string &path)
    {
      return std::ifstream(path).good();
    }

    /// An unsigned decimal number, surrounding white space allowed.
    std::optional<std::size_t>
    parse_unsigned(const std::string &text)
    {
      std::size_t begin = 0, end = text.size();
      while (begin < end && std::isspace(static_cast<unsigned char>(text[begin])))
        ++begin;
      while (end > begin && std::isspace(static_cast<unsigned char>(text[end - 1])))
        --end;
      if (begin == end)
        return std::nullopt;
      std::size_t value = 0;
      for (std::size_t i = begin; i < end; ++i)
        {
          if (!std::isdigit(static_cast<unsigned char>(text[i])))
            return std::nullopt;
          const std::size_t digit = std::size_t(text[i] - '0');
          if (value > (no_memory_limit - digit) / 10)
            return no_memory_limit; // beyond 2^64: no limit either
          value = 10 * value + digit;
        }
      return value;
    }

    /// a - b, 0 where b exceeds a.
    std::size_t
    less(const std::size_t a, const std::size_t b)
    {
      return a > b ? a - b : 0;
    }

    /// Keeps @p candidate in @p smallest where it is smaller (or the first).
    void
    keep_smallest(HostMemoryLimit &smallest, const std::size_t bytes, const std::string &source)
    {
      if (!smallest.known || bytes < smallest.bytes)
        {
          smallest.bytes  = bytes;
          smallest.known  = true;
          smallest.source = source;
        }
    }

    /// RLIMIT_* soft limit in bytes, no_memory_limit where unlimited.
    std::size_t
    soft_limit(const int resource)
    {
      rlimit limit{};
      if (getrlimit(resource, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY)
        return no_memory_limit;
      return static_cast<std::size_t>(limit.rlim_cur);
    }

    /// @p group ("/a/b") and the groups above it, the root ("/") last.
    std::vector<std::string>
    group_and_ancestors(std::string group)
    {
      std::vector<std::string> groups;
      while (!group.empty() && group.back() == '/')
        group.pop_back();
      while (!group.empty())
        {
          groups.push_back(group);
          group = group.substr(0, group.rfind('/'));
        }
      groups.push_back("/");
      return groups;
    }

    /// The memory files of @p group and its ancestors under the hierarchy
    /// mounted at @p mount; groups without a limit file are left out.
    void
    read_cgroups(const std::string &mount, const std::string &group, const bool v1, std::vector<CgroupMemoryFiles> &out)
    {
      const char *limit_file = v1 ? "/memory.limit_in_bytes" : "/memory.max";
      const char *usage_file = v1 ? "/memory.usage_in_bytes" : "/memory.current";
      for (const std::string &g : group_and_ancestors(group))
        {
          const std::string directory = g == "/" ? mount : mount + g;
          CgroupMemoryFiles files;
          files.group = g;
          files.v1    = v1;
          files.limit = read_text_file(directory + limit_file);
          if (files.limit.empty())
            continue;
          files.usage = read_text_file(directory + usage_file);
          files.stat  = read_text_file(directory + "/memory.stat");
          out.push_back(std::move(files));
        }
    }
  } // namespace

  std::optional<std::size_t>
  proc_kilobyte_field(const std::string &text, const std::string &key)
  {
    std::istringstream lines(text);
    std::string        line;
    while (std::getline(lines, line))
      if (line.compare(0, key.size(), key) == 0)
        {
          std::istringstream fields(line.substr(key.size()));
          std::string        number, unit;
          fields >> number >> unit;
          const std::optional<std::size_t> value = parse_unsigned(number);
          if (!value)
            return std::nullopt;
          if (unit.empty())
            return value;
          if (unit != "kB" || *value > no_memory_limit / 1024)
            return std::nullopt;
          return *value * 1024;
        }
    return std::nullopt;
  }

  std::optional<std::size_t>
  cgroup_memory_value(const std::string &text)
  {
    std::istringstream fields(text);
    std::string        word;
    if (!(fields >> word))
      return std::nullopt;
    if (word == "max" || word == "-1")
      return no_memory_limit;
    const std::optional<std::size_t> value = parse_unsigned(word);
    if (value && *value >= (std::size_t(1) << 60)) // v1's "no limit": PAGE_COUNTER_MAX pages
      return no_memory_limit;
    return value;
  }

  std::optional<std::size_t>
  cgroup_stat_field(const std::string &text, const std::string &key)
  {
    std::istringstream lines(text);
    std::string        name, value;
    while (lines >> name >> value)
      if (name == key)
        return parse_unsigned(value);
    return std::nullopt;
  }

  CgroupPaths
  parse_proc_cgroup(const std::string &text)
  {
    // lines "hierarchy-id:controller,controller:/path"; cgroup v2 is "0::/path"
    CgroupPaths        paths;
    std::istringstream lines(text);
    std::string        line;
    while (std::getline(lines, line))
      {
        const std::size_t first = line.find(':');
        if (first == std::string::npos)
          continue;
        const std::size_t second = line.find(':', first + 1);
        if (second == std::string::npos)
          continue;
        const std::string id          = line.substr(0, first);
        const std::string controllers = line.substr(first + 1, second - first - 1);
        const std::string path        = line.substr(second + 1);
        if (id == "0" && controllers.empty())
          paths.v2 = path;
        else
          {
            std::istringstream list(controllers);
            std::string        controller;
            while (std::getline(list, controller, ','))
              if (controller == "memory")
                paths.v1_memory = path;
          }
      }
    return paths;
  }

  HostMemoryLimit
  smallest_memory_limit(const HostMemorySources &sources)
  {
    HostMemoryLimit smallest;
    if (const auto available = proc_kilobyte_field(sources.meminfo, "MemAvailable:"))
      keep_smallest(smallest, *available, "MemAvailable of /proc/meminfo");
    if (sources.address_space_limit != no_memory_limit)
      keep_smallest(smallest, less(sources.address_space_limit, sources.address_space_used),
                    "the address-space limit, ulimit -v: " + format_bytes(double(sources.address_space_limit)) +
                      " less the " + format_bytes(double(sources.address_space_used)) + " this process has mapped");
    if (sources.data_limit != no_memory_limit)
      keep_smallest(smallest, less(sources.data_limit, sources.data_used),
                    "the data-segment limit, ulimit -d: " + format_bytes(double(sources.data_limit)) + " less the " +
                      format_bytes(double(sources.data_used)) + " of data this process has");
    for (const CgroupMemoryFiles &group : sources.cgroups)
      {
        const std::optional<std::size_t> limit = cgroup_memory_value(group.limit);
        if (!limit || *limit == no_memory_limit)
          continue;
        // in use: what the group has, less the file pages reclaimed first
        std::size_t in_use = cgroup_memory_value(group.usage).value_or(0);
        if (in_use == no_memory_limit)
          in_use = 0;
        in_use = less(in_use, cgroup_stat_field(group.stat, group.v1 ? "total_inactive_file" : "inactive_file").value_or(0));
        keep_smallest(smallest, less(*limit, in_use),
                      "the memory limit of cgroup " + group.group + ": " +
                        (group.v1 ? "memory.limit_in_bytes " : "memory.max ") + format_bytes(double(*limit)) + " less " +
                        format_bytes(double(in_use)) + " in use");
      }
    return smallest;
  }

  HostMemorySources
  read_host_memory_sources()
  {
    HostMemorySources sources;
    sources.meminfo             = read_text_file("/proc/meminfo");
    sources.address_space_limit = soft_limit(RLIMIT_AS);
    sources.data_limit          = soft_limit(RLIMIT_DATA);
    if (sources.address_space_limit != no_memory_limit || sources.data_limit != no_memory_limit)
      {
        const std::string status   = read_text_file("/proc/self/status");
        sources.address_space_used = proc_kilobyte_field(status, "VmSize:").value_or(0);
        sources.data_used          = proc_kilobyte_field(status, "VmData:").value_or(0);
      }
    const CgroupPaths paths = parse_proc_cgroup(read_text_file("/proc/self/cgroup"));
    if (!paths.v2.empty())
      {
        // the unified hierarchy: at /sys/fs/cgroup, or beside the v1 ones
        const std::string mount =
          file_exists("/sys/fs/cgroup/cgroup.controllers") ? "/sys/fs/cgroup" : "/sys/fs/cgroup/unified";
        read_cgroups(mount, paths.v2, false, sources.cgroups);
      }
    if (!paths.v1_memory.empty())
      read_cgroups("/sys/fs/cgroup/memory", paths.v1_memory, true, sources.cgroups);
    return sources;
  }

  HostMemoryLimit
  host_memory_limit()
  {
    return smallest_memory_limit(read_host_memory_sources());
  }

  std::size_t
  available_host_memory()
  {
    const HostMemoryLimit limit = host_memory_limit();
    if (!limit.known)
      return 0;
    return limit.bytes > 0 ? limit.bytes : 1;
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
