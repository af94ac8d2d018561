// Smoothers, coarse solver and V-cycle: continuity of smoothed iterates,
// exactness of the coarse solve, the Chebyshev eigenvalue estimate against a
// dense eigenvalue computation, symmetry of the symmetric cycle, the optional
// fused residual restriction of a level.

#include <cellwise/fe/generalized_eigenproblem.h>
#include <cellwise/mesh/box_builder.h>
#include <cellwise/multigrid/chebyshev_smoother.h>
#include <cellwise/multigrid/coarse_solvers.h>
#include <cellwise/multigrid/jacobi_smoother.h>
#include <cellwise/multigrid/multigrid_solver.h>
#include <cellwise/storage/dirichlet_mask.h>
#include <cellwise/storage/dof_numbering.h>

#include <gtest/gtest.h>

#include <tuple>

#include "test_utilities.h"

using namespace cellwise;
using namespace cellwise::testing;

namespace
{
  BoxDescription
  unequal_box()
  {
    BoxDescription box;
    box.upper        = {{1.5, 1.4, 2.2}};
    box.subdivisions = {{3, 2, 2}};
    return box;
  }

  /// Random dual vector with zero Dirichlet entries.
  CellVector<double>
  random_dual(const CellVector<double> &mask, const unsigned int seed)
  {
    CellVector<double> r;
    r.reinit(mask);
    fill_random(r, seed);
    r.scale(mask);
    return r;
  }
} // namespace

TEST(JacobiSmoother, KeepsIterateContinuousAndDirichletZero)
{
  const LevelHierarchy h     = make_box_hierarchy(unequal_box(), 1);
  const Level         &level = h.levels.back();
  for (const unsigned int degree : {1u, 2u, 3u, 4u})
    {
      const auto              mask = make_dirichlet_mask<double>(level, degree);
      LaplaceOperator<double> op(level, degree);
      JacobiSmoother<double>  smoother(level, op, mask, {0.7, 3});
      const auto              numbering = number_by_coordinates(level, degree);
      CellVector<double>      u(level.n_cells(), degree);
      gather_by(numbering, random_vector(numbering.n_unique, 9), u);
      u.scale(mask);
      const CellVector<double> b = random_dual(mask, 10);
      smoother.smooth(u, b, false, SweepDirection::forward);
      EXPECT_LE(max_copy_difference(numbering, u), 1e-14 * u.linfty_norm()) << "degree " << degree;
      CellVector<double> boundary = u;
      for (unsigned int c = 0; c < level.n_cells(); ++c)
        for (unsigned int i = 0; i < u.dofs_per_cell(); ++i)
          boundary(c, i) *= 1. - mask(c, i);
      EXPECT_EQ(boundary.linfty_norm(), 0.);
    }
}

TEST(ChebyshevSmoother, EigenvalueEstimateMatchesDenseComputation)
{
  // a level with many free DoFs, and one with fewer than the steps (27 at
  // Q2 on 2 x 2 x 2 cells, 40 steps), where the Krylov space runs out and a
  // step on rounding noise would add a spurious huge eigenvalue
  BoxDescription small;
  small.subdivisions = {{2, 2, 2}};
  for (const auto &[box, degree, steps] : {std::make_tuple(unequal_box(), 3u, 30u), std::make_tuple(small, 2u, 40u)})
    {
      const LevelHierarchy    h     = make_box_hierarchy(box, 0);
      const Level            &level = h.level(0);
      const auto              mask  = make_dirichlet_mask<double>(level, degree);
      LaplaceOperator<double> op(level, degree);
      DssJacobiPreconditioner<double> jacobi(level, op, mask);

      // dense D^{-1} A on the free DoFs
      const DofNumbering numbering = make_dof_numbering(level, degree);
      std::vector<int>   row(numbering.n_unique, -1);
      unsigned int       n_free = 0;
      for (unsigned int c = 0; c < level.n_cells(); ++c)
        for (unsigned int i = 0; i < mask.dofs_per_cell(); ++i)
          if (mask(c, i) == 1. && row[numbering(c, i)] < 0)
            row[numbering(c, i)] = int(n_free++);
      DenseMatrix A(n_free, n_free), D(n_free, n_free);
      for (unsigned int c = 0; c < level.n_cells(); ++c)
        {
          const DenseMatrix Ac = op.cell_matrix(c);
          for (unsigned int i = 0; i < mask.dofs_per_cell(); ++i)
            for (unsigned int j = 0; j < mask.dofs_per_cell(); ++j)
              if (row[numbering(c, i)] >= 0 && row[numbering(c, j)] >= 0)
                A(row[numbering(c, i)], row[numbering(c, j)]) += Ac(i, j);
        }
      for (unsigned int k = 0; k < n_free; ++k)
        D(k, k) = A(k, k);
      const double lambda_max = solve_generalized_eigenproblem(A, D).eigenvalues.back();
      const double estimate   = estimate_max_eigenvalue(op, jacobi, mask, steps);
      SCOPED_TRACE(::testing::Message() << n_free << " free DoFs, " << steps << " steps");
      EXPECT_LE(estimate, lambda_max * (1 + 1e-10));
      EXPECT_GE(estimate, 0.98 * lambda_max);
    }
}

TEST(CholeskyCoarseSolver, SolvesTheAssembledCoarseProblem)
{
  const LevelHierarchy h     = make_box_hierarchy(unequal_box(), 0);
  const Level         &level = h.level(0);
  for (const unsigned int degree : {1u, 2u, 4u})
    {
      const auto                   mask = make_dirichlet_mask<double>(level, degree);
      LaplaceOperator<double>      op(level, degree);
      CholeskyCoarseSolver<double> coarse(level, op, mask);
      const CellVector<double>     b = random_dual(mask, 3);
      CellVector<double>           u(level.n_cells(), degree), r;
      coarse.solve(u, b);
      op.residual(r, b, u);
      r.scale(mask);
      const auto numbering = number_by_coordinates(level, degree);
      EXPECT_LE(max_abs(sum_copies_by(numbering, r)), 1e-12 * max_abs(sum_copies_by(numbering, b))) << "degree " << degree;
      EXPECT_LE(max_copy_difference(numbering, u), 1e-15 * u.linfty_norm());
    }
}

class VCycleSymmetry : public ::testing::TestWithParam<std::tuple<SmootherType, unsigned int>>
{};

TEST_P(VCycleSymmetry, SymmetricCycleIsSelfAdjoint)
{
  const auto [smoother, degree] = GetParam();
  const LevelHierarchy h        = make_box_hierarchy(unequal_box(), 2);
  MultigridParameters  parameters;
  parameters.smoother = smoother;
  parameters.outer    = OuterIteration::cg;
  const MultigridSolver solver(h, degree, parameters);
  const auto           &mask = solver.dirichlet_mask();
  const auto            r1 = random_dual(mask, 1), r2 = random_dual(mask, 2);
  CellVector<double>    z1, z2;
  z1.reinit(r1);
  z2.reinit(r2);
  solver.preconditioner().vmult(z1, r1);
  solver.preconditioner().vmult(z2, r2);
  const double a = z1.dot(r2), b = r1.dot(z2);
  EXPECT_NEAR(a, b, 1e-11 * std::abs(a)) << to_string(smoother) << " degree " << degree;
  // and positive definite
  EXPECT_GT(z1.dot(r1), 0.);
  // the cycle returns a continuous correction
  EXPECT_LE(max_copy_difference(number_by_coordinates(h.levels.back(), degree), z1), 1e-13 * z1.linfty_norm());
}

INSTANTIATE_TEST_SUITE_P(Smoothers,
                         VCycleSymmetry,
                         ::testing::Combine(::testing::Values(SmootherType::jacobi, SmootherType::chebyshev, SmootherType::patch),
                                            ::testing::Values(1u, 2u, 3u)));

TEST(VCycle, ForwardPatchCycleIsNotSymmetric)
{
  // the check above can fail: the forward cycle of the multiplicative
  // smoother is not self-adjoint
  const LevelHierarchy h = make_box_hierarchy(unequal_box(), 2);
  MultigridParameters  parameters;
  parameters.smoother = SmootherType::patch;
  parameters.outer    = OuterIteration::stationary;
  const MultigridSolver solver(h, 2, parameters);
  const auto           &mask = solver.dirichlet_mask();
  const auto            r1 = random_dual(mask, 1), r2 = random_dual(mask, 2);
  CellVector<double>    z1, z2;
  z1.reinit(r1);
  z2.reinit(r2);
  solver.preconditioner().vmult(z1, r1);
  solver.preconditioner().vmult(z2, r2);
  EXPECT_GT(std::abs(z1.dot(r2) - r1.dot(z2)), 1e-8 * std::abs(z1.dot(r2)));
}

TEST(VCycle, ConsumesTheResidualOnlyThroughItsAssembly)
{
  // Two duals with the same assembly give the same correction (003 (5)).
  const LevelHierarchy  h = make_box_hierarchy(unequal_box(), 2);
  const MultigridSolver solver(h, 2, MultigridParameters{});
  const auto           &mask      = solver.dirichlet_mask();
  const auto            numbering = number_by_coordinates(h.levels.back(), 2);
  CellVector<double>    r1 = random_dual(mask, 5), r2, z1, z2;
  r2.reinit(r1);
  {
    const std::vector<double> assembled = sum_copies_by(numbering, r1);
    std::vector<bool>         placed(numbering.n_unique, false);
    for (unsigned int c = 0; c < r2.n_cells(); ++c)
      for (unsigned int i = 0; i < r2.dofs_per_cell(); ++i)
        if (!placed[numbering(c, i)])
          {
            placed[numbering(c, i)] = true;
            r2(c, i)                = assembled[numbering(c, i)];
          }
  }
  z1.reinit(r1);
  z2.reinit(r2);
  solver.preconditioner().vmult(z1, r1);
  solver.preconditioner().vmult(z2, r2);
  z1.add(-1., z2);
  EXPECT_LE(z1.linfty_norm(), 1e-12 * z2.linfty_norm());
}

namespace
{
  using HostVector = CellVector<double>;

  /// The level's operator and the transfer behind the ResidualRestriction
  /// interface (what the V-cycle does without one), counting its calls.
  class ComposedResidualRestriction : public ResidualRestriction<HostVector>
  {
  public:
    ComposedResidualRestriction(std::shared_ptr<const LevelOperator<HostVector>> op,
                                std::shared_ptr<const LevelTransfer<HostVector>> transfer,
                                const unsigned int                               level,
                                unsigned int                                    &calls)
      : op_(std::move(op))
      , transfer_(std::move(transfer))
      , level_(level)
      , calls_(calls)
    {}
    void
    restrict_residual_add(HostVector &coarse, const HostVector &b, const HostVector &u) const override
    {
      HostVector Au;
      Au.reinit(u);
      op_->vmult(Au, u);
      transfer_->restrict_residual_add(level_, coarse, b, Au);
      ++calls_;
    }

  private:
    std::shared_ptr<const LevelOperator<HostVector>> op_;
    std::shared_ptr<const LevelTransfer<HostVector>> transfer_;
    unsigned int                                     level_;
    unsigned int                                    &calls_;
  };
} // namespace

TEST(VCycle, UsesTheResidualRestrictionOfALevelInPlaceOfOperatorAndTransfer)
{
  // The device cycles fuse the level operator into the restriction through
  // this interface; here a component that composes the two must give the
  // plain cycle's correction bit for bit, be called once per level above the
  // coarsest, and not at all without pre-smoothing (u is zero there).
  const LevelHierarchy h = make_box_hierarchy(unequal_box(), 2);
  for (const SmootherType smoother : {SmootherType::chebyshev, SmootherType::patch})
    {
      MultigridParameters parameters;
      parameters.smoother = smoother;
      const MultigridSolver solver(h, 2, parameters);
      const auto *cycle = dynamic_cast<const VCycle<HostVector> *>(&solver.preconditioner());
      ASSERT_NE(cycle, nullptr);
      const auto  plain = cycle->components();
      auto        fused = plain;
      unsigned int calls = 0;
      fused.residual_restrictions.assign(h.n_levels(), nullptr);
      for (unsigned int l = 1; l < h.n_levels(); ++l)
        fused.residual_restrictions[l] =
          std::make_shared<ComposedResidualRestriction>(plain.operators[l], plain.transfer, l, calls);
      const HostVector r = random_dual(solver.dirichlet_mask(), 7);
      for (const unsigned int pre : {1u, 0u})
        {
          VCycle<HostVector>::Parameters cycle_parameters;
          cycle_parameters.pre_smoothing = pre;
          HostVector z_plain, z_fused;
          z_plain.reinit(r);
          z_fused.reinit(r);
          calls = 0;
          VCycle<HostVector>(plain, cycle_parameters).vmult(z_plain, r);
          VCycle<HostVector>(fused, cycle_parameters).vmult(z_fused, r);
          EXPECT_EQ(calls, pre > 0 ? h.n_levels() - 1 : 0u) << "pre-smoothing steps " << pre;
          for (unsigned int c = 0; c < r.n_cells(); ++c)
            for (unsigned int i = 0; i < r.dofs_per_cell(); ++i)
              ASSERT_EQ(z_fused(c, i), z_plain(c, i)) << "cell " << c << ", entry " << i << ", pre-smoothing steps " << pre;
          EXPECT_GT(z_plain.l2_norm(), 0.);
        }
      // one per level or none
      auto wrong = plain;
      wrong.residual_restrictions.assign(h.n_levels() + 1, nullptr);
      EXPECT_THROW((VCycle<HostVector>(wrong, VCycle<HostVector>::Parameters{})), Error);
    }
}
