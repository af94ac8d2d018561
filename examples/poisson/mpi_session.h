#pragma once
// MPI in the main program: under `mpirun -np N` (N > 1) the Poisson solve
// runs on the distributed solver (doc/mpi.md) and only rank 0 writes
// standard output; with one rank, or a build without MPI, the program is
// the serial one.

#include <cellwise/mesh/level.h>
#include <cellwise/multigrid/host_vector_solvers.h>
#include <cellwise/multigrid/multigrid_solver.h>

#include <iosfwd>
#include <memory>
#include <streambuf>
#include <string>

namespace poisson_program
{
  class MpiSession
  {
  public:
    /// MPI_Init (where built with MPI); ranks > 0 write nothing to std::cout.
    MpiSession(int &argc, char **&argv);
    /// MPI_Finalize
    ~MpiSession();
    MpiSession(const MpiSession &) = delete;
    MpiSession &
    operator=(const MpiSession &) = delete;

    int
    rank() const
    {
      return rank_;
    }
    int
    size() const
    {
      return size_;
    }

  private:
    int             rank_ = 0, size_ = 1;
    std::streambuf *saved_cout_ = nullptr;
  };

  /// The number of ranks of the session (1 without MPI) and this one's.
  int
  mpi_ranks();
  int
  mpi_rank();

  /// For the distributed solver, a line about the last solve's exchanges
  /// (this rank's exchange time alone and the largest over the ranks;
  /// collective); empty for the others.
  std::string
  exchange_summary(const cellwise::HostVectorSolver &solver);

  /// The solver of the finest level: the distributed one on more than one
  /// rank, otherwise make_host_vector_solver's.
  std::unique_ptr<cellwise::HostVectorSolver>
  make_solver(const cellwise::LevelHierarchy      &hierarchy,
              unsigned int                         degree,
              const cellwise::MultigridParameters &parameters,
              std::ostream                        *log);

  /// The solver of a locally refined hierarchy (local smoothing, active
  /// vectors): the distributed one on more than one rank, otherwise
  /// make_adaptive_host_vector_solver's.
  std::unique_ptr<cellwise::AdaptiveHostVectorSolver>
  make_adaptive_solver(const cellwise::LevelHierarchy      &hierarchy,
                       unsigned int                         degree,
                       const cellwise::MultigridParameters &parameters,
                       std::ostream                        *log);
} // namespace poisson_program
