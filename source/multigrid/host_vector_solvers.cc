#include <cellwise/base/exceptions.h>
#include <cellwise/base/parallel.h>
#include <cellwise/base/system_memory.h>
#include <cellwise/multigrid/multigrid_solver.h>
#include <cellwise/multigrid/hermite_multigrid_solver.h>
#include <cellwise/multigrid/host_vector_solvers.h>
#include <cellwise/storage/numbered_vector_transfer.h>
#ifdef CELLWISE_WITH_CUDA
#  include <cellwise/base/cuda_check.h>
#endif

#include <chrono>
#include <utility>

namespace cellwise
{
  std::string
  backend_unavailable_reason(const Backend backend)
  {
    if (backend == Backend::host)
      return {};
#ifdef CELLWISE_WITH_CUDA
    if (cuda::device_available())
      return {};
    return "the cuda backend needs a CUDA device: " + cuda::device_description();
#else
    return "this build of cellwise has no CUDA backend (configure with CUDA to use --backend cuda)";
#endif
  }

  std::string
  backend_description(const Backend backend)
  {
    if (backend == Backend::host)
      return "host: " + std::to_string(loop_executor().n_threads()) + " threads (" + loop_executor().name() + ")";
#ifdef CELLWISE_WITH_CUDA
    return "device: " + cuda::device_description();
#else
    return "device: none (" + backend_unavailable_reason(backend) + ")";
#endif
  }

  std::size_t
  backend_free_memory(const Backend backend)
  {
    if (backend == Backend::host)
      return available_host_memory();
#ifdef CELLWISE_WITH_CUDA
    return cuda::free_device_memory();
#else
    return 0;
#endif
  }

  namespace
  {
    /// The conversions of a NumberedVectorSolver on the host, around the
    /// cell-vector solve and cycle of @p solver.
    class HostNumberedSolver : public NumberedVectorSolver
    {
    public:
      HostNumberedSolver(const HostVectorSolver &solver, const DofNumbering &numbering)
        : solver_(solver)
        , numbering_(numbering)
        , copies_(make_dof_copies(numbering, "cellwise::HostVectorSolver::numbered"))
      {}

      SolveStatistics
      solve(double *u, const double *b, const bool zero_guess, IterationControl &control) const override
      {
        CellVector<double> cell_u, cell_b;
        scatter_balanced(numbering_, copies_, b, cell_b);
        if (zero_guess)
          cell_u.reinit(cell_b.n_cells(), cell_b.degree());
        else
          gather(numbering_, u, cell_u);
        const SolveStatistics statistics = solver_.solve(cell_u, cell_b, control);
        gather_first_copies(copies_, cell_u, u);
        return statistics;
      }

      void
      precondition(double *z, const double *r) const override
      {
        CellVector<double> cell_r, cell_z;
        scatter_balanced(numbering_, copies_, r, cell_r);
        solver_.precondition(cell_z, cell_r);
        gather_first_copies(copies_, cell_z, z);
      }

    private:
      const HostVectorSolver &solver_;
      const DofNumbering      numbering_;
      const DofCopies         copies_;
    };

    /// The host solvers behind the host-vector interface, timed on the wall.
    template <typename Solver, typename Interface>
    class HostSolver : public Interface
    {
    public:
      /// The solver's own constructor arguments.
      template <typename... Arguments>
      explicit HostSolver(Arguments &&...arguments)
        : solver_(std::forward<Arguments>(arguments)...)
      {}

      SolveStatistics
      solve(CellVector<double> &u, const CellVector<double> &b, IterationControl &control) const override
      {
        const auto            start      = std::chrono::steady_clock::now();
        const SolveStatistics statistics = solver_.solve(u, b, control);
        seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        return statistics;
      }

      void
      precondition(CellVector<double> &z, const CellVector<double> &r) const override
      {
        if (z.n_cells() != r.n_cells() || z.degree() != r.degree())
          z.reinit(r.n_cells(), r.degree());
        solver_.preconditioner().vmult(z, r);
      }

      Backend
      backend() const override
      {
        return Backend::host;
      }

      double
      last_solve_seconds() const override
      {
        return seconds_;
      }

      const Solver &
      solver() const
      {
        return solver_;
      }

    protected:
      Solver         solver_;
      mutable double seconds_ = 0;
    };

    class HostAdaptiveSolver : public HostSolver<MultigridSolver, AdaptiveHostVectorSolver>
    {
    public:
      using HostSolver::HostSolver;

      const ActiveMesh &
      active_mesh() const override
      {
        return solver_.active_mesh();
      }
    };

    void
    check_backend(const Backend backend)
    {
      const std::string reason = backend_unavailable_reason(backend);
      CELLWISE_CHECK(reason.empty(), reason);
    }
  } // namespace

  std::unique_ptr<NumberedVectorSolver>
  HostVectorSolver::numbered(const DofNumbering &numbering) const
  {
    return std::make_unique<HostNumberedSolver>(*this, numbering);
  }

  std::unique_ptr<HostVectorSolver>
  make_host_vector_solver(const LevelHierarchy      &hierarchy,
                          const unsigned int         degree,
                          const MultigridParameters &parameters,
                          std::ostream              *log)
  {
    const Backend backend = parameters.backend;
    check_backend(backend);
    if (backend == Backend::host)
      return std::make_unique<HostSolver<MultigridSolver, HostVectorSolver>>(hierarchy, degree, parameters, log);
#ifdef CELLWISE_WITH_CUDA
    return cuda::make_host_vector_solver(hierarchy, degree, parameters, log);
#else
    return nullptr; // not reached: check_backend refused
#endif
  }

  std::unique_ptr<HostVectorSolver>
  make_hermite_host_vector_solver(const LevelHierarchy             &hierarchy,
                                  const HermiteMultigridParameters &parameters,
                                  const Backend                     backend,
                                  std::ostream                     *log)
  {
    check_backend(backend);
    if (backend == Backend::host)
      return std::make_unique<HostSolver<HermiteMultigridSolver, HostVectorSolver>>(hierarchy, parameters, log);
#ifdef CELLWISE_WITH_CUDA
    return cuda::make_hermite_host_vector_solver(hierarchy, parameters, log);
#else
    return nullptr; // not reached: check_backend refused
#endif
  }

  std::unique_ptr<AdaptiveHostVectorSolver>
  make_adaptive_host_vector_solver(const LevelHierarchy      &hierarchy,
                                   const unsigned int         degree,
                                   const MultigridParameters &parameters,
                                   std::ostream              *log)
  {
    const Backend backend = parameters.backend;
    check_backend(backend);
    if (backend == Backend::host)
      return std::make_unique<HostAdaptiveSolver>(hierarchy, degree, parameters, log);
#ifdef CELLWISE_WITH_CUDA
    return cuda::make_adaptive_host_vector_solver(hierarchy, degree, parameters, log);
#else
    return nullptr;
#endif
  }
} // namespace cellwise
