#include "mpi_session.h"

#include <cmath>
#include <iostream>
#include <sstream>
#include <utility>

#ifdef CELLWISE_POISSON_WITH_MPI
#  include <cellwise/base/mpi_check.h>
#  include <cellwise/base/mpi_rank_agreement.h>
#  include <cellwise/mesh/box_partition.h>
#  include <cellwise/mesh/mapped_partitioned_hierarchy.h>
#  include <cellwise/multigrid/mpi_distributed_multigrid_solver.h>

#  include <mpi.h>
#endif

namespace poisson_program
{
  namespace
  {
    int session_ranks = 1, session_rank = 0;

    /// Discards what ranks > 0 would print (the results are rank 0's).
    class NullBuffer : public std::streambuf
    {
    protected:
      int
      overflow(const int c) override
      {
        return traits_type::not_eof(c);
      }
    };
    NullBuffer null_buffer;

#ifdef CELLWISE_POISSON_WITH_MPI
    /// The distributed solver on a locally refined hierarchy, as the
    /// program's adaptive solve takes it (active vectors).
    class DistributedAdaptiveSolver : public cellwise::AdaptiveHostVectorSolver
    {
    public:
      DistributedAdaptiveSolver(const cellwise::LevelHierarchy      &hierarchy,
                                const unsigned int                   degree,
                                const cellwise::MultigridParameters &parameters,
                                std::ostream                        *log)
        : solver_(hierarchy, degree, parameters, MPI_COMM_WORLD, log)
      {}
      cellwise::SolveStatistics
      solve(cellwise::CellVector<double> &u, const cellwise::CellVector<double> &b, cellwise::IterationControl &control) const override
      {
        return solver_.solve(u, b, control);
      }
      void
      precondition(cellwise::CellVector<double> &z, const cellwise::CellVector<double> &r) const override
      {
        solver_.precondition(z, r);
      }
      cellwise::Backend
      backend() const override
      {
        return solver_.backend();
      }
      double
      last_solve_seconds() const override
      {
        return solver_.last_solve_seconds();
      }
      const cellwise::ActiveMesh &
      active_mesh() const override
      {
        return *solver_.active_mesh();
      }
      const cellwise::DistributedMultigridSolver &
      distributed() const
      {
        return solver_;
      }

    private:
      cellwise::DistributedMultigridSolver solver_;
    };

    /// The distributed solver whose host vectors are this rank's part of
    /// the finest level (owned cells, then ghosts): nothing whole on any
    /// rank. Ghost values of b and u are not read; u's come back zero.
    class LocalVectorSolver : public cellwise::HostVectorSolver
    {
    public:
      explicit LocalVectorSolver(std::unique_ptr<cellwise::DistributedMultigridSolver> solver)
        : solver_(std::move(solver))
      {}
      cellwise::SolveStatistics
      solve(cellwise::CellVector<double> &u, const cellwise::CellVector<double> &b, cellwise::IterationControl &control) const override
      {
        auto distributed_b = distribute(b), distributed_u = distribute(u);
        const cellwise::SolveStatistics statistics = solver_->solve(distributed_u, distributed_b, control);
        u                                          = std::move(distributed_u.local());
        return statistics;
      }
      void
      precondition(cellwise::CellVector<double> &z, const cellwise::CellVector<double> &r) const override
      {
        (void)z;
        (void)r;
        throw cellwise::Error("LocalVectorSolver::precondition: not used by the program");
      }
      cellwise::Backend
      backend() const override
      {
        return solver_->backend();
      }
      double
      last_solve_seconds() const override
      {
        return solver_->last_solve_seconds();
      }
      const cellwise::DistributedMultigridSolver &
      distributed() const
      {
        return *solver_;
      }

    private:
      /// A distributed vector holding @p v (empty: an empty vector, the
      /// zero guess)
      cellwise::DistributedMultigridSolver::VectorType
      distribute(const cellwise::CellVector<double> &v) const
      {
        if (v.n_cells() == 0)
          return {};
        // one parallel copy into unzeroed memory (4 GB per rank at L = 8)
        cellwise::CellVector<double> values;
        values.reinit(v.n_cells(), v.degree(), true);
        values.copy_from(v);
        return cellwise::DistributedMultigridSolver::VectorType(solver_->outer_level(), std::move(values));
      }

      std::unique_ptr<cellwise::DistributedMultigridSolver> solver_;
    };
#endif
  } // namespace

  MpiSession::MpiSession(int &argc, char **&argv)
  {
#ifdef CELLWISE_POISSON_WITH_MPI
    int provided = 0;
    CELLWISE_MPI_CHECK(MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided));
    rank_ = cellwise::mpi_rank(MPI_COMM_WORLD);
    size_ = cellwise::mpi_size(MPI_COMM_WORLD);
    if (rank_ > 0)
      saved_cout_ = std::cout.rdbuf(&null_buffer);
#else
    (void)argc;
    (void)argv;
#endif
    session_ranks = size_;
    session_rank  = rank_;
  }

  std::string
  MpiSession::command_line_disagreement(const int argc, char **argv) const
  {
#ifdef CELLWISE_POISSON_WITH_MPI
    std::string command_line;
    for (int i = 1; i < argc; ++i)
      command_line += (i > 1 ? " " : "") + std::string(argv[i]);
    try
      {
        cellwise::RankAgreement("the ranks' command lines").add("the options", command_line).check(MPI_COMM_WORLD);
      }
    catch (const cellwise::Error &e)
      {
        return std::string(e.what()) + " (every rank runs the same problem: give them one command line)";
      }
#else
    (void)argc;
    (void)argv;
#endif
    return {};
  }

  MpiSession::~MpiSession()
  {
    if (saved_cout_)
      std::cout.rdbuf(saved_cout_);
#ifdef CELLWISE_POISSON_WITH_MPI
    MPI_Finalize();
#endif
  }

  int
  mpi_ranks()
  {
    return session_ranks;
  }

  int
  mpi_rank()
  {
    return session_rank;
  }

  double
  largest_over_ranks(const double value)
  {
    double largest = value;
#ifdef CELLWISE_POISSON_WITH_MPI
    if (session_ranks > 1)
      CELLWISE_MPI_CHECK(MPI_Allreduce(&value, &largest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
#endif
    return largest;
  }

  std::string
  exchange_summary(const cellwise::HostVectorSolver &solver)
  {
#ifdef CELLWISE_POISSON_WITH_MPI
    const auto *distributed = dynamic_cast<const cellwise::DistributedMultigridSolver *>(&solver);
    if (const auto *adaptive = dynamic_cast<const DistributedAdaptiveSolver *>(&solver))
      distributed = &adaptive->distributed();
    if (const auto *local = dynamic_cast<const LocalVectorSolver *>(&solver))
      distributed = &local->distributed();
    if (distributed)
      {
        const double mine = distributed->last_exchange_seconds();
        double       most = 0;
        CELLWISE_MPI_CHECK(MPI_Allreduce(&mine, &most, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
        std::ostringstream out;
        out << "  exchanges in the solve: " << mine << " s on rank 0 (the most on a rank " << most << " s) of "
            << distributed->last_solve_seconds() << " s";
        return out.str();
      }
#else
    (void)solver;
#endif
    return {};
  }

  std::unique_ptr<cellwise::HostVectorSolver>
  make_solver(const cellwise::LevelHierarchy      &hierarchy,
              const unsigned int                   degree,
              const cellwise::MultigridParameters &parameters,
              std::ostream                        *log)
  {
#ifdef CELLWISE_POISSON_WITH_MPI
    if (session_ranks > 1)
      return std::make_unique<cellwise::DistributedMultigridSolver>(hierarchy, degree, parameters, MPI_COMM_WORLD, log);
#endif
    return cellwise::make_host_vector_solver(hierarchy, degree, parameters, log);
  }

  FinestLevelSolver
  make_box_partition_solver(const cellwise::BoxDescription      &box,
                            const int                            L,
                            const unsigned int                   degree,
                            const cellwise::MultigridParameters &parameters,
                            std::ostream                        *log,
                            const cellwise::PointMap            &map)
  {
    FinestLevelSolver result;
#ifdef CELLWISE_POISSON_WITH_MPI
    std::shared_ptr<const cellwise::PartitionedHierarchy> partition = std::make_shared<const cellwise::BoxPartition>(
      box, static_cast<unsigned int>(L), session_ranks, cellwise::CellOrdering::child_major);
    if (map)
      partition = std::make_shared<const cellwise::MappedPartitionedHierarchy>(partition, 1, map);
    auto solver = std::make_unique<cellwise::DistributedMultigridSolver>(partition, degree, parameters, MPI_COMM_WORLD, log);
    result.fine                = &solver->outer_level()->local->level;
    result.n_cells             = partition->n_cells(static_cast<unsigned int>(L));
    result.distributed_vectors = true;
    result.solver              = std::make_unique<LocalVectorSolver>(std::move(solver));
#else
    (void)box;
    (void)L;
    (void)degree;
    (void)parameters;
    (void)log;
    (void)map;
    throw cellwise::Error("make_box_partition_solver: this build has no MPI");
#endif
    return result;
  }

  double
  l2_error(const FinestLevelSolver &target, const cellwise::CellVector<double> &u, const cellwise::ScalarFunction &exact,
           const unsigned int n_q_points)
  {
    const double error = cellwise::compute_l2_error(*target.fine, u, exact, true, n_q_points);
    if (!target.distributed_vectors)
      return error;
    double sum = 0;
#ifdef CELLWISE_POISSON_WITH_MPI
    const double square = error * error;
    CELLWISE_MPI_CHECK(MPI_Allreduce(&square, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
#endif
    return std::sqrt(sum);
  }

  std::unique_ptr<cellwise::AdaptiveHostVectorSolver>
  make_adaptive_solver(const cellwise::LevelHierarchy      &hierarchy,
                       const unsigned int                   degree,
                       const cellwise::MultigridParameters &parameters,
                       std::ostream                        *log)
  {
#ifdef CELLWISE_POISSON_WITH_MPI
    if (session_ranks > 1)
      return std::make_unique<DistributedAdaptiveSolver>(hierarchy, degree, parameters, log);
#endif
    return cellwise::make_adaptive_host_vector_solver(hierarchy, degree, parameters, log);
  }
} // namespace poisson_program
