#pragma once
// MPI in the main program: under `mpirun -np N` (N > 1) the Poisson solve
// runs on the distributed solver (doc/mpi.md) and only rank 0 writes
// standard output; with one rank, or a build without MPI, the program is
// the serial one.

#include <cellwise/mesh/box_builder.h>
#include <cellwise/mesh/cell_mapping.h>
#include <cellwise/mesh/level.h>
#include <cellwise/multigrid/host_vector_solvers.h>
#include <cellwise/multigrid/multigrid_solver.h>
#include <cellwise/operators/function_tools.h>

#include <cstdint>

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

    /// Collective: empty where every rank was given the same command line,
    /// else the error naming the first rank's arguments and this one's (a
    /// rank with another --box or --solution would solve another problem;
    /// one with another --tolerance or --smoother would leave the others
    /// waiting in a collective call).
    std::string
    command_line_disagreement(int argc, char **argv) const;

  private:
    int             rank_ = 0, size_ = 1;
    std::streambuf *saved_cout_ = nullptr;
  };

  /// The number of ranks of the session (1 without MPI) and this one's.
  int
  mpi_ranks();
  int
  mpi_rank();

  /// The largest of @p value over the ranks (collective; @p value itself
  /// on one rank).
  double
  largest_over_ranks(double value);

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

  /// The finest level a rank works on and its solver, whose vectors are
  /// vectors of that level.
  struct FinestLevelSolver
  {
    std::unique_ptr<cellwise::HostVectorSolver> solver;
    /// The serial finest level, or on ranks this rank's part of it (owned
    /// cells, then ghosts)
    const cellwise::Level *fine = nullptr;
    /// Cells of the whole finest level.
    std::uint64_t n_cells = 0;
    /// Whether the vectors are this rank's part (the L2 error is then
    /// summed over the ranks).
    bool distributed_vectors = false;
  };

  /// On more than one rank: the uniform refinement @p L of @p box solved
  /// without a replicated hierarchy — each rank builds its own cells from
  /// a BoxPartition (mesh/box_partition.h), deformed by @p map where one is
  /// given (a mapping of degree 1, as map_hierarchy) — and the solver's
  /// vectors are the rank's part of the finest level. Throws where MPI is
  /// not built in.
  FinestLevelSolver
  make_box_partition_solver(const cellwise::BoxDescription      &box,
                            int                                  L,
                            unsigned int                         degree,
                            const cellwise::MultigridParameters &parameters,
                            std::ostream                        *log,
                            const cellwise::PointMap            &map = {});

  /// ‖u_h − u‖_L2 of @p u on @p target's finest level: summed over the
  /// ranks where the vectors are the ranks' parts (collective then).
  double
  l2_error(const FinestLevelSolver &target, const cellwise::CellVector<double> &u, const cellwise::ScalarFunction &exact,
           unsigned int n_q_points);

  /// The solver of a locally refined hierarchy (local smoothing, active
  /// vectors): the distributed one on more than one rank, otherwise
  /// make_adaptive_host_vector_solver's.
  std::unique_ptr<cellwise::AdaptiveHostVectorSolver>
  make_adaptive_solver(const cellwise::LevelHierarchy      &hierarchy,
                       unsigned int                         degree,
                       const cellwise::MultigridParameters &parameters,
                       std::ostream                        *log);
} // namespace poisson_program
