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

#include <cmath>
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
  /**
   * Coarse solve of a large coarse level (003's unstructured coarse meshes
   * of 10^4 cells and more, where the dense factorization is too costly):
   * CG on the level operator, preconditioned by one smoothing step from zero,
   * to a reduction of the preconditioned residual norm by @p reduction. The
   * step must be symmetric positive definite: one application of a point
   * smoother (Jacobi, Chebyshev: a polynomial in D⁻¹A times D⁻¹), a forward
   * and a reverse sweep of the multiplicative patch smoother
   * (@p forward_and_reverse). Two applications of Chebyshev would be
   * 2P − PAP, indefinite where P A exceeds 2. An inexact inner CG makes the V-cycle slightly
   * nonlinear; at 1e-3 the outer CG counts are those of the exact coarse
   * solve (tests/unit/solver_test.cc). Written over the vector type: host
   * and device.
   */
  template <typename VectorType>
  class CgCoarseSolver : public CoarseSolver<VectorType>
  {
  public:
    CgCoarseSolver(std::shared_ptr<const LevelOperator<VectorType>> op,
                   std::shared_ptr<const LevelSmoother<VectorType>> smoother,
                   const VectorType                                &mask,
                   const bool                                       forward_and_reverse,
                   const double                                     reduction      = 1e-3,
                   const unsigned int                               max_iterations = 500)
      : op_(std::move(op))
      , preconditioner_(std::move(smoother), forward_and_reverse)
      , mask_(mask)
      , reduction_(reduction)
      , max_iterations_(max_iterations)
    {
      CELLWISE_CHECK(op_ && preconditioner_.smoother, "CG coarse solver: no operator or no smoother");
      CELLWISE_CHECK(reduction > 0 && reduction < 1, "CG coarse solver: reduction " << reduction << " is not in (0, 1)");
      CELLWISE_CHECK(max_iterations >= 1, "CG coarse solver: needs at least one iteration");
    }

    /// u ≈ A⁻¹ b from zero. A preconditioner must not fail where the outer
    /// iteration would not: a zero or rounding-level b (the outer residual
    /// once it has converged) gives u = 0 or the iterate at which the
    /// pairings stop decreasing, without an error; the outer iteration's own
    /// monitor decides convergence.
    void
    solve(VectorType &u, const VectorType &b) const override
    {
      const auto lock = work_space_lock_.lock("cellwise::CgCoarseSolver::solve");
      using Number = typename VectorType::value_type;
      if (!u.has_shape_of(b))
        u.reinit(b);
      else
        u.set_zero();
      last_iterations_ = 0;
      op_->masked_residual(r_, b, u, mask_);
      z_.reinit(r_);
      preconditioner_.vmult(z_, r_);
      double rz = r_.dot(z_);
      CELLWISE_CHECK(std::isfinite(rz), "CG coarse solver: the right-hand side pairing is " << rz);
      if (!(rz > 0))
        return;
      const double target = reduction_ * reduction_ * rz;
      p_ = z_;
      q_.reinit(r_);
      for (unsigned int step = 1; step <= max_iterations_; ++step)
        {
          op_->masked_vmult(q_, p_, mask_);
          const double pq = p_.dot(q_);
          if (!(pq > 0)) // breakdown at rounding level: keep the iterate
            return;
          const double alpha = rz / pq;
          u.add(Number(alpha), p_);
          r_.add(Number(-alpha), q_);
          preconditioner_.vmult(z_, r_);
          const double rz_new = r_.dot(z_);
          last_iterations_    = step;
          if (!(rz_new > target))
            return;
          p_.sadd(Number(rz_new / rz), Number(1), z_);
          rz = rz_new;
        }
      ++n_incomplete_;
    }

    /// Solves that ended at max_iterations above the reduction (rounding-
    /// level right-hand sides end there; a cycle whose coarse solves keep
    /// ending there shows it in the outer iteration counts).
    unsigned int
    n_incomplete_solves() const
    {
      return n_incomplete_;
    }

    /// CG iterations of the last solve.
    unsigned int
    last_iterations() const
    {
      return last_iterations_;
    }

  private:
    /// One symmetric smoothing step from zero as the CG preconditioner.
    struct SmootherPreconditioner : Preconditioner<VectorType>
    {
      SmootherPreconditioner(std::shared_ptr<const LevelSmoother<VectorType>> s, const bool both_directions)
        : smoother(std::move(s))
        , forward_and_reverse(both_directions)
      {}
      void
      vmult(VectorType &z, const VectorType &r) const override
      {
        smoother->smooth(z, r, true, SweepDirection::forward);
        if (forward_and_reverse)
          smoother->smooth(z, r, false, SweepDirection::reverse);
      }
      std::shared_ptr<const LevelSmoother<VectorType>> smoother;
      bool                                             forward_and_reverse;
    };

    std::shared_ptr<const LevelOperator<VectorType>> op_;
    SmootherPreconditioner                           preconditioner_;
    VectorType                                       mask_;
    double                                           reduction_;
    unsigned int                                     max_iterations_;
    mutable unsigned int                             last_iterations_ = 0;
    mutable unsigned int                             n_incomplete_    = 0;
    mutable VectorType                               r_, z_, p_, q_;
    WorkSpaceLock                                    work_space_lock_;
  };
} // namespace cellwise
