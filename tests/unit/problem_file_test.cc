// The problem file (storage/problem_file.h): a round trip keeps every field
// bit for bit, uniform and locally refined, with and without a coefficient,
// on curved (mapped) and unstructured meshes (mapping nodes, skeleton faces);
// version-1 and version-2 files (no coefficient section; no mapping and
// skeleton sections) are still read; a skeleton or mapping that the solvers
// could not index is refused; the coefficient
// as a function gives every cell its stored value (the cell averages of the
// operator are the stored values); a truncated, foreign, corrupt, newer or
// missing file gets its own clear error and never a problem.

#include <cellwise/base/exceptions.h>
#include <cellwise/mesh/adaptive_builder.h>
#include <cellwise/mesh/box_builder.h>
#include <cellwise/mesh/cell_mapping.h>
#include <cellwise/mesh/unstructured_builder.h>
#include <cellwise/operators/laplace_operator.h>
#include <cellwise/storage/problem_file.h>

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cmath>
#include <cstring>
#include <functional>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "test_utilities.h"

using namespace cellwise;
using namespace cellwise::testing;

namespace
{
  /// A Q2 problem on the finest level of @p hierarchy with seeded random
  /// vectors (seeds @p seed and @p seed + 1).
  Problem
  random_problem(LevelHierarchy hierarchy, const std::string &description, const unsigned int seed)
  {
    Problem problem;
    problem.hierarchy    = std::move(hierarchy);
    problem.degree       = 2;
    problem.description  = description;
    const unsigned int n = problem.hierarchy.levels.back().n_cells();
    problem.rhs.reinit(n, 2);
    problem.solution.reinit(n, 2);
    fill_random(problem.rhs, seed);
    fill_random(problem.solution, seed + 1);
    return problem;
  }

  Problem
  box_problem()
  {
    Problem problem = random_problem(make_box_hierarchy(BoxDescription{{0., -1., 0.5}, {1.5, 1., 1.3}, {3, 2, 1}}, 2),
                                     "box 3 x 2 x 1, Q2, L = 2", 5);
    problem.dirichlet_ids = {0, 3};
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

  void
  expect_read_error(const std::string &filename, const std::string &phrase)
  {
    try
      {
        read_problem_file(filename);
        ADD_FAILURE() << "read without error; expected '" << phrase << "'";
      }
    catch (const Error &e)
      {
        EXPECT_NE(std::string(e.what()).find(phrase), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find(filename), std::string::npos) << e.what();
      }
  }

  void
  expect_equal(const Problem &a, const Problem &b)
  {
    EXPECT_EQ(a.degree, b.degree);
    EXPECT_EQ(a.dirichlet_ids, b.dirichlet_ids);
    EXPECT_EQ(a.locally_refined, b.locally_refined);
    EXPECT_EQ(a.description, b.description);
    EXPECT_EQ(a.hierarchy.coarse_subdivisions, b.hierarchy.coarse_subdivisions);
    ASSERT_EQ(a.hierarchy.n_levels(), b.hierarchy.n_levels());
    for (unsigned int l = 0; l < a.hierarchy.n_levels(); ++l)
      {
        const Level &x = a.hierarchy.levels[l], &y = b.hierarchy.levels[l];
        ASSERT_EQ(x.n_cells(), y.n_cells());
        EXPECT_EQ(x.n_owned_cells, y.n_owned_cells);
        for (unsigned int c = 0; c < x.n_cells(); ++c)
          {
            EXPECT_EQ(x.boxes[c].lower, y.boxes[c].lower);
            EXPECT_EQ(x.boxes[c].size, y.boxes[c].size);
          }
        EXPECT_EQ(x.coordinates, y.coordinates);
        EXPECT_EQ(x.parent, y.parent);
        EXPECT_EQ(x.child_slot, y.child_slot);
        EXPECT_EQ(x.children, y.children);
        EXPECT_EQ(x.neighbors, y.neighbors);
        EXPECT_EQ(x.flags, y.flags);
        EXPECT_EQ(x.mapping.degree, y.mapping.degree);
        ASSERT_EQ(x.mapping.nodes.size(), y.mapping.nodes.size());
        for (std::size_t i = 0; i < x.mapping.nodes.size(); ++i)
          ASSERT_EQ(x.mapping.nodes[i], y.mapping.nodes[i]);
        ASSERT_EQ(x.skeleton_faces.size(), y.skeleton_faces.size());
        for (std::size_t k = 0; k < x.skeleton_faces.size(); ++k)
          {
            const SkeletonFace &f = x.skeleton_faces[k], &g = y.skeleton_faces[k];
            EXPECT_TRUE(f.cell == g.cell && f.face == g.face && f.neighbor == g.neighbor &&
                        f.neighbor_face == g.neighbor_face && f.orientation == g.orientation)
              << "skeleton face " << k;
          }
        EXPECT_EQ(x.skeleton_mask, y.skeleton_mask);
      }
    for (const auto &[v, w] : {std::pair{&a.rhs, &b.rhs}, std::pair{&a.solution, &b.solution}})
      {
        ASSERT_EQ(v->n_cells(), w->n_cells());
        ASSERT_EQ(v->degree(), w->degree());
        for (std::size_t k = 0; k < v->storage_size(); ++k)
          ASSERT_EQ(v->data()[k], w->data()[k]);
      }
    EXPECT_EQ(a.cell_coefficients, b.cell_coefficients);
  }

  /// One positive value per cell of the vectors, seeded.
  std::vector<double>
  random_coefficients(const std::size_t n, const unsigned int seed)
  {
    std::vector<double> a = random_vector(n, seed);
    for (double &value : a)
      value = 1.5 + value; // random_vector is in [-1, 1]
    return a;
  }

  /// The stored values are those the cell-wise operator gets from the
  /// function on the cells of the vectors.
  void
  expect_function_reproduces_values(const Problem &problem, const Level &vector_cells)
  {
    const ScalarFunction      a        = cell_coefficient_function(problem);
    const std::vector<double> averages = cell_coefficient_averages(vector_cells, problem.degree, a);
    ASSERT_EQ(averages.size(), problem.cell_coefficients.size());
    for (std::size_t c = 0; c < averages.size(); ++c)
      ASSERT_NEAR(averages[c], problem.cell_coefficients[c], 1e-14 * problem.cell_coefficients[c]) << "cell " << c;
  }

  /// @p bytes of a version-3 file of @p problem (box cells, no coefficient)
  /// as the older @p version wrote them: without the mapping and skeleton
  /// sections of each level (4 + 4 zero bytes after its cells) and, for
  /// version 1, without the empty coefficient section; the checksum anew.
  std::uint64_t
  fnv1a(const std::vector<char> &bytes);

  std::vector<char>
  as_older_version(std::vector<char> bytes, const Problem &problem, const char version)
  {
    bytes.resize(bytes.size() - 8); // the checksum
    if (version == 1)
      bytes.resize(bytes.size() - 4);
    std::size_t at = 8 + 4 + 4 + 4 + 4 + 12 + 1 + 4 + 4 + 4 * problem.dirichlet_ids.size() + problem.description.size();
    for (const Level &level : problem.hierarchy.levels)
      {
        at += 8 + std::size_t(level.n_cells()) * (6 * 8 + 3 * 4 + 4 + 1 + 8 * 4 + 6 * 4 + 1);
        bytes.erase(bytes.begin() + std::ptrdiff_t(at), bytes.begin() + std::ptrdiff_t(at + 8));
      }
    bytes[8]                 = version;
    const std::uint64_t hash = fnv1a(bytes);
    bytes.resize(bytes.size() + 8);
    std::memcpy(bytes.data() + bytes.size() - 8, &hash, 8);
    return bytes;
  }

  /// FNV-1a 64, the file's checksum.
  std::uint64_t
  fnv1a(const std::vector<char> &bytes)
  {
    std::uint64_t hash = 14695981039346656037ull;
    for (const char byte : bytes)
      hash = (hash ^ static_cast<unsigned char>(byte)) * 1099511628211ull;
    return hash;
  }
} // namespace

TEST(ProblemFile, RoundTripIsExactOnABox)
{
  const Problem     problem  = box_problem();
  const std::string filename = temporary_file("box");
  write_problem_file(filename, problem);
  expect_equal(problem, read_problem_file(filename));
  std::remove(filename.c_str());
}

TEST(ProblemFile, CoefficientRoundTripAndLookupOnABox)
{
  Problem problem           = box_problem();
  problem.cell_coefficients = random_coefficients(problem.rhs.n_cells(), 9);
  const std::string filename = temporary_file("box_coefficient");
  write_problem_file(filename, problem);
  const Problem read = read_problem_file(filename);
  expect_equal(problem, read);
  expect_function_reproduces_values(read, read.hierarchy.levels.back());
  std::remove(filename.c_str());

  problem.cell_coefficients.pop_back();
  EXPECT_THROW(write_problem_file(filename, problem), Error);
  problem.cell_coefficients.push_back(-1.);
  EXPECT_THROW(write_problem_file(filename, problem), Error);
  EXPECT_THROW(cell_coefficient_function(box_problem()), Error);
}

TEST(ProblemFile, VersionOneAndTwoFilesAreRead)
{
  const Problem     problem  = box_problem();
  const std::string filename = temporary_file("older");
  write_problem_file(filename, problem);
  const std::vector<char> bytes = file_bytes(filename);
  for (const char version : {char(1), char(2)})
    {
      SCOPED_TRACE(::testing::Message() << "version " << int(version));
      write_bytes(filename, as_older_version(bytes, problem, version));
      expect_equal(problem, read_problem_file(filename));
    }
  std::remove(filename.c_str());
}

TEST(ProblemFile, RoundTripIsExactOnALocallyRefinedMesh)
{
  Problem problem;
  const BoxDescription box;
  problem.hierarchy       = make_adaptive_box_hierarchy(box, 1, 2, make_octant_marker(box));
  problem.degree          = 3;
  problem.locally_refined = true;
  const unsigned int n    = problem.hierarchy.n_active_cells();
  problem.rhs.reinit(n, 3);
  problem.solution.reinit(n, 3);
  fill_random(problem.rhs, 7);
  fill_random(problem.solution, 8);
  const std::string filename = temporary_file("adaptive");
  write_problem_file(filename, problem);
  expect_equal(problem, read_problem_file(filename));

  // with a coefficient on the active cells (levels 1 and 2): the lookup
  // finds every active cell's value
  problem.cell_coefficients = random_coefficients(n, 10);
  write_problem_file(filename, problem);
  const Problem read = read_problem_file(filename);
  expect_equal(problem, read);
  Level active_cells; // the active cells in the vectors' order, as ActiveMesh
  for (const Level &level : read.hierarchy.levels)
    for (unsigned int c = 0; c < level.n_cells(); ++c)
      if (level.is_active(c))
        active_cells.boxes.push_back(level.boxes[c]);
  expect_function_reproduces_values(read, active_cells);
  std::remove(filename.c_str());
}

TEST(ProblemFile, BadFilesGetClearErrors)
{
  const std::string good = temporary_file("good");
  write_problem_file(good, box_problem());
  const std::vector<char> bytes = file_bytes(good);
  const std::string       bad   = temporary_file("bad");

  expect_read_error(temporary_file("does_not_exist"), "cannot be opened");

  write_bytes(bad, std::vector<char>(bytes.begin(), bytes.begin() + 12));
  expect_read_error(bad, "too short");

  for (const std::size_t cut : {std::size_t(60), bytes.size() / 2, bytes.size() - 9, bytes.size() - 1})
    {
      write_bytes(bad, std::vector<char>(bytes.begin(), bytes.begin() + cut));
      expect_read_error(bad, "truncated");
    }

  std::vector<char> foreign(bytes.size(), 'x');
  write_bytes(bad, foreign);
  expect_read_error(bad, "not a cellwise problem file");

  std::vector<char> newer = bytes;
  newer[8]                = 4; // version 4
  write_bytes(bad, newer);
  expect_read_error(bad, "format version 4");

  // a flipped bit in a vector value, in a cell box and in the checksum
  for (const std::size_t at : {bytes.size() - 100, std::size_t(120), bytes.size() - 3})
    {
      std::vector<char> corrupt = bytes;
      corrupt[at] ^= 0x10;
      write_bytes(bad, corrupt);
      expect_read_error(bad, "problem file");
    }
  std::vector<char> corrupt_value = bytes;
  corrupt_value[bytes.size() - 100] ^= 0x10;
  write_bytes(bad, corrupt_value);
  expect_read_error(bad, "checksum mismatch");

  std::vector<char> trailing = bytes;
  trailing.push_back('\0');
  write_bytes(bad, trailing);
  expect_read_error(bad, "trailing bytes");

  // a cell count far beyond the file: refused before any allocation
  std::vector<char> huge = bytes;
  const std::size_t first_level = 8 + 4 + 4 + 4 + 4 + 12 + 1 + 4 + 4 + 2 * 4 + box_problem().description.size();
  huge[first_level + 3]         = 0x7f;
  write_bytes(bad, huge);
  expect_read_error(bad, "do not fit");

  std::remove(good.c_str());
  std::remove(bad.c_str());
}

TEST(ProblemFile, InconsistentProblemsAreNotWritten)
{
  Problem problem = box_problem();
  problem.rhs.reinit(3, 2);
  EXPECT_THROW(write_problem_file(temporary_file("inconsistent"), problem), Error);
  EXPECT_THROW(write_problem_file("/nonexistent-directory/problem.cwp", box_problem()), Error);
  // a coefficient per cell is looked up by lattice position: not with a mapping
  Problem curved = box_problem();
  map_hierarchy(curved.hierarchy, 1, [](const Point &x) { return Point{{x[0] + 0.1 * x[1] * x[1], x[1], x[2]}}; });
  curved.cell_coefficients = random_coefficients(curved.hierarchy.levels.back().n_cells(), 3);
  EXPECT_THROW(write_problem_file(temporary_file("curved"), curved), Error);
}

namespace
{
  /// The ball of deal.II's hyper_ball (7 blocks, skeleton faces between
  /// them) refined twice, each level mapped with degree 2.
  Problem
  ball_problem()
  {
    return random_problem(make_unstructured_hierarchy(make_ball_coarse_mesh(), 2, 2), "ball, L = 2, Q2, mapping degree 2", 11);
  }
} // namespace

TEST(ProblemFile, RoundTripIsExactOnCurvedAndUnstructuredMeshes)
{
  Problem kershaw = box_problem();
  map_hierarchy(kershaw.hierarchy, 3, [](const Point &x) { return Point{{x[0] + 0.1 * x[1] * x[1], x[1], x[2] - 0.05 * x[0]}}; });
  const Problem ball = ball_problem();
  ASSERT_TRUE(ball.hierarchy.levels.back().has_skeleton());
  for (const Problem *problem : {static_cast<const Problem *>(&kershaw), &ball})
    {
      SCOPED_TRACE(problem->description);
      const std::string filename = temporary_file("mapped");
      write_problem_file(filename, *problem);
      expect_equal(*problem, read_problem_file(filename));
      std::remove(filename.c_str());
    }
}

// A skeleton face the DSS would follow to the wrong nodes, or a mapping node
// that is not a number, is refused by name when the file is read (the writer
// takes the levels as they are).
TEST(ProblemFile, CorruptSkeletonsAndMappingsGetClearErrors)
{
  const std::string filename = temporary_file("corrupt_skeleton");
  auto              expect   = [&](const std::function<void(Level &)> &spoil, const std::string &phrase) {
    Problem problem = ball_problem();
    spoil(problem.hierarchy.levels[1]);
    write_problem_file(filename, problem);
    expect_read_error(filename, phrase);
  };
  expect([](Level &l) { l.skeleton_faces[0].neighbor = (l.skeleton_faces[0].neighbor + 1) % int(l.n_cells()); },
         "does not agree with the neighbour table");
  expect([](Level &l) { l.skeleton_faces[3].face = 6; }, "does not exist");
  expect([](Level &l) { l.skeleton_faces[2].orientation ^= 2; }, "not inverse");
  expect([](Level &l) { l.skeleton_faces.pop_back(); }, "not listed from the neighbour's side");
  expect([](Level &l) { l.skeleton_faces.push_back(l.skeleton_faces[0]); }, "listed twice");
  expect([](Level &l) { l.mapping.nodes[5][1] = std::nan(""); }, "mapping is nan");
  expect([](Level &l) { l.mapping.degree = 9; l.mapping.nodes.resize(l.n_cells() * 1000); }, "at most 8");
  std::remove(filename.c_str());
}
