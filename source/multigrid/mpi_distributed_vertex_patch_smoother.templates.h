#pragma once
// The definitions of DistributedVertexPatchSmoother (multigrid/
// mpi_distributed_vertex_patch_smoother.h), written once over the memory
// space: mpi_distributed_vertex_patch_smoother.cc instantiates them for
// host vectors, mpi_cuda_distributed_vertex_patch_smoother.cc (with the CUDA
// backend only) for device vectors. Not installed.

#include <cellwise/multigrid/mpi_distributed_vertex_patch_smoother.h>

#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace cellwise
{
  namespace
  {
    const Level &
    checked_level(const DistributedLevel &level)
    {
      check_collectively(level.comm, level.local->ghost_layer == GhostLayer::vertices,
                         "DistributedVertexPatchSmoother: the local level holds only the face ghosts; a patch across "
                         "ranks needs every cell that shares a vertex with an owned cell (make_local_level with "
                         "GhostLayer::vertices)");
      check_collectively(level.comm, !level.local->level.has_skeleton(),
                         "DistributedVertexPatchSmoother: unstructured coarse meshes are not distributed yet");
      return level.local->level;
    }
  } // namespace

  template <typename Number, typename Layout, typename Memory>
  DistributedVertexPatchSmoother<Number, Layout, Memory>::DistributedVertexPatchSmoother(
    const DistributedLaplaceOperator<Number, Layout, Memory> &op,
    const unsigned int                                        n_sweeps)
    : operator_(op)
  {
    const Level &level = checked_level(*op.level());
    if constexpr (std::is_same_v<Memory, MemorySpace::Host>)
      smoother_ = std::make_unique<LocalSmoother>(level, op.local_operator(), n_sweeps);
    else
      smoother_ = std::make_unique<LocalSmoother>(level, op.degree(), n_sweeps);
    const LocalLevel  &local   = *op.level()->local;
    const MPI_Comm     comm    = op.level()->comm;
    const unsigned int n_cells = local.level.n_cells(), n_owned = local.n_owned_cells();

    std::vector<unsigned int> ghosts;
    for (unsigned int g = n_owned; g < n_cells; ++g)
      ghosts.push_back(g);
    whole_halo_ = CellHaloExchange(local, comm, ghosts, 200);

    // the patches the local smoother solves (make_vertex_patches of the
    // local level: those that touch an owned cell)
    std::vector<std::array<unsigned char, VertexPatches::n_colours>> membership;
    if constexpr (std::is_same_v<Memory, MemorySpace::Host>)
      membership = count_patch_memberships(smoother_->patches(), n_cells);
    else
      membership = count_patch_memberships(make_vertex_patches(level), n_cells);
    for (unsigned int colour = 0; colour < VertexPatches::n_colours; ++colour)
      {
        std::vector<unsigned int> stale;
        for (const unsigned int g : ghosts)
          if (membership[g][colour] == 0)
            stale.push_back(g);
        colour_halo_[colour] = CellHaloExchange(local, comm, stale, 201 + static_cast<int>(colour), colour);
      }
  }

  template <typename Number, typename Layout, typename Memory>
  void
  DistributedVertexPatchSmoother<Number, Layout, Memory>::smooth(VectorType          &u,
                                                         const VectorType    &b,
                                                         const bool           zero_initial_guess,
                                                         const SweepDirection direction) const
  {
    CELLWISE_CHECK(b.level_pointer() == operator_.level() && u.level_pointer() == operator_.level(),
                   "DistributedVertexPatchSmoother: the vectors are not on the smoother's level");
    // the ghost cells of b are scratch: updating them leaves b's meaning
    // (its owned values) as it was
    whole_halo_.apply(b.local_for_ghost_update());
    if (!zero_initial_guess) // else the serial sweep zeroes all of u
      whole_halo_.apply(u.local());
    smoother_->smooth(u.local(), b.local(), zero_initial_guess, direction, [&](const unsigned int colour, const bool last) {
      if (!last)
        colour_halo_[colour].apply(u.local());
    });
  }

  template <typename Number, typename Layout, typename Memory>
  std::size_t
  DistributedVertexPatchSmoother<Number, Layout, Memory>::values_sent_per_smooth(const bool zero_initial_guess, const SweepDirection direction) const
  {
    const unsigned int degree = smoother_->degree();
    std::size_t        values = whole_halo_.values_sent(degree) * (zero_initial_guess ? 1 : 2);
    for (unsigned int sweep = 0; sweep < smoother_->n_sweeps(); ++sweep)
      for (unsigned int step = 0; step < 8; ++step)
        if (sweep + 1 < smoother_->n_sweeps() || step < 7)
          values += colour_halo_[sweep_colour(step, direction)].values_sent(degree);
    return values;
  }

  template <typename Number, typename Layout, typename Memory>
  std::size_t
  DistributedVertexPatchSmoother<Number, Layout, Memory>::messages_per_smooth(const bool zero_initial_guess, const SweepDirection direction) const
  {
    std::size_t messages = whole_halo_.messages() * (zero_initial_guess ? 1 : 2);
    for (unsigned int sweep = 0; sweep < smoother_->n_sweeps(); ++sweep)
      for (unsigned int step = 0; step < 8; ++step)
        if (sweep + 1 < smoother_->n_sweeps() || step < 7)
          messages += colour_halo_[sweep_colour(step, direction)].messages();
    return messages;
  }

} // namespace cellwise
