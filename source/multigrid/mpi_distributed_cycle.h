#pragma once
// DistributedMultigridSolver::make_cycle (multigrid/mpi_distributed_multigrid_solver.h),
// written once over the memory space: the host solver's source instantiates
// it for host vectors, the device solve's source
// (mpi_cuda_distributed_multigrid_solver.cc) for device vectors, so that a
// build without CUDA never references the device components. Not installed.

#include <cellwise/multigrid/adaptive_v_cycle.h>
#include <cellwise/multigrid/coarse_solvers.h>
#include <cellwise/multigrid/mpi_distributed_active_level_transfer.h>
#include <cellwise/multigrid/mpi_distributed_cell_transfer.h>
#include <cellwise/multigrid/mpi_distributed_multigrid_solver.h>
#include <cellwise/multigrid/mpi_distributed_point_smoothers.h>
#include <cellwise/multigrid/mpi_distributed_vertex_patch_smoother.h>
#include <cellwise/multigrid/mpi_distributed_refinement_edge.h>
#include <cellwise/multigrid/mpi_gathered_coarse_solver.h>
#include <cellwise/operators/laplace_operator.h>
#include <cellwise/storage/dirichlet_mask.h>
#include <cellwise/storage/mpi_distributed_dirichlet_mask.h>

#ifdef CELLWISE_WITH_CUDA
#  include <cellwise/multigrid/mpi_cuda_distributed_active_level_transfer.h>
#  include <cellwise/multigrid/mpi_cuda_distributed_cell_transfer.h>
#  include <cellwise/storage/mpi_cuda_distributed_dirichlet_mask.h>
#endif

#include <chrono>
#include <iomanip>
#include <ostream>
#include <type_traits>

namespace cellwise
{
  template <typename Number, typename Memory>
  std::shared_ptr<const Preconditioner<DistributedCellVector<Number, CellContiguous, Memory>>>
  DistributedMultigridSolver::make_cycle(
    std::ostream                                                                *log,
    std::shared_ptr<const DistributedLaplaceOperator<double, CellContiguous, Memory>> fine_operator,
    const DistributedCellVector<double, CellContiguous, Memory>                    &fine_mask,
    const std::function<void()>                                                 &synchronize)
  {
    using V                      = DistributedCellVector<Number, CellContiguous, Memory>;
    using Operator               = DistributedLaplaceOperator<Number, CellContiguous, Memory>;
    constexpr bool on_host       = std::is_same_v<Memory, MemorySpace::Host>;
    const unsigned int n_levels  = hierarchy_->n_levels();
    const int          rank      = mpi_rank(comm_), size = mpi_size(comm_);
    const MultigridParameters &parameters = parameters_;
    const unsigned int degree    = degree_;
    value_bytes_                 = sizeof(Number);
    typename VCycle<V>::Components components;
    for (unsigned int l = 0; l < n_levels; ++l)
      {
        // an FP64 cycle on a uniform hierarchy shares the outer iteration's
        // finest operator and mask; the smoothers' mask is the free one,
        // zero on the refinement edge of a locally refined level (on a
        // uniform level it is the Dirichlet mask)
        V                               mask;
        std::shared_ptr<const Operator> op;
        if constexpr (std::is_same_v<Number, double>)
          if (l + 1 == n_levels && fine_operator)
            {
              mask = fine_mask;
              op   = fine_operator;
            }
        if (!op)
          setup_stages_.measure("level masks and operators", [&] {
            // on the device a level without refinement edge builds its mask
            // there (the free mask is the Dirichlet mask); the edges' marks
            // are built on the host
            bool on_device_mask = false;
#ifdef CELLWISE_WITH_CUDA
            if constexpr (!on_host)
              if (!has_refinement_edge(*levels_[l]))
                {
                  mask           = make_device_distributed_dirichlet_mask<Number>(levels_[l], degree, parameters.dirichlet_ids);
                  on_device_mask = true;
                }
#endif
            if (!on_device_mask)
              mask.copy_from_host(make_distributed_free_mask<Number>(levels_[l], degree, parameters.dirichlet_ids));
            // (a coefficient that fails on one rank's cells fails every rank)
            run_collectively(comm_, [&] {
              op = std::make_shared<const Operator>(levels_[l], degree, parameters.coefficient, parameters.coefficient_evaluation);
            });
          }, synchronize);
        components.operators.push_back(op);
        components.level_shapes.push_back(V(levels_[l], degree));
        const auto smoother_start = std::chrono::steady_clock::now();
        if (l == 0)
          {
            components.smoothers.push_back(nullptr);
            // the coarse level, which every rank holds
            const Level                  &coarse_level = hierarchy_->coarse_level();
            const LaplaceOperator<Number> serial_op(coarse_level, degree, parameters.coefficient, parameters.coefficient_evaluation);
            auto coarse = std::make_shared<CholeskyCoarseSolver<Number>>(
              coarse_level, serial_op, make_dirichlet_mask<Number>(coarse_level, degree, parameters.dirichlet_ids));
            components.coarse_solver =
              std::make_shared<GatheredCoarseSolver<Number, CellContiguous, Memory>>(coarse, levels_[l], degree);
          }
        else if (parameters.smoother == SmootherType::chebyshev)
          {
            ChebyshevParameters chebyshev;
            chebyshev.degree                = parameters.chebyshev_degree;
            chebyshev.smoothing_range       = parameters.smoothing_range;
            chebyshev.eigenvalue_iterations = parameters.eigenvalue_iterations;
            components.smoothers.push_back(
              std::make_shared<DistributedChebyshevSmoother<Number, CellContiguous, Memory>>(local_[l].level, *op, mask, chebyshev));
          }
        else if (parameters.smoother == SmootherType::jacobi)
          components.smoothers.push_back(std::make_shared<DistributedJacobiSmoother<Number, CellContiguous, Memory>>(
            local_[l].level, *op, mask, JacobiParameters{parameters.jacobi_omega, parameters.jacobi_steps}));
        else
          {
            auto patch =
              std::make_shared<DistributedVertexPatchSmoother<Number, CellContiguous, Memory>>(*op, parameters.patch_sweeps);
            // the halo values of a V-cycle as it calls the smoother: the
            // first pre-smoothing from zero
            PatchHalo halo;
            const SweepDirection post = parameters.post_smoothing_direction();
            for (unsigned int k = 0; k < parameters.smoothing_steps; ++k)
              {
                halo.values += patch->values_sent_per_smooth(k == 0, SweepDirection::forward) +
                               patch->values_sent_per_smooth(false, post);
                halo.messages +=
                  patch->messages_per_smooth(k == 0, SweepDirection::forward) + patch->messages_per_smooth(false, post);
              }
            patch_halo_.push_back(halo);
            components.smoothers.push_back(patch);
          }
        synchronize();
        setup_stages_.add(l == 0 ? "coarse solve (gathered Cholesky)" : "smoothers (" + to_string(parameters.smoother) + ")",
                          std::chrono::duration<double>(std::chrono::steady_clock::now() - smoother_start).count());
        if (log)
          *log << "  level " << std::setw(2) << l << ": " << std::setw(10) << hierarchy_->n_cells(l) << " cells, "
               << (active_mesh_ ? std::to_string(active_mesh_->active_cells[l].size()) + " active, " : std::string())
               << std::setw(8) << local_[l].n_owned_cells() << " owned and " << local_[l].level.n_cells() - local_[l].n_owned_cells()
               << " ghosts on rank " << rank << " of " << size << ", "
               << (l == 0 ? "gathered Cholesky coarse solve" : "smoother " + to_string(parameters.smoother))
               << (sizeof(Number) == 4 ? ", FP32" : ", FP64") << std::endl;
      }
    const auto transfer_start = std::chrono::steady_clock::now();
    if (n_levels > 1)
      {
        if constexpr (on_host)
          {
            const auto transfer = std::make_shared<const DistributedLevelTransfer<Number>>(*hierarchy_, local_, comm_, degree);
            for (unsigned int l = 1; l < n_levels; ++l)
              {
                const auto &pair = transfer->at(l);
                transfer_cells_.push_back(pair.cells_sent_per_prolongation() + pair.cells_sent_per_restriction());
                transfer_messages_.push_back(pair.messages_per_prolongation() + pair.messages_per_restriction());
              }
            components.transfer = transfer;
          }
        else
          {
#ifdef CELLWISE_WITH_CUDA
            // the serial device kernels on the local levels with their
            // families (the local levels hold the family ghosts)
            const auto transfer = std::make_shared<const cuda::DistributedLevelTransfer<Number>>(*hierarchy_, local_, comm_, degree);
            for (unsigned int l = 1; l < n_levels; ++l)
              {
                transfer_cells_.push_back(transfer->cells_sent_per_prolongation(l) + transfer->cells_sent_per_restriction(l));
                transfer_messages_.push_back(transfer->messages_per_prolongation(l) + transfer->messages_per_restriction(l));
              }
            components.transfer = transfer;
#endif
          }
      }
    synchronize();
    setup_stages_.add("transfers", std::chrono::duration<double>(std::chrono::steady_clock::now() - transfer_start).count());
    const VCycleParameters cycle = parameters.cycle_parameters();
    if (active_mesh_)
      {
        // local smoothing: the distribution and reassembly of the memory space
        std::shared_ptr<const ActiveLevelTransfer<V>> active_transfer;
        if constexpr (on_host)
          active_transfer = std::make_shared<const DistributedActiveLevelTransfer<Number>>(*active_mesh_, levels_, outer_level_);
        else
          {
#ifdef CELLWISE_WITH_CUDA
            active_transfer =
              std::make_shared<const cuda::DistributedActiveLevelTransfer<Number>>(*active_mesh_, levels_, outer_level_, degree);
#endif
          }
        return std::make_shared<const LocalSmoothingVCycle<V>>(std::move(active_transfer), std::move(components), cycle);
      }
    return std::make_shared<const VCycle<V>>(std::move(components), cycle);
  }

} // namespace cellwise
