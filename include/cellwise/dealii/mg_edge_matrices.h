#pragma once
/**
 * @file
 * Local smoothing through deal.II's Multigrid on a locally refined mesh: the
 * refinement edges of the levels and the edge matrices deal.II's
 * Multigrid::set_edge_matrices takes (as step-37 and step-50 set them up).
 *
 * deal.II splits a level ℓ with a refinement edge E_ℓ (the DoFs of level-ℓ
 * cells on faces towards coarser active cells) into its interior I and E:
 * the level matrix keeps the edge constraints (A_II, E treated as Dirichlet),
 * the smoother works on I, and the couplings go through the edge matrices:
 *
 *   residual      t = d − A_II u − A_EI u_I    (edge_out->vmult_add)
 *   after the coarse correction u += P e:
 *                 d_I −= A_IE u_E               (edge_in->Tvmult)
 *
 * The cell-wise pieces follow that split exactly, on cell-wise vectors
 * (solutions primal, defects dual), with K the cell-wise Laplacian of the
 * level and e the mask of the E copies:
 *
 *   MGMatrix on a level with E:  (1−e)∘K((1−e)∘u)            = A_II u
 *   MGEdgeMatrix::vmult:           e∘K((1−e)∘u)              = A_EI u_I
 *   MGEdgeMatrix::Tvmult:      (1−e)∘K(e∘u)                  = A_IE u_E
 *   MGSmoother on a level with E: u_E set aside, the smoother (masked on E and
 *                                 the Dirichlet copies) run, u_E put back.
 *
 * Together this is the cell-wise local-smoothing cycle of
 * multigrid/adaptive_v_cycle.h (003 §3.2), whose level operator is the full K
 * and whose smoother sees u_E: same residuals, same corrections.
 *
 * Forgetting the edge matrices would not crash but give a different, poorer
 * cycle. RefinementEdges therefore also checks the order of deal.II's calls:
 * on a level with E, the residual must not be restricted unless edge_out was
 * applied after the level matrix, nor post-smoothed unless edge_in was
 * applied after the prolongation; either failure throws cellwise::Error
 * saying to call set_edge_matrices. (set_edge_in_matrix alone is for level
 * matrices that ignore the edge constraints, which these do not.)
 */

#include <cellwise/base/exceptions.h>
#include <cellwise/mesh/level.h>
#include <cellwise/multigrid/refinement_edge.h>
#include <cellwise/operators/level_operator.h>
#include <cellwise/storage/cell_vector.h>

#include <deal.II/multigrid/mg_base.h>

#include <algorithm>
#include <memory>
#include <vector>

namespace cellwise::dealii
{
  /**
   * The refinement-edge masks of the levels of a hierarchy, and the check of
   * the order in which deal.II's Multigrid applies the edge matrices (see the
   * file comment). Shared by the MGTransfer, MGMatrix, MGEdgeMatrix and
   * MGSmoother of one MultigridComponents; deal.II runs the cycle in one
   * thread.
   */
  template <typename VectorType>
  class RefinementEdges
  {
  public:
    using Number = typename VectorType::value_type;

    /// Masks of the levels of @p hierarchy that have a refinement edge.
    RefinementEdges(const LevelHierarchy &hierarchy, const unsigned int degree)
      : masks_(hierarchy.n_levels())
      , interior_masks_(hierarchy.n_levels())
      , has_edge_(hierarchy.n_levels(), false)
      , awaiting_edge_out_(hierarchy.n_levels(), false)
      , awaiting_edge_in_(hierarchy.n_levels(), false)
    {
      for (unsigned int l = 0; l < hierarchy.n_levels(); ++l)
        if (has_refinement_edge(hierarchy.level(l)))
          {
            has_edge_[l] = true;
            masks_[l]    = make_refinement_edge_mask<Number>(hierarchy.level(l), degree);
            // 1 − e, once: zero_edge is then one pass
            interior_masks_[l] = masks_[l];
            interior_masks_[l].fill(Number(1));
            interior_masks_[l].add(Number(-1), masks_[l]);
          }
    }

    /// Whether @p level has a refinement edge.
    bool
    has_edge(const unsigned int level) const
    {
      return level < has_edge_.size() && has_edge_[level];
    }
    /// Whether any level has one (the mesh is locally refined).
    bool
    any() const
    {
      for (const bool e : has_edge_)
        if (e)
          return true;
      return false;
    }

    /// The mask of @p level: 1 on the E copies, 0 elsewhere (only for a
    /// level with an edge).
    const VectorType &
    mask(const unsigned int level) const
    {
      CELLWISE_CHECK(has_edge(level), "cellwise::dealii::RefinementEdges: level " << level << " has no refinement edge");
      return masks_[level];
    }

    /// v ← e∘v: only the E copies kept.
    void
    keep_edge(const unsigned int level, VectorType &v) const
    {
      v.scale(masks_.at(level));
    }
    /// v ← (1−e)∘v: the E copies zeroed.
    void
    zero_edge(const unsigned int level, VectorType &v) const
    {
      v.scale(interior_masks_.at(level));
    }

    /// @name The order of deal.II's calls on the levels with an edge
    /// @{
    /// A new cycle: nothing is awaited.
    void
    start_cycle() const
    {
      std::fill(awaiting_edge_out_.begin(), awaiting_edge_out_.end(), false);
      std::fill(awaiting_edge_in_.begin(), awaiting_edge_in_.end(), false);
    }
    void
    level_matrix_applied(const unsigned int level) const
    {
      if (has_edge(level))
        awaiting_edge_out_[level] = true;
    }
    void
    edge_out_applied(const unsigned int level) const
    {
      if (has_edge(level))
        awaiting_edge_out_[level] = false;
    }
    void
    restricting(const unsigned int level) const
    {
      CELLWISE_CHECK(!has_edge(level) || !awaiting_edge_out_[level],
                     "cellwise::dealii: deal.II's Multigrid restricts the residual of level "
                       << level << ", which has a refinement edge, without the edge_out matrix: the cell-wise level "
                                   "matrices keep the edge constraints, so call "
                                   "multigrid.set_edge_matrices(components.edge_matrix, components.edge_matrix) "
                                   "(set_edge_in_matrix alone is not enough)");
    }
    void
    prolongated(const unsigned int level) const
    {
      if (has_edge(level))
        awaiting_edge_in_[level] = true;
    }
    void
    edge_in_applied(const unsigned int level) const
    {
      if (has_edge(level))
        awaiting_edge_in_[level] = false;
    }
    void
    post_smoothing(const unsigned int level) const
    {
      CELLWISE_CHECK(!has_edge(level) || !awaiting_edge_in_[level],
                     "cellwise::dealii: deal.II's Multigrid post-smooths level "
                       << level << ", which has a refinement edge, without the edge_in matrix: call "
                                   "multigrid.set_edge_matrices(components.edge_matrix, components.edge_matrix)");
    }
    /// @}

  private:
    std::vector<VectorType>         masks_, interior_masks_;
    std::vector<bool>               has_edge_;
    mutable std::vector<bool>       awaiting_edge_out_, awaiting_edge_in_;
  };

  /**
   * deal.II's edge matrices over the cell-wise Laplacian of each level (see
   * the file comment): vmult is A_EI (edge_out), Tvmult is A_IE (edge_in),
   * zero on levels without a refinement edge. Pass it twice:
   * multigrid.set_edge_matrices(edge_matrix, edge_matrix).
   */
  template <typename VectorType>
  class MGEdgeMatrix : public ::dealii::MGMatrixBase<VectorType>
  {
  public:
    using Number = typename VectorType::value_type;

    MGEdgeMatrix(std::vector<std::shared_ptr<const LevelOperator<VectorType>>> operators,
                 std::shared_ptr<const RefinementEdges<VectorType>>            edges)
      : operators_(std::move(operators))
      , edges_(std::move(edges))
      , input_(operators_.size())
      , output_(operators_.size())
    {
      CELLWISE_CHECK(edges_, "cellwise::dealii::MGEdgeMatrix needs the refinement edges of the levels");
    }

    /// dst = A_EI src (edge_out).
    void
    vmult(const unsigned int level, VectorType &dst, const VectorType &src) const override
    {
      apply(level, dst, src, false, false);
      edges_->edge_out_applied(level);
    }
    void
    vmult_add(const unsigned int level, VectorType &dst, const VectorType &src) const override
    {
      apply(level, dst, src, false, true);
      edges_->edge_out_applied(level);
    }
    /// dst = A_IE src (edge_in).
    void
    Tvmult(const unsigned int level, VectorType &dst, const VectorType &src) const override
    {
      apply(level, dst, src, true, false);
      edges_->edge_in_applied(level);
    }
    void
    Tvmult_add(const unsigned int level, VectorType &dst, const VectorType &src) const override
    {
      apply(level, dst, src, true, true);
      edges_->edge_in_applied(level);
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
    /// dst (+)= A_IE src if @p edge_to_interior, else A_EI src.
    void
    apply(const unsigned int level, VectorType &dst, const VectorType &src, const bool edge_to_interior, const bool add) const
    {
      CELLWISE_CHECK(level < operators_.size() && operators_[level],
                     "cellwise::dealii::MGEdgeMatrix: no operator on level " << level);
      if (dst.n_cells() != src.n_cells() || dst.degree() != src.degree())
        dst.reinit(src.n_cells(), src.degree());
      if (!edges_->has_edge(level))
        {
          if (!add)
            dst = Number(0);
          return;
        }
      VectorType &in = input_[level];
      in             = src;
      if (edge_to_interior)
        edges_->keep_edge(level, in);
      else
        edges_->zero_edge(level, in);
      VectorType &out = add ? output_[level] : dst;
      if (add && (out.n_cells() != dst.n_cells() || out.degree() != dst.degree()))
        out.reinit(dst.n_cells(), dst.degree());
      operators_[level]->vmult(out, in);
      if (edge_to_interior)
        edges_->zero_edge(level, out);
      else
        edges_->keep_edge(level, out);
      if (add)
        dst.add(Number(1), out);
    }

    std::vector<std::shared_ptr<const LevelOperator<VectorType>>> operators_;
    std::shared_ptr<const RefinementEdges<VectorType>>            edges_;
    mutable std::vector<VectorType>                               input_, output_;
  };
} // namespace cellwise::dealii
