#pragma once
/**
 * @file
 * The multigrid solver distributed over MPI ranks, as a HostVectorSolver
 * (multigrid/host_vector_solvers.h): what the main program runs under
 * `mpirun -np N`. Each rank takes its part of every level of a partitioned
 * hierarchy (mesh/partitioned_hierarchy.h): a serial hierarchy every rank
 * holds, or a BoxPartition, of which no rank holds more than its own cells.
 * It builds the distributed components (doc/mpi.md) and solves with the
 * V-cycle and CG of the serial solver, unchanged, on distributed vectors
 * (vector()); through the HostVectorSolver interface the serial right-hand
 * side is read on the owned cells and the solution gathered back to a
 * serial vector on every rank. On the host
 * (FP64, or FP32 levels in the FP64 outer iteration): Chebyshev, Jacobi or
 * vertex-patch smoothing. On the device (Backend::cuda; one GPU per rank,
 * or ranks sharing one): Chebyshev, Jacobi or vertex-patch smoothing, FP64 or mixed,
 * each rank's levels in device memory and every exchange packed on the
 * device (source/multigrid/mpi_cuda_distributed_multigrid_solver.cc).
 * CG or the stationary iteration, a coarse level the Cholesky solve takes,
 * meshes that morton_partition takes (boxes and lattices, uniform or
 * locally refined), a variable coefficient as the serial solvers take it
 * (each rank evaluates it on its own and ghost cells: at the quadrature
 * points or per cell on the host, per cell on the device, not with the
 * device's patch smoother); every other choice is refused with a message,
 * on every rank.
 *
 * On a locally refined hierarchy (FP64 or, on the host, mixed precision;
 * doc/adaptive.md) the outer
 * iteration runs on the active mesh, as MultigridSolver's: its
 * vectors, serial or distributed, are active vectors (serial ones in the
 * order of active_mesh()), and the V-cycle is LocalSmoothingVCycle with
 * each level's smoother masked on the refinement edge
 * (multigrid/mpi_distributed_refinement_edge.h). An active cell belongs to
 * the rank that owns it on its level.
 *
 * Built only with MPI (library cellwise::mpi).
 */

#include <cellwise/base/mpi_check.h>
#include <cellwise/base/setup_times.h>
#include <cellwise/mesh/partition.h>
#include <cellwise/mesh/partitioned_hierarchy.h>
#include <cellwise/multigrid/adaptive_v_cycle.h>
#include <cellwise/multigrid/host_vector_solvers.h>
#include <cellwise/multigrid/mpi_distributed_cell_transfer.h>
#include <cellwise/multigrid/mpi_distributed_vertex_patch_smoother.h>
#include <cellwise/multigrid/multigrid_solver.h>
#include <cellwise/multigrid/v_cycle.h>
#include <cellwise/operators/mpi_distributed_laplace_operator.h>
#include <cellwise/storage/mpi_distributed_cell_vector.h>
#include <cellwise/storage/mpi_serial_gather.h>

#include <functional>
#include <iosfwd>
#include <memory>
#include <vector>

namespace cellwise
{
  class DistributedMultigridSolver : public HostVectorSolver
  {
  public:
    using VectorType = DistributedCellVector<double>;

    /// Collective over @p comm; @p serial is the same hierarchy on every
    /// rank (kept by reference). Set-up progress to @p log. @p owners: per
    /// level the rank of every serial cell (deal.II's level subdomains);
    /// empty: morton_partition's.
    DistributedMultigridSolver(const LevelHierarchy           &serial,
                               unsigned int                    degree,
                               const MultigridParameters      &parameters,
                               MPI_Comm                        comm,
                               std::ostream                   *log    = nullptr,
                               std::vector<std::vector<int>>   owners = {});
    /// The hierarchy is kept by reference: a temporary would dangle.
    DistributedMultigridSolver(const LevelHierarchy &&serial, unsigned int degree, const MultigridParameters &parameters,
                               MPI_Comm comm, std::ostream *log = nullptr, std::vector<std::vector<int>> owners = {}) = delete;
    /// Neither copied nor moved: its replicated hierarchy and levels refer
    /// to its own members (a moved solver would read the old object's).
    DistributedMultigridSolver(const DistributedMultigridSolver &) = delete;
    DistributedMultigridSolver &
    operator=(const DistributedMultigridSolver &) = delete;

    /// Collective over @p comm, on a hierarchy partitioned over its ranks
    /// (hierarchy->n_ranks() of them), e.g. a BoxPartition: each rank builds
    /// its local levels from it and holds nothing per serial cell. Uniform
    /// hierarchies; a locally refined one needs its serial hierarchy
    /// (PartitionedHierarchy::serial()).
    DistributedMultigridSolver(std::shared_ptr<const PartitionedHierarchy> hierarchy,
                               unsigned int                                degree,
                               const MultigridParameters                  &parameters,
                               MPI_Comm                                    comm,
                               std::ostream                               *log = nullptr);

    /// u = A^{-1} b by CG or the stationary iteration with the distributed
    /// V-cycle (solve_outer, as the serial solver); @p b and @p u are
    /// serial vectors of the outer level (the finest level, or the active
    /// mesh), the same on every rank (an empty u: the zero guess); u comes
    /// back whole on every rank. Collective.
    SolveStatistics
    solve(CellVector<double> &u, const CellVector<double> &b, IterationControl &control) const override;

    /// The same on distributed vectors of the outer level (vector(); @p u
    /// empty: the zero guess). Collective.
    SolveStatistics
    solve(VectorType &u, const VectorType &b, IterationControl &control) const;

    /// A zero vector of the outer level.
    VectorType
    vector() const
    {
      return VectorType(outer_level_, degree_);
    }
    /// The outer iteration's level (local level, DSS, communicator): the
    /// finest level, or the active mesh on a locally refined hierarchy.
    const std::shared_ptr<const DistributedLevel> &
    outer_level() const
    {
      return outer_level_;
    }
    /// The outer iteration's operator on the host (A on the finest level,
    /// or A_act). A device solve never applies it: there it is built on the
    /// first call (0.6 s per rank at L = 8 on 2 ranks otherwise spent in
    /// every set-up).
    const DistributedLaplaceOperator<double> &
    outer_operator() const;
    /// The active mesh of a locally refined hierarchy; nullptr on a
    /// uniform one.
    const ActiveMesh *
    active_mesh() const
    {
      return active_mesh_.get();
    }

    /// z = V r for serial vectors. Collective.
    void
    precondition(CellVector<double> &z, const CellVector<double> &r) const override;
    /// z = V r for distributed vectors of the outer level (vector(); @p z
    /// is shaped as @p r). Collective.
    void
    precondition(VectorType &z, const VectorType &r) const;

    Backend
    backend() const override
    {
      return parameters_.backend;
    }
    double
    last_solve_seconds() const override
    {
      return last_solve_seconds_;
    }

    /// Seconds of the last solve this rank spent in exchanges (DSS, patch
    /// halos, transfers, the coarse gather; exchange_seconds()), waiting
    /// for slower neighbours included.
    double
    last_exchange_seconds() const
    {
      return last_exchange_seconds_;
    }

    /// This rank's cells of level @p l: owned and ghost.
    const LocalLevel &
    local_level(unsigned int l) const
    {
      return local_.at(l);
    }
    /// Values this rank sends per DSS of the finest level.
    std::size_t
    fine_dss_values_sent() const;

    /// What this rank sends in one V-cycle, counted from the set-up's
    /// exchange lists: the DSS of every smoothing step on every level above
    /// the coarse one (Chebyshev, Jacobi) or the patch smoother's halo
    /// cells, and the transfers' family messages; the coarse
    /// level's gather (one MPI_Allgatherv of coarse_values_gathered values)
    /// is not in it.
    struct ExchangePerCycle
    {
      double      dss_bytes = 0, halo_bytes = 0, transfer_bytes = 0;
      std::size_t dss_messages = 0, halo_messages = 0, transfer_messages = 0;
      std::size_t coarse_values_gathered = 0;
    };
    ExchangePerCycle
    exchange_per_cycle() const;

  private:
    /// Serializes the solves of threads that share this object (base/work_space_lock.h).
    WorkSpaceLock work_space_lock_;
    /// The set-up after the partition is known (both constructors).
    void
    set_up(std::ostream *log);

    /// The V-cycle with all level components in precision Number and
    /// memory space Memory (source/multigrid/mpi_distributed_cycle.h):
    /// VCycle, or LocalSmoothingVCycle on a locally refined hierarchy. An
    /// FP64 cycle on a uniform hierarchy shares @p fine_operator and
    /// @p fine_mask, the outer iteration's. Its stages are timed into
    /// setup_stages_, each ended by @p synchronize (the device's).
    template <typename Number, typename Memory>
    std::shared_ptr<const Preconditioner<DistributedCellVector<Number, CellContiguous, Memory>>>
    make_cycle(std::ostream                                                                *log,
               std::shared_ptr<const DistributedLaplaceOperator<double, CellContiguous, Memory>> fine_operator,
               const DistributedCellVector<double, CellContiguous, Memory>                    &fine_mask,
               const std::function<void()>                                                 &synchronize = [] {});

    /// The device solve (CUDA backend): the rank's GPU chosen, the outer
    /// iteration's operator and mask and the V-cycle on device vectors
    /// (source/multigrid/mpi_cuda_distributed_multigrid_solver.cc).
    struct DeviceSolve;
    void
    set_up_device(std::ostream *log);
    SolveStatistics
    solve_on_device(VectorType &u, const VectorType &b, bool zero_guess, IterationControl &control) const;
    void
    precondition_on_device(VectorType &z, const VectorType &r) const;

    /// The owned cells of the serial outer-level vector @p serial into @p v
    /// (ghosts zero).
    void
    scatter(const CellVector<double> &serial, VectorType &v) const;
    /// The owned cells of all ranks into a serial vector. Collective.
    void
    gather(const VectorType &v, CellVector<double> &serial) const;

    unsigned int                                              degree_;
    MultigridParameters                                       parameters_;
    MPI_Comm                                                  comm_;
    /// A replicated hierarchy's owners (what hierarchy_ refers to there).
    std::vector<std::vector<int>>                             owner_;
    std::shared_ptr<const PartitionedHierarchy>               hierarchy_;
    std::vector<LocalLevel>                                   local_;
    std::vector<std::shared_ptr<const DistributedLevel>>      levels_;
    /// On a locally refined hierarchy: the serial active mesh and this
    /// rank's part of its level.
    std::unique_ptr<ActiveMesh>                               active_mesh_;
    std::unique_ptr<LocalLevel>                               active_local_;
    /// The outer iteration's level: levels_.back() or the active mesh's.
    const LocalLevel                                         *outer_local_ = nullptr;
    std::shared_ptr<const DistributedLevel>                   outer_level_;
    /// (built by outer_operator() where the set-up did not need it)
    mutable std::shared_ptr<const DistributedLaplaceOperator<double>> outer_operator_;
    VectorType                                                outer_mask_;
    /// The V-cycle: FP64, or FP32 inside MixedPrecisionPreconditioner.
    std::shared_ptr<const Preconditioner<VectorType>>         cycle_;
    /// The outer iteration's work vectors, kept between solves.
    mutable OuterWorkVectors<VectorType>                      work_;
    /// Bytes per value of the cycle's levels (8 or 4).
    std::size_t value_bytes_ = sizeof(double);
    /// Per level 1..: the patch smoother's halo values and messages per
    /// V-cycle (empty with the other smoothers), and the transfers' cells
    /// and messages to the level below.
    struct PatchHalo
    {
      std::size_t values = 0, messages = 0;
    };
    std::vector<PatchHalo>   patch_halo_;
    /// This rank's set-up by stage (printed in the set-up log).
    SetupTimes setup_stages_;
    std::vector<std::size_t> transfer_cells_, transfer_messages_;
    /// The gather of serial solutions, made by the first solve on serial
    /// vectors (its set-up lists every serial cell).
    mutable std::unique_ptr<SerialGather>                     outer_gather_;
    /// With Backend::cuda (its type is complete where it is built).
    std::shared_ptr<DeviceSolve> device_;
    mutable double            last_solve_seconds_ = 0, last_exchange_seconds_ = 0;
  };
} // namespace cellwise
