#include <cellwise/base/mpi_rank_agreement.h>
#include <cellwise/multigrid/capabilities.h>
#include <cellwise/multigrid/mixed_local_smoothing.h>
#include <cellwise/multigrid/mixed_precision.h>
#include <cellwise/multigrid/outer_solvers.h>
#include <cellwise/storage/dss.h>

#include "mpi_distributed_cycle.h"

#include <chrono>
#include <iomanip>
#include <ostream>
#include <sstream>
#include <type_traits>

namespace cellwise
{
  namespace
  {
    /// The caller's stopping control, with its decisions compared over the
    /// ranks at every step (one MPI_Allreduce of two integers: the monitored
    /// values are global reductions, so the decisions differ only where the
    /// ranks' controls do: another tolerance or iteration limit). Every rank
    /// then throws the same error at the same step, instead of one rank
    /// leaving the iteration while the others wait in its next reduction.
    class CollectiveControl : public IterationControl
    {
    public:
      CollectiveControl(IterationControl &inner, const MPI_Comm comm)
        : inner_(inner)
        , comm_(comm)
      {}

      State
      check(const unsigned int step, const double value) override
      {
        State state = iterate;
        bool  threw = false;
        std::string error;
        try
          {
            state = inner_.check(step, value);
          }
        catch (const std::exception &e)
          {
            threw = true;
            error = e.what();
          }
        // (the largest state and the largest negated state: equal exactly
        // where every rank decided alike)
        int decisions[2] = {threw ? 3 : int(state), -(threw ? 3 : int(state))};
        CELLWISE_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, decisions, 2, MPI_INT, MPI_MAX, comm_));
        if (threw)
          internal::throw_error(__FILE__, __LINE__, "DistributedMultigridSolver::solve: the stopping control threw at step " +
                                                      std::to_string(step) + " on this rank: " + error);
        CELLWISE_CHECK(decisions[0] == -decisions[1],
                       "DistributedMultigridSolver::solve: the ranks' stopping controls decided differently at step "
                         << step << " on the same monitored value " << value
                         << " (this rank: " << (state == iterate ? "go on" : state == success ? "converged" : "give up")
                         << "): every rank must pass the same tolerance and iteration limit");
        return state;
      }

      std::string
      failure_reason() const override
      {
        return inner_.failure_reason();
      }

    private:
      IterationControl &inner_;
      MPI_Comm          comm_;
    };

    /// A digest of level 0, which every rank holds (the boxes, neighbours,
    /// boundary flags and mapping nodes of all its cells): two ranks with
    /// another domain, subdivision, boundary ids or map differ here.
    std::string
    coarse_level_digest(const Level &coarse)
    {
      std::uint64_t hash  = fnv1a_64("");
      const auto    bytes = [&hash](const void *data, const std::size_t n) {
        hash = fnv1a_64(std::string(static_cast<const char *>(data), n), hash);
      };
      for (unsigned int c = 0; c < coarse.n_cells(); ++c)
        {
          bytes(&coarse.boxes[c], sizeof(CellBox));
          bytes(&coarse.neighbors[c], sizeof(coarse.neighbors[c]));
          bytes(&coarse.flags[c], sizeof(coarse.flags[c]));
        }
      bytes(&coarse.mapping.degree, sizeof(coarse.mapping.degree));
      if (!coarse.mapping.empty())
        bytes(coarse.mapping.nodes.data(), coarse.mapping.nodes.size() * sizeof(Point));
      std::ostringstream text;
      text << coarse.n_cells() << " cells, digest " << std::hex << hash;
      return text.str();
    }

    /// Whether a level above the finest has active cells (local smoothing).
    bool
    is_locally_refined(const PartitionedHierarchy &hierarchy)
    {
      const LevelHierarchy *serial = hierarchy.serial();
      if (!serial)
        return false; // a BoxPartition: uniform
      for (unsigned int l = 0; l + 1 < serial->n_levels(); ++l)
        if (serial->level(l).n_active_cells() != 0)
          return true;
      return false;
    }

    /// The configuration of the distributed solve (multigrid/capabilities.h):
    /// its geometry from the coarse level every rank holds.
    Configuration
    distributed_configuration(const PartitionedHierarchy &hierarchy, const MultigridParameters &parameters)
    {
      Configuration configuration;
      const Level  &coarse     = hierarchy.coarse_level();
      configuration.geometry    = coarse.has_skeleton()    ? MeshGeometry::unstructured
                                  : !coarse.mapping.empty() ? MeshGeometry::mapped
                                                            : MeshGeometry::box;
      configuration.refinement  = is_locally_refined(hierarchy) ? MeshRefinement::local : MeshRefinement::uniform;
      configuration.precision   = parameters.precision;
      configuration.smoother    = parameters.smoother;
      configuration.distributed = true;
      configuration.backend     = parameters.backend;
      return configuration;
    }

    /// Why @p parameters cannot run distributed yet (empty: they can), beyond
    /// the capability table: the details of a configuration it supports.
    std::string
    unsupported(const PartitionedHierarchy &hierarchy, const unsigned int degree, const MultigridParameters &parameters)
    {
      std::ostringstream why;
#ifndef CELLWISE_WITH_CUDA
      if (parameters.backend == Backend::cuda)
        why << "the CUDA backend (this build has none)";
      else
#endif
      if (parameters.backend == Backend::cuda && parameters.coefficient &&
          parameters.coefficient_evaluation != CoefficientEvaluation::cell_average)
        why << "a coefficient at the quadrature points on the device (its operators take cell averages: "
               "CoefficientEvaluation::cell_average)";
      else if (parameters.backend == Backend::cuda && parameters.coefficient && parameters.smoother == SmootherType::patch)
        why << "a coefficient with the vertex-patch smoother on the device (its patch kernels assume one coefficient per "
               "level, as the serial device solver's)";
      else if (parameters.pure_neumann)
        why << "the pure Neumann problem";

      else if (coarse_solver_for(parameters, hierarchy.coarse_level(), degree) != CoarseSolverType::cholesky)
        why << "a coarse level beyond the Cholesky solve (" << hierarchy.coarse_level().n_cells() << " coarse cells)";
      return why.str();
    }

    /// The FP32 local-smoothing cycle @p inner (this rank's part) in the
    /// FP64 routing and rebuilding of the refinement-edge copies
    /// (mixed_local_smoothing.h), with the distributed FP64 pieces: the
    /// distribution and reassembly, the transfers, the edge masks and the
    /// levels' DSS across the ranks.
    std::shared_ptr<const Preconditioner<DistributedCellVector<double>>>
    make_mixed_local_smoothing_cycle(std::shared_ptr<const Preconditioner<DistributedCellVector<float>>> inner,
                                     const PartitionedHierarchy                                         &hierarchy,
                                     const std::vector<LocalLevel>                                      &local,
                                     const std::vector<std::shared_ptr<const DistributedLevel>>         &levels,
                                     const ActiveMesh                                                   &mesh,
                                     const std::shared_ptr<const DistributedLevel>                      &outer_level,
                                     const MPI_Comm                                                      comm,
                                     const unsigned int                                                  degree)
    {
      using Outer = DistributedCellVector<double>;
      using Inner = DistributedCellVector<float>;
      auto cycle  = std::dynamic_pointer_cast<const LocalSmoothingVCycle<Inner>>(std::move(inner));
      CELLWISE_CHECK(cycle, "DistributedMultigridSolver: the FP32 cycle of a locally refined hierarchy is not the local-smoothing one");
      typename MixedLocalSmoothingCycle<Outer, Inner>::Levels fp64;
      fp64.active_transfer = std::make_shared<const DistributedActiveLevelTransfer<double>>(mesh, levels, outer_level);
      fp64.transfer        = std::make_shared<const DistributedLevelTransfer<double>>(hierarchy, local, comm, degree);
      for (unsigned int l = 0; l < levels.size(); ++l)
        {
          // (level 0 covers the domain: no refinement edge)
          fp64.edge.push_back(l == 0 ? Outer() : make_distributed_refinement_edge_mask<double>(levels[l], degree));
          Outer kept(levels[l], degree);
          kept.fill(1.);
          if (l > 0)
            kept.add(-1., fp64.edge.back());
          fp64.kept.push_back(std::move(kept));
        }
      fp64.level_mean = [levels](const unsigned int l, Outer &v) { levels[l]->dss.apply(v.local(), DssMode::mean); };
      return std::make_shared<const MixedLocalSmoothingCycle<Outer, Inner>>(std::move(cycle), std::move(fp64));
    }
  } // namespace

  DistributedMultigridSolver::DistributedMultigridSolver(const LevelHierarchy      &serial,
                                                         const unsigned int         degree,
                                                         const MultigridParameters &parameters,
                                                         const MPI_Comm             comm,
                                                         std::ostream              *log,
                                                         std::vector<std::vector<int>> owners)
    : degree_(degree)
    , parameters_(parameters)
    , comm_(comm)
  {
    const int size = mpi_size(comm);
    if (owners.empty())
      owner_ = morton_partition(serial, size);
    else
      {
        // a given partition (deal.II's): its shape and ranks, collectively;
        // whether the ranks agree on it the exchanges' set-ups check
        bool valid = owners.size() == serial.n_levels();
        for (unsigned int l = 0; l < serial.n_levels() && valid; ++l)
          {
            valid = owners[l].size() == serial.level(l).n_cells();
            for (std::size_t c = 0; c < owners[l].size() && valid; ++c)
              valid = owners[l][c] >= 0 && owners[l][c] < size;
          }
        check_collectively(comm, valid,
                           "DistributedMultigridSolver: the given partition does not give every cell of every level of the "
                           "hierarchy an owner among the " + std::to_string(size) + " ranks");
        owner_ = std::move(owners);
      }
    hierarchy_ = std::make_shared<const ReplicatedHierarchy>(serial, owner_, size);
    set_up(log);
  }

  DistributedMultigridSolver::DistributedMultigridSolver(std::shared_ptr<const PartitionedHierarchy> hierarchy,
                                                         const unsigned int                          degree,
                                                         const MultigridParameters                  &parameters,
                                                         const MPI_Comm                              comm,
                                                         std::ostream                               *log)
    : degree_(degree)
    , parameters_(parameters)
    , comm_(comm)
    , hierarchy_(std::move(hierarchy))
  {
    check_collectively(comm, hierarchy_ && hierarchy_->n_ranks() == mpi_size(comm),
                       "DistributedMultigridSolver: a hierarchy partitioned over " +
                         std::to_string(hierarchy_ ? hierarchy_->n_ranks() : 0) + " ranks on a communicator of " +
                         std::to_string(mpi_size(comm)));
    set_up(log);
  }

  void
  DistributedMultigridSolver::set_up(std::ostream *log)
  {
    const auto                  start = std::chrono::steady_clock::now();
    const int                   rank = mpi_rank(comm_), size = mpi_size(comm_);
    const PartitionedHierarchy &hierarchy  = *hierarchy_;
    const MultigridParameters  &parameters = parameters_;
    const MPI_Comm              comm       = comm_;
    const unsigned int          degree     = degree_;
    // before anything else collective: the ranks' own parameters, degree
    // and mesh agree (else every rank throws, naming what differs)
    {
      RankAgreement agreement("cellwise::DistributedMultigridSolver");
      agreement.add("degree", degree).add(settings(parameters)).add("levels", hierarchy.n_levels());
      for (unsigned int l = 0; l < hierarchy.n_levels(); ++l)
        agreement.add("cells of level " + std::to_string(l), hierarchy.n_cells(l));
      agreement.add("coarse level", coarse_level_digest(hierarchy.coarse_level())).check(comm);
    }
    const std::string           patch      = patch_smoother_refusal(hierarchy.coarse_level(), parameters);
    check_collectively(comm, patch.empty(), patch);
    // the same options on every rank: the same refusals everywhere, the
    // capability table's first
    const std::string capability = unsupported_reason(distributed_configuration(hierarchy, parameters));
    check_collectively(comm, capability.empty(),
                       "cellwise::DistributedMultigridSolver (" + std::to_string(size) + " MPI ranks): " + capability);
    const std::string why = unsupported(hierarchy, degree, parameters);
    check_collectively(comm, why.empty(),
                       "the distributed solver (" + std::to_string(size) + " MPI ranks) does not take " + why +
                         " yet; it runs on the host or the device (FP64 or mixed) with the Chebyshev, Jacobi or vertex-patch "
                         "smoother, CG or the stationary iteration, a Cholesky coarse solve, and uniform box or lattice meshes, "
                         "and locally refined ones (doc/mpi.md)");
    const unsigned int n_levels = hierarchy.n_levels();
    // the patch smoother reads every cell of a patch: the vertex halo
    const GhostLayer ghosts = parameters.smoother == SmootherType::patch ? GhostLayer::vertices : GhostLayer::faces;
    // the device transfers run the serial kernels on whole families
    const bool on_device = parameters.backend == Backend::cuda;
    setup_stages_.measure("local levels (owned cells and ghosts)", [&] {
      for (unsigned int l = 0; l < n_levels; ++l)
        local_.push_back(
          hierarchy.local_level(l, rank, ghosts, on_device ? hierarchy.family_ghosts(l, rank) : std::vector<unsigned int>()));
    });
    setup_stages_.measure("levels' DSS exchanges", [&] {
      for (unsigned int l = 0; l < n_levels; ++l)
        levels_.push_back(std::make_shared<const DistributedLevel>(
          local_[l], comm, static_cast<unsigned int>(hierarchy.n_cells(l)), lagrange_trace_layers(degree)));
    });
    // the outer iteration's level: the finest one, or on a locally refined
    // hierarchy the active mesh, an active cell owned where it is on its
    // level
    if (is_locally_refined(hierarchy))
      {
        active_mesh_ = std::make_unique<ActiveMesh>(make_active_mesh(*hierarchy.serial()));
        std::vector<int> active_owner(active_mesh_->n_active_cells());
        for (unsigned int a = 0; a < active_owner.size(); ++a)
          active_owner[a] = hierarchy.owner(active_mesh_->level_of[a], active_mesh_->cell_of[a]);
        active_local_ = std::make_unique<LocalLevel>(make_local_level(active_mesh_->level, active_owner, rank));
        outer_local_  = active_local_.get();
        outer_level_  = std::make_shared<const DistributedLevel>(*active_local_, comm, active_mesh_->n_active_cells(),
                                                                lagrange_trace_layers(degree));
      }
    else
      {
        outer_local_ = &local_.back();
        outer_level_ = levels_.back();
      }
    // (the device solve builds its mask and operator on the device: no
    // host mask, and the host operator only where it is asked for)
    if (!on_device)
      setup_stages_.measure("outer mask and operator (host)", [&] {
        outer_mask_ = make_distributed_dirichlet_mask<double>(outer_level_, degree, parameters.dirichlet_ids);
        // (a coefficient that fails on one rank's cells fails every rank)
        run_collectively(comm, [this] { outer_operator(); });
      });
    if (on_device)
      {
#ifdef CELLWISE_WITH_CUDA
        set_up_device(log);
#endif
      }
    else
      {
        if (parameters.precision == Precision::fp64)
          cycle_ = make_cycle<double, MemorySpace::Host>(log, active_mesh_ ? nullptr : outer_operator_, outer_mask_);
        else if (active_mesh_)
          cycle_ = make_mixed_local_smoothing_cycle(make_cycle<float, MemorySpace::Host>(log, outer_operator_, outer_mask_),
                                                    hierarchy, local_, levels_, *active_mesh_, outer_level_, comm, degree);
        else
          cycle_ = std::make_shared<const MixedPrecisionPreconditioner<VectorType, DistributedCellVector<float>>>(
            make_cycle<float, MemorySpace::Host>(log, outer_operator_, outer_mask_),
            DistributedCellVector<float>(levels_.back(), degree));
      }

    // the exchange of a V-cycle: this rank's and the largest over the ranks
    const ExchangePerCycle exchange = exchange_per_cycle();
    const double           sent[2]  = {exchange.dss_bytes + exchange.halo_bytes + exchange.transfer_bytes,
                                       double(exchange.dss_messages + exchange.halo_messages + exchange.transfer_messages)};
    double                 largest[2] = {0, 0};
    CELLWISE_MPI_CHECK(MPI_Allreduce(sent, largest, 2, MPI_DOUBLE, MPI_MAX, comm));
    if (log)
      *log << "  distributed set-up of " << n_levels << " levels on " << size << " MPI ranks ("
           << (hierarchy.serial() ? "replicated hierarchy" : "each rank its own cells") << "): "
           << std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() << " s; rank " << rank << " sends "
           << fine_dss_values_sent() << " values per DSS of the finest level and per V-cycle "
           << static_cast<long long>(exchange.dss_bytes) << " B in " << exchange.dss_messages << " DSS messages, "
           << (patch_halo_.empty() ? std::string()
                                        : std::to_string(static_cast<long long>(exchange.halo_bytes)) + " B in " +
                                            std::to_string(exchange.halo_messages) + " patch-halo messages, ")
           << static_cast<long long>(exchange.transfer_bytes) << " B in " << exchange.transfer_messages
           << " transfer messages (the most on a rank: " << static_cast<long long>(largest[0]) << " B, "
           << static_cast<long long>(largest[1]) << " messages), and one gather of " << exchange.coarse_values_gathered
           << " coarse values" << std::endl;
    if (log)
      setup_stages_.print(*log, "distributed set-up of rank " + std::to_string(rank) + " by stage");
  }

  const DistributedLaplaceOperator<double> &
  DistributedMultigridSolver::outer_operator() const
  {
    const auto lock = work_space_lock_.lock("cellwise::DistributedMultigridSolver::outer_operator");
    if (!outer_operator_) // (cell-local: no exchange, so no collective call)
      outer_operator_ = std::make_shared<const DistributedLaplaceOperator<double>>(
        outer_level_, degree_, parameters_.coefficient, parameters_.coefficient_evaluation);
    return *outer_operator_;
  }

  void
  DistributedMultigridSolver::scatter(const CellVector<double> &serial, VectorType &v) const
  {
    const LocalLevel &fine = *outer_local_;
    CELLWISE_CHECK(serial.n_cells() == outer_level_->serial_cells && serial.degree() == degree_,
                   "DistributedMultigridSolver: a vector of " << serial.n_cells() << " cells of degree " << serial.degree()
                                                              << " for " << (active_mesh_ ? "an active mesh" : "a finest level")
                                                              << " of " << outer_level_->serial_cells << " cells of degree "
                                                              << degree_);
    v = VectorType(outer_level_, degree_);
    for (unsigned int k = 0; k < fine.n_owned_cells(); ++k)
      for (unsigned int i = 0; i < serial.dofs_per_cell(); ++i)
        v.local()(k, i) = serial(fine.serial_index[k], i);
  }

  void
  DistributedMultigridSolver::gather(const VectorType &v, CellVector<double> &serial) const
  {
    const auto lock = work_space_lock_.lock("cellwise::DistributedMultigridSolver::gather");
    if (!outer_gather_) // collective, as every call of gather
      outer_gather_ = std::make_unique<SerialGather>(*outer_local_, comm_, outer_level_->serial_cells, degree_);
    outer_gather_->gather(v.local(), serial);
  }

  SolveStatistics
  DistributedMultigridSolver::solve(CellVector<double> &u, const CellVector<double> &b, IterationControl &control) const
  {
    VectorType distributed_b, distributed_u;
    scatter(b, distributed_b);
    if (u.n_cells() != 0)
      scatter(u, distributed_u);
    const SolveStatistics statistics = solve(distributed_u, distributed_b, control);
    gather(distributed_u, u);
    return statistics;
  }

  SolveStatistics
  DistributedMultigridSolver::solve(VectorType &distributed_u, const VectorType &distributed_b, IterationControl &control) const
  {
    const auto lock = work_space_lock_.lock("cellwise::DistributedMultigridSolver::solve");
    // collectively: a rank with a wrong vector must not leave the others
    // waiting in the solve's first reduction
    const bool b_fits     = distributed_b.level_pointer() == outer_level_ && distributed_b.degree() == degree_;
    const bool zero_guess = distributed_u.n_cells() == 0;
    check_collectively(comm_, b_fits && (zero_guess || (distributed_u.level_pointer() == outer_level_ && distributed_u.degree() == degree_)),
                       "DistributedMultigridSolver::solve: the right-hand side or the initial guess is not a vector of the "
                       "outer level (vector())");
    CollectiveControl collective_control(control, comm_);
    if (device_)
      {
#ifdef CELLWISE_WITH_CUDA
        // (an empty guess is zero on the device: no host zeros uploaded)
        return solve_on_device(distributed_u, distributed_b, zero_guess, collective_control);
#endif
      }
    if (zero_guess)
      distributed_u.reinit(distributed_b);
    CELLWISE_MPI_CHECK(MPI_Barrier(comm_));
    const auto   start    = std::chrono::steady_clock::now();
    const double exchange = exchange_seconds();
    // the serial solvers' outer solve, on distributed vectors: CG or the
    // stationary iteration, and a NaN in b or u named (collectively: the
    // monitors and all_finite are global)
    // (on the active mesh the mixed cycle rebalances the level right-hand
    // sides itself, after routing the refinement-edge copies:
    // mixed_local_smoothing.h)
    const auto mean_dss = [this](VectorType &r) {
      if (!active_mesh_)
        outer_level_->dss.apply(r.local(), DssMode::mean);
    };
    const SolveStatistics statistics = solve_outer(parameters_, *outer_operator_, outer_operator_->n_cells(), degree_, *cycle_,
                                                   distributed_u, distributed_b, outer_mask_, collective_control, mean_dss, &work_);
    last_solve_seconds_              = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    last_exchange_seconds_           = exchange_seconds() - exchange;
    return statistics;
  }

  void
  DistributedMultigridSolver::precondition(CellVector<double> &z, const CellVector<double> &r) const
  {
    VectorType distributed_r, distributed_z;
    scatter(r, distributed_r);
    precondition(distributed_z, distributed_r);
    gather(distributed_z, z);
  }

  void
  DistributedMultigridSolver::precondition(VectorType &z, const VectorType &r) const
  {
    const auto lock = work_space_lock_.lock("cellwise::DistributedMultigridSolver::precondition");
    check_collectively(comm_, r.level_pointer() == outer_level_ && r.degree() == degree_,
                       "DistributedMultigridSolver::precondition: the residual is not a vector of the outer level (vector())");
    z.reinit(r);
    if (device_)
      {
#ifdef CELLWISE_WITH_CUDA
        precondition_on_device(z, r);
#endif
      }
    else
      cycle_->vmult(z, r);
  }

  DistributedMultigridSolver::ExchangePerCycle
  DistributedMultigridSolver::exchange_per_cycle() const
  {
    // DSS per smoothing: one per Chebyshev or Jacobi step; the patch
    // smoother sends halo cells instead (halo_bytes). Values of the levels'
    // precision (4 bytes in the mixed cycle).
    const unsigned int steps = parameters_.smoother == SmootherType::chebyshev ? parameters_.chebyshev_degree
                               : parameters_.smoother == SmootherType::jacobi  ? parameters_.jacobi_steps
                                                                               : 0;
    const std::size_t  dss_per_level = 2 * std::size_t(parameters_.smoothing_steps) * steps;
    const double       cell_bytes    = double((degree_ + 1) * (degree_ + 1) * (degree_ + 1)) * double(value_bytes_);
    ExchangePerCycle   exchange;
    for (std::size_t l = 1; l < levels_.size(); ++l)
      {
        exchange.dss_bytes += double(dss_per_level) * double(levels_[l]->dss.values_sent_per_apply()) * double(value_bytes_);
        exchange.dss_messages += dss_per_level * levels_[l]->dss.messages_per_apply();
        if (!patch_halo_.empty())
          {
            exchange.halo_bytes += double(patch_halo_[l - 1].values) * double(value_bytes_);
            exchange.halo_messages += patch_halo_[l - 1].messages;
          }
        exchange.transfer_bytes += double(transfer_cells_[l - 1]) * cell_bytes;
        exchange.transfer_messages += transfer_messages_[l - 1];
      }
    exchange.coarse_values_gathered =
      std::size_t(hierarchy_->coarse_level().n_cells()) * (degree_ + 1) * (degree_ + 1) * (degree_ + 1);
    return exchange;
  }

  std::size_t
  DistributedMultigridSolver::fine_dss_values_sent() const
  {
    return levels_.back()->dss.values_sent_per_apply();
  }

} // namespace cellwise
