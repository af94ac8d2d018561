#pragma once
/**
 * @file
 * The distribution (17) and reassembly (18) of the adaptive V-cycle
 * (multigrid/adaptive_v_cycle.h) across MPI ranks. The active mesh is
 * partitioned by the levels (an active cell belongs to the rank that owns
 * it on its level: morton_partition cuts the active cells of all levels),
 * so both are copies between a rank's own cells and need no message: each
 * owned active cell is an owned cell of its level's local level. On device
 * vectors: cuda::DistributedActiveLevelTransfer
 * (multigrid/mpi_cuda_distributed_active_level_transfer.h).
 *
 * Built only with MPI (library cellwise::mpi).
 */

#include <cellwise/base/exceptions.h>
#include <cellwise/base/parallel.h>
#include <cellwise/mesh/partition.h>
#include <cellwise/multigrid/adaptive_v_cycle.h>
#include <cellwise/storage/mpi_distributed_cell_vector.h>

#include <memory>
#include <utility>
#include <vector>

namespace cellwise
{
  /// Per level of @p mesh (the active mesh of the serial hierarchy): the
  /// pairs (owned cell of @p active, its owned cell on @p levels[ℓ]) of
  /// this rank's active cells of ℓ, in increasing order of both. @p levels:
  /// this rank's part of every level; @p active: its part of the active
  /// mesh's level, partitioned as the levels (cell a of it owned where cell
  /// cell_of[a] of level level_of[a] is). Throws cellwise::Error where the
  /// two partitions disagree (a defect of the caller).
  inline std::vector<std::vector<std::pair<unsigned int, unsigned int>>>
  active_level_copies(const ActiveMesh                                           &mesh,
                      const std::vector<std::shared_ptr<const DistributedLevel>> &levels,
                      const DistributedLevel                                     &active)
  {
    CELLWISE_CHECK(levels.size() == mesh.n_levels(), "active_level_copies: " << levels.size() << " local levels for an active mesh of "
                                                                             << mesh.n_levels() << " levels");
    std::vector<std::vector<long>> owned(levels.size());
    for (unsigned int l = 0; l < levels.size(); ++l)
      owned[l] = owned_local_indices(*levels[l]->local, static_cast<unsigned int>(mesh.active_index[l].size()));
    std::vector<std::vector<std::pair<unsigned int, unsigned int>>> copies(levels.size());
    const LocalLevel &local = *active.local;
    for (unsigned int k = 0; k < local.n_owned_cells(); ++k)
      {
        const unsigned int a = local.serial_index[k], l = mesh.level_of.at(a), c = mesh.cell_of.at(a);
        CELLWISE_CHECK(owned[l][c] >= 0, "active_level_copies: active cell " << a << " (cell " << c << " of level " << l
                                                                             << ") is owned here on the active mesh but not on "
                                                                                "its level");
        copies[l].emplace_back(k, static_cast<unsigned int>(owned[l][c]));
      }
    return copies;
  }

  template <typename Number, typename Layout = CellContiguous>
  class DistributedActiveLevelTransfer : public ActiveLevelTransfer<DistributedCellVector<Number, Layout>>
  {
  public:
    using VectorType = DistributedCellVector<Number, Layout>;

    /// @p mesh, @p levels and @p active as for active_level_copies; the
    /// levels are kept (the vectors' levels, checked at every call).
    DistributedActiveLevelTransfer(const ActiveMesh                                           &mesh,
                                   const std::vector<std::shared_ptr<const DistributedLevel>> &levels,
                                   std::shared_ptr<const DistributedLevel>                     active)
      : levels_(levels)
      , active_(std::move(active))
      , copies_(active_level_copies(mesh, levels, *active_))
    {}

    /// level_vectors[ℓ] = the active values on this rank's active cells of
    /// ℓ, zero elsewhere (refined and ghost cells).
    void
    distribute(const VectorType &active, std::vector<VectorType> &level_vectors) const override
    {
      check(active, level_vectors);
      for (unsigned int l = 0; l < levels_.size(); ++l)
        {
          auto &v = level_vectors[l].local();
          v.set_zero();
          const auto &copies = copies_[l];
          parallel_for(copies.size(), cell_grain, [&](const std::size_t j) {
            for (unsigned int i = 0; i < v.dofs_per_cell(); ++i)
              v(copies[j].second, i) = active.local()(copies[j].first, i);
          });
        }
    }

    /// active|_K = level_vectors[ℓ]|_K on this rank's active cells K of
    /// every level ℓ (an empty @p active is shaped first).
    void
    reassemble(const std::vector<VectorType> &level_vectors, VectorType &active) const override
    {
      if (active.n_cells() == 0)
        active = VectorType(active_, level_vectors.at(0).degree());
      check(active, level_vectors);
      for (unsigned int l = 0; l < levels_.size(); ++l)
        {
          const auto &v      = level_vectors[l].local();
          const auto &copies = copies_[l];
          parallel_for(copies.size(), cell_grain, [&](const std::size_t j) {
            for (unsigned int i = 0; i < v.dofs_per_cell(); ++i)
              active.local()(copies[j].first, i) = v(copies[j].second, i);
          });
        }
    }

    unsigned int
    n_levels() const override
    {
      return static_cast<unsigned int>(levels_.size());
    }
    std::size_t
    n_level_cells(const unsigned int level) const override
    {
      return levels_.at(level)->local->level.n_cells();
    }
    std::size_t
    n_active_cells() const override
    {
      return active_->local->level.n_cells();
    }

  private:
    void
    check(const VectorType &active, const std::vector<VectorType> &level_vectors) const
    {
      bool fits = active.level_pointer() == active_ && level_vectors.size() == levels_.size();
      for (unsigned int l = 0; l < level_vectors.size() && fits; ++l)
        fits = level_vectors[l].level_pointer() == levels_[l] && level_vectors[l].degree() == active.degree();
      CELLWISE_CHECK(fits, "DistributedActiveLevelTransfer: the active vector or a level vector does not live on this "
                           "transfer's levels");
    }

    std::vector<std::shared_ptr<const DistributedLevel>> levels_;
    std::shared_ptr<const DistributedLevel>              active_;
    /// Per level: (owned active cell, its owned cell on the local level).
    std::vector<std::vector<std::pair<unsigned int, unsigned int>>> copies_;
  };
} // namespace cellwise
