#pragma once
/**
 * @file
 * Solvers of the coarsest level (host backend): the exact solve by a dense
 * Cholesky factorization of the assembled coarse matrix on the free DoFs, built
 * once from the cell matrices; or a fixed number of smoother applications.
 */

#include <cellwise/base/dense_matrix.h>
#include <cellwise/multigrid/interfaces.h>
#include <cellwise/operators/laplace_operator.h>
#include <cellwise/storage/dof_numbering.h>

#include <functional>
#include <memory>
#include <vector>

namespace cellwise
{
  template <typename Number, typename Layout = CellContiguous>
  class CholeskyCoarseSolver : public CoarseSolver<CellVector<Number, MemorySpace::Host, Layout>>
  {
  public:
    using VectorType = CellVector<Number, MemorySpace::Host, Layout>;

    /// Largest number of free DoFs for which the dense factorization is built.
    static constexpr unsigned int max_free_dofs = 12000;

    /// @p mask: 1 on free, 0 on Dirichlet copies of level 0. With
    /// @p constant_null_space (the pure Neumann problem, A 1 = 0) the
    /// factorized matrix is A + s 1 1ᵀ with s the mean diagonal entry over
    /// the DoF count: SPD, and for a compatible b (1ᵀ b = 0) its solution is
    /// the solution of A x = b with 1ᵀ x = 0.
    CholeskyCoarseSolver(const Level                           &level,
                         const LaplaceOperator<Number, Layout> &op,
                         const VectorType                      &mask,
                         bool                                   constant_null_space = false);

    /// Any element: storage @p degree, the trace @p layers its faces share
    /// (which copies are one DoF) and its dense cell matrices; e.g. the C¹
    /// Hermite operator (hermite_trace_layers(), cell_matrix()).
    CholeskyCoarseSolver(const Level                                    &level,
                         unsigned int                                    degree,
                         const TraceLayers                              &layers,
                         const std::function<DenseMatrix(unsigned int)> &cell_matrix,
                         const VectorType                               &mask,
                         bool                                            constant_null_space = false);

    void
    solve(VectorType &u, const VectorType &b) const override;

    unsigned int
    n_free_dofs() const
    {
      return static_cast<unsigned int>(free_dofs_.size());
    }

  private:
    DofNumbering                           numbering_;
    std::vector<int>                       free_index_; ///< global DoF -> row, -1 if constrained
    std::vector<unsigned int>              free_dofs_;
    std::unique_ptr<CholeskyFactorization> factorization_;
  };

  /// Approximate coarse solve: @p n_applications of a smoother from zero.
  template <typename VectorType>
  class SmootherCoarseSolver : public CoarseSolver<VectorType>
  {
  public:
    SmootherCoarseSolver(std::shared_ptr<const LevelSmoother<VectorType>> smoother, const unsigned int n_applications)
      : smoother_(std::move(smoother))
      , n_applications_(n_applications)
    {
      CELLWISE_CHECK(n_applications >= 1, "the coarse smoother needs at least one application, got " << n_applications);
    }

    void
    solve(VectorType &u, const VectorType &b) const override
    {
      for (unsigned int k = 0; k < n_applications_; ++k)
        smoother_->smooth(u, b, k == 0, k % 2 == 0 ? SweepDirection::forward : SweepDirection::reverse);
    }

  private:
    std::shared_ptr<const LevelSmoother<VectorType>> smoother_;
    unsigned int                                     n_applications_;
  };
} // namespace cellwise
