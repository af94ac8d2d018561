#pragma once
/**
 * @file
 * The multiplicative vertex-patch smoother on a level distributed over MPI
 * ranks, equal bit for bit to the serial sweep (doc/mpi.md, "The
 * vertex-patch smoother across ranks").
 *
 * A patch reads and writes only its own eight cells, and in one colour a
 * cell lies in at most one patch. So each rank solves every patch that
 * touches one of its owned cells, including those whose other cells lie
 * on other ranks: such a patch is solved by each rank that owns one of its
 * cells, from the same eight cells' values in the same order, i.e.
 * identically, and each rank keeps the correction in all eight of its
 * copies. The rank's local level holds the ghosts of GhostLayer::vertices
 * (every cell of these patches). What a rank cannot compute is the change
 * of a ghost cell by a patch that touches none of its owned cells; after
 * each colour the owners send exactly those ghost cells (requested at
 * set-up per colour), and of each only the p³ nodes that the colour's
 * patch can change. The last colour of a call sends
 * nothing: ghost values are not meaningful between operations, so each
 * call starts by updating the ghost cells of b and, unless the initial
 * guess is zero, of u.
 *
 * Exchanges per call with s sweeps: 2 (1 with a zero initial guess) + 8 s − 1.
 *
 * On device vectors (@p Memory = MemorySpace::CUDA) the local smoother is
 * cuda::VertexPatchSmoother of the local level (the colour-step kernel it
 * picks for the local level's patch lists: the register kernel for FP32
 * Q3 on equal cells, the generic one otherwise) and the halo exchanges
 * pack on the device (source/multigrid/mpi_cuda_distributed_vertex_patch_smoother.cc).
 *
 * Built only with MPI (library cellwise::mpi).
 */

#include <cellwise/multigrid/cuda_vertex_patch_smoother.h>
#include <cellwise/multigrid/interfaces.h>
#include <cellwise/multigrid/vertex_patch_smoother.h>
#include <cellwise/operators/mpi_distributed_laplace_operator.h>
#include <cellwise/storage/mpi_cell_halo_exchange.h>
#include <cellwise/storage/mpi_distributed_cell_vector.h>

#include <array>
#include <cstddef>
#include <memory>
#include <type_traits>

namespace cellwise
{
  template <typename Number, typename Layout = CellContiguous, typename Memory = MemorySpace::Host>
  class DistributedVertexPatchSmoother : public LevelSmoother<DistributedCellVector<Number, Layout, Memory>>
  {
  public:
    using value_type = Number;
    using VectorType = DistributedCellVector<Number, Layout, Memory>;
    /// The serial smoother of the rank's local level: host or device.
    using LocalSmoother = std::conditional_t<std::is_same_v<Memory, MemorySpace::Host>,
                                             VertexPatchSmoother<Number, Layout>,
                                             cuda::VertexPatchSmoother<Number, Layout>>;

    /// Collective. @p op on a level whose local part was built with
    /// GhostLayer::vertices (kept by reference); @p n_sweeps sweeps per
    /// smooth(). Box cells (exact local solves) and the other meshes that
    /// the serial VertexPatchSmoother takes without a skeleton (on the
    /// device: what cuda::VertexPatchSmoother takes).
    DistributedVertexPatchSmoother(const DistributedLaplaceOperator<Number, Layout, Memory> &op, unsigned int n_sweeps = 1);
    /// A temporary operator would dangle.
    DistributedVertexPatchSmoother(const DistributedLaplaceOperator<Number, Layout, Memory> &&op, unsigned int n_sweeps = 1) = delete;

    /// u ← S(u, b), the serial sweep's owned values. Updates the ghost
    /// cells of @p b, which are scratch between operations (as deal.II's
    /// update_ghost_values() is const). Collective.
    void
    smooth(VectorType &u, const VectorType &b, bool zero_initial_guess, SweepDirection direction) const override;

    /// The serial smoother of the rank's local level (its patches: those
    /// that touch an owned cell).
    const LocalSmoother &
    local_smoother() const
    {
      return *smoother_;
    }

    /// Values and messages this rank sends in one smooth() call.
    std::size_t
    values_sent_per_smooth(bool zero_initial_guess, SweepDirection direction) const;
    std::size_t
    messages_per_smooth(bool zero_initial_guess, SweepDirection direction) const;

  private:
    const DistributedLaplaceOperator<Number, Layout, Memory> &operator_;
    /// Not movable on the device: held by pointer.
    std::unique_ptr<LocalSmoother> smoother_;
    /// Every ghost cell, from its owner (b, and u at the start of a call).
    CellHaloExchange whole_halo_;
    /// Per colour: the ghost cells that the colour changes in patches that
    /// touch no owned cell of this rank.
    std::array<CellHaloExchange, VertexPatches::n_colours> colour_halo_;
  };
} // namespace cellwise
