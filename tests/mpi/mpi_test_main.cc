// GoogleTest under MPI: every rank runs every test; rank 0 prints the
// report, the other ranks print their failures with their rank. The exit
// code is the worst over the ranks, so a failure on any rank fails the run.
// A test must not ASSERT between collective calls (a rank that leaves early
// would leave the others waiting): tests collect their checks and compare
// after the last collective call.

#include <gtest/gtest.h>

#include <mpi.h>

#include <iostream>

namespace
{
  class RankFailurePrinter : public ::testing::EmptyTestEventListener
  {
  public:
    explicit RankFailurePrinter(const int rank)
      : rank_(rank)
    {}
    void
    OnTestPartResult(const ::testing::TestPartResult &result) override
    {
      if (result.failed())
        std::cerr << "[rank " << rank_ << "] " << (result.file_name() ? result.file_name() : "") << ":"
                  << result.line_number() << ": " << result.summary() << std::endl;
    }

  private:
    int rank_;
  };
} // namespace

int
main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0)
    {
      ::testing::TestEventListeners &listeners = ::testing::UnitTest::GetInstance()->listeners();
      delete listeners.Release(listeners.default_result_printer());
      listeners.Append(new RankFailurePrinter(rank));
    }
  const int result = RUN_ALL_TESTS();
  int       worst  = result;
  MPI_Allreduce(&result, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return worst;
}
