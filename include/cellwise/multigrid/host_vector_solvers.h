#pragma once
/**
 * @file
 * The solvers on host cell vectors whose levels live on the backend of the
 * caller's choice: the entry for programs that hold their vectors on the host
 * (the deal.II adapters, the main program) and want a backend by run-time
 * option. On Backend::cuda the hierarchy is uploaded once at set-up; a solve
 * moves u and b to the device and u back, once each, and nothing else crosses
 * the bus. On Backend::host these are the host solvers themselves.
 */

#include <cellwise/mesh/level.h>
#include <cellwise/multigrid/adaptive_v_cycle.h>
#include <cellwise/multigrid/hermite_multigrid_solver.h>
#include <cellwise/multigrid/multigrid_solver.h>
#include <cellwise/storage/cell_vector.h>
#include <cellwise/storage/dof_numbering.h>

#include <cstddef>
#include <iosfwd>
#include <memory>
#include <string>

namespace cellwise
{
  /// Empty where @p backend can run here, otherwise one line saying why not
  /// (no CUDA backend in this build, no device or driver).
  std::string
  backend_unavailable_reason(Backend backend);

  /// One line about what runs a solve: "device: <name, SMs, memory, ...>" for
  /// cuda, "host: <threads> threads (<executor>)" for the host.
  std::string
  backend_description(Backend backend);

  /// Bytes a new solve may allocate where its levels live: available host
  /// memory, or free device memory (0 where unknown).
  std::size_t
  backend_free_memory(Backend backend);

  /// Device memory a CUDA solve used (all zero on the host): allocated by
  /// the set-up, and at the peak of the last solve (sampled at its first two
  /// iteration checks, when all its vectors are live).
  struct DeviceMemoryUse
  {
    std::size_t free_before = 0;
    std::size_t setup       = 0;
    std::size_t peak        = 0;
  };

  /**
   * A solver on vectors in a global numbering of the DoFs (a DofNumbering of
   * the solve's cells: the finest level's, or the active mesh's), for a
   * program that holds assembled vectors, as deal.II's: made by
   * HostVectorSolver::numbered(), which it refers to. The conversions are
   * those of storage/numbered_vector_transfer.h; on cuda they run on the
   * device, and only the global vectors cross the bus.
   */
  class NumberedVectorSolver
  {
  public:
    virtual ~NumberedVectorSolver() = default;

    /// Solve A u = b, @p u and @p b global vectors of the numbering's
    /// n_unique entries in host memory: b scattered balanced (a load vector,
    /// each entry the sum of its copies' shares), the initial guess gathered
    /// from @p u (the zero guess where @p zero_guess: u is not read), the
    /// solution's values written to @p u.
    virtual SolveStatistics
    solve(double *u, const double *b, bool zero_guess, IterationControl &control) const = 0;

    /// @p z = the values of V applied to the balanced dual of the residual
    /// @p r (one cycle, as HostVectorSolver::precondition).
    virtual void
    precondition(double *z, const double *r) const = 0;
  };

  /// A solver of A u = b on host cell vectors.
  class HostVectorSolver
  {
  public:
    virtual ~HostVectorSolver() = default;

    /// Solve from the initial guess @p u (an empty u is the zero guess).
    virtual SolveStatistics
    solve(CellVector<double> &u, const CellVector<double> &b, IterationControl &control) const = 0;

    /// z = V r: one application of the cycle that preconditions the outer
    /// iteration (in mixed precision the FP32 cycle with its conversions) to
    /// a dual residual @p r, giving a primal @p z (zero on the Dirichlet
    /// copies). For an outer iteration of the caller's own, e.g. deal.II's
    /// SolverCG through cellwise::dealii::MultigridPreconditioner. On cuda r
    /// goes to the device and z comes back, once each.
    virtual void
    precondition(CellVector<double> &z, const CellVector<double> &r) const = 0;

    virtual Backend
    backend() const = 0;

    /// Seconds of the last solve alone: on the device between two device
    /// synchronizations, without the transfers of u and b.
    virtual double
    last_solve_seconds() const = 0;

    virtual DeviceMemoryUse
    memory_use() const
    {
      return {};
    }

    /// This solver on global vectors of @p numbering (copied), whose cells
    /// must be the solve's cells. On cuda the numbering is uploaded once and
    /// the conversions run on the device; here (the host backend's
    /// implementation) they run on the host.
    virtual std::unique_ptr<NumberedVectorSolver>
    numbered(const DofNumbering &numbering) const;
  };

  /// The locally refined variant: vectors on the active cells, in the order
  /// of active_mesh().
  class AdaptiveHostVectorSolver : public HostVectorSolver
  {
  public:
    virtual const ActiveMesh &
    active_mesh() const = 0;
  };

  /// The uniform solver on the finest level of @p hierarchy (kept by
  /// reference), on parameters.backend: MultigridSolver on the host,
  /// cuda::MultigridSolver on the device (its box parts for box cells with
  /// at most a coefficient per cell, its general parts where a level has a
  /// mapping or the coefficient enters at the quadrature points).
  /// Throws cellwise::Error with backend_unavailable_reason() where it cannot
  /// run.
  std::unique_ptr<HostVectorSolver>
  make_host_vector_solver(const LevelHierarchy      &hierarchy,
                          unsigned int               degree,
                          const MultigridParameters &parameters,
                          std::ostream              *log = nullptr);

  /// The adaptive solver (local smoothing) on parameters.backend.
  std::unique_ptr<AdaptiveHostVectorSolver>
  make_adaptive_host_vector_solver(const LevelHierarchy      &hierarchy,
                                   unsigned int               degree,
                                   const MultigridParameters &parameters,
                                   std::ostream              *log = nullptr);

  /// The clamped biharmonic solver of the C¹ Hermite element on @p backend:
  /// HermiteMultigridSolver on the host (uniform or locally refined), or
  /// cuda::HermiteMultigridSolver (uniform hierarchies, the Chebyshev
  /// smoother; others refused with its message). Vectors on the finest
  /// level's cells (the host solver's active cells on a locally refined one).
  std::unique_ptr<HostVectorSolver>
  make_hermite_host_vector_solver(const LevelHierarchy             &hierarchy,
                                  const HermiteMultigridParameters &parameters,
                                  Backend                           backend,
                                  std::ostream                     *log = nullptr);

  namespace cuda
  {
    /// The CUDA halves of the factories (defined only with the CUDA backend).
    std::unique_ptr<HostVectorSolver>
    make_hermite_host_vector_solver(const LevelHierarchy &hierarchy, const HermiteMultigridParameters &parameters, std::ostream *log);
    std::unique_ptr<HostVectorSolver>
    make_host_vector_solver(const LevelHierarchy &hierarchy, unsigned int degree, const MultigridParameters &parameters,
                            std::ostream *log);
    std::unique_ptr<AdaptiveHostVectorSolver>
    make_adaptive_host_vector_solver(const LevelHierarchy      &hierarchy,
                                     unsigned int               degree,
                                     const MultigridParameters &parameters,
                                     std::ostream              *log);
  } // namespace cuda
} // namespace cellwise
