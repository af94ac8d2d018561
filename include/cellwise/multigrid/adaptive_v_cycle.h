#pragma once
/**
 * @file
 * Local smoothing on a locally refined hierarchy (003 §3.2, Algorithms 4–5),
 * on cell-wise storage, host backend. See doc/adaptive.md for the derivation.
 *
 * The active mesh is the set of active (leaf) cells of all levels. An *active
 * vector* is a CellVector over the active cells in the order of ActiveMesh:
 * level 0's active cells in increasing cell index, then level 1's, ... (active
 * index a = level_offset[ℓ] + j for the j-th active cell of level ℓ).
 *
 * LocalSmoothingVCycle (written once over the vector type, host and device;
 * AdaptiveVCycle is its host instance) is a Preconditioner on active vectors,
 * z = V r̃ from zero:
 *
 *  1. distribution (17): b_ℓ|_K = r̃|_K on the active cells K of level ℓ,
 *     b_ℓ|_K = 0 on its refined cells;
 *  2. the cycle (Algorithm 5) from the finest level L down: pre-smoothing on
 *     the free DoFs of level ℓ (mask 0 on Dirichlet and E_ℓ), A_ℓ u_ℓ,
 *     b_{ℓ−1} += R (b_ℓ − A_ℓ u_ℓ) (accumulating onto the distributed part),
 *     recursion, u_ℓ += P u_{ℓ−1}, post-smoothing; the coarse solve on level 0;
 *  3. reassembly (18): z|_K = u_ℓ|_K for the active cells K of level ℓ.
 *
 * Level operators act on all cells of their level (the refined cells carry the
 * prolongated coarse data). The correction z is continuous on the active mesh
 * and satisfies the hanging-node constraints (003 Corollary 1). Work per cycle
 * is proportional to the cells summed over the levels.
 */

#include <cellwise/base/exceptions.h>
#include <cellwise/base/parallel.h>
#include <cellwise/mesh/level.h>
#include <cellwise/multigrid/interfaces.h>
#include <cellwise/multigrid/v_cycle.h>
#include <cellwise/storage/cell_vector.h>

#include <memory>
#include <vector>

namespace cellwise
{
  /// The active cells of a hierarchy and the layout of active vectors.
  struct ActiveMesh
  {
    /// Active cells of level ℓ: active indices [level_offset[ℓ], level_offset[ℓ+1]).
    std::vector<unsigned int> level_offset;
    /// Cell index on its level of the j-th active cell of level ℓ.
    std::vector<std::vector<unsigned int>> active_cells;
    /// Active index of cell c of level ℓ, −1 if the cell is refined.
    std::vector<std::vector<int>> active_index;
    /// Level and level cell of active index a.
    std::vector<unsigned int> level_of, cell_of;
    /// The active cells as one Level (boxes, their level cells' mapping nodes
    /// on mapped hierarchies, the skeleton faces between active cells of one
    /// level on unstructured ones, flags active; a face's neighbour is
    /// the active index of an active same-level cell, face_neighbor::none
    /// across a hanging face (either side) and boundary on ∂Ω): input of
    /// LaplaceOperator (A_act), assemble_right_hand_side, interpolate,
    /// compute_l2_error.
    Level level;

    unsigned int
    n_levels() const
    {
      return static_cast<unsigned int>(active_cells.size());
    }
    unsigned int
    n_active_cells() const
    {
      return level.n_cells();
    }
  };

  ActiveMesh
  make_active_mesh(const LevelHierarchy &hierarchy);

  /// Whether some level below the finest of @p hierarchy keeps active cells
  /// (the local-smoothing cycle is needed).
  bool
  is_locally_refined(const LevelHierarchy &hierarchy);

  /// level_vectors[ℓ] = active values on the active cells of ℓ, zero on its
  /// refined cells (the distribution (17)); the level vectors must have their
  /// level's shape.
  template <typename Number, typename Layout>
  void
  distribute_to_levels(const ActiveMesh                                            &mesh,
                       const CellVector<Number, MemorySpace::Host, Layout>         &active,
                       std::vector<CellVector<Number, MemorySpace::Host, Layout>> &level_vectors)
  {
    CELLWISE_CHECK(active.n_cells() == mesh.n_active_cells() && level_vectors.size() == mesh.n_levels(),
                   "distribute_to_levels: active vector of " << active.n_cells() << " cells for " << mesh.n_active_cells()
                                                              << " active cells, " << level_vectors.size() << " level vectors for "
                                                              << mesh.n_levels() << " levels");
    const unsigned int n3 = active.dofs_per_cell();
    for (unsigned int l = 0; l < mesh.n_levels(); ++l)
      {
        auto &v = level_vectors[l];
        CELLWISE_CHECK(v.n_cells() == mesh.active_index[l].size() && v.degree() == active.degree(),
                       "distribute_to_levels: level " << l << " vector has the wrong shape");
        v.set_zero();
        const auto        &cells  = mesh.active_cells[l];
        const unsigned int offset = mesh.level_offset[l];
        parallel_for(cells.size(), cell_grain, [&](const std::size_t j) {
          for (unsigned int i = 0; i < n3; ++i)
            v(cells[j], i) = active(offset + j, i);
        });
      }
  }

  /// active|_K = level_vectors[ℓ]|_K for the active cells K of every level
  /// ℓ (the reassembly (18)).
  template <typename Number, typename Layout>
  void
  gather_from_levels(const ActiveMesh                                                  &mesh,
                     const std::vector<CellVector<Number, MemorySpace::Host, Layout>> &level_vectors,
                     CellVector<Number, MemorySpace::Host, Layout>                     &active)
  {
    CELLWISE_CHECK(level_vectors.size() == mesh.n_levels() && !level_vectors.empty(),
                   "gather_from_levels: " << level_vectors.size() << " level vectors for " << mesh.n_levels() << " levels");
    if (active.n_cells() != mesh.n_active_cells() || active.degree() != level_vectors[0].degree())
      active.reinit(mesh.n_active_cells(), level_vectors[0].degree());
    const unsigned int n3 = active.dofs_per_cell();
    for (unsigned int l = 0; l < mesh.n_levels(); ++l)
      {
        const auto        &v      = level_vectors[l];
        const auto        &cells  = mesh.active_cells[l];
        const unsigned int offset = mesh.level_offset[l];
        parallel_for(cells.size(), cell_grain, [&](const std::size_t j) {
          for (unsigned int i = 0; i < n3; ++i)
            active(offset + j, i) = v(cells[j], i);
        });
      }
  }

  /**
   * The distribution (17) of an active vector into the level vectors and the
   * reassembly (18) of an active vector from them, one implementation per
   * backend (host: HostActiveLevelTransfer below; CUDA:
   * cuda::ActiveMeshTransfer in multigrid/cuda_active_mesh_transfer.h; across
   * MPI ranks: DistributedActiveLevelTransfer in
   * multigrid/mpi_distributed_active_level_transfer.h). The only
   * backend-specific step of the adaptive cycle; it also knows the shapes of
   * the vectors it joins (a rank's local cells when distributed), which the
   * cycle checks at set-up.
   */
  template <typename VectorType>
  class ActiveLevelTransfer
  {
  public:
    virtual ~ActiveLevelTransfer() = default;
    /// level_vectors[ℓ] = active values on the active cells of ℓ, zero on its
    /// refined cells.
    virtual void
    distribute(const VectorType &active, std::vector<VectorType> &level_vectors) const = 0;
    /// active|_K = level_vectors[ℓ]|_K for the active cells K of every level.
    virtual void
    reassemble(const std::vector<VectorType> &level_vectors, VectorType &active) const = 0;
    virtual unsigned int
    n_levels() const = 0;
    /// Cells of the vectors of level @p level and of the active vectors.
    virtual std::size_t
    n_level_cells(unsigned int level) const = 0;
    virtual std::size_t
    n_active_cells() const = 0;
  };

  /// The host's ActiveLevelTransfer: distribute_to_levels and gather_from_levels.
  template <typename Number, typename Layout = CellContiguous>
  class HostActiveLevelTransfer : public ActiveLevelTransfer<CellVector<Number, MemorySpace::Host, Layout>>
  {
  public:
    using VectorType = CellVector<Number, MemorySpace::Host, Layout>;

    /// @p mesh is kept by reference.
    explicit HostActiveLevelTransfer(const ActiveMesh &mesh)
      : mesh_(mesh)
    {}
    /// A temporary mesh would dangle.
    explicit HostActiveLevelTransfer(const ActiveMesh &&mesh) = delete;
    void
    distribute(const VectorType &active, std::vector<VectorType> &level_vectors) const override
    {
      distribute_to_levels(mesh_, active, level_vectors);
    }
    void
    reassemble(const std::vector<VectorType> &level_vectors, VectorType &active) const override
    {
      gather_from_levels(mesh_, level_vectors, active);
    }
    unsigned int
    n_levels() const override
    {
      return mesh_.n_levels();
    }
    std::size_t
    n_level_cells(const unsigned int level) const override
    {
      return mesh_.active_index.at(level).size();
    }
    std::size_t
    n_active_cells() const override
    {
      return mesh_.n_active_cells();
    }

  private:
    const ActiveMesh &mesh_;
  };

  /**
   * The adaptive V-cycle with local smoothing, written once over the vector
   * type (as VCycle): the host (AdaptiveVCycle below) and the CUDA backend
   * (cuda::MultigridSolver on a locally refined hierarchy) plug in their
   * level components and their ActiveLevelTransfer.
   */
  template <typename VectorType>
  class LocalSmoothingVCycle : public Preconditioner<VectorType>
  {
  public:
    using Parameters = typename VCycle<VectorType>::Parameters;
    /// Per level 0..L: operators on all cells of the level; smoothers (not
    /// used on level 0) built with the level's free mask; the transfer; the
    /// coarse solver of level 0; level_shapes sizes the level vectors.
    using Components = typename VCycle<VectorType>::Components;

    LocalSmoothingVCycle(std::shared_ptr<const ActiveLevelTransfer<VectorType>> active_transfer,
                         Components                                             components,
                         const Parameters                                      &parameters)
      : active_transfer_(std::move(active_transfer))
      , components_(std::move(components))
      , parameters_(parameters)
    {
      CELLWISE_CHECK(active_transfer_, "adaptive V-cycle: no distribution/reassembly between active and level vectors");
      const std::size_t n_levels = components_.operators.size();
      CELLWISE_CHECK(n_levels >= 1 && n_levels == active_transfer_->n_levels() && components_.smoothers.size() == n_levels &&
                       components_.level_shapes.size() == n_levels && components_.coarse_solver &&
                       (n_levels == 1 || components_.transfer),
                     "adaptive V-cycle: the components do not cover the " << active_transfer_->n_levels() << " levels");
      for (std::size_t l = 1; l < n_levels; ++l)
        CELLWISE_CHECK(components_.smoothers[l], "adaptive V-cycle: no smoother on level " << l);
      u_.resize(n_levels);
      b_.resize(n_levels);
      Au_.resize(n_levels);
      for (std::size_t l = 0; l < n_levels; ++l)
        {
          CELLWISE_CHECK(components_.level_shapes[l].n_cells() == active_transfer_->n_level_cells(l),
                         "adaptive V-cycle: level " << l << " shape has " << components_.level_shapes[l].n_cells()
                                                    << " cells, the level " << active_transfer_->n_level_cells(l));
          u_[l].reinit(components_.level_shapes[l]);
          b_[l].reinit(components_.level_shapes[l]);
          if (l > 0)
            Au_[l].reinit(components_.level_shapes[l]);
        }
    }

    unsigned int
    n_levels() const
    {
      return static_cast<unsigned int>(components_.operators.size());
    }

    /// z = V r: r an active dual, z an active primal (continuous with the
    /// hanging-node constraints).
    void
    vmult(VectorType &z, const VectorType &r) const override
    {
      const auto lock = work_space_lock_.lock("cellwise::LocalSmoothingVCycle::vmult");
      CELLWISE_CHECK(r.n_cells() == active_transfer_->n_active_cells(),
                     "adaptive V-cycle: active vector of " << r.n_cells() << " cells for " << active_transfer_->n_active_cells()
                                                           << " active cells");
      active_transfer_->distribute(r, b_);
      cycle(n_levels() - 1);
      active_transfer_->reassemble(u_, z);
    }

    /// The cycle on level right-hand sides that the caller forms:
    /// @p fill(b) sets b_ℓ on every level (the vectors of this cycle, which
    /// the restrictions add to), then the cycle runs from zero and
    /// @p use(u) reads the level corrections u_ℓ, all under this cycle's
    /// lock (MixedLocalSmoothingCycle: the FP64 routing and rebuilding of
    /// the edge copies around the FP32 cycle).
    template <typename Fill, typename Use>
    void
    cycle_with(Fill &&fill, Use &&use) const
    {
      const auto lock = work_space_lock_.lock("cellwise::LocalSmoothingVCycle::cycle_with");
      fill(b_);
      cycle(n_levels() - 1);
      use(static_cast<const std::vector<VectorType> &>(u_));
    }

    const Components &
    components() const
    {
      return components_;
    }
    /// The level corrections e_ℓ of the last vmult (for tests).
    const std::vector<VectorType> &
    level_corrections() const
    {
      return u_;
    }

  private:
    /// u_l = V_l b_l from zero; b_{l−1} enters holding its distributed part.
    void
    cycle(const unsigned int l) const
    {
      VectorType &u = u_[l];
      VectorType &b = b_[l];
      if (l == 0)
        {
          components_.coarse_solver->solve(u, b);
          return;
        }
      const LevelSmoother<VectorType> &smoother = *components_.smoothers[l];
      for (unsigned int k = 0; k < parameters_.pre_smoothing; ++k)
        smoother.smooth(u, b, k == 0, parameters_.pre_direction);
      if (parameters_.pre_smoothing == 0)
        {
          u.set_zero();
          Au_[l].set_zero();
        }
      else
        components_.operators[l]->vmult(Au_[l], u);
      // accumulate: b_{l−1} already carries the active residual of level l−1
      components_.transfer->restrict_residual_add(l, b_[l - 1], b, Au_[l]);

      cycle(l - 1);
      components_.transfer->prolongate_add(l, u, u_[l - 1]);

      for (unsigned int k = 0; k < parameters_.post_smoothing; ++k)
        smoother.smooth(u, b, false, parameters_.post_direction);
    }

    std::shared_ptr<const ActiveLevelTransfer<VectorType>> active_transfer_;
    Components                                             components_;
    Parameters                                             parameters_;
    mutable std::vector<VectorType>                        u_, b_, Au_;
    WorkSpaceLock                                          work_space_lock_;
  };

  /// The host adaptive V-cycle: LocalSmoothingVCycle with the host's
  /// distribution and reassembly.
  template <typename Number, typename Layout = CellContiguous>
  class AdaptiveVCycle : public LocalSmoothingVCycle<CellVector<Number, MemorySpace::Host, Layout>>
  {
  public:
    using VectorType = CellVector<Number, MemorySpace::Host, Layout>;
    using Base       = LocalSmoothingVCycle<VectorType>;
    using typename Base::Components;
    using typename Base::Parameters;

    /// @p mesh is kept by reference.
    AdaptiveVCycle(const ActiveMesh &mesh, Components components, const Parameters &parameters)
      : Base(std::make_shared<HostActiveLevelTransfer<Number, Layout>>(mesh), std::move(components), parameters)
    {}
    /// A temporary mesh would dangle.
    AdaptiveVCycle(const ActiveMesh &&mesh, Components components, const Parameters &parameters) = delete;
  };
} // namespace cellwise
