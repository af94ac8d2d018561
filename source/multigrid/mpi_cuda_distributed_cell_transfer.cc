// The device transfers across ranks (multigrid/mpi_cuda_distributed_cell_transfer.h):
// the serial device kernels on the local levels with their families, and
// whole-cell halo exchanges of parents and of children. Built into
// cellwise::mpi only with the CUDA backend.

#include <cellwise/base/mpi_check.h>
#include <cellwise/base/parallel.h>
#include <cellwise/multigrid/mpi_cuda_distributed_cell_transfer.h>

#include <array>
#include <algorithm>
#include <sstream>
#include <string>

namespace cellwise
{
  namespace cuda
  {
    template <typename Number, typename Layout>
    DistributedLevelTransfer<Number, Layout>::DistributedLevelTransfer(const PartitionedHierarchy    &hierarchy,
                                                                       const std::vector<LocalLevel> &local,
                                                                       const MPI_Comm                 comm,
                                                                       const unsigned int             degree)
    {
      const int          rank     = mpi_rank(comm);
      const unsigned int n_levels = hierarchy.n_levels();
      check_collectively(comm, local.size() == n_levels,
                         "cuda::DistributedLevelTransfer: " + std::to_string(local.size()) + " local levels for " +
                           std::to_string(n_levels));
      families_.coarse_subdivisions = hierarchy.coarse_subdivisions();
      for (unsigned int l = 0; l < n_levels; ++l)
        families_.levels.push_back(local[l].level);
      parents_.resize(n_levels);
      children_.resize(n_levels);

      for (unsigned int l = 1; l < n_levels; ++l)
        {
          const LocalLevel  &coarse = local[l - 1], &fine = local[l];
          // a serial cell's local index on the fine level (owned or ghost)
          const auto         fine_index = [&](const std::uint64_t c) { return local_index_of(fine, c); };
          Level             &coarse_family = families_.levels[l - 1], &fine_family = families_.levels[l];
          for (unsigned int k = 0; k < fine_family.n_cells(); ++k)
            fine_family.parent[k] = -1;

          // links where the whole family is local; an owned cell's family
          // and an owned parent's children must be
          bool               complete = true;
          std::ostringstream problem;
          std::vector<unsigned int> parents_needed, children_needed;
          // the children's local indices first, in parallel (searches in
          // the fine level's serial indices: seconds for 10^6 parents on one
          // thread), then the links in order
          std::vector<std::array<long, 8>> child_indices(coarse.level.n_cells());
          parallel_for(coarse.level.n_cells(), cell_grain, [&](const std::size_t k) {
            const unsigned int c = coarse.serial_index[k];
            child_indices[k]     = {{-1, -1, -1, -1, -1, -1, -1, -1}};
            if (hierarchy.is_refined(l - 1, c))
              {
                const std::array<std::uint64_t, 8> children = hierarchy.children(l - 1, c);
                for (unsigned int slot = 0; slot < 8; ++slot)
                  child_indices[k][slot] = fine_index(children[slot]);
              }
          });
          for (unsigned int k = 0; k < coarse.level.n_cells(); ++k)
            {
              const unsigned int         c           = coarse.serial_index[k];
              const bool                 refined     = hierarchy.is_refined(l - 1, c);
              const std::array<long, 8> &child_index = child_indices[k];
              bool whole = refined, owned_child = false;
              for (unsigned int slot = 0; refined && slot < 8; ++slot)
                {
                  const long child = child_index[slot];
                  whole &= child >= 0;
                  owned_child |= child >= 0 && static_cast<unsigned int>(child) < fine.n_owned_cells();
                }
              // an owned parent restricts from all its children, an owned
              // child is prolongated from its parent: both need the family
              if (refined && !whole && (owned_child || k < coarse.n_owned_cells()))
                {
                  if (complete)
                    problem << "cuda::DistributedLevelTransfer: the family of cell " << c << " of level " << l - 1
                            << " is not local on rank " << rank << " (local levels without family_ghosts?)";
                  complete = false;
                }
              coarse_family.children[k] = {{-1, -1, -1, -1, -1, -1, -1, -1}};
              if (!whole)
                {
                  coarse_family.flags[k] = static_cast<std::uint8_t>(coarse_family.flags[k] & ~cell_flags::refined);
                  continue;
                }
              for (unsigned int slot = 0; slot < 8; ++slot)
                {
                  const int child                 = static_cast<int>(child_index[slot]);
                  coarse_family.children[k][slot] = child;
                  fine_family.parent[child]       = static_cast<int>(k);
                  fine_family.child_slot[child]   = static_cast<std::uint8_t>(slot);
                  if (k < coarse.n_owned_cells() && static_cast<unsigned int>(child) >= fine.n_owned_cells())
                    children_needed.push_back(static_cast<unsigned int>(child));
                  if (k >= coarse.n_owned_cells() && static_cast<unsigned int>(child) < fine.n_owned_cells())
                    parents_needed.push_back(k);
                }
            }
          for (unsigned int k = 0; k < fine.n_owned_cells() && complete; ++k)
            if (fine_family.parent[k] < 0)
              {
                problem << "cuda::DistributedLevelTransfer: the parent of cell " << fine.serial_index[k] << " of level " << l
                        << " is not local on rank " << rank;
                complete = false;
              }
          check_collectively(comm, complete, problem.str());
          std::sort(parents_needed.begin(), parents_needed.end());
          parents_needed.erase(std::unique(parents_needed.begin(), parents_needed.end()), parents_needed.end());
          std::sort(children_needed.begin(), children_needed.end());
          parents_[l]  = std::make_unique<CellHaloExchange>(coarse, comm, parents_needed, 22);
          children_[l] = std::make_unique<CellHaloExchange>(fine, comm, children_needed, 23);
        }
      transfer_.reinit(families_, degree);
    }

    template <typename Number, typename Layout>
    void
    DistributedLevelTransfer<Number, Layout>::prolongate_add(const unsigned int to_level, VectorType &fine, const VectorType &coarse) const
    {
      CELLWISE_CHECK(to_level >= 1 && to_level < parents_.size(),
                     "cuda::DistributedLevelTransfer: level " << to_level << " of 0.." << parents_.size() - 1);
      parents_[to_level]->apply(coarse.local_for_ghost_update());
      transfer_.prolongate_add(to_level, fine.local(), coarse.local());
    }

    template <typename Number, typename Layout>
    void
    DistributedLevelTransfer<Number, Layout>::restrict_residual_add(const unsigned int from_level,
                                                                    VectorType        &coarse,
                                                                    const VectorType  &fine_b,
                                                                    const VectorType  &fine_Au) const
    {
      CELLWISE_CHECK(from_level >= 1 && from_level < children_.size(),
                     "cuda::DistributedLevelTransfer: level " << from_level << " of 0.." << children_.size() - 1);
      children_[from_level]->apply(fine_b.local_for_ghost_update());
      children_[from_level]->apply(fine_Au.local_for_ghost_update());
      transfer_.restrict_residual_add(from_level, coarse.local(), fine_b.local(), fine_Au.local());
    }

    template <typename Number, typename Layout>
    std::size_t
    DistributedLevelTransfer<Number, Layout>::cells_sent_per_prolongation(const unsigned int fine_level) const
    {
      return parents_.at(fine_level)->cells_sent();
    }
    template <typename Number, typename Layout>
    std::size_t
    DistributedLevelTransfer<Number, Layout>::cells_sent_per_restriction(const unsigned int fine_level) const
    {
      return 2 * children_.at(fine_level)->cells_sent();
    }
    template <typename Number, typename Layout>
    std::size_t
    DistributedLevelTransfer<Number, Layout>::messages_per_prolongation(const unsigned int fine_level) const
    {
      return parents_.at(fine_level)->messages();
    }
    template <typename Number, typename Layout>
    std::size_t
    DistributedLevelTransfer<Number, Layout>::messages_per_restriction(const unsigned int fine_level) const
    {
      return 2 * children_.at(fine_level)->messages();
    }

    CELLWISE_INSTANTIATE_NUMBERS_AND_LAYOUTS(DistributedLevelTransfer)
  } // namespace cuda
} // namespace cellwise
