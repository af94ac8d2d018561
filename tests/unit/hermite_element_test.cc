// The C¹ cubic Hermite element on cell-wise storage (doc/hermite.md): the
// local numbering, DSS of both trace layers and the clamped mask against an
// explicit global numbering of the Hermite DoFs (vertex position and
// derivative), the biharmonic operator against element matrices integrated
// by Gauss quadrature of D²ψ_i : D²ψ_j (not by sum factorization), the
// energy of interpolated cubics, the load vector and the L2 error.

#include <cellwise/base/exceptions.h>
#include <cellwise/fe/face_dofs.h>
#include <cellwise/fe/hermite_affine_part.h>
#include <cellwise/fe/hermite_basis_1d.h>
#include <cellwise/fe/hermite_element.h>
#include <cellwise/fe/quadrature.h>
#include <cellwise/mesh/box_builder.h>
#include <cellwise/operators/hermite_biharmonic_operator.h>
#include <cellwise/operators/hermite_function_tools.h>
#include <cellwise/storage/dirichlet_mask.h>
#include <cellwise/storage/dss.h>

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>
#include <set>
#include <tuple>

#include "hermite_test_problem.h"
#include "test_utilities.h"

using namespace cellwise;

namespace
{
  using hermite::dofs_per_cell;

  /// A 3 × 2 × 4 box of unequal sides refined L times.
  LevelHierarchy
  unequal_box(const int L)
  {
    BoxDescription box;
    box.lower        = {{-0.2, 0.1, 0.}};
    box.upper        = {{1.3, 0.7, 2.2}};
    box.subdivisions = {{3, 2, 4}};
    return make_box_hierarchy(box, L);
  }

  /// The same box with its grid lines moved so that neighbouring cells have
  /// unequal widths along every axis (the neighbour tables stay valid).
  LevelHierarchy
  graded_box(const int L)
  {
    LevelHierarchy h     = unequal_box(L);
    Level         &level = h.levels.back();
    const auto     line  = [](const unsigned int d, const int i, const int n) {
      const double t = double(i) / n;
      return (d == 0 ? -0.2 + 1.5 * t : (d == 1 ? 0.1 + 0.6 * t : 2.2 * t)) + 0.07 * std::sin(3.1 * t * (d + 1)) * t * (1 - t);
    };
    const std::array<int, 3> n = {{3 << L, 2 << L, 4 << L}};
    for (unsigned int c = 0; c < level.n_cells(); ++c)
      for (unsigned int d = 0; d < 3; ++d)
        {
          const int i            = level.coordinates[c][d];
          level.boxes[c].lower[d] = line(d, i, n[d]);
          level.boxes[c].size[d]  = line(d, i + 1, n[d]) - line(d, i, n[d]);
        }
    return h;
  }

  /// Global numbering of the Hermite DoFs by vertex position (the box
  /// corners, rounded) and derivative: index[cell][i].
  struct HermiteNumbering
  {
    std::vector<std::array<unsigned int, dofs_per_cell>> index;
    std::vector<bool>                                    on_boundary; // per global DoF
    unsigned int                                         n_dofs = 0;
  };

  HermiteNumbering
  number_hermite_dofs(const Level &level)
  {
    std::array<double, 3> lo{{1e300, 1e300, 1e300}}, hi{{-1e300, -1e300, -1e300}};
    for (const CellBox &box : level.boxes)
      for (unsigned int d = 0; d < 3; ++d)
        {
          lo[d] = std::min(lo[d], box.lower[d]);
          hi[d] = std::max(hi[d], box.lower[d] + box.size[d]);
        }
    std::map<std::tuple<long, long, long, unsigned int>, unsigned int> known;
    HermiteNumbering                                                    result;
    result.index.resize(level.n_cells());
    for (unsigned int cell = 0; cell < level.n_cells(); ++cell)
      for (unsigned int i = 0; i < dofs_per_cell; ++i)
        {
          const unsigned int    vertex = hermite::vertex_of(i);
          std::array<long, 3>   key;
          bool                  boundary = false;
          for (unsigned int d = 0; d < 3; ++d)
            {
              const CellBox &box = level.boxes[cell];
              const double   x   = ((vertex >> d) & 1) ? box.lower[d] + box.size[d] : box.lower[d];
              key[d]             = std::lround(x * 1e9);
              boundary           = boundary || std::abs(x - lo[d]) < 1e-12 || std::abs(x - hi[d]) < 1e-12;
            }
          const auto it = known.emplace(std::make_tuple(key[0], key[1], key[2], hermite::derivative_of(i)), result.n_dofs);
          if (it.second)
            {
              ++result.n_dofs;
              result.on_boundary.push_back(boundary);
            }
          result.index[cell][i] = it.first->second;
        }
    return result;
  }

  /// D^k ψ_i at reference point t of a cell of widths h (physical derivative
  /// DoFs, physical derivatives), by the 1D basis directly.
  double
  psi(const unsigned int i, const std::array<double, 3> &t, const std::array<double, 3> &h, const std::array<int, 3> &k)
  {
    const auto   s = hermite::hermite_scaling(h);
    const auto   D = [](const unsigned int a, const double x, const int order) {
      return order == 0 ? hermite::value(a, x) : (order == 1 ? hermite::derivative(a, x) : hermite::second_derivative(a, x));
    };
    const unsigned int a[3] = {i % 4, (i / 4) % 4, i / 16};
    double             v    = s[i];
    for (unsigned int d = 0; d < 3; ++d)
      v *= D(a[d], t[d], k[d]) / std::pow(h[d], k[d]);
    return v;
  }

  /// The element matrix ∫ D²ψ_i : D²ψ_j by Gauss quadrature (4 points per
  /// axis: exact), cached per cell size.
  const DenseMatrix &
  quadrature_element_matrix(const std::array<double, 3> &h)
  {
    static std::map<std::array<double, 3>, DenseMatrix> cache;
    const auto                                           it = cache.find(h);
    if (it != cache.end())
      return it->second;
    const Quadrature1D quad = gauss_quadrature(4);
    DenseMatrix        A(dofs_per_cell, dofs_per_cell);
    // the six second derivatives, the mixed ones counted twice
    const std::array<std::array<int, 3>, 6> orders  = {{{{2, 0, 0}}, {{0, 2, 0}}, {{0, 0, 2}}, {{1, 1, 0}}, {{1, 0, 1}}, {{0, 1, 1}}}};
    const double                            weights[6] = {1, 1, 1, 2, 2, 2};
    for (unsigned int qz = 0; qz < 4; ++qz)
      for (unsigned int qy = 0; qy < 4; ++qy)
        for (unsigned int qx = 0; qx < 4; ++qx)
          {
            const std::array<double, 3> t = {{quad.points[qx], quad.points[qy], quad.points[qz]}};
            const double                w = quad.weights[qx] * quad.weights[qy] * quad.weights[qz] * h[0] * h[1] * h[2];
            std::array<std::array<double, dofs_per_cell>, 6> second;
            for (unsigned int o = 0; o < 6; ++o)
              for (unsigned int i = 0; i < dofs_per_cell; ++i)
                second[o][i] = psi(i, t, h, orders[o]);
            for (unsigned int i = 0; i < dofs_per_cell; ++i)
              for (unsigned int j = 0; j < dofs_per_cell; ++j)
                {
                  double sum = 0;
                  for (unsigned int o = 0; o < 6; ++o)
                    sum += weights[o] * second[o][i] * second[o][j];
                  A(i, j) += w * sum;
                }
          }
    return cache.emplace(h, A).first->second;
  }

  /// A cubic per axis: Σ_m c_m x^m and its derivatives.
  struct Cubic
  {
    std::array<double, 4> c;
    double
    operator()(const double x, const int order = 0) const
    {
      if (order == 0)
        return c[0] + x * (c[1] + x * (c[2] + x * c[3]));
      if (order == 1)
        return c[1] + x * (2 * c[2] + x * 3 * c[3]);
      if (order == 2)
        return 2 * c[2] + 6 * c[3] * x;
      return 6 * c[3];
    }
  };

  /// p = Σ_terms Π_d cubic_{term,d}(x_d): jet, value and second derivatives.
  struct TensorCubic
  {
    std::vector<std::array<Cubic, 3>> terms;
    double
    derivative(const Point &x, const std::array<int, 3> &k) const
    {
      double sum = 0;
      for (const auto &term : terms)
        sum += term[0](x[0], k[0]) * term[1](x[1], k[1]) * term[2](x[2], k[2]);
      return sum;
    }
    HermiteJet
    jet(const Point &x) const
    {
      HermiteJet j;
      for (unsigned int m = 0; m < 8; ++m)
        j[m] = derivative(x, {{int(m & 1), int((m >> 1) & 1), int((m >> 2) & 1)}});
      return j;
    }
  };

  TensorCubic
  random_tensor_cubic(const unsigned int seed)
  {
    std::mt19937                           generator(seed);
    std::uniform_real_distribution<double> coefficient(-1., 1.);
    TensorCubic                            p;
    for (int t = 0; t < 2; ++t)
      {
        std::array<Cubic, 3> term;
        for (auto &cubic : term)
          for (double &c : cubic.c)
            c = coefficient(generator);
        p.terms.push_back(term);
      }
    return p;
  }
} // namespace

TEST(HermiteElement, LocalNumberingIsVertexAndDerivative)
{
  std::set<unsigned int> seen;
  for (unsigned int v = 0; v < 8; ++v)
    for (unsigned int j = 0; j < 8; ++j)
      {
        const unsigned int i = hermite::local_index(v, j);
        ASSERT_LT(i, 64u);
        EXPECT_EQ(hermite::vertex_of(i), v);
        EXPECT_EQ(hermite::derivative_of(i), j);
        seen.insert(i);
      }
  EXPECT_EQ(seen.size(), 64u);
  // u at vertex 0 is index 0, ∂xyz u at vertex 7 the last one
  EXPECT_EQ(hermite::local_index(0, 0), 0u);
  EXPECT_EQ(hermite::local_index(7, 7), 63u);
  const auto s = hermite::hermite_scaling({{2., 3., 5.}});
  EXPECT_EQ(s[hermite::local_index(4, 0)], 1.);
  EXPECT_EQ(s[hermite::local_index(4, 3)], 6.);
  EXPECT_EQ(s[hermite::local_index(4, 7)], 30.);
}

TEST(HermiteElement, DssOfBothLayersIsTheGatherScatterOfTheGlobalNumbering)
{
  for (const int L : {0, 1})
    for (const bool graded : {false, true})
      {
        SCOPED_TRACE(::testing::Message() << "L = " << L << (graded ? ", graded" : ""));
        const LevelHierarchy   h         = graded ? graded_box(L) : unequal_box(L);
        const Level           &level     = h.levels.back();
        const HermiteNumbering numbering = number_hermite_dofs(level);
        CellVector<double>     v(level.n_cells(), 3);
        std::mt19937           generator(11 + L);
        std::uniform_real_distribution<double> value(-1., 1.);
        for (unsigned int c = 0; c < level.n_cells(); ++c)
          for (unsigned int i = 0; i < dofs_per_cell; ++i)
            v(c, i) = value(generator);
        std::vector<double>       sum(numbering.n_dofs, 0.);
        std::vector<unsigned int> copies(numbering.n_dofs, 0);
        for (unsigned int c = 0; c < level.n_cells(); ++c)
          for (unsigned int i = 0; i < dofs_per_cell; ++i)
            {
              sum[numbering.index[c][i]] += v(c, i);
              ++copies[numbering.index[c][i]];
            }
        CellVector<double> summed = v, mean = v;
        apply_dss(level, summed, DssMode::sum, hermite_trace_layers());
        apply_dss(level, mean, DssMode::mean, hermite_trace_layers());
        double max_sum = 0, max_mean = 0;
        for (unsigned int c = 0; c < level.n_cells(); ++c)
          for (unsigned int i = 0; i < dofs_per_cell; ++i)
            {
              const unsigned int g = numbering.index[c][i];
              max_sum              = std::max(max_sum, std::abs(summed(c, i) - sum[g]));
              max_mean             = std::max(max_mean, std::abs(mean(c, i) - sum[g] / copies[g]));
            }
        EXPECT_LT(max_sum, 1e-14);
        EXPECT_LT(max_mean, 1e-14);
        // the Lagrange layers of degree 3 are a different pairing: they must differ
        CellVector<double> lagrange = v;
        apply_dss(level, lagrange, DssMode::sum);
        double difference = 0;
        for (unsigned int c = 0; c < level.n_cells(); ++c)
          for (unsigned int i = 0; i < dofs_per_cell; ++i)
            difference = std::max(difference, std::abs(lagrange(c, i) - summed(c, i)));
        EXPECT_GT(difference, 0.1);
      }
}

TEST(HermiteElement, ClampedMaskZeroesEveryDofOfEveryBoundaryVertex)
{
  for (const int L : {0, 1})
    {
      const LevelHierarchy   h         = unequal_box(L);
      const Level           &level     = h.levels.back();
      const HermiteNumbering numbering = number_hermite_dofs(level);
      const auto             mask      = make_dirichlet_mask<double>(level, 3, {}, hermite_trace_layers());
      unsigned int           zeros     = 0;
      for (unsigned int c = 0; c < level.n_cells(); ++c)
        for (unsigned int i = 0; i < dofs_per_cell; ++i)
          {
            const bool boundary = numbering.on_boundary[numbering.index[c][i]];
            ASSERT_EQ(mask(c, i), boundary ? 0. : 1.) << "cell " << c << " DoF " << i << " L = " << L;
            zeros += boundary;
          }
      EXPECT_GT(zeros, 0u);
    }
  // a single cell has no interior vertex: every DoF is clamped
  const LevelHierarchy one  = make_box_hierarchy(BoxDescription(), 0);
  const auto           mask = make_dirichlet_mask<double>(one.levels[0], 3, {}, hermite_trace_layers());
  EXPECT_EQ(mask.l2_norm(), 0.);
  EXPECT_THROW(make_dirichlet_mask<double>(one.levels[0], 2, {}, hermite_trace_layers()), Error);
}

TEST(HermiteElement, CellMatricesEqualTheQuadratureOfTheHessianForm)
{
  const LevelHierarchy                    h = graded_box(1);
  const Level                            &level = h.levels.back();
  const HermiteBiharmonicOperator<double> op(level);
  double                                  max_error = 0, max_entry = 0;
  for (unsigned int cell = 0; cell < level.n_cells(); cell += 7)
    {
      const DenseMatrix  A = op.cell_matrix(cell);
      const DenseMatrix &Q = quadrature_element_matrix(level.boxes[cell].size);
      for (unsigned int i = 0; i < dofs_per_cell; ++i)
        for (unsigned int j = 0; j < dofs_per_cell; ++j)
          {
            max_error = std::max(max_error, std::abs(A(i, j) - Q(i, j)));
            max_entry = std::max(max_entry, std::abs(Q(i, j)));
          }
    }
  EXPECT_LT(max_error, 1e-12 * max_entry);
}

TEST(HermiteElement, AssembledOperatorEqualsTheQuadratureMatrixOnUnequalBoxes)
{
  // G^T A_cell G x (sum factorization, then the gather of the numbering)
  // against Σ_K G_K^T Q_K G_K x with Q_K the quadrature element matrices
  for (const int L : {0, 1, 2})
    {
      SCOPED_TRACE(::testing::Message() << "L = " << L);
      const LevelHierarchy                    h         = unequal_box(L);
      const Level                            &level     = h.levels.back();
      const HermiteNumbering                  numbering = number_hermite_dofs(level);
      const HermiteBiharmonicOperator<double> op(level);
      const std::vector<double>               x = cellwise::testing::random_vector(numbering.n_dofs, 5 + L);
      CellVector<double>                      u(level.n_cells(), 3), Au;
      for (unsigned int c = 0; c < level.n_cells(); ++c)
        for (unsigned int i = 0; i < dofs_per_cell; ++i)
          u(c, i) = x[numbering.index[c][i]];
      op.vmult(Au, u);
      std::vector<double> y_cellwise(numbering.n_dofs, 0.), y_quadrature(numbering.n_dofs, 0.);
      for (unsigned int c = 0; c < level.n_cells(); ++c)
        {
          const DenseMatrix &Q = quadrature_element_matrix(level.boxes[c].size);
          for (unsigned int i = 0; i < dofs_per_cell; ++i)
            {
              y_cellwise[numbering.index[c][i]] += Au(c, i);
              double sum = 0;
              for (unsigned int j = 0; j < dofs_per_cell; ++j)
                sum += Q(i, j) * u(c, j);
              y_quadrature[numbering.index[c][i]] += sum;
            }
        }
      EXPECT_LT(cellwise::testing::max_abs_difference(y_cellwise, y_quadrature), 1e-11 * cellwise::testing::max_abs(y_quadrature));
      // and the residual is b − A u in the same pass
      CellVector<double> b(level.n_cells(), 3), r;
      cellwise::testing::fill_random(b, 9);
      op.residual(r, b, u);
      double max_error = 0;
      for (unsigned int c = 0; c < level.n_cells(); ++c)
        for (unsigned int i = 0; i < dofs_per_cell; ++i)
          max_error = std::max(max_error, std::abs(r(c, i) - (b(c, i) - Au(c, i))));
      EXPECT_LT(max_error, 1e-12 * cellwise::testing::max_abs(y_quadrature));
    }
}

TEST(HermiteElement, DiagonalsAndFloatOperatorMatchTheCellMatrices)
{
  const LevelHierarchy                    h     = graded_box(0);
  const Level                            &level = h.levels.back();
  const HermiteBiharmonicOperator<double> op(level);
  CellVector<double>                      diagonal;
  op.compute_cell_diagonals(diagonal);
  for (unsigned int c = 0; c < level.n_cells(); ++c)
    {
      const DenseMatrix A = op.cell_matrix(c);
      for (unsigned int i = 0; i < dofs_per_cell; ++i)
        ASSERT_NEAR(diagonal(c, i), A(i, i), 1e-12 * std::abs(A(i, i))) << "cell " << c << " DoF " << i;
    }
  // FP32 and the blocked layout: the same operator to FP32 rounding
  const HermiteBiharmonicOperator<float, CellBlocked<32>> op32(level);
  CellVector<double>                                      u(level.n_cells(), 3), Au;
  CellVector<float, MemorySpace::Host, CellBlocked<32>>   u32(level.n_cells(), 3), Au32;
  cellwise::testing::fill_random(u, 4);
  for (unsigned int c = 0; c < level.n_cells(); ++c)
    for (unsigned int i = 0; i < dofs_per_cell; ++i)
      u32(c, i) = static_cast<float>(u(c, i));
  op.vmult(Au, u);
  op32.vmult(Au32, u32);
  double max_error = 0, max_value = 0;
  for (unsigned int c = 0; c < level.n_cells(); ++c)
    for (unsigned int i = 0; i < dofs_per_cell; ++i)
      {
        max_error = std::max(max_error, std::abs(double(Au32(c, i)) - Au(c, i)));
        max_value = std::max(max_value, std::abs(Au(c, i)));
      }
  EXPECT_LT(max_error, 1e-5 * max_value);
}

TEST(HermiteElement, AffinePartOfAnAffineFunctionIsAllOfIt)
{
  // every DoF of an interpolated affine function, less the affine part made
  // from vertex 0: exactly zero on cells of widths 2^-k (every product and
  // difference exact), to rounding on the unequal box
  const HermiteJetFunction affine = [](const Point &x) { return HermiteJet{{10 + 3 * x[0] - 2 * x[1] + x[2], 3, -2, 0, 1, 0, 0, 0}}; };
  BoxDescription           cube;
  cube.subdivisions = {{2, 2, 2}};
  for (const bool exact : {true, false})
    {
      const LevelHierarchy h     = exact ? make_box_hierarchy(cube, 1) : unequal_box(1);
      const Level         &level = h.levels.back();
      CellVector<double>   u;
      CellVector<float>    u32;
      interpolate_hermite(level, affine, u);
      interpolate_hermite(level, affine, u32);
      for (unsigned int c = 0; c < level.n_cells(); ++c)
        {
          const std::array<double, 3> &w  = level.boxes[c].size;
          const auto a   = hermite::make_affine_part(&u(c, 0), w[0], w[1], w[2]);
          const auto a32 = hermite::make_affine_part(&u32(c, 0), float(w[0]), float(w[1]), float(w[2]));
          for (unsigned int i = 0; i < dofs_per_cell; ++i)
            {
              const double rest = hermite::without_affine_part(i, u(c, i), a);
              const float  rest32 = hermite::without_affine_part(i, u32(c, i), a32);
              if (exact)
                {
                  ASSERT_EQ(rest, 0.) << "cell " << c << " DoF " << i;
                  ASSERT_EQ(rest32, 0.f) << "cell " << c << " DoF " << i;
                }
              else
                {
                  ASSERT_LE(std::abs(rest), 1e-14 * 20) << "cell " << c << " DoF " << i;
                  ASSERT_LE(std::abs(rest32), 1e-6f * 20) << "cell " << c << " DoF " << i;
                }
            }
        }
    }
}

TEST(HermiteElement, FloatOperatorKeepsItsDigitsOnFieldsMostlyAffine)
{
  // A applied in FP32 to a smooth field that is mostly affine on each cell,
  // against FP64 on the same (rounded) values: the FP32 operator subtracts
  // the affine part (fe/hermite_affine_part.h), without which the product's
  // cancellation leaves it 8e-4 off on 512 cells and 2e-2 on 32768 (6e-7
  // and 1e-6 with it)
  BoxDescription cube;
  cube.subdivisions = {{2, 2, 2}};
  for (const bool graded : {false, true})
    {
      const LevelHierarchy h     = graded ? graded_box(1) : make_box_hierarchy(cube, 2);
      const Level         &level = h.levels.back();
      CellVector<float>    u32;
      interpolate_hermite(level, cellwise::testing::affine_dominated_jet, u32);
      CellVector<double> u(level.n_cells(), hermite::storage_degree), Au;
      u.copy_from(u32);
      HermiteBiharmonicOperator<double>(level).vmult(Au, u);
      CellVector<float> Au32;
      HermiteBiharmonicOperator<float>(level).vmult(Au32, u32);
      const auto u32_blocked = cellwise::testing::relayout<CellBlocked<32>>(u32);
      CellVector<float, MemorySpace::Host, CellBlocked<32>> Au32_blocked;
      HermiteBiharmonicOperator<float, CellBlocked<32>>(level).vmult(Au32_blocked, u32_blocked);
      double error = 0, error_blocked = 0, scale = 0;
      for (unsigned int c = 0; c < level.n_cells(); ++c)
        for (unsigned int i = 0; i < dofs_per_cell; ++i)
          {
            error         = std::max(error, std::abs(Au32(c, i) - Au(c, i)));
            error_blocked = std::max(error_blocked, std::abs(Au32_blocked(c, i) - Au(c, i)));
            scale         = std::max(scale, std::abs(Au(c, i)));
          }
      EXPECT_LT(error, 1e-5 * scale) << (graded ? "graded box" : "unit cube, 512 cells");
      EXPECT_LT(error_blocked, 1e-5 * scale) << (graded ? "graded box" : "unit cube, 512 cells") << ", blocked";
    }
}

TEST(HermiteElement, EnergyOfAnInterpolatedCubicIsTheIntegralOfItsHessian)
{
  for (const bool graded : {false, true})
    {
      const LevelHierarchy h     = graded ? graded_box(1) : unequal_box(1);
      const Level         &level = h.levels.back();
      const TensorCubic    p     = random_tensor_cubic(graded ? 21 : 20);
      CellVector<double>   u;
      interpolate_hermite(level, [&](const Point &x) { return p.jet(x); }, u);
      // copies of a C¹ interpolant agree exactly (physical derivatives)
      const HermiteNumbering numbering = number_hermite_dofs(level);
      std::map<unsigned int, double> value_of;
      for (unsigned int c = 0; c < level.n_cells(); ++c)
        for (unsigned int i = 0; i < dofs_per_cell; ++i)
          {
            const auto it = value_of.emplace(numbering.index[c][i], u(c, i));
            ASSERT_NEAR(it.first->second, u(c, i), 1e-13) << "copies of DoF " << numbering.index[c][i] << " differ";
          }
      const HermiteBiharmonicOperator<double> op(level);
      CellVector<double>                      Au;
      op.vmult(Au, u);
      const double energy = u.dot(Au);
      // ∫|D²p|², Gauss with 4 points per axis per cell (the squared Hessian
      // entries have degree ≤ 6 per axis: exact)
      const Quadrature1D quad     = gauss_quadrature(4);
      double             integral = 0;
      for (const CellBox &box : level.boxes)
        for (unsigned int qz = 0; qz < 4; ++qz)
          for (unsigned int qy = 0; qy < 4; ++qy)
            for (unsigned int qx = 0; qx < 4; ++qx)
              {
                const Point x = {{box.lower[0] + quad.points[qx] * box.size[0], box.lower[1] + quad.points[qy] * box.size[1],
                                  box.lower[2] + quad.points[qz] * box.size[2]}};
                const double w = quad.weights[qx] * quad.weights[qy] * quad.weights[qz] * box.size[0] * box.size[1] * box.size[2];
                double hessian = 0;
                for (const auto &k : {std::array<int, 3>{{2, 0, 0}}, {{0, 2, 0}}, {{0, 0, 2}}})
                  hessian += std::pow(p.derivative(x, k), 2);
                for (const auto &k : {std::array<int, 3>{{1, 1, 0}}, {{1, 0, 1}}, {{0, 1, 1}}})
                  hessian += 2 * std::pow(p.derivative(x, k), 2);
                integral += w * hessian;
              }
      EXPECT_NEAR(energy, integral, 1e-11 * integral) << (graded ? "graded" : "uniform");
      // the interpolant is the cubic itself: zero L2 error, exact point values
      EXPECT_LT(compute_hermite_l2_error(level, u, [&](const Point &x) { return p.derivative(x, {{0, 0, 0}}); }), 1e-13);
      const unsigned int cell = level.n_cells() / 2;
      const CellBox     &box  = level.boxes[cell];
      const Point        t    = {{0.3, 0.6, 0.8}};
      const Point        x    = {{box.lower[0] + 0.3 * box.size[0], box.lower[1] + 0.6 * box.size[1], box.lower[2] + 0.8 * box.size[2]}};
      EXPECT_NEAR(evaluate_hermite(level, u, cell, t, {{1, 0, 2}}), p.derivative(x, {{1, 0, 2}}), 1e-11);
    }
}

TEST(HermiteElement, LoadVectorPairsWithTheInterpolantToTheL2Product)
{
  // Σ_K b~_K · u_K = ∫ f u_h: for f = p and u_h = p (a cubic), ∫ p²
  const LevelHierarchy h     = graded_box(1);
  const Level         &level = h.levels.back();
  const TensorCubic    p     = random_tensor_cubic(30);
  const ScalarFunction f     = [&](const Point &x) { return p.derivative(x, {{0, 0, 0}}); };
  CellVector<double>   u, b;
  interpolate_hermite(level, [&](const Point &x) { return p.jet(x); }, u);
  assemble_hermite_right_hand_side(level, f, b);
  const double l2 = compute_hermite_l2_error(level, u, [](const Point &) { return 0.; });
  EXPECT_NEAR(b.dot(u), l2 * l2, 1e-12 * l2 * l2);
}

TEST(HermiteElement, InterpolationErrorOfASmoothFunctionIsFourthOrder)
{
  // u = (sin πx sin πy sin πz)² on the unit cube, the problem's solution
  const auto factor     = [](const double x) { return std::pow(std::sin(M_PI * x), 2); };
  const auto derivative = [](const double x) { return M_PI * std::sin(2 * M_PI * x); };
  const HermiteJetFunction jet   = separable_jet({{factor, factor, factor}}, {{derivative, derivative, derivative}});
  const ScalarFunction     exact = [&](const Point &x) { return factor(x[0]) * factor(x[1]) * factor(x[2]); };
  std::vector<double>      errors;
  for (const int L : {1, 2, 3})
    {
      BoxDescription box;
      box.subdivisions       = {{2, 2, 2}};
      const LevelHierarchy h = make_box_hierarchy(box, L);
      CellVector<double>   u;
      interpolate_hermite(h.levels.back(), jet, u);
      errors.push_back(compute_hermite_l2_error(h.levels.back(), u, exact));
    }
  for (std::size_t k = 1; k < errors.size(); ++k)
    EXPECT_GT(std::log2(errors[k - 1] / errors[k]), 3.8) << "errors " << errors[k - 1] << " " << errors[k];
}

TEST(HermiteElement, BadInputIsRefused)
{
  const LevelHierarchy                    h = unequal_box(0);
  const HermiteBiharmonicOperator<double> op(h.levels[0]);
  CellVector<double>                      q2(h.levels[0].n_cells(), 2), out;
  EXPECT_THROW(op.vmult(out, q2), Error);
  LevelHierarchy bad = unequal_box(0);
  bad.levels[0].boxes[3].size[1] = 0.;
  EXPECT_THROW(HermiteBiharmonicOperator<double> broken(bad.levels[0]), Error);
  CellVector<double> wrong_cells(5, 3);
  EXPECT_THROW(compute_hermite_l2_error(h.levels[0], wrong_cells, [](const Point &) { return 0.; }), Error);
  EXPECT_THROW(apply_dss(h.levels[0], q2, DssMode::sum, hermite_trace_layers()), Error);
}
