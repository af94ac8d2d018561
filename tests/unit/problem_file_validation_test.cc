// Problem files that are internally inconsistent are refused (issue 59, class
// 3). The checksum protects against accidents, not against a wrong writer:
// each defect here is written into the bytes of a valid file and the FNV-1a
// checksum recomputed, so that only the structural validation of the reader
// (storage/problem_file.cc) stands between the file and a wrong answer. The
// reader must name the file, the level, the cell and the defect: a changed
// cell size, a child that does not tile its parent, a broken or asymmetric
// neighbour link, a boundary id that differs between levels, a refinement
// edge where the parents say otherwise, mapped faces that do not coincide, a
// value that is not finite, counts beyond what a file may hold (a sparse
// 4.3 GB file with a huge description length: refused without allocating),
// and a path that is not a regular file (a FIFO without a writer: refused at
// once, never blocking; a directory; a device). The writer refuses to write
// an inconsistent hierarchy, and every valid problem still reads.

#include <cellwise/base/exceptions.h>
#include <cellwise/mesh/adaptive_builder.h>
#include <cellwise/mesh/box_builder.h>
#include <cellwise/mesh/cell_mapping.h>
#include <cellwise/mesh/unstructured_builder.h>
#include <cellwise/storage/problem_file.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <future>
#include <iterator>
#include <limits>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_utilities.h"

using namespace cellwise;
using namespace cellwise::testing;

namespace
{
  Problem
  random_problem(LevelHierarchy hierarchy, const std::string &description, const bool locally_refined = false)
  {
    Problem problem;
    problem.hierarchy       = std::move(hierarchy);
    problem.degree          = 2;
    problem.description     = description;
    problem.locally_refined = locally_refined;
    const unsigned int n    = locally_refined ? problem.hierarchy.n_active_cells() : problem.hierarchy.levels.back().n_cells();
    problem.rhs.reinit(n, 2);
    problem.solution.reinit(n, 2);
    fill_random(problem.rhs, 3);
    fill_random(problem.solution, 4);
    return problem;
  }

  /// 3 x 2 x 1 coarse cells refined twice: 6, 48 and 384 cells.
  Problem
  box_problem()
  {
    Problem problem = random_problem(make_box_hierarchy(BoxDescription{{0., -1., 0.5}, {1.5, 1., 1.3}, {3, 2, 1}}, 2), "box");
    problem.dirichlet_ids = {0, 3};
    return problem;
  }

  Problem
  adaptive_problem()
  {
    const BoxDescription box;
    return random_problem(make_adaptive_box_hierarchy(box, 1, 2, make_octant_marker(box)), "octant", true);
  }

  Problem
  lshape_problem()
  {
    return random_problem(make_box_hierarchy(make_lshape_description(), 1), "L-shape");
  }

  Problem
  kershaw_problem()
  {
    Problem problem = box_problem();
    map_hierarchy(problem.hierarchy, 2, [](const Point &x) { return Point{{x[0] + 0.1 * x[1] * x[1], x[1], x[2] - 0.05 * x[0]}}; });
    return problem;
  }

  /// deal.II's hyper_ball: 7 blocks in their own frames, skeleton faces.
  Problem
  ball_problem()
  {
    return random_problem(make_unstructured_hierarchy(make_ball_coarse_mesh(), 2, 2), "ball");
  }

  /// One mapped coarse cell refined once: all of level 0's faces are boundary.
  Problem
  one_mapped_cell_problem()
  {
    Problem problem = random_problem(make_box_hierarchy(BoxDescription{}, 1), "one cell");
    map_hierarchy(problem.hierarchy, 1, [](const Point &x) { return Point{{x[0] + 0.1 * x[1], x[1], x[2]}}; });
    return problem;
  }

  std::vector<char>
  file_bytes(const std::string &filename)
  {
    std::ifstream in(filename, std::ios::binary);
    return std::vector<char>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }

  void
  write_bytes(const std::string &filename, const std::vector<char> &bytes)
  {
    std::ofstream out(filename, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }

  /// FNV-1a 64 of every byte but the last 8, stored in the last 8: the
  /// checksum of the file anew.
  void
  seal(std::vector<char> &bytes)
  {
    std::uint64_t hash = 14695981039346656037ull;
    for (std::size_t i = 0; i + 8 < bytes.size(); ++i)
      hash = (hash ^ static_cast<unsigned char>(bytes[i])) * 1099511628211ull;
    std::memcpy(bytes.data() + bytes.size() - 8, &hash, 8);
  }

  template <typename T>
  T
  get(const std::vector<char> &bytes, const std::size_t at)
  {
    if (at + sizeof(T) > bytes.size())
      throw std::out_of_range("the test reads past the file's " + std::to_string(bytes.size()) + " bytes");
    T value;
    std::memcpy(&value, bytes.data() + at, sizeof(T));
    return value;
  }

  template <typename T>
  void
  put(std::vector<char> &bytes, const std::size_t at, const T value)
  {
    if (at + sizeof(T) > bytes.size())
      throw std::out_of_range("the test writes past the file's " + std::to_string(bytes.size()) + " bytes");
    std::memcpy(bytes.data() + at, &value, sizeof(T));
  }

  /// Where things are in a version-3 file of a problem (the format of
  /// storage/problem_file.h).
  struct Layout
  {
    static constexpr std::size_t cell_bytes = 6 * 8 + 3 * 4 + 4 + 1 + 8 * 4 + 6 * 4 + 1;
    /// offsets of the fields of a cell
    static constexpr std::size_t lower = 0, size = 24, coordinates = 48, neighbors = 97;

    std::vector<std::size_t> level;   ///< the level's n_cells field
    std::vector<std::size_t> mapping; ///< the level's mapping nodes
    std::size_t              vectors = 0;

    explicit Layout(const Problem &problem)
    {
      std::size_t at = 45 + 4 * problem.dirichlet_ids.size() + problem.description.size();
      for (const Level &l : problem.hierarchy.levels)
        {
          level.push_back(at);
          at += 8 + std::size_t(l.n_cells()) * cell_bytes + 4;
          mapping.push_back(at);
          at += l.mapping.nodes.size() * 3 * 8 + 4 + l.skeleton_faces.size() * 11;
        }
      vectors = at;
    }
    std::size_t
    cell(const unsigned int l, const unsigned int c) const
    {
      return level[l] + 8 + std::size_t(c) * cell_bytes;
    }
    std::size_t
    neighbor(const unsigned int l, const unsigned int c, const unsigned int f) const
    {
      return cell(l, c) + neighbors + 4 * f;
    }
    std::size_t
    node(const Problem &problem, const unsigned int l, const unsigned int c, const unsigned int i, const unsigned int d) const
    {
      const std::size_t per_cell = problem.hierarchy.levels[l].mapping.nodes_per_cell();
      return mapping[l] + ((std::size_t(c) * per_cell + i) * 3 + d) * 8;
    }
  };

  /// While it lives (or until restore()), an address-space limit
  /// (RLIMIT_AS) of what the process has mapped plus @p room bytes: an
  /// allocation beyond fails with std::bad_alloc.
  class AddressSpaceLimit
  {
  public:
    explicit AddressSpaceLimit(const std::size_t room)
    {
      std::ifstream statm("/proc/self/statm");
      std::size_t   pages = 0;
      statm >> pages;
      if (!statm || ::getrlimit(RLIMIT_AS, &old_) != 0)
        return;
      struct rlimit limit = old_;
      const rlim_t  bound = rlim_t(pages) * rlim_t(::sysconf(_SC_PAGESIZE)) + rlim_t(room);
      if (limit.rlim_cur == RLIM_INFINITY || limit.rlim_cur > bound)
        limit.rlim_cur = bound;
      in_force_ = ::setrlimit(RLIMIT_AS, &limit) == 0;
    }
    AddressSpaceLimit(const AddressSpaceLimit &) = delete;
    AddressSpaceLimit &
    operator=(const AddressSpaceLimit &) = delete;
    ~AddressSpaceLimit()
    {
      restore();
    }
    bool
    in_force() const
    {
      return in_force_;
    }
    void
    restore()
    {
      if (in_force_)
        EXPECT_EQ(::setrlimit(RLIMIT_AS, &old_), 0) << "cannot restore the address-space limit";
      in_force_ = false;
    }

  private:
    struct rlimit old_ = {};
    bool          in_force_ = false;
  };

  /// The error of reading @p filename, or "" if it was read.
  std::string
  read_error(const std::string &filename)
  {
    try
      {
        read_problem_file(filename);
      }
    catch (const Error &e)
      {
        return e.what();
      }
    return "";
  }

  void
  expect_message(const std::string &message, const std::vector<std::string> &phrases)
  {
    ASSERT_FALSE(message.empty()) << "no error; expected '" << phrases.front() << "'";
    for (const std::string &phrase : phrases)
      EXPECT_NE(message.find(phrase), std::string::npos) << "'" << phrase << "' not in: " << message;
  }

  /// Writes @p problem, spoils the bytes, recomputes the checksum and
  /// expects the reader to refuse the file with every one of @p phrases
  /// (and the file's name) in its message.
  void
  expect_refused(const Problem                                                   &problem,
                 const std::function<void(std::vector<char> &, const Layout &)> &spoil,
                 std::vector<std::string>                                         phrases)
  {
    const std::string filename = temporary_file("spoiled");
    write_problem_file(filename, problem);
    std::vector<char> bytes = file_bytes(filename);
    spoil(bytes, Layout(problem));
    seal(bytes);
    write_bytes(filename, bytes);
    phrases.push_back("problem file " + filename);
    expect_message(read_error(filename), phrases);
    std::remove(filename.c_str());
  }

  /// The first cell of level @p l with a cell across face @p f, and that cell.
  std::pair<unsigned int, unsigned int>
  first_pair(const Level &level, const unsigned int f)
  {
    for (unsigned int c = 0; c < level.n_cells(); ++c)
      if (face_neighbor::is_cell(level.neighbors[c][f]) && !level.is_skeleton_face(c, f))
        return {c, unsigned(level.neighbors[c][f])};
    ADD_FAILURE() << "no pair across face " << f;
    return {0, 0};
  }
} // namespace

TEST(ProblemFileValidation, ValidProblemsStillRead)
{
  for (const Problem &problem :
       {box_problem(), adaptive_problem(), lshape_problem(), kershaw_problem(), ball_problem(), one_mapped_cell_problem()})
    {
      SCOPED_TRACE(problem.description);
      const std::string filename = temporary_file("valid");
      write_problem_file(filename, problem);
      const Problem read = read_problem_file(filename);
      EXPECT_EQ(read.hierarchy.n_levels(), problem.hierarchy.n_levels());
      EXPECT_EQ(read.hierarchy.levels.back().neighbors, problem.hierarchy.levels.back().neighbors);
      std::remove(filename.c_str());
    }
}

TEST(ProblemFileValidation, ChangedCellSizeIsRefused)
{
  // a fine cell and a coarse one (not cell 0, which gives the lattice)
  expect_refused(box_problem(),
                 [](std::vector<char> &bytes, const Layout &at) {
                   const std::size_t x = at.cell(2, 5) + Layout::size;
                   put(bytes, x, 1.5 * get<double>(bytes, x));
                 },
                 {"level 2 cell 5", "changed cell size", "along axis 0"});
  expect_refused(box_problem(),
                 [](std::vector<char> &bytes, const Layout &at) {
                   const std::size_t z = at.cell(0, 3) + Layout::size + 16;
                   put(bytes, z, 0.9 * get<double>(bytes, z));
                 },
                 {"level 0 cell 3", "changed cell size", "along axis 2"});
}

TEST(ProblemFileValidation, ChildThatDoesNotTileItsParentIsRefused)
{
  // a child moved by half its size along y (its size still right)
  expect_refused(box_problem(),
                 [](std::vector<char> &bytes, const Layout &at) {
                   const std::size_t y = at.cell(1, 7) + Layout::lower + 8;
                   put(bytes, y, get<double>(bytes, y) + 0.5 * get<double>(bytes, at.cell(1, 7) + Layout::size + 8));
                 },
                 {"level 1 cell 7", "does not tile its parent", "along axis 1"});
  // two children of one parent that swapped their boxes and coordinates:
  // each is on the lattice, but not where its child slot is
  const Problem problem = box_problem();
  const auto   &parent  = problem.hierarchy.levels[0].children[2];
  const unsigned int a = unsigned(parent[0]), b = unsigned(parent[1]);
  expect_refused(problem,
                 [&](std::vector<char> &bytes, const Layout &at) {
                   for (std::size_t k = 0; k < 6 * 8 + 3 * 4; ++k)
                     std::swap(bytes[at.cell(1, a) + k], bytes[at.cell(1, b) + k]);
                 },
                 {"level 1 cell " + std::to_string(std::min(a, b)), "does not tile its parent"});
}

TEST(ProblemFileValidation, BrokenNeighbourLinkIsRefused)
{
  // two pairs across face 1 cross-linked: every link has its way back, but
  // a names e and e names a although they are not adjacent
  const Problem problem = box_problem();
  const Level  &fine    = problem.hierarchy.levels[2];
  const unsigned int a = first_pair(fine, 1).first, b = first_pair(fine, 1).second;
  unsigned int       c = 0, e = 0;
  for (unsigned int k = 0; k < fine.n_cells(); ++k)
    if (face_neighbor::is_cell(fine.neighbors[k][1]) && k != a && k != b && fine.neighbors[k][1] != int(a) &&
        fine.neighbors[k][1] != int(b) && fine.neighbors[k][0] != int(a) && fine.neighbors[k][0] != int(b) &&
        fine.coordinates[k][1] != fine.coordinates[a][1])
      {
        c = k;
        e = unsigned(fine.neighbors[k][1]);
        break;
      }
  ASSERT_NE(c, 0u);
  expect_refused(problem,
                 [&](std::vector<char> &bytes, const Layout &at) {
                   put(bytes, at.neighbor(2, a, 1), std::int32_t(e));
                   put(bytes, at.neighbor(2, e, 0), std::int32_t(a));
                   put(bytes, at.neighbor(2, c, 1), std::int32_t(b));
                   put(bytes, at.neighbor(2, b, 0), std::int32_t(c));
                 },
                 {"level 2 cell " + std::to_string(std::min({a, b, c, e})), "broken neighbour link"});
  // a link to a cell that is not there (the other cell's table unchanged)
  expect_refused(problem,
                 [&](std::vector<char> &bytes, const Layout &at) { put(bytes, at.neighbor(2, a, 1), std::int32_t(c)); },
                 {"level 2 cell " + std::to_string(a), "not symmetric"});
  // on level 0 of a lattice: the cell at the adjacent position is not named
  const unsigned int p = first_pair(problem.hierarchy.levels[0], 1).first;
  expect_refused(problem,
                 [&](std::vector<char> &bytes, const Layout &at) {
                   put(bytes, at.neighbor(0, p, 1), std::int32_t(face_neighbor::none));
                 },
                 {"level 0 cell " + std::to_string(p), "no neighbour across face 1"});
}

TEST(ProblemFileValidation, AsymmetricNeighbourTableIsRefused)
{
  // a names b across face 1, b names a boundary across face 0
  const Problem problem = box_problem();
  const unsigned int a = first_pair(problem.hierarchy.levels[2], 1).first, b = first_pair(problem.hierarchy.levels[2], 1).second;
  ASSERT_LT(a, b);
  expect_refused(problem,
                 [&](std::vector<char> &bytes, const Layout &at) {
                   put(bytes, at.neighbor(2, b, 0), std::int32_t(face_neighbor::boundary(0)));
                 },
                 {"level 2 cell " + std::to_string(a), "names cell " + std::to_string(b) + " across face 1",
                  "the neighbour table is not symmetric"});
}

TEST(ProblemFileValidation, BoundaryIdDifferingBetweenLevelsIsRefused)
{
  // a fine cell's boundary face with another id than the coarse face it lies on
  const Problem problem = box_problem();
  const Level  &fine    = problem.hierarchy.levels[2];
  unsigned int  cell    = 0;
  while (fine.neighbors[cell][0] != face_neighbor::boundary(0))
    ++cell;
  expect_refused(problem,
                 [&](std::vector<char> &bytes, const Layout &at) {
                   put(bytes, at.neighbor(2, cell, 0), std::int32_t(face_neighbor::boundary(3)));
                 },
                 {"level 2 cell " + std::to_string(cell), "boundary id 3 across face 0", "boundary id 0",
                  "the boundary id of a face differs between levels"});
  // the coarse cell's id changed: its children disagree with it
  expect_refused(problem,
                 [&](std::vector<char> &bytes, const Layout &at) {
                   put(bytes, at.neighbor(0, 0, 0), std::int32_t(face_neighbor::boundary(5)));
                 },
                 {"level 1 cell", "boundary id 0 across face 0", "boundary id 5", "differs between levels"});
}

TEST(ProblemFileValidation, RefinementEdgeAgainstTheParentsIsRefused)
{
  // a locally refined mesh: a face without a same-level neighbour (the
  // refinement edge) made boundary
  const Problem problem = adaptive_problem();
  const Level  &fine    = problem.hierarchy.levels.back();
  unsigned int  cell = 0, face = 0;
  for (cell = 0; cell < fine.n_cells(); ++cell)
    {
      for (face = 0; face < 6 && fine.neighbors[cell][face] != face_neighbor::none; ++face)
        ;
      if (face < 6)
        break;
    }
  ASSERT_LT(cell, fine.n_cells());
  const unsigned int l = problem.hierarchy.max_level();
  expect_refused(problem,
                 [&](std::vector<char> &bytes, const Layout &at) {
                   put(bytes, at.neighbor(l, cell, face), std::int32_t(face_neighbor::boundary(0)));
                 },
                 {"level " + std::to_string(l) + " cell " + std::to_string(cell), "the refinement edge (no neighbour) is expected"});
}

TEST(ProblemFileValidation, WrongCountsAreRefusedBeforeAllocation)
{
  // more levels than coordinates allow; a finer level that is not the
  // children of the refined cells below it
  expect_refused(box_problem(), [](std::vector<char> &bytes, const Layout &) { put(bytes, 20, std::uint32_t(30)); },
                 {"levels 30 exceed the 22"});
  expect_refused(box_problem(),
                 [](std::vector<char> &bytes, const Layout &at) { put(bytes, at.level[1], std::uint32_t(47)); },
                 {"level 1 has 47 cells", "have 48 children"});
  // a value that is not a number
  expect_refused(box_problem(),
                 [](std::vector<char> &bytes, const Layout &at) {
                   put(bytes, at.vectors + 8 + 27 * 8 * 3, std::numeric_limits<double>::quiet_NaN());
                 },
                 {"right-hand side has the value nan in cell 3"});
}

// A 4.3 GB sparse file (no blocks on disk) whose description length is 4.19
// GB: the bytes left allow it, the sane maximum of a description does not.
// The read runs under an address-space limit of 512 MiB above what the
// process has, so a reader that allocated the description would get
// bad_alloc instead of the refusal.
TEST(ProblemFileValidation, HugeDescriptionInASparseFileIsRefusedWithoutAllocating)
{
  const std::string good = temporary_file("sparse_source");
  write_problem_file(good, box_problem());
  std::vector<char> header = file_bytes(good);
  std::remove(good.c_str());
  header.resize(45);
  put(header, 37, std::uint32_t(0));          // no Dirichlet ids
  put(header, 41, std::uint32_t(4190000000)); // description bytes
  const std::string sparse = temporary_file("sparse");
  write_bytes(sparse, header);
  ASSERT_EQ(::truncate(sparse.c_str(), off_t(4300000000ll)), 0) << "cannot make a sparse file of 4.3 GB";

  AddressSpaceLimit limit(std::size_t(512) << 20);
  ASSERT_TRUE(limit.in_force()) << "cannot lower the address-space limit";
  std::string message;
  bool        allocated = false;
  const auto  start     = std::chrono::steady_clock::now();
  try
    {
      message = read_error(sparse);
    }
  catch (const std::bad_alloc &)
    {
      allocated = true;
    }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  limit.restore();
  std::remove(sparse.c_str());
  EXPECT_FALSE(allocated) << "the reader tried to allocate the description";
  expect_message(message, {"problem file " + sparse, "description bytes 4190000000 exceed the 1048576"});
  EXPECT_LT(seconds, 1.) << "the refusal took " << seconds << " s";
}

// A sparse file as large as it claims: 2e7 cells of level 0 within what the
// header's subdivisions allow and the file's bytes hold, more than the
// process may allocate (an address-space limit of 512 MiB above what it
// has): a clear error naming the file and the limit, not std::bad_alloc.
TEST(ProblemFileValidation, LevelsBeyondTheMemoryLimitGetAClearError)
{
  const std::string good = temporary_file("large_source");
  write_problem_file(good, box_problem());
  std::vector<char> header = file_bytes(good);
  std::remove(good.c_str());
  header.resize(53);
  put(header, 20, std::uint32_t(1));                                   // one level
  for (const std::size_t at : {24, 28, 32})
    put(header, at, std::uint32_t(300));                               // 300^3 coarse cells allowed
  put(header, 36, std::uint8_t(0));                                    // uniform
  put(header, 37, std::uint32_t(0));                                   // no Dirichlet ids
  put(header, 41, std::uint32_t(0));                                   // no description
  put(header, 45, std::uint32_t(20000000));                            // cells of level 0
  put(header, 49, std::uint32_t(20000000));                            // owned
  const std::string sparse = temporary_file("large");
  write_bytes(sparse, header);
  ASSERT_EQ(::truncate(sparse.c_str(), off_t(4300000000ll)), 0) << "cannot make a sparse file of 4.3 GB";

  AddressSpaceLimit limit(std::size_t(512) << 20);
  ASSERT_TRUE(limit.in_force()) << "cannot lower the address-space limit";
  std::string message;
  bool        bad_alloc = false;
  try
    {
      message = read_error(sparse);
    }
  catch (const std::bad_alloc &)
    {
      bad_alloc = true;
    }
  limit.restore();
  std::remove(sparse.c_str());
  EXPECT_FALSE(bad_alloc) << "std::bad_alloc escaped the reader";
  expect_message(message, {"problem file " + sparse, "do not fit into the memory this process may use", "bounded by"});
}

// A FIFO without a writer: open(2) for reading would wait for a writer
// forever. Refused at once; should the read block all the same, the guard
// opens the FIFO for writing after 10 s so that the test ends (and fails).
TEST(ProblemFileValidation, FifoIsRefusedWithoutBlocking)
{
  const std::string fifo = temporary_file("fifo");
  std::remove(fifo.c_str());
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto read = std::async(std::launch::async, [&] { return read_error(fifo); });
  if (read.wait_for(std::chrono::seconds(10)) != std::future_status::ready)
    {
      ADD_FAILURE() << "reading a FIFO without a writer blocked for 10 s";
      const int fd = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
      if (fd >= 0)
        ::close(fd);
    }
  const std::string message = read.get();
  std::remove(fifo.c_str());
  expect_message(message, {"problem file " + fifo, "is a FIFO (named pipe), not a regular file"});
}

TEST(ProblemFileValidation, DirectoriesAndDevicesAreRefused)
{
  const std::string directory = ::testing::TempDir();
  expect_message(read_error(directory), {"problem file " + directory, "is a directory, not a regular file"});
  expect_message(read_error("/dev/null"), {"problem file /dev/null", "is a character device, not a regular file"});
  expect_message(read_error(temporary_file("not_there")), {"cannot be opened for reading (No such file or directory)"});
}

TEST(ProblemFileValidation, MappedFacesThatDoNotCoincideAreRefused)
{
  // a lattice mapped by a smooth map: the middle node of a face shared with
  // a neighbour moved
  {
    const Problem problem = kershaw_problem();
    const unsigned int a = first_pair(problem.hierarchy.levels[1], 1).first;
    // node (2, 1, 1) of degree 2: the middle of face 1
    expect_refused(problem,
                   [&](std::vector<char> &bytes, const Layout &at) {
                     const std::size_t y = at.node(problem, 1, a, 2 + 3 * (1 + 3 * 1), 1);
                     put(bytes, y, get<double>(bytes, y) + 0.01);
                   },
                   {"level 1 cell " + std::to_string(a), "of its face 1", "the faces do not coincide"});
  }
  // the ball: the middle node of a skeleton face moved
  {
    const Problem       problem = ball_problem();
    const SkeletonFace &face    = problem.hierarchy.levels[1].skeleton_faces[0];
    const unsigned int  d = face.face / 2, s = face.face % 2;
    std::array<unsigned int, 3> ijk{{1, 1, 1}};
    ijk[d]                 = 2 * s;
    const unsigned int i   = ijk[0] + 3 * (ijk[1] + 3 * ijk[2]);
    expect_refused(problem,
                   [&](std::vector<char> &bytes, const Layout &at) {
                     const std::size_t x = at.node(problem, 1, face.cell, i, 0);
                     put(bytes, x, get<double>(bytes, x) + 0.02);
                   },
                   {"level 1 cell", "the faces do not coincide"});
  }
  // a parent's corner moved: its child at that corner no longer starts there
  {
    const Problem problem = one_mapped_cell_problem();
    expect_refused(problem,
                   [&](std::vector<char> &bytes, const Layout &at) { put(bytes, at.node(problem, 0, 0, 0, 2), -0.05); },
                   {"level 1 cell " + std::to_string(problem.hierarchy.levels[0].children[0][0]),
                    "is not the corner of its parent 0"});
  }
}

// The writer refuses what the reader would refuse, before the file is made.
TEST(ProblemFileValidation, InconsistentHierarchiesAreNotWritten)
{
  const std::string filename = temporary_file("not_written");
  std::remove(filename.c_str());
  const auto expect_not_written = [&](Problem problem, const std::function<void(LevelHierarchy &)> &spoil,
                                      const std::string &phrase) {
    spoil(problem.hierarchy);
    try
      {
        write_problem_file(filename, problem);
        ADD_FAILURE() << "written; expected '" << phrase << "'";
      }
    catch (const Error &e)
      {
        expect_message(e.what(), {"write_problem_file " + filename, phrase});
      }
    struct stat status;
    EXPECT_NE(::stat(filename.c_str(), &status), 0) << "the file was made";
    std::remove(filename.c_str());
  };
  expect_not_written(box_problem(), [](LevelHierarchy &h) { h.levels[2].boxes[5].size[0] *= 2; }, "changed cell size");
  expect_not_written(box_problem(),
                     [](LevelHierarchy &h) {
                       auto &n = h.levels[1].neighbors;
                       for (auto &faces : n)
                         for (int &neighbor : faces)
                           if (neighbor == face_neighbor::boundary(0))
                             {
                               neighbor = face_neighbor::boundary(9);
                               return;
                             }
                     },
                     "differs between levels");
  expect_not_written(box_problem(), [](LevelHierarchy &h) { std::swap(h.levels[2].neighbors[0][1], h.levels[2].neighbors[0][3]); },
                     "level 2 cell 0");
  expect_not_written(box_problem(), [](LevelHierarchy &h) { h.levels[1].n_owned_cells = 40; }, "a problem file holds a serial hierarchy");
}
