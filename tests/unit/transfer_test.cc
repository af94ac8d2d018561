// Cell-wise transfers: prolongation is exact for polynomials of degree p and
// keeps fields continuous; restriction of the unassembled residual is the
// adjoint of prolongation, ⟨R r, v⟩ = ⟨r, P v⟩, and equals the assembled
// restriction (003 Lemma 2).

#include <cellwise/mesh/box_builder.h>
#include <cellwise/multigrid/cell_transfer.h>
#include <cellwise/operators/function_tools.h>

#include <gtest/gtest.h>

#include "test_utilities.h"

using namespace cellwise;
using namespace cellwise::testing;

namespace
{
  BoxDescription
  unequal_box()
  {
    BoxDescription box;
    box.upper        = {{1.5, 1.4, 4.4}};
    box.subdivisions = {{3, 2, 4}};
    return box;
  }
} // namespace

class Transfer : public ::testing::TestWithParam<std::tuple<unsigned int, CellOrdering>>
{};

TEST_P(Transfer, ProlongationIsExactForPolynomials)
{
  const auto [degree, ordering] = GetParam();
  const LevelHierarchy h        = make_box_hierarchy(unequal_box(), 2, ordering);
  const CellTransfer<double> transfer(h, degree);
  // a polynomial of degree p in each variable separately is in Q_p
  const auto f = [degree = degree](const Point &x) {
    return std::pow(x[0] - 0.3, degree) * (1 + x[1]) + std::pow(x[1] + 0.1, degree) * x[2] + std::pow(0.2 * x[2], degree) + 1.;
  };
  for (unsigned int l = 1; l < h.n_levels(); ++l)
    {
      CellVector<double> coarse, expected, fine(h.level(l).n_cells(), degree);
      interpolate(h.level(l - 1), degree, f, coarse);
      interpolate(h.level(l), degree, f, expected);
      transfer.prolongate_add(l, fine, coarse);
      const auto numbering = number_by_coordinates(h.level(l), degree);
      EXPECT_LE(max_copy_difference(numbering, fine), 1e-13);
      fine.add(-1., expected);
      EXPECT_LE(fine.linfty_norm(), 1e-12 * expected.linfty_norm()) << "level " << l;
    }
}

TEST_P(Transfer, ProlongationOfContinuousFieldIsContinuous)
{
  const auto [degree, ordering] = GetParam();
  const LevelHierarchy       h  = make_box_hierarchy(unequal_box(), 1, ordering);
  const CellTransfer<double> transfer(h, degree);
  const auto                 coarse_numbering = number_by_coordinates(h.level(0), degree);
  CellVector<double>         coarse(h.level(0).n_cells(), degree), fine(h.level(1).n_cells(), degree);
  gather_by(coarse_numbering, random_vector(coarse_numbering.n_unique, 3), coarse);
  transfer.prolongate_add(1, fine, coarse);
  EXPECT_LE(max_copy_difference(number_by_coordinates(h.level(1), degree), fine), 1e-14 * 10);
}

TEST_P(Transfer, RestrictionIsAdjointOfProlongation)
{
  const auto [degree, ordering] = GetParam();
  const LevelHierarchy       h  = make_box_hierarchy(unequal_box(), 1, ordering);
  const CellTransfer<double> transfer(h, degree);
  const auto                 coarse_numbering = number_by_coordinates(h.level(0), degree);
  const auto                 fine_numbering   = number_by_coordinates(h.level(1), degree);

  // random unassembled dual r, given as b − Au with random b and Au
  CellVector<double> b(h.level(1).n_cells(), degree), Au(h.level(1).n_cells(), degree), r;
  fill_random(b, 1);
  fill_random(Au, 2);
  r = b;
  r.add(-1., Au);
  CellVector<double> v(h.level(0).n_cells(), degree), Pv(h.level(1).n_cells(), degree), Rr(h.level(0).n_cells(), degree);
  gather_by(coarse_numbering, random_vector(coarse_numbering.n_unique, 4), v);
  transfer.prolongate_add(1, Pv, v);
  transfer.restrict_residual_add(1, Rr, b, Au);
  EXPECT_NEAR(Rr.dot(v), r.dot(Pv), 1e-12 * std::abs(r.dot(Pv)) + 1e-12);

  // G^T R r = R_CG G^T r: the restricted dual depends on r only through its
  // assembly (003 Lemma 2). Check with a second r of the same assembly.
  CellVector<double> r2 = r;
  for (unsigned int c = 0; c < r2.n_cells(); ++c)
    for (unsigned int i = 0; i < r2.dofs_per_cell(); ++i)
      r2(c, i) = 0.;
  {
    // put the whole assembled value into the first copy of each DoF
    const std::vector<double> assembled = sum_copies_by(fine_numbering, r);
    std::vector<bool>         placed(fine_numbering.n_unique, false);
    for (unsigned int c = 0; c < r2.n_cells(); ++c)
      for (unsigned int i = 0; i < r2.dofs_per_cell(); ++i)
        if (!placed[fine_numbering(c, i)])
          {
            placed[fine_numbering(c, i)] = true;
            r2(c, i)                      = assembled[fine_numbering(c, i)];
          }
  }
  CellVector<double> zero(h.level(1).n_cells(), degree), Rr2(h.level(0).n_cells(), degree);
  transfer.restrict_residual_add(1, Rr2, r2, zero);
  EXPECT_LE(max_abs_difference(sum_copies_by(coarse_numbering, Rr), sum_copies_by(coarse_numbering, Rr2)),
            1e-12 * max_abs(sum_copies_by(coarse_numbering, Rr)));
}

INSTANTIATE_TEST_SUITE_P(DegreesAndOrderings,
                         Transfer,
                         ::testing::Combine(::testing::Values(1u, 2u, 3u, 4u, 5u),
                                            ::testing::Values(CellOrdering::cell_major, CellOrdering::child_major)));

TEST(Transfer, MismatchedLevelsAreRejected)
{
  const LevelHierarchy       h = make_box_hierarchy(unequal_box(), 1);
  const CellTransfer<double> transfer(h, 2);
  CellVector<double>         coarse(h.level(0).n_cells(), 2), fine(h.level(1).n_cells(), 2), wrong(h.level(1).n_cells(), 3);
  EXPECT_THROW(transfer.prolongate_add(0, fine, coarse), Error);
  EXPECT_THROW(transfer.prolongate_add(2, fine, coarse), Error);
  EXPECT_THROW(transfer.prolongate_add(1, coarse, fine), Error);
  EXPECT_THROW(transfer.prolongate_add(1, wrong, coarse), Error);
}
