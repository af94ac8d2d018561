// MappingEvaluator (mesh/cell_mapping.h), which every curved level's set-up
// runs at every quadrature point of every cell, against the plain sum over
// the cell's nodes x(ξ) = Σ_i X_i ψ_i(ξ) and its derivatives, on seeded
// random cells: mapping degrees 1..5 at 1..10 points per axis, which takes
// both its paths (fixed sizes for degrees 1..4 at 2..9 points, the general
// one elsewhere), with one evaluator reused over cells of different shapes.

#include <cellwise/fe/lagrange_basis_1d.h>
#include <cellwise/fe/quadrature.h>
#include <cellwise/mesh/cell_mapping.h>

#include <gtest/gtest.h>

#include "test_utilities.h"

#include <algorithm>
#include <cmath>
#include <vector>

using namespace cellwise;
using namespace cellwise::testing;

namespace
{
  /// A mapping of @p degree on @p n_cells random cells: the unit cube's
  /// nodes scaled, shifted and moved by up to a tenth of a cell, seeded.
  CellMapping
  random_mapping(const unsigned int degree, const unsigned int n_cells, const unsigned int seed)
  {
    const LagrangeBasis1D basis(degree);
    const unsigned int    n = degree + 1;
    CellMapping           mapping;
    mapping.degree = degree;
    mapping.nodes.resize(std::size_t(n_cells) * mapping.nodes_per_cell());
    const std::vector<double> r = random_vector(mapping.nodes.size() * 3 + 4 * n_cells, seed); // in [-1, 1]
    std::size_t               k = 0;
    for (unsigned int c = 0; c < n_cells; ++c)
      {
        const double scale = 0.5 + 0.4 * r[k++];
        const Point  shift = {{3 * r[k++], 3 * r[k++], 3 * r[k++]}};
        Point       *X     = mapping.nodes.data() + std::size_t(c) * mapping.nodes_per_cell();
        for (unsigned int iz = 0; iz < n; ++iz)
          for (unsigned int iy = 0; iy < n; ++iy)
            for (unsigned int ix = 0; ix < n; ++ix)
              {
                const double xi[3] = {basis.nodes()[ix], basis.nodes()[iy], basis.nodes()[iz]};
                for (unsigned int a = 0; a < 3; ++a)
                  X[(iz * n + iy) * n + ix][a] = shift[a] + scale * (xi[a] + 0.1 * r[k++]);
              }
      }
    return mapping;
  }
} // namespace

TEST(CellMapping, EvaluatorEqualsTheSumOverTheNodes)
{
  for (unsigned int degree = 1; degree <= 5; ++degree)
    for (unsigned int n_points = 1; n_points <= 10; ++n_points)
      {
        const unsigned int        n_cells = 3, n = degree + 1, q3 = n_points * n_points * n_points;
        const CellMapping         mapping = random_mapping(degree, n_cells, 17 * degree + n_points);
        const std::vector<double> points  = gauss_quadrature(n_points).points;
        const LagrangeBasis1D     basis(degree);
        const DenseMatrix         V = basis.values_at(points), W = basis.derivatives_at(points);
        MappingEvaluator          evaluator(mapping, points);
        std::vector<Point>                 x;
        std::vector<std::array<double, 9>> J;
        for (unsigned int cell = 0; cell < n_cells; ++cell)
          {
            evaluator.evaluate(cell, x, J);
            ASSERT_EQ(x.size(), q3);
            ASSERT_EQ(J.size(), q3);
            const Point *X     = mapping.cell_nodes(cell);
            double       error = 0;
            for (unsigned int qz = 0; qz < n_points; ++qz)
              for (unsigned int qy = 0; qy < n_points; ++qy)
                for (unsigned int qx = 0; qx < n_points; ++qx)
                  {
                    const unsigned int q = (qz * n_points + qy) * n_points + qx;
                    for (unsigned int a = 0; a < 3; ++a)
                      {
                        double value = 0, d[3] = {0, 0, 0};
                        for (unsigned int iz = 0; iz < n; ++iz)
                          for (unsigned int iy = 0; iy < n; ++iy)
                            for (unsigned int ix = 0; ix < n; ++ix)
                              {
                                const double Xa = X[(iz * n + iy) * n + ix][a];
                                value += Xa * V(qx, ix) * V(qy, iy) * V(qz, iz);
                                d[0] += Xa * W(qx, ix) * V(qy, iy) * V(qz, iz);
                                d[1] += Xa * V(qx, ix) * W(qy, iy) * V(qz, iz);
                                d[2] += Xa * V(qx, ix) * V(qy, iy) * W(qz, iz);
                              }
                        error = std::max(error, std::abs(x[q][a] - value));
                        for (unsigned int b = 0; b < 3; ++b)
                          error = std::max(error, std::abs(J[q][3 * a + b] - d[b]));
                      }
                  }
            // positions of size 4 and derivatives of size 1: rounding only
            EXPECT_LT(error, 1e-12) << "mapping degree " << degree << ", " << n_points << " points, cell " << cell;
          }
      }
}
