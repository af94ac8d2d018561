// cuda::DistributedActiveLevelTransfer (multigrid/mpi_cuda_distributed_active_level_transfer.h):
// host code over the exchanges' device gather and scatter. Built into
// cellwise::mpi only with the CUDA backend.

#include <cellwise/base/cuda_check.h>
#include <cellwise/multigrid/mpi_cuda_distributed_active_level_transfer.h>
#include <cellwise/multigrid/mpi_distributed_active_level_transfer.h>
#include <cellwise/storage/cuda_cell_entry_gather.h>

#include <algorithm>

namespace cellwise
{
  namespace cuda
  {
    template <typename Number, typename Layout>
    DistributedActiveLevelTransfer<Number, Layout>::DistributedActiveLevelTransfer(
      const ActiveMesh                                           &mesh,
      const std::vector<std::shared_ptr<const DistributedLevel>> &levels,
      std::shared_ptr<const DistributedLevel>                     active,
      const unsigned int                                          degree)
      : levels_(levels)
      , active_(std::move(active))
      , degree_(degree)
    {
      const auto          copies = active_level_copies(mesh, levels_, *active_);
      const std::uint64_t n      = std::uint64_t(degree + 1) * (degree + 1) * (degree + 1);
      std::size_t         longest = 0;
      try
        {
          for (const auto &level_copies : copies)
            {
              std::vector<std::uint64_t> active_entries, level_entries;
              active_entries.reserve(level_copies.size() * n);
              level_entries.reserve(level_copies.size() * n);
              for (const auto &[a, c] : level_copies)
                for (std::uint64_t i = 0; i < n; ++i)
                  {
                    active_entries.push_back(a * n + i);
                    level_entries.push_back(c * n + i);
                  }
              Lists lists;
              lists.count = active_entries.size();
              lists_.push_back(lists);
              lists_.back().active = upload(active_entries, "the active mesh transfer's entry lists");
              lists_.back().level  = upload(level_entries, "the active mesh transfer's entry lists");
              longest              = std::max(longest, lists.count);
            }
          buffer_ = allocate<Number>(longest, "the active mesh transfer's buffer");
        }
      catch (...)
        {
          for (const Lists &lists : lists_)
            {
              free_bytes(lists.active);
              free_bytes(lists.level);
            }
          throw;
        }
    }

    template <typename Number, typename Layout>
    DistributedActiveLevelTransfer<Number, Layout>::~DistributedActiveLevelTransfer()
    {
      for (const Lists &lists : lists_)
        {
          free_bytes(lists.active);
          free_bytes(lists.level);
        }
      free_bytes(buffer_);
    }

    template <typename Number, typename Layout>
    void
    DistributedActiveLevelTransfer<Number, Layout>::check(const VectorType &active, const std::vector<VectorType> &level_vectors) const
    {
      bool fits = active.level_pointer() == active_ && active.degree() == degree_ && level_vectors.size() == levels_.size();
      for (unsigned int l = 0; l < level_vectors.size() && fits; ++l)
        fits = level_vectors[l].level_pointer() == levels_[l] && level_vectors[l].degree() == degree_;
      CELLWISE_CHECK(fits, "cuda::DistributedActiveLevelTransfer: the active vector or a level vector does not live on this "
                           "transfer's levels, or has another degree");
    }

    template <typename Number, typename Layout>
    void
    DistributedActiveLevelTransfer<Number, Layout>::distribute(const VectorType &active, std::vector<VectorType> &level_vectors) const
    {
      check(active, level_vectors);
      for (unsigned int l = 0; l < levels_.size(); ++l)
        {
          level_vectors[l].local().set_zero();
          gather_entries(active.local(), lists_[l].active, lists_[l].count, buffer_);
          scatter_entries(level_vectors[l].local(), lists_[l].level, lists_[l].count, buffer_);
        }
    }

    template <typename Number, typename Layout>
    void
    DistributedActiveLevelTransfer<Number, Layout>::reassemble(const std::vector<VectorType> &level_vectors, VectorType &active) const
    {
      if (active.n_cells() == 0)
        active = VectorType(active_, degree_);
      check(active, level_vectors);
      for (unsigned int l = 0; l < levels_.size(); ++l)
        {
          gather_entries(level_vectors[l].local(), lists_[l].level, lists_[l].count, buffer_);
          scatter_entries(active.local(), lists_[l].active, lists_[l].count, buffer_);
        }
    }

    CELLWISE_INSTANTIATE_NUMBERS(DistributedActiveLevelTransfer, CellContiguous)
  } // namespace cuda
} // namespace cellwise
