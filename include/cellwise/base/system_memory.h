#pragma once
/**
 * @file
 * What the operating system says about host memory, for the checks that
 * refuse a problem before allocating what does not fit, and for reporting
 * what a run used.
 *
 * The memory a process can still allocate is bounded by several limits, and
 * the smallest one is the one that counts: what the machine has available
 * (MemAvailable of /proc/meminfo), the process's address-space and data
 * limits (ulimit -v and -d: RLIMIT_AS and RLIMIT_DATA, less what the process
 * has mapped already) and the memory limit of its control group (cgroup v2
 * memory.max or v1 memory.limit_in_bytes, less what the group uses, on the
 * group and each group above it). host_memory_limit() reads them all and
 * says which one bounds; smallest_memory_limit() is its arithmetic on the
 * files' contents, without the files.
 */

#include <cstddef>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace cellwise
{
  /// The memory this process can still allocate, and which limit says so.
  struct HostMemoryLimit
  {
    /// Bytes; meaningful where known.
    std::size_t bytes = 0;
    /// Whether any source gave a number (false: no check possible).
    bool known = false;
    /// The limit that bounds, in words for a message: "MemAvailable of
    /// /proc/meminfo", "the address-space limit, ulimit -v: 2.0 GB less the
    /// 300 MB this process has mapped", "the data-segment limit, ulimit -d:
    /// ...", "the memory limit of cgroup /a/b: memory.max 4.0 GB less 1.0 GB
    /// in use"; empty where unknown.
    std::string source;
  };

  /// No limit (RLIM_INFINITY, cgroup "max").
  constexpr std::size_t no_memory_limit = std::numeric_limits<std::size_t>::max();

  /// One control group's memory files, as read (empty: the file is missing).
  struct CgroupMemoryFiles
  {
    /// The group, for the message ("/user.slice/...").
    std::string group;
    /// cgroup v1 (memory.limit_in_bytes, memory.usage_in_bytes, the
    /// total_inactive_file of memory.stat) or v2 (memory.max,
    /// memory.current, inactive_file).
    bool v1 = false;
    /// memory.max or memory.limit_in_bytes: bytes, or "max" (v2: no limit;
    /// v1 says "no limit" with a number near 2^63).
    std::string limit;
    /// memory.current or memory.usage_in_bytes: bytes in use, page cache
    /// included.
    std::string usage;
    /// memory.stat: its inactive file pages are reclaimed before the limit
    /// is hit, so they count as free.
    std::string stat;
  };

  /// What the limits are made of: the files' contents and the numbers of
  /// getrlimit, so that smallest_memory_limit can be checked without them.
  struct HostMemorySources
  {
    /// Contents of /proc/meminfo (empty: not there).
    std::string meminfo;
    /// RLIMIT_AS's soft limit in bytes, no_memory_limit where unlimited.
    std::size_t address_space_limit = no_memory_limit;
    /// VmSize of /proc/self/status in bytes: what RLIMIT_AS counts.
    std::size_t address_space_used = 0;
    /// RLIMIT_DATA's soft limit in bytes, no_memory_limit where unlimited.
    std::size_t data_limit = no_memory_limit;
    /// VmData of /proc/self/status in bytes: what RLIMIT_DATA counts.
    std::size_t data_used = 0;
    /// The process's control group and the groups above it.
    std::vector<CgroupMemoryFiles> cgroups;
  };

  /// The smallest of the limits in @p sources, and which one it is; a
  /// limit already exceeded gives 0 bytes (known).
  HostMemoryLimit
  smallest_memory_limit(const HostMemorySources &sources);

  /// The value of @p key ("MemAvailable:", "VmSize:") of a /proc/meminfo or
  /// /proc/self/status text in bytes (its "kB" unit taken into account);
  /// none where the key is missing or its value unreadable.
  std::optional<std::size_t>
  proc_kilobyte_field(const std::string &text, const std::string &key);

  /// The number of a cgroup memory file (memory.max, memory.current, ...):
  /// bytes, no_memory_limit for "max" or a v1 "no limit" (a number from
  /// 2^60 on, 0x7ffffffffffff000 in practice); none where empty or
  /// unreadable.
  std::optional<std::size_t>
  cgroup_memory_value(const std::string &text);

  /// The value of @p key of a memory.stat text ("inactive_file 4096"), in
  /// bytes; none where missing.
  std::optional<std::size_t>
  cgroup_stat_field(const std::string &text, const std::string &key);

  /// The groups of /proc/self/cgroup's @p text: the cgroup v2 path (the
  /// "0::/path" line) and the v1 memory controller's path (the
  /// "N:...memory...:/path" line); empty where there is none.
  struct CgroupPaths
  {
    std::string v2;
    std::string v1_memory;
  };
  CgroupPaths
  parse_proc_cgroup(const std::string &text);

  /// What this process's limits are now: /proc/meminfo, getrlimit with
  /// /proc/self/status, and the cgroup files under /sys/fs/cgroup.
  HostMemorySources
  read_host_memory_sources();

  /// smallest_memory_limit(read_host_memory_sources()).
  HostMemoryLimit
  host_memory_limit();

  /// Bytes of host memory available to a new allocation without swapping
  /// or hitting a limit of the process (host_memory_limit()); 0 where the
  /// system does not say, 1 where a limit is already reached.
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
