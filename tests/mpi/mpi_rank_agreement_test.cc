// Ranks that disagree (base/mpi_rank_agreement.h): when one rank of a job
// passes other parameters, another mesh or another stopping control than the
// others, every rank throws the same kind of clear error, naming what
// differs, within the test's timeout (before: one rank threw and the others
// waited forever, Open MPI aborted with MPI_ERR_TRUNCATE, or the job ended
// with an answer of no single problem). On one rank nothing can disagree:
// the same calls succeed.

#include <cellwise/base/mpi_check.h>
#include <cellwise/base/mpi_rank_agreement.h>
#include <cellwise/mesh/box_builder.h>
#include <cellwise/multigrid/mpi_distributed_multigrid_solver.h>
#include <cellwise/operators/function_tools.h>

#include <gtest/gtest.h>

#include <functional>
#include <string>

using namespace cellwise;

namespace
{
  /// Runs @p what on every rank; with several ranks, every rank must throw
  /// cellwise::Error whose message contains @p phrase; on one rank it must
  /// not throw.
  void
  expect_refused_on_every_rank(const std::function<void()> &what, const std::string &phrase)
  {
    const int size = mpi_size(MPI_COMM_WORLD);
    try
      {
        what();
        EXPECT_EQ(size, 1) << "accepted on rank " << mpi_rank(MPI_COMM_WORLD) << " of " << size;
      }
    catch (const Error &e)
      {
        EXPECT_GT(size, 1) << e.what();
        EXPECT_NE(std::string(e.what()).find(phrase), std::string::npos) << e.what();
      }
    // every rank got here: no rank is left in a collective call
    CELLWISE_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
  }

  bool
  last_rank()
  {
    return mpi_rank(MPI_COMM_WORLD) == mpi_size(MPI_COMM_WORLD) - 1;
  }
} // namespace

TEST(RankAgreement, NamesTheSettingsThatDifferWithRankZerosValue)
{
  expect_refused_on_every_rank(
    [] {
      RankAgreement("cellwise::Example").add("degree", 3).add("tolerance", last_rank() ? 1e-6 : 1e-8).add("smoother", "patch").check(MPI_COMM_WORLD);
    },
    "cellwise::Example: the ranks of this job disagree on what every rank must pass alike: tolerance: rank 0 has 1e-08, rank ");
  expect_refused_on_every_rank(
    [] {
      RankAgreement agreement("cellwise::Example");
      agreement.add("degree", 3);
      if (last_rank())
        agreement.add("extra", 1);
      agreement.check(MPI_COMM_WORLD);
    },
    "the ranks passed different numbers of settings");
  // the same settings pass on any number of ranks
  EXPECT_NO_THROW(RankAgreement("cellwise::Example").add("degree", 3).add("ids", std::vector<unsigned int>{0, 2}).check(MPI_COMM_WORLD));
}

TEST(RankAgreement, DistributedSolverSetUpRefusesParametersOrMeshesThatDiffer)
{
  const LevelHierarchy serial = make_box_hierarchy(BoxDescription{}, 2);
  const auto           set_up = [&](const MultigridParameters &parameters, const unsigned int degree, const LevelHierarchy &mesh) {
    const DistributedMultigridSolver solver(mesh, degree, parameters, MPI_COMM_WORLD);
  };
  MultigridParameters smoother;
  smoother.smoother = last_rank() ? SmootherType::jacobi : SmootherType::chebyshev;
  expect_refused_on_every_rank([&] { set_up(smoother, 2, serial); }, "smoother: rank 0 has chebyshev, rank ");
  MultigridParameters chebyshev;
  chebyshev.chebyshev_degree = last_rank() ? 3 : 4;
  expect_refused_on_every_rank([&] { set_up(chebyshev, 2, serial); }, "Chebyshev degree: rank 0 has 4");
  MultigridParameters precision;
  precision.precision = last_rank() ? Precision::mixed : Precision::fp64;
  expect_refused_on_every_rank([&] { set_up(precision, 2, serial); }, "precision: rank 0 has fp64");
  MultigridParameters ids;
  ids.dirichlet_ids = last_rank() ? std::vector<unsigned int>{0} : std::vector<unsigned int>{};
  expect_refused_on_every_rank([&] { set_up(ids, 2, serial); }, "Dirichlet ids: rank 0 has {}");
  expect_refused_on_every_rank([&] { set_up(MultigridParameters{}, last_rank() ? 3 : 2, serial); }, "degree: rank 0 has 2");
  // another box (same cell counts): the coarse level's digest differs
  BoxDescription other;
  other.upper                 = {{1., 1., last_rank() ? 2. : 1.}};
  const LevelHierarchy moved = make_box_hierarchy(other, 2);
  expect_refused_on_every_rank([&] { set_up(MultigridParameters{}, 2, moved); }, "coarse level: rank 0 has 1 cells, digest");
  // another refinement: the cell counts differ
  const LevelHierarchy finer = make_box_hierarchy(BoxDescription{}, last_rank() ? 3 : 2);
  expect_refused_on_every_rank([&] { set_up(MultigridParameters{}, 2, finer); }, "levels: rank 0 has 3");
}

TEST(RankAgreement, DistributedSolveRefusesStoppingControlsThatDiffer)
{
  const LevelHierarchy             serial = make_box_hierarchy(BoxDescription{}, 2);
  const DistributedMultigridSolver solver(serial, 2, MultigridParameters{}, MPI_COMM_WORLD);
  CellVector<double>               b;
  assemble_right_hand_side(serial.levels.back(), 2, [](const Point &x) { return 1. + x[0]; }, b);
  // another tolerance on one rank: the ranks' decisions part at some step
  expect_refused_on_every_rank(
    [&] {
      CellVector<double> u;
      MonitorControl     control(100, last_rank() ? 1e-4 : 1e-10);
      solver.solve(u, b, control);
    },
    "the ranks' stopping controls decided differently");
  // another iteration limit: one rank gives up where the others go on
  expect_refused_on_every_rank(
    [&] {
      CellVector<double> u;
      MonitorControl     control(last_rank() && mpi_size(MPI_COMM_WORLD) > 1 ? 2 : 100, 1e-10);
      solver.solve(u, b, control);
    },
    "decided differently");
  // and the same control on every rank solves
  CellVector<double> u;
  MonitorControl     control(100, 1e-10);
  EXPECT_NO_THROW(solver.solve(u, b, control));
}
