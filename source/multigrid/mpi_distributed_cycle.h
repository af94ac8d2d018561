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

#include "level_assembly.h"

#include <chrono>
#include <sstream>
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
    value_bytes_                 = sizeof(Number);
    // The factory of the shared level loop (level_assembly.h) for this
    // rank's part of the levels (a local class: it reaches the solver's
    // members as make_cycle does).
    class Levels
    {
    public:
      using Vector   = V;
      using Operator = const DistributedLaplaceOperator<Number, CellContiguous, Memory>;
      using Masks    = V;

      Levels(DistributedMultigridSolver &solver, const std::shared_ptr<Operator> &fine_operator, const V *fine_mask,
             const std::function<void()> &synchronize)
        : solver_(solver)
        , fine_operator_(fine_operator)
        , fine_mask_(fine_mask)
        , synchronize_(synchronize)
      {}

      /// The smoothers' mask is the free one, zero on the refinement edge
      /// of a locally refined level (on a uniform level it is the Dirichlet
      /// mask); an FP64 cycle on a uniform hierarchy shares the outer
      /// iteration's finest operator and mask.
      Masks
      masks(const unsigned int l)
      {
        if (shares_finest(l))
          return *fine_mask_;
        Masks mask;
        solver_.setup_stages_.measure("level masks and operators", [&] {
          // on the device a level without refinement edge builds its mask
          // there (the free mask is the Dirichlet mask); the edges' marks
          // are built on the host
          bool on_device_mask = false;
#ifdef CELLWISE_WITH_CUDA
          if constexpr (!on_host)
            if (!has_refinement_edge(*solver_.levels_[l]))
              {
                mask = make_device_distributed_dirichlet_mask<Number>(solver_.levels_[l], solver_.degree_,
                                                                      solver_.parameters_.dirichlet_ids);
                on_device_mask = true;
              }
#endif
          if (!on_device_mask)
            mask.copy_from_host(
              make_distributed_free_mask<Number>(solver_.levels_[l], solver_.degree_, solver_.parameters_.dirichlet_ids));
        }, synchronize_);
        return mask;
      }

      std::shared_ptr<Operator>
      make_operator(const unsigned int l)
      {
        if (shares_finest(l))
          return fine_operator_;
        std::shared_ptr<Operator> op;
        const MultigridParameters &parameters = solver_.parameters_;
        solver_.setup_stages_.measure("level masks and operators", [&] {
          // (a coefficient that fails on one rank's cells fails every rank)
          run_collectively(solver_.comm_, [&] {
            op = std::make_shared<Operator>(solver_.levels_[l], solver_.degree_, parameters.coefficient,
                                            parameters.coefficient_evaluation);
          });
        }, synchronize_);
        return op;
      }

      Vector
      shape(const unsigned int l) const
      {
        return Vector(solver_.levels_[l], solver_.degree_);
      }

      ::cellwise::internal::Described<CoarseSolver<V>>
      make_coarse_solver(const std::shared_ptr<Operator> &, const V &)
      {
        ::cellwise::internal::Described<CoarseSolver<V>> coarse{nullptr, "gathered Cholesky coarse solve"};
        solver_.setup_stages_.measure("coarse solve (gathered Cholesky)", [&] {
          // the coarse level, which every rank holds
          const MultigridParameters    &parameters   = solver_.parameters_;
          const Level                  &coarse_level = solver_.hierarchy_->coarse_level();
          const LaplaceOperator<Number> serial_op(coarse_level, solver_.degree_, parameters.coefficient,
                                                  parameters.coefficient_evaluation);
          auto cholesky = std::make_shared<CholeskyCoarseSolver<Number>>(
            coarse_level, serial_op, make_dirichlet_mask<Number>(coarse_level, solver_.degree_, parameters.dirichlet_ids));
          coarse.component =
            std::make_shared<GatheredCoarseSolver<Number, CellContiguous, Memory>>(cholesky, solver_.levels_[0], solver_.degree_);
        }, synchronize_);
        return coarse;
      }

      ::cellwise::internal::Described<LevelSmoother<V>>
      make_smoother(const unsigned int l, const std::shared_ptr<Operator> &op, const V &mask)
      {
        const MultigridParameters                       &parameters = solver_.parameters_;
        ::cellwise::internal::Described<LevelSmoother<V>> smoother{nullptr, "smoother " + to_string(parameters.smoother)};
        solver_.setup_stages_.measure("smoothers (" + to_string(parameters.smoother) + ")", [&] {
          if (parameters.smoother == SmootherType::chebyshev)
            smoother.component = std::make_shared<DistributedChebyshevSmoother<Number, CellContiguous, Memory>>(
              solver_.local_[l].level, *op, mask, parameters.chebyshev_parameters());
          else if (parameters.smoother == SmootherType::jacobi)
            smoother.component = std::make_shared<DistributedJacobiSmoother<Number, CellContiguous, Memory>>(
              solver_.local_[l].level, *op, mask, parameters.jacobi_parameters());
          else
            {
              auto patch =
                std::make_shared<DistributedVertexPatchSmoother<Number, CellContiguous, Memory>>(*op, parameters.patch_sweeps);
              // the halo values of a V-cycle as it calls the smoother: the
              // first pre-smoothing from zero
              PatchHalo                 halo;
              const SweepDirection      post = parameters.post_smoothing_direction();
              for (unsigned int k = 0; k < parameters.smoothing_steps; ++k)
                {
                  halo.values += patch->values_sent_per_smooth(k == 0, SweepDirection::forward) +
                                 patch->values_sent_per_smooth(false, post);
                  halo.messages +=
                    patch->messages_per_smooth(k == 0, SweepDirection::forward) + patch->messages_per_smooth(false, post);
                }
              solver_.patch_halo_.push_back(halo);
              smoother.component = patch;
            }
        }, synchronize_);
        return smoother;
      }

      /// ", [N active, ]<owned> owned and <g> ghosts on rank r of n, <what>, FP64|FP32"
      std::string
      log_line(const unsigned int l, const Operator &, const std::string &what) const
      {
        std::ostringstream line;
        const auto        &local = solver_.local_[l];
        line << ", "
             << (solver_.active_mesh_ ? std::to_string(solver_.active_mesh_->active_cells[l].size()) + " active, " : std::string())
             << std::setw(8) << local.n_owned_cells() << " owned and " << local.level.n_cells() - local.n_owned_cells()
             << " ghosts on rank " << mpi_rank(solver_.comm_) << " of " << mpi_size(solver_.comm_) << ", " << what
             << (sizeof(Number) == 4 ? ", FP32" : ", FP64");
        return line.str();
      }

      void
      add_transfers(typename VCycle<V>::Components &components, const std::vector<std::shared_ptr<Operator>> &)
      {
        solver_.setup_stages_.measure("transfers", [&] {
          const unsigned int n_levels = solver_.hierarchy_->n_levels();
          if constexpr (on_host)
            {
              const auto transfer = std::make_shared<const DistributedLevelTransfer<Number>>(*solver_.hierarchy_, solver_.local_,
                                                                                             solver_.comm_, solver_.degree_);
              for (unsigned int l = 1; l < n_levels; ++l)
                {
                  const auto &pair = transfer->at(l);
                  solver_.transfer_cells_.push_back(pair.cells_sent_per_prolongation() + pair.cells_sent_per_restriction());
                  solver_.transfer_messages_.push_back(pair.messages_per_prolongation() + pair.messages_per_restriction());
                }
              components.transfer = transfer;
            }
          else
            {
#ifdef CELLWISE_WITH_CUDA
              // the serial device kernels on the local levels with their
              // families (the local levels hold the family ghosts)
              const auto transfer = std::make_shared<const cuda::DistributedLevelTransfer<Number>>(
                *solver_.hierarchy_, solver_.local_, solver_.comm_, solver_.degree_);
              for (unsigned int l = 1; l < n_levels; ++l)
                {
                  solver_.transfer_cells_.push_back(transfer->cells_sent_per_prolongation(l) +
                                                    transfer->cells_sent_per_restriction(l));
                  solver_.transfer_messages_.push_back(transfer->messages_per_prolongation(l) +
                                                       transfer->messages_per_restriction(l));
                }
              components.transfer = transfer;
#endif
            }
        }, synchronize_);
      }

    private:
      bool
      shares_finest(const unsigned int l) const
      {
        return fine_operator_ && l + 1 == solver_.hierarchy_->n_levels(); // (FP64 cycles only)
      }

      DistributedMultigridSolver       &solver_;
      std::shared_ptr<Operator>         fine_operator_;
      const V                          *fine_mask_; ///< with fine_operator_: an FP64 cycle's
      const std::function<void()>      &synchronize_;
    };

    // an FP64 cycle shares the outer iteration's finest operator and mask
    std::shared_ptr<const Operator> finest;
    const V                        *finest_mask = nullptr;
    if constexpr (std::is_same_v<Number, double>)
      {
        finest      = fine_operator;
        finest_mask = &fine_mask;
      }
    Levels levels(*this, finest, finest_mask, synchronize);
    typename VCycle<V>::Components components = ::cellwise::internal::assemble_levels(*hierarchy_, levels, log);
    const VCycleParameters cycle = parameters_.cycle_parameters();
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
              std::make_shared<const cuda::DistributedActiveLevelTransfer<Number>>(*active_mesh_, levels_, outer_level_, degree_);
#endif
          }
        return std::make_shared<const LocalSmoothingVCycle<V>>(std::move(active_transfer), std::move(components), cycle);
      }
    return std::make_shared<const VCycle<V>>(std::move(components), cycle);
  }

} // namespace cellwise
