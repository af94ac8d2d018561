#pragma once
/**
 * @file
 * deal.II's multigrid interfaces over cell-wise level vectors, so that
 * deal.II's own Multigrid<V> and PreconditionMG run the V-cycle with the
 * cell-wise components (V = CellVector<Number> on the host):
 *
 *   MGTransfer   : ::dealii::MGTransferBase<V> over a cellwise::LevelTransfer,
 *                  plus copy_to_mg / copy_from_mg / copy_from_mg_add for
 *                  PreconditionMG (outer deal.II vector <-> level vectors);
 *   MGSmoother   : ::dealii::MGSmootherBase<V> over cellwise::LevelSmoother;
 *   MGMatrix     : ::dealii::MGMatrixBase<V> over cellwise::LevelOperator;
 *   MGCoarseGrid : ::dealii::MGCoarseGridBase<V> over cellwise::CoarseSolver;
 *   MGEdgeMatrix : the edge matrices of local smoothing (mg_edge_matrices.h);
 *   MultigridComponents : all of them built from an ImportedHierarchy.
 *
 * The level vectors follow the cell-wise convention: solution and corrections
 * are primal, defects dual (unassembled). copy_to_mg therefore writes the
 * balanced dual of the outer residual (each copy r_j / valence_j), the
 * restriction acts on the unassembled residual without weights, and
 * copy_from_mg reads the (continuous) level solution back per DoF.
 *
 * The three link traps of deal.II 9.4 with a new vector type are handled
 * here: MGTransferBase<V>::prolongate_and_add and MGSmootherBase<V>::apply
 * get explicit specializations (their generic bodies exist in libdeal.ii only
 * for deal.II's vectors), and the .templates.h of Multigrid and of
 * GrowingVectorMemory are included.
 *
 * Local smoothing through deal.II's Multigrid on a locally refined mesh
 * works as in step-37 and step-50: MultigridComponents gives the edge matrix,
 * passed as multigrid.set_edge_matrices(mg.edge_matrix, mg.edge_matrix); the
 * level matrices keep the refinement-edge constraints and the smoothers leave
 * the edge alone (mg_edge_matrices.h). A transfer built without the
 * refinement edges refuses a locally refined hierarchy.
 */

#include <cellwise/base/exceptions.h>
#include <cellwise/dealii/amg_coarse_solver.h>
#include <cellwise/dealii/import.h>
#include <cellwise/dealii/mg_edge_matrices.h>
#include <cellwise/dealii/vector_transfer.h>
#include <cellwise/multigrid/cell_transfer.h>
#include <cellwise/multigrid/coarse_solvers.h>
#include <cellwise/multigrid/interfaces.h>
#include <cellwise/multigrid/level_smoothers.h>
#include <cellwise/multigrid/multigrid_solver.h>
#include <cellwise/multigrid/refinement_edge.h>
#include <cellwise/operators/laplace_operator.h>
#include <cellwise/storage/cell_vector.h>
#include <cellwise/storage/dirichlet_mask.h>

#include <deal.II/base/mg_level_object.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/lac/la_parallel_vector.h>
#include <deal.II/lac/vector_memory.templates.h>
#include <deal.II/multigrid/mg_base.h>
#include <deal.II/multigrid/multigrid.h>
#include <deal.II/multigrid/multigrid.templates.h>

#include <memory>
#include <string>
#include <vector>

// Trap 1: the generic bodies of these two virtual functions are compiled into
// libdeal.ii only for deal.II's vector types; the vtables of the base classes
// of our adapters need them for the cell vectors too.
namespace dealii
{
#define CELLWISE_DEALII_SPECIALIZE_MG_BASE(V)                                                                  \
  template <>                                                                                                  \
  inline void MGTransferBase<V>::prolongate_and_add(const unsigned int to_level, V &dst, const V &src) const  \
  {                                                                                                            \
    V temp;                                                                                                    \
    temp.reinit(dst, false);                                                                                   \
    prolongate(to_level, temp, src);                                                                           \
    dst += temp;                                                                                               \
  }                                                                                                            \
  template <>                                                                                                  \
  inline void MGSmootherBase<V>::apply(const unsigned int level, V &u, const V &rhs) const                     \
  {                                                                                                            \
    u = 0;                                                                                                     \
    smooth(level, u, rhs);                                                                                     \
  }
  CELLWISE_DEALII_SPECIALIZE_MG_BASE(::cellwise::CellVector<double>)
  CELLWISE_DEALII_SPECIALIZE_MG_BASE(::cellwise::CellVector<float>)
#undef CELLWISE_DEALII_SPECIALIZE_MG_BASE
} // namespace dealii

namespace cellwise::dealii
{
  /**
   * ::dealii::MGTransferBase over a cell-wise LevelTransfer, with the
   * copy_to_mg / copy_from_mg / copy_from_mg_add that PreconditionMG calls.
   * Level vectors are sized from the imported hierarchy.
   */
  template <typename VectorType>
  class MGTransfer : public ::dealii::MGTransferBase<VectorType>
  {
    using Number = typename VectorType::value_type;

  public:
    /// Keeps references to @p imported and @p transfer. A locally refined
    /// hierarchy needs @p edges (MultigridComponents passes them), which
    /// check that deal.II applies the edge matrices.
    MGTransfer(const ImportedHierarchy                           &imported,
               const LevelTransfer<VectorType>                   &transfer,
               std::shared_ptr<const RefinementEdges<VectorType>> edges = nullptr)
      : imported_(imported)
      , transfer_(transfer)
      , edges_(std::move(edges))
      , zero_(imported.hierarchy.n_levels())
    {
      const LevelHierarchy &h = imported.hierarchy;
      for (unsigned int l = 0; l + 1 < h.n_levels() && !edges_; ++l)
        CELLWISE_CHECK(h.level(l).n_active_cells() == 0,
                       "cellwise::dealii::MGTransfer: level "
                         << l << " has " << h.level(l).n_active_cells()
                         << " active cells; local smoothing through deal.II's Multigrid needs the refinement edges "
                            "and edge matrices: build the pieces with cellwise::dealii::MultigridComponents and call "
                            "multigrid.set_edge_matrices(components.edge_matrix, components.edge_matrix)");
      if (edges_ && edges_->any())
        count_copies_off_edge();
    }
    /// Both are kept by reference: temporaries would dangle.
    MGTransfer(const ImportedHierarchy &&, const LevelTransfer<VectorType> &, std::shared_ptr<const RefinementEdges<VectorType>> = nullptr) =
      delete;
    MGTransfer(const ImportedHierarchy &, const LevelTransfer<VectorType> &&, std::shared_ptr<const RefinementEdges<VectorType>> = nullptr) =
      delete;

    /// dst = P src (overwrites).
    void
    prolongate(const unsigned int to_level, VectorType &dst, const VectorType &src) const override
    {
      dst = 0;
      transfer_.prolongate_add(to_level, dst, src);
      if (edges_)
        edges_->prolongated(to_level);
    }

    /// dst += P src.
    void
    prolongate_and_add(const unsigned int to_level, VectorType &dst, const VectorType &src) const override
    {
      transfer_.prolongate_add(to_level, dst, src);
      if (edges_)
        edges_->prolongated(to_level);
    }

    /// dst += R src, src the unassembled residual of level @p from_level.
    void
    restrict_and_add(const unsigned int from_level, VectorType &dst, const VectorType &src) const override
    {
      if (edges_)
        edges_->restricting(from_level);
      // deal.II forms the residual itself; the cell-wise restriction takes
      // (b, A u) to fuse it, so it gets (residual, 0).
      VectorType &zero = zero_[from_level];
      if (zero.n_cells() != src.n_cells() || zero.degree() != src.degree())
        zero.reinit(src.n_cells(), src.degree());
      transfer_.restrict_residual_add(from_level, dst, src, zero);
    }

    /// Level vectors sized and zeroed; the finest level's (every level's
    /// active cells') defect is the balanced dual of @p src.
    template <int dim, typename Number2, int spacedim>
    void
    copy_to_mg(const ::dealii::DoFHandler<dim, spacedim>                   &dof_handler,
               ::dealii::MGLevelObject<VectorType>                         &dst,
               const ::dealii::LinearAlgebra::distributed::Vector<Number2> &src) const
    {
      check_dof_handler(dof_handler);
      if (edges_)
        edges_->start_cycle();
      const unsigned int n_levels = imported_.hierarchy.n_levels();
      dst.resize(0, n_levels - 1);
      for (unsigned int l = 0; l < n_levels; ++l)
        {
          // Restriction adds into the coarse defects: all levels start at zero.
          dst[l].reinit(imported_.hierarchy.level(l).n_cells(), imported_.degree);
          if (copies_off_edge_.empty())
            scatter_balanced(imported_.active_dofs[l], src, dst[l]);
          else
            scatter_off_edge(l, src, dst[l]);
        }
    }

    /// @p dst = the level solution on the active cells, per DoF.
    template <int dim, typename Number2, int spacedim>
    void
    copy_from_mg(const ::dealii::DoFHandler<dim, spacedim>             &dof_handler,
                 ::dealii::LinearAlgebra::distributed::Vector<Number2> &dst,
                 const ::dealii::MGLevelObject<VectorType>             &src) const
    {
      dst = 0;
      copy_from_mg_add(dof_handler, dst, src);
    }

    /// @p dst += the level solution on the active cells, per DoF.
    template <int dim, typename Number2, int spacedim>
    void
    copy_from_mg_add(const ::dealii::DoFHandler<dim, spacedim>             &dof_handler,
                     ::dealii::LinearAlgebra::distributed::Vector<Number2> &dst,
                     const ::dealii::MGLevelObject<VectorType>             &src) const
    {
      check_dof_handler(dof_handler);
      for (unsigned int l = src.min_level(); l <= src.max_level(); ++l)
        if (copies_off_edge_.empty())
          gather_mean_add(imported_.active_dofs[l], src[l], dst);
        else
          gather_off_edge_add(l, src[l], dst);
    }

  private:
    // On a locally refined mesh the outer vectors meet the level vectors as
    // in deal.II's transfers: a DoF's value and residual belong to its active
    // copies off the refinement edges (on a coarser level for a DoF on the
    // edge of a finer one). A hanging DoF has no such copy: its residual is
    // not used and its value in the preconditioned vector is zero, as
    // deal.II's MatrixFree operators (identity rows on constrained DoFs) and
    // AffineConstraints::distribute expect.

    bool
    on_edge(const unsigned int level, const unsigned int cell, const unsigned int i) const
    {
      return edges_->has_edge(level) && edges_->mask(level)(cell, i) != 0;
    }

    void
    count_copies_off_edge()
    {
      copies_off_edge_.assign(imported_.active_dofs.back().n_dofs, 0);
      for (unsigned int l = 0; l < imported_.active_dofs.size(); ++l)
        {
          const DofMap &map = imported_.active_dofs[l];
          for (unsigned int cell = 0; cell < map.n_cells; ++cell)
            if (map.contains(cell))
              for (unsigned int i = 0; i < map.dofs_per_cell(); ++i)
                if (!on_edge(l, cell, i))
                  ++copies_off_edge_[map(cell, i)];
        }
    }

    template <typename Number2>
    void
    scatter_off_edge(const unsigned int                                          level,
                     const ::dealii::LinearAlgebra::distributed::Vector<Number2> &src,
                     VectorType                                                  &dst) const
    {
      const DofMap &map = imported_.active_dofs[level];
      CELLWISE_CHECK(src.size() == map.n_dofs,
                     "cellwise::dealii::MGTransfer::copy_to_mg: the vector has " << src.size() << " entries, the DoFHandler "
                                                                                 << map.n_dofs << " DoFs");
      parallel_for(map.n_cells, cell_grain, [&](const std::size_t cell) {
        if (map.contains(cell))
          for (unsigned int i = 0; i < map.dofs_per_cell(); ++i)
            {
              const dof_index j = map(cell, i);
              dst(cell, i)      = on_edge(level, cell, i) ? Number(0) : Number(double(src(j)) / copies_off_edge_[j]);
            }
      });
    }

    template <typename Number2>
    void
    gather_off_edge_add(const unsigned int                                     level,
                        const VectorType                                      &src,
                        ::dealii::LinearAlgebra::distributed::Vector<Number2> &dst) const
    {
      const DofMap &map = imported_.active_dofs[level];
      CELLWISE_CHECK(src.n_cells() == map.n_cells && dst.size() == map.n_dofs,
                     "cellwise::dealii::MGTransfer::copy_from_mg: level " << level << " vector of " << src.n_cells()
                                                                           << " cells for " << map.n_cells);
      // Sequential: copies of one DoF live in different cells.
      for (unsigned int cell = 0; cell < map.n_cells; ++cell)
        if (map.contains(cell))
          for (unsigned int i = 0; i < map.dofs_per_cell(); ++i)
            if (!on_edge(level, cell, i))
              {
                const dof_index j = map(cell, i);
                dst(j) += static_cast<Number2>(double(src(cell, i)) / copies_off_edge_[j]);
              }
    }

    template <int dim, int spacedim>
    void
    check_dof_handler(const ::dealii::DoFHandler<dim, spacedim> &dof_handler) const
    {
      static_assert(dim == 3 && spacedim == 3, "cellwise is a 3D library");
      CELLWISE_CHECK(dof_handler.n_dofs() == imported_.active_dofs.back().n_dofs &&
                       dof_handler.get_triangulation().n_global_levels() == imported_.hierarchy.n_levels(),
                     "cellwise::dealii::MGTransfer: the DoFHandler passed to PreconditionMG ("
                       << dof_handler.n_dofs() << " DoFs) is not the one that was imported ("
                       << imported_.active_dofs.back().n_dofs << " DoFs)");
      check_numbering_unchanged(imported_, dof_handler, "cellwise::dealii::MGTransfer");
    }

    const ImportedHierarchy                           &imported_;
    const LevelTransfer<VectorType>                   &transfer_;
    std::shared_ptr<const RefinementEdges<VectorType>> edges_;
    /// Per active DoF: its active copies off the refinement edges (empty
    /// without local refinement).
    std::vector<unsigned int>       copies_off_edge_;
    mutable std::vector<VectorType> zero_;
  };

  /**
   * ::dealii::MGSmootherBase over one cellwise::LevelSmoother per level
   * (index = level; the coarsest entry may be empty). Use two objects for a
   * symmetric cycle with a multiplicative smoother: forward for pre-, reverse
   * for post-smoothing (deal.II's Multigrid takes them separately).
   *
   * With @p edges, on a level with a refinement edge the smoother works on
   * the interior as deal.II's does (the smoothers must be masked on the edge):
   * smooth() sets the edge values u_E aside, smooths, and puts them back;
   * their coupling to the interior comes into the defect through the edge_in
   * matrix (mg_edge_matrices.h).
   */
  template <typename VectorType>
  class MGSmoother : public ::dealii::MGSmootherBase<VectorType>
  {
  public:
    MGSmoother(std::vector<std::shared_ptr<const LevelSmoother<VectorType>>> smoothers,
               const unsigned int                                            n_applications = 1,
               const SweepDirection                                          direction      = SweepDirection::forward,
               std::shared_ptr<const RefinementEdges<VectorType>>            edges          = nullptr)
      : smoothers_(std::move(smoothers))
      , n_applications_(n_applications)
      , direction_(direction)
      , edges_(std::move(edges))
      , edge_values_(smoothers_.size())
    {
      CELLWISE_CHECK(n_applications >= 1, "MGSmoother needs at least one application, got " << n_applications);
    }

    void
    clear() override
    {}

    /// u <- S(u, rhs), n_applications times (u_E unchanged on a level with
    /// a refinement edge).
    void
    smooth(const unsigned int level, VectorType &u, const VectorType &rhs) const override
    {
      const LevelSmoother<VectorType> &s         = get(level);
      const bool                       set_aside = edges_ && edges_->has_edge(level);
      if (set_aside)
        {
          edges_->post_smoothing(level);
          VectorType &e = edge_values_.at(level);
          e             = u;
          edges_->keep_edge(level, e);
          u.add(Number(-1), e);
        }
      for (unsigned int k = 0; k < n_applications_; ++k)
        s.smooth(u, rhs, false, direction_);
      if (set_aside)
        u.add(Number(1), edge_values_[level]);
    }

    /// u = S(0, rhs): deal.II does not zero u on levels above the coarsest.
    void
    apply(const unsigned int level, VectorType &u, const VectorType &rhs) const override
    {
      const LevelSmoother<VectorType> &s = get(level);
      u                                  = 0;
      for (unsigned int k = 0; k < n_applications_; ++k)
        s.smooth(u, rhs, k == 0, direction_);
    }

  private:
    const LevelSmoother<VectorType> &
    get(const unsigned int level) const
    {
      CELLWISE_CHECK(level < smoothers_.size() && smoothers_[level],
                     "cellwise::dealii::MGSmoother: no smoother on level " << level);
      return *smoothers_[level];
    }

    using Number = typename VectorType::value_type;

    std::vector<std::shared_ptr<const LevelSmoother<VectorType>>> smoothers_;
    unsigned int                                                  n_applications_;
    SweepDirection                                                direction_;
    std::shared_ptr<const RefinementEdges<VectorType>>            edges_;
    mutable std::vector<VectorType>                               edge_values_;
  };

  /// ::dealii::MGMatrixBase over one cellwise::LevelOperator per level
  /// (symmetric: Tvmult = vmult). Output dual, input primal. With @p edges,
  /// on a level with a refinement edge it keeps the edge constraints as
  /// deal.II's level matrices do: A_II = (1−e)∘K((1−e)∘u), the couplings to
  /// the edge being the MGEdgeMatrix's.
  template <typename VectorType>
  class MGMatrix : public ::dealii::MGMatrixBase<VectorType>
  {
  public:
    explicit MGMatrix(std::vector<std::shared_ptr<const LevelOperator<VectorType>>> operators,
                      std::shared_ptr<const RefinementEdges<VectorType>>            edges = nullptr)
      : operators_(std::move(operators))
      , edges_(std::move(edges))
      , temp_(operators_.size())
      , input_(operators_.size())
    {}

    void
    vmult(const unsigned int level, VectorType &dst, const VectorType &src) const override
    {
      const LevelOperator<VectorType> &op = *operators_.at(level);
      if (!edges_ || !edges_->has_edge(level))
        {
          op.vmult(dst, src);
          return;
        }
      VectorType &in = input_[level];
      in             = src;
      edges_->zero_edge(level, in);
      op.vmult(dst, in);
      edges_->zero_edge(level, dst);
      edges_->level_matrix_applied(level);
    }
    void
    vmult_add(const unsigned int level, VectorType &dst, const VectorType &src) const override
    {
      temp_.at(level).reinit(dst, true);
      vmult(level, temp_[level], src);
      dst += temp_[level];
    }
    void
    Tvmult(const unsigned int level, VectorType &dst, const VectorType &src) const override
    {
      vmult(level, dst, src);
    }
    void
    Tvmult_add(const unsigned int level, VectorType &dst, const VectorType &src) const override
    {
      vmult_add(level, dst, src);
    }
    unsigned int
    get_minlevel() const override
    {
      return 0;
    }
    unsigned int
    get_maxlevel() const override
    {
      return static_cast<unsigned int>(operators_.size()) - 1;
    }

  private:
    std::vector<std::shared_ptr<const LevelOperator<VectorType>>> operators_;
    std::shared_ptr<const RefinementEdges<VectorType>>            edges_;
    mutable std::vector<VectorType>                               temp_, input_;
  };

  /// ::dealii::MGCoarseGridBase over a cellwise::CoarseSolver.
  template <typename VectorType>
  class MGCoarseGrid : public ::dealii::MGCoarseGridBase<VectorType>
  {
  public:
    explicit MGCoarseGrid(std::shared_ptr<const CoarseSolver<VectorType>> solver)
      : solver_(std::move(solver))
    {}

    void
    operator()(const unsigned int /*level*/, VectorType &dst, const VectorType &src) const override
    {
      solver_->solve(dst, src);
    }

  private:
    std::shared_ptr<const CoarseSolver<VectorType>> solver_;
  };

  /**
   * Everything deal.II's Multigrid needs, built from an imported hierarchy
   * with the cell-wise host components chosen by @p parameters (smoother type
   * and steps, coarse solver, Dirichlet ids): Laplace operators, smoother
   * masks, smoothers, coarse solver and transfer per level, the edge matrix
   * of a locally refined mesh, and their deal.II adapters. Use as
   * @code
   *   cellwise::dealii::MultigridComponents<float> mg(imported, parameters);
   *   ::dealii::Multigrid<cellwise::CellVector<float>> multigrid(
   *     mg.matrix, mg.coarse, mg.transfer, mg.pre_smoother, mg.post_smoother);
   *   multigrid.set_edge_matrices(mg.edge_matrix, mg.edge_matrix); // local smoothing
   *   ::dealii::PreconditionMG<3, cellwise::CellVector<float>,
   *                            cellwise::dealii::MGTransfer<cellwise::CellVector<float>>>
   *     preconditioner(dof_handler, multigrid, mg.transfer);
   * @endcode
   * On a globally refined mesh the edge matrix is zero and set_edge_matrices
   * may be left out; on a locally refined one it is required (a clear error
   * says so otherwise), and the cycle is the cell-wise local-smoothing cycle
   * of MultigridPreconditioner on a locally refined mesh. The level
   * operators are the cell-wise Laplacian (with the coefficient of
   * MultigridParameters, 1 if none) on
   * the imported cells, whatever their geometry; the outer operator stays
   * the user's. The coarse solver is that of MultigridParameters; the
   * automatic choice is Cholesky on small coarse levels and, on large ones,
   * deal.II's Trilinos AMG for Q1 and CG with the level smoother from Q2 up
   * (dealii_coarse_solver_for; coarse_description says which).
   */
  template <typename Number>
  class MultigridComponents
  {
  public:
    using VectorType = CellVector<Number>;

    /// The hierarchy is kept by reference: a temporary would dangle.
    MultigridComponents(const ImportedHierarchy &&imported, const MultigridParameters &parameters) = delete;
    /// Keeps a reference to @p imported.
    MultigridComponents(const ImportedHierarchy &imported, const MultigridParameters &parameters)
      : edges_(make_checked_edges(imported, parameters))
      , cell_transfer(imported.hierarchy, imported.degree)
      , transfer(imported, cell_transfer, edges_)
      , matrix(make_operators(imported, parameters), edges_)
      , edge_matrix(level_operators(), edges_)
      , coarse(make_coarse(imported, parameters))
      , pre_smoother(smoothers_, parameters.smoothing_steps, SweepDirection::forward, edges_)
      , post_smoother(smoothers_, parameters.smoothing_steps, SweepDirection::reverse, edges_)
    {}

    /// Level operators (index = level).
    std::vector<std::shared_ptr<LaplaceOperator<Number>>> operators;
    /// Smoother masks per level: 0 on the Dirichlet copies and, on a locally
    /// refined mesh, on the refinement edge (level 0: Dirichlet only).
    std::vector<VectorType> masks;
    /// Which coarse solver was chosen and why, e.g. "coarse solver cholesky
    /// (automatic: 1331 DoFs, Cholesky up to 1500)".
    std::string coarse_description;

  private:
    // Built first (by the helpers called from the initializer list) because
    // the adapters below take them by reference or copy.
    std::vector<std::shared_ptr<const LevelSmoother<VectorType>>> smoothers_;
    std::shared_ptr<const RefinementEdges<VectorType>>            edges_;

  public:
    CellTransfer<Number>     cell_transfer;
    MGTransfer<VectorType>   transfer;
    MGMatrix<VectorType>     matrix;
    /// For multigrid.set_edge_matrices(edge_matrix, edge_matrix).
    MGEdgeMatrix<VectorType> edge_matrix;
    MGCoarseGrid<VectorType> coarse;
    MGSmoother<VectorType>   pre_smoother;
    MGSmoother<VectorType>   post_smoother;

  private:
    std::shared_ptr<const RefinementEdges<VectorType>>
    make_checked_edges(const ImportedHierarchy &imported, const MultigridParameters &parameters)
    {
      check_solver_set_up(imported.hierarchy, imported.degree, parameters);
      check_no_pure_neumann(parameters, "cellwise::dealii::MultigridComponents");
      CELLWISE_CHECK(imported.hierarchy.n_levels() >= 2,
                     "cellwise::dealii::MultigridComponents: the mesh has one level; refine at least once");
      return std::make_shared<const RefinementEdges<VectorType>>(imported.hierarchy, imported.degree);
    }

    std::vector<std::shared_ptr<const LevelOperator<VectorType>>>
    level_operators() const
    {
      return std::vector<std::shared_ptr<const LevelOperator<VectorType>>>(operators.begin(), operators.end());
    }

    std::vector<std::shared_ptr<const LevelOperator<VectorType>>>
    make_operators(const ImportedHierarchy &imported, const MultigridParameters &parameters)
    {
      for (unsigned int l = 0; l < imported.hierarchy.n_levels(); ++l)
        operators.push_back(std::make_shared<LaplaceOperator<Number>>(imported.hierarchy.level(l), imported.degree, parameters.coefficient,
                                                                      parameters.coefficient_evaluation));
      return level_operators();
    }

    /// Masks, smoothers (levels >= 1) and the coarse solver.
    std::shared_ptr<const CoarseSolver<VectorType>>
    make_coarse(const ImportedHierarchy &imported, const MultigridParameters &parameters)
    {
      const LevelHierarchy &h        = imported.hierarchy;
      const unsigned int    n_levels = h.n_levels();
      CELLWISE_CHECK(!has_refinement_edge(h.level(0)), "cellwise::dealii::MultigridComponents: level 0 must cover the domain");
      for (unsigned int l = 0; l < n_levels; ++l)
        masks.push_back(l == 0 ? make_dirichlet_mask<Number>(h.level(l), imported.degree, parameters.dirichlet_ids)
                               : make_free_mask<Number>(h.level(l), imported.degree, parameters.dirichlet_ids));
      smoothers_.resize(n_levels);
      for (unsigned int l = 0; l < n_levels; ++l)
        smoothers_[l] = make_level_smoother(h.level(l), *operators[l], masks[l], parameters);
      const CoarseSolverType type = dealii_coarse_solver_for(parameters, h.level(0), imported.degree);
      coarse_description          = describe_dealii_coarse_solver(parameters, h.level(0), imported.degree);
      if (type == CoarseSolverType::cholesky)
        return std::make_shared<CholeskyCoarseSolver<Number>>(h.level(0), *operators[0], masks[0]);
      if (type == CoarseSolverType::amg)
        return std::make_shared<AmgCoarseSolver<Number>>(h.level(0), *operators[0], masks[0]);
      return make_smoother_coarse_solver<VectorType>(parameters, type, operators[0], smoothers_[0], masks[0],
                                                     parameters.coarse_smoother_applications);
    }
  };
} // namespace cellwise::dealii
