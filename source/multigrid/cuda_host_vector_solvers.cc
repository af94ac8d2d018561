// The CUDA halves of make_host_vector_solver and
// make_adaptive_host_vector_solver: the device solvers behind the host-vector
// interface (plain C++ over the CUDA runtime API; built with the CUDA backend).

#include <cellwise/base/cuda_check.h>
#include <cellwise/base/cuda_host_transfer.h>
#include <cellwise/multigrid/cuda_multigrid_solver.h>
#include <cellwise/multigrid/cuda_hermite_multigrid_solver.h>
#include <cellwise/multigrid/host_vector_solvers.h>
#include <cellwise/storage/cuda_numbered_vector_transfer.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <utility>

namespace cellwise::cuda
{
  namespace
  {
    /// Forwards to the caller's control and samples the free device memory
    /// at steps 0 and 1, when the solve's vectors are all allocated (two
    /// queries per solve, so the timing stays that of the solve).
    class SamplingControl : public IterationControl
    {
    public:
      SamplingControl(IterationControl &control, std::size_t &min_free)
        : control_(control)
        , min_free_(min_free)
      {}
      State
      check(const unsigned int step, const double value) override
      {
        if (step < 2)
          min_free_ = std::min(min_free_, free_device_memory());
        return control_.check(step, value);
      }
      std::string
      failure_reason() const override
      {
        return control_.failure_reason();
      }

    private:
      IterationControl &control_;
      std::size_t      &min_free_;
    };

    /// A device array of @p n doubles for the time of a call.
    class DeviceArray
    {
    public:
      DeviceArray(const std::size_t n, const char *what)
        : data_(allocate<double>(n, what))
      {}
      ~DeviceArray()
      {
        free_bytes(data_);
      }
      DeviceArray(const DeviceArray &) = delete;
      DeviceArray &
      operator=(const DeviceArray &) = delete;
      double *
      data() const
      {
        return data_;
      }

    private:
      double *data_;
    };

    /// The global vectors of a numbering to and from a device solver
    /// (DeviceSolver below): b and u cross the bus as global vectors, once
    /// each per solve (r and z per cycle), and the conversions to the cell
    /// vectors run on the device (storage/cuda_numbered_vector_transfer.h).
    template <typename Device>
    class NumberedDeviceSolver : public NumberedVectorSolver
    {
    public:
      NumberedDeviceSolver(const Device &solver, const DofNumbering &numbering)
        : solver_(solver)
        , transfer_(numbering, make_dof_copies(numbering, "cellwise::HostVectorSolver::numbered"))
      {}

      SolveStatistics
      solve(double *u, const double *b, const bool zero_guess, IterationControl &control) const override
      {
        const std::size_t             bytes = transfer_.n_unique() * sizeof(double);
        const DeviceArray             global(transfer_.n_unique(), "a global vector of the solve");
        typename Device::DeviceVector device_u, device_b;
        copy_host_to_device(global.data(), b, bytes);
        transfer_.scatter_balanced(global.data(), device_b);
        if (zero_guess)
          device_u.reinit(device_b.n_cells(), device_b.degree());
        else
          {
            copy_host_to_device(global.data(), u, bytes);
            transfer_.gather(global.data(), device_u);
          }
        const SolveStatistics statistics = solver_.solve_on_device(device_u, device_b, control);
        transfer_.gather_first_copies(device_u, global.data());
        copy_device_to_host(u, global.data(), bytes);
        return statistics;
      }

      void
      precondition(double *z, const double *r) const override
      {
        const std::size_t             bytes = transfer_.n_unique() * sizeof(double);
        const DeviceArray             global(transfer_.n_unique(), "a global vector of the cycle");
        typename Device::DeviceVector device_r, device_z;
        copy_host_to_device(global.data(), r, bytes);
        transfer_.scatter_balanced(global.data(), device_r);
        solver_.precondition_on_device(device_z, device_r);
        transfer_.gather_first_copies(device_z, global.data());
        copy_device_to_host(z, global.data(), bytes);
      }

    private:
      const Device                &solver_;
      const NumberedVectorTransfer transfer_;
    };

    /// A device solver behind the host-vector interface: upload u and b,
    /// solve between two device synchronizations, download u.
    template <typename Solver, typename Interface>
    class DeviceSolver : public Interface
    {
    public:
      /// The solver's own constructor arguments (Laplace: hierarchy, degree,
      /// parameters, log; Hermite: hierarchy, parameters, log).
      template <typename... Arguments>
      explicit DeviceSolver(Arguments &&...arguments)
        : memory_{free_device_memory(), 0, 0}
        , solver_(std::forward<Arguments>(arguments)...)
      {
        memory_.setup = memory_.free_before - std::min(memory_.free_before, free_device_memory());
      }

      using DeviceVector = typename Solver::VectorType;

      SolveStatistics
      solve(CellVector<double> &u, const CellVector<double> &b, IterationControl &control) const override
      {
        // host vectors are cell-contiguous: staged in that layout on the
        // device, then turned into the solver's layout there
        using Staged = CellVector<double, MemorySpace::CUDA, CellContiguous>;
        Staged       staged;
        DeviceVector device_u, device_b;
        staged.copy_from_host(b);
        device_b.copy_from(staged);
        // the zero guess (an empty u) is made on the device: no host vector
        // zeroed and no upload (at 455 M DoFs 8.6 GB, about 0.4 s together)
        if (u.n_cells() == 0)
          device_u.reinit(b.n_cells(), b.degree());
        else
          {
            staged.copy_from_host(u);
            device_u.copy_from(staged);
          }
        const SolveStatistics statistics = solve_on_device(device_u, device_b, control);
        staged.copy_from(device_u);
        staged.copy_to_host(u);
        return statistics;
      }

      /// The solve alone on device vectors, timed (last_solve_seconds) and
      /// its peak memory sampled: all uploads done before, the last kernel
      /// finished after.
      SolveStatistics
      solve_on_device(DeviceVector &u, const DeviceVector &b, IterationControl &control) const
      {
        CELLWISE_CUDA_CHECK(cudaDeviceSynchronize());
        std::size_t           min_free = free_device_memory();
        SamplingControl       sampling(control, min_free);
        const auto            start      = std::chrono::steady_clock::now();
        const SolveStatistics statistics = solver_.solve(u, b, sampling);
        CELLWISE_CUDA_CHECK(cudaDeviceSynchronize());
        seconds_     = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        memory_.peak = memory_.free_before - std::min(memory_.free_before, min_free);
        return statistics;
      }

      /// One cycle on device vectors: @p z = V @p r.
      void
      precondition_on_device(DeviceVector &z, const DeviceVector &r) const
      {
        if (z.n_cells() != r.n_cells() || z.degree() != r.degree())
          z.reinit(r.n_cells(), r.degree());
        solver_.preconditioner().vmult(z, r);
      }

      std::unique_ptr<NumberedVectorSolver>
      numbered(const DofNumbering &numbering) const override
      {
        return std::make_unique<NumberedDeviceSolver<DeviceSolver>>(*this, numbering);
      }

      void
      precondition(CellVector<double> &z, const CellVector<double> &r) const override
      {
        using Staged = CellVector<double, MemorySpace::CUDA, CellContiguous>;
        Staged       staged;
        DeviceVector device_r, device_z;
        staged.copy_from_host(r);
        device_r.copy_from(staged);
        precondition_on_device(device_z, device_r);
        staged.copy_from(device_z);
        staged.copy_to_host(z);
      }

      Backend
      backend() const override
      {
        return Backend::cuda;
      }

      double
      last_solve_seconds() const override
      {
        return seconds_;
      }

      DeviceMemoryUse
      memory_use() const override
      {
        return memory_;
      }

    protected:
      mutable DeviceMemoryUse memory_;
      Solver                  solver_;
      mutable double          seconds_ = 0;
    };

    // The uniform solver keeps its FP64 vectors blocked by 32 cells (the
    // layout in which the operators and the DSS stream at 0.83-0.91 of a
    // device copy; the FP32 levels of the mixed-precision cycle on box
    // cells are cell-contiguous either way).
    using UniformSolver = MultigridSolver<CellBlocked<32>>;

    class AdaptiveDeviceSolver : public DeviceSolver<MultigridSolver<CellContiguous>, AdaptiveHostVectorSolver>
    {
    public:
      using DeviceSolver::DeviceSolver;

      const ActiveMesh &
      active_mesh() const override
      {
        return solver_.active_mesh();
      }
    };
  } // namespace

  std::unique_ptr<HostVectorSolver>
  make_host_vector_solver(const LevelHierarchy &hierarchy, const unsigned int degree, const MultigridParameters &parameters,
                          std::ostream *log)
  {
    return std::make_unique<DeviceSolver<UniformSolver, HostVectorSolver>>(hierarchy, degree, parameters, log);
  }

  std::unique_ptr<AdaptiveHostVectorSolver>
  make_adaptive_host_vector_solver(const LevelHierarchy      &hierarchy,
                                   const unsigned int         degree,
                                   const MultigridParameters &parameters,
                                   std::ostream              *log)
  {
    return std::make_unique<AdaptiveDeviceSolver>(hierarchy, degree, parameters, log);
  }

  std::unique_ptr<HostVectorSolver>
  make_hermite_host_vector_solver(const LevelHierarchy &hierarchy, const HermiteMultigridParameters &parameters, std::ostream *log)
  {
    // blocked by 32 cells: the layout of the one-pass DSS of both trace
    // layers (multigrid/cuda_hermite_multigrid_solver.h)
    return std::make_unique<DeviceSolver<HermiteMultigridSolver<CellBlocked<32>>, HostVectorSolver>>(hierarchy, parameters,
                                                                                                    log);
  }
} // namespace cellwise::cuda
