// The limits a process really has (issue 59): the host memory it can still
// allocate is the smallest of MemAvailable, the address-space and data
// limits (ulimit -v, -d) less what it has mapped, and its control group's
// memory limit less what the group uses; and boxes that are not boxes of
// doubles (a width that overflows, cells below the resolution of their
// coordinates) are refused by the box builder with the cause.

#include <cellwise/base/exceptions.h>
#include <cellwise/base/system_memory.h>
#include <cellwise/mesh/box_builder.h>

#include <gtest/gtest.h>

#include <sys/resource.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <string>

using namespace cellwise;

namespace
{
  constexpr std::size_t GB = 1000000000;

  /// /proc/meminfo with MemAvailable of @p kilobytes (and a unitless line,
  /// as the real file has).
  std::string
  meminfo(const std::size_t kilobytes)
  {
    return "MemTotal:       32000000 kB\nMemFree:         1000000 kB\nMemAvailable:   " + std::to_string(kilobytes) +
           " kB\nHugePages_Total:       0\nHugepagesize:       2048 kB\n";
  }

  bool
  contains(const std::string &text, const std::string &part)
  {
    return text.find(part) != std::string::npos;
  }

  std::string
  error_of(const std::function<void()> &f)
  {
    try
      {
        f();
      }
    catch (const Error &e)
      {
        return e.what();
      }
    return "";
  }

  CgroupMemoryFiles
  cgroup(const std::string &group, const std::string &limit, const std::string &usage, const std::string &stat = "",
         const bool v1 = false)
  {
    CgroupMemoryFiles files;
    files.group = group;
    files.limit = limit;
    files.usage = usage;
    files.stat  = stat;
    files.v1    = v1;
    return files;
  }
} // namespace

TEST(SystemLimits, ParsesTheProcFiles)
{
  EXPECT_EQ(proc_kilobyte_field(meminfo(24000000), "MemAvailable:"), std::size_t(24000000) * 1024);
  EXPECT_EQ(proc_kilobyte_field(meminfo(1), "HugePages_Total:"), std::size_t(0)); // no unit
  EXPECT_FALSE(proc_kilobyte_field(meminfo(1), "VmSize:").has_value());
  EXPECT_FALSE(proc_kilobyte_field("", "MemAvailable:").has_value());
  EXPECT_FALSE(proc_kilobyte_field("MemAvailable: lots kB\n", "MemAvailable:").has_value());
  EXPECT_EQ(proc_kilobyte_field("Name:\tx\nVmPeak:\t  5000 kB\nVmSize:\t    3896 kB\nVmData:\t 428 kB\n", "VmSize:"),
            std::size_t(3896) * 1024);

  EXPECT_EQ(cgroup_memory_value("max\n"), no_memory_limit);
  EXPECT_EQ(cgroup_memory_value("9223372036854771712\n"), no_memory_limit); // v1's "no limit"
  EXPECT_EQ(cgroup_memory_value("4294967296\n"), std::size_t(4294967296));
  EXPECT_FALSE(cgroup_memory_value("").has_value());
  EXPECT_FALSE(cgroup_memory_value("lots").has_value());
  EXPECT_EQ(cgroup_stat_field("anon 100\nfile 300\nactive_file 200\ninactive_file 100\n", "inactive_file"), std::size_t(100));
  EXPECT_FALSE(cgroup_stat_field("anon 100\n", "inactive_file").has_value());

  // pure cgroup v2; a hybrid machine (v1 memory controller, v2 without it)
  const CgroupPaths v2 = parse_proc_cgroup("0::/user.slice/user-1000.slice/session-2.scope\n");
  EXPECT_EQ(v2.v2, "/user.slice/user-1000.slice/session-2.scope");
  EXPECT_EQ(v2.v1_memory, "");
  const CgroupPaths hybrid = parse_proc_cgroup("9:name=systemd:/\n5:devices:/\n4:memory:/process_api/5eb9\n"
                                               "2:cpu,cpuacct:/\n0::/\n");
  EXPECT_EQ(hybrid.v2, "/");
  EXPECT_EQ(hybrid.v1_memory, "/process_api/5eb9");
  EXPECT_EQ(parse_proc_cgroup("3:cpuacct,memory:/docker/abc\n").v1_memory, "/docker/abc");
  EXPECT_EQ(parse_proc_cgroup("").v2, "");
}

TEST(SystemLimits, MemAvailableWhereItIsTheSmallest)
{
  HostMemorySources sources;
  sources.meminfo             = meminfo(4000000); // 4.1 GB
  sources.address_space_limit = 100 * GB;
  sources.address_space_used  = 1 * GB;
  sources.cgroups             = {cgroup("/a", "max", "123456"), cgroup("/", "64000000000", "1000000000")};
  const HostMemoryLimit limit = smallest_memory_limit(sources);
  EXPECT_TRUE(limit.known);
  EXPECT_EQ(limit.bytes, std::size_t(4000000) * 1024);
  EXPECT_EQ(limit.source, "MemAvailable of /proc/meminfo");
}

TEST(SystemLimits, TheAddressSpaceLimitLessWhatIsMapped)
{
  // ulimit -v 2000000: 2.048 GB, of which the process has mapped 0.3 GB
  HostMemorySources sources;
  sources.meminfo             = meminfo(24000000);
  sources.address_space_limit = std::size_t(2000000) * 1024;
  sources.address_space_used  = 300000000;
  const HostMemoryLimit limit = smallest_memory_limit(sources);
  EXPECT_EQ(limit.bytes, std::size_t(2000000) * 1024 - 300000000);
  EXPECT_TRUE(contains(limit.source, "address-space limit, ulimit -v: 2.0 GB less the 300 MB")) << limit.source;

  // the data-segment limit, where smaller
  sources.data_limit = 1 * GB;
  sources.data_used  = GB / 2;
  EXPECT_EQ(smallest_memory_limit(sources).bytes, GB / 2);
  EXPECT_TRUE(contains(smallest_memory_limit(sources).source, "ulimit -d"));

  // a limit already reached: nothing left, and known to be so
  sources.address_space_used   = 3 * GB;
  const HostMemoryLimit none = smallest_memory_limit(sources);
  EXPECT_TRUE(none.known);
  EXPECT_EQ(none.bytes, 0u);
  EXPECT_TRUE(contains(none.source, "ulimit -v"));
}

TEST(SystemLimits, TheCgroupLimitLessWhatTheGroupUses)
{
  HostMemorySources sources;
  sources.meminfo = meminfo(24000000);
  // v2: the group's own memory.max is "max", its parent's 8 GB with 5 GB in
  // use of which 1 GB inactive page cache (reclaimed first: counted as free)
  sources.cgroups = {cgroup("/jobs/42", "max\n", "1000000000\n", "inactive_file 0\n"),
                     cgroup("/jobs", "8000000000\n", "5000000000\n", "anon 4000000000\ninactive_file 1000000000\n")};
  HostMemoryLimit limit = smallest_memory_limit(sources);
  EXPECT_EQ(limit.bytes, 4 * GB);
  EXPECT_TRUE(contains(limit.source, "the memory limit of cgroup /jobs: memory.max 8.0 GB less 4.0 GB in use")) << limit.source;

  // v1: memory.limit_in_bytes, the hierarchical total_inactive_file
  sources.cgroups = {cgroup("/process_api/5eb9", "9223372036854771712\n", "20422656\n", "", true),
                     cgroup("/docker", "3000000000\n", "1000000000\n",
                            "inactive_file 5\ntotal_inactive_file 500000000\n", true)};
  limit = smallest_memory_limit(sources);
  EXPECT_EQ(limit.bytes, 2500000000u);
  EXPECT_TRUE(contains(limit.source, "cgroup /docker: memory.limit_in_bytes 3.0 GB")) << limit.source;

  // usage above the limit (it can be, briefly): nothing left
  sources.cgroups = {cgroup("/", "1000000000", "1200000000")};
  EXPECT_EQ(smallest_memory_limit(sources).bytes, 0u);
  EXPECT_TRUE(smallest_memory_limit(sources).known);
}

TEST(SystemLimits, NoLimitsAndMissingFiles)
{
  // nothing known: no check is possible (not "0 bytes available")
  HostMemorySources nothing;
  EXPECT_FALSE(smallest_memory_limit(nothing).known);
  EXPECT_EQ(smallest_memory_limit(nothing).source, "");

  // every limit "max" or unreadable, and a group whose files are missing:
  // MemAvailable alone
  HostMemorySources sources;
  sources.meminfo = meminfo(1000);
  sources.cgroups = {cgroup("/a", "max", "5"), cgroup("/b", "", ""), cgroup("/c", "garbage", "7")};
  const HostMemoryLimit limit = smallest_memory_limit(sources);
  EXPECT_EQ(limit.bytes, std::size_t(1000) * 1024);
  EXPECT_EQ(limit.source, "MemAvailable of /proc/meminfo");

  // a cgroup limit without a readable usage: the whole limit
  sources.cgroups = {cgroup("/d", "500000", "")};
  EXPECT_EQ(smallest_memory_limit(sources).bytes, 500000u);

  // no /proc/meminfo, but a finite ulimit -v
  HostMemorySources rlimit_only;
  rlimit_only.address_space_limit = 4 * GB;
  rlimit_only.address_space_used  = 1 * GB;
  EXPECT_TRUE(smallest_memory_limit(rlimit_only).known);
  EXPECT_EQ(smallest_memory_limit(rlimit_only).bytes, 3 * GB);
}

TEST(SystemLimits, ThisProcessUnderAnAddressSpaceLimit)
{
  // the real files: on Linux MemAvailable is there; a soft RLIMIT_AS of
  // what the process has mapped plus 1 GB then bounds, as `ulimit -v` does
  if (!std::ifstream("/proc/meminfo").good())
    GTEST_SKIP() << "no /proc/meminfo";
  EXPECT_TRUE(host_memory_limit().known);
  EXPECT_GT(available_host_memory(), 0u);

  const HostMemorySources before = read_host_memory_sources();
  rlimit                  saved{};
  ASSERT_EQ(getrlimit(RLIMIT_AS, &saved), 0);
  std::ifstream     status_file("/proc/self/status");
  const std::string status((std::istreambuf_iterator<char>(status_file)), std::istreambuf_iterator<char>());
  const auto        mapped = proc_kilobyte_field(status, "VmSize:");
  ASSERT_TRUE(mapped.has_value());
  if (saved.rlim_max != RLIM_INFINITY && saved.rlim_max < *mapped + GB)
    GTEST_SKIP() << "the hard address-space limit leaves no room for the test";
  const auto available_before = smallest_memory_limit(before);
  if (available_before.bytes < GB / 2)
    GTEST_SKIP() << "less than 0.5 GB available: " << available_before.source;

  rlimit lowered = saved;
  lowered.rlim_cur = *mapped + GB / 4;
  ASSERT_EQ(setrlimit(RLIMIT_AS, &lowered), 0);
  const HostMemoryLimit limit = host_memory_limit();
  ASSERT_EQ(setrlimit(RLIMIT_AS, &saved), 0);
  EXPECT_TRUE(limit.known);
  EXPECT_LE(limit.bytes, GB / 4);
  EXPECT_GT(limit.bytes, GB / 8); // what the process mapped in between is small
  EXPECT_TRUE(contains(limit.source, "ulimit -v")) << limit.source;
}

TEST(SystemLimits, BoxBuilderRefusesBoxesThatAreNotBoxesOfDoubles)
{
  // a width that overflows: lower and upper finite, upper - lower not (it
  // showed as "cell 0 has size -nan")
  BoxDescription huge;
  huge.lower                   = {{-1e308, 0., 0.}};
  huge.upper                   = {{1e308, 1., 1.}};
  const std::string overflows  = error_of([&] { make_box_hierarchy(huge, 1); });
  EXPECT_TRUE(contains(overflows, "width along axis 0 overflows")) << overflows;
  EXPECT_TRUE(contains(error_of([&] { make_coarse_box(huge); }), "overflows"));

  // non-finite or reversed corners
  BoxDescription nan_box;
  nan_box.upper[2] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(contains(error_of([&] { make_coarse_box(nan_box); }), "degenerate box along axis 2"));
  BoxDescription infinite;
  infinite.lower[1] = -std::numeric_limits<double>::infinity();
  EXPECT_TRUE(contains(error_of([&] { check_box_geometry(infinite); }), "degenerate box along axis 1"));
  BoxDescription flat;
  flat.upper[0] = 0.;
  EXPECT_TRUE(contains(error_of([&] { make_box_hierarchy(flat, 0); }), "degenerate box along axis 0"));

  // cells below the resolution of their coordinates: [1, 1 + ε] (cells of
  // size 0 at L = 2), and [1e10, 1e10 + 1e-3] (its cells' sizes rounded)
  BoxDescription thin;
  thin.lower[0] = 1.;
  thin.upper[0] = std::nextafter(1., 2.);
  const std::string resolution = error_of([&] { make_box_hierarchy(thin, 2); });
  EXPECT_TRUE(contains(resolution, "below the resolution of doubles")) << resolution;
  BoxDescription far;
  far.lower[1] = 1e10;
  far.upper[1] = 1e10 + 1e-3;
  EXPECT_TRUE(contains(error_of([&] { make_coarse_box(far); }), "degenerate box along axis 1"));

  // the resolution counts the refinements: [1000, 1001] up to L = 22 (what
  // the program reaches with adaptive steps), not at L = 30
  BoxDescription shifted;
  shifted.lower = {{1000., 0., 0.}};
  shifted.upper = {{1001., 1., 1.}};
  EXPECT_EQ(error_of([&] { check_box_geometry(shifted, 22); }), "");
  EXPECT_TRUE(contains(error_of([&] { check_box_geometry(shifted, 30); }), "refinement 30"));
  EXPECT_EQ(error_of([&] { make_box_hierarchy(shifted, 2); }), "");

  // small and large boxes near the origin are boxes of doubles: whether
  // their operator is in range is checked where it is computed
  // (Reliability.BoxesOutOfTheNumberRangeGetTheRealCause)
  BoxDescription tiny;
  tiny.upper = {{1e-300, 1., 1.}};
  EXPECT_EQ(error_of([&] { check_box_geometry(tiny, 12); }), "");
}
