// The three phases of the general Laplacian's plane kernel
// (kernels/general_laplace_planes.h), run as the device runs them: a loop
// over a block's threads per phase, the phases one after the other on the
// same work buffer. Against the five-stage cell kernel
// (kernels/general_laplace_cell.h, whose host operator is checked against
// assembled matrices) with random cell values and a random symmetric
// positive definite metric at every point, degrees 1..4 and 7, FP64 and FP32,
// cell counts that are not multiples of the block: every cell's A_K u to
// rounding, and no entry of a cell past the last one stored.

#include <cellwise/base/degree_dispatch.h>
#include <cellwise/fe/lagrange_basis_1d.h>
#include <cellwise/fe/quadrature.h>
#include <cellwise/kernels/general_laplace_cell.h>
#include <cellwise/kernels/general_laplace_planes.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

using namespace cellwise;

namespace
{
  /// The metric of the test: six entries per point and cell.
  template <typename Number>
  struct RandomLineMetric
  {
    const std::vector<Number> *G     = nullptr;
    unsigned int               first = 0; // the block's first cell
    int                        n     = 0;
    unsigned int               cell  = 0;
    int                        x = 0, y = 0;

    void
    line(const int c, const int line_x, const int line_y)
    {
      cell = first + c;
      x    = line_x;
      y    = line_y;
    }
    void
    at(const int r, Number *out) const
    {
      const std::size_t q = x + n * (y + n * r);
      for (int e = 0; e < kernels::metric_entries; ++e)
        out[e] = (*G)[(std::size_t(cell) * n * n * n + q) * kernels::metric_entries + e];
    }
  };

  template <int p, typename Number>
  void
  check_degree(const unsigned int n_cells, const double tolerance)
  {
    constexpr int n  = p + 1;
    constexpr int n3 = n * n * n;
    constexpr int C  = kernels::plane_block_cells<p, Number>();
    SCOPED_TRACE(::testing::Message() << "p = " << p << ", " << sizeof(Number) * 8 << " bit, " << n_cells << " cells, C = " << C);
    const LagrangeBasis1D            basis(p);
    const Quadrature1D               gauss = gauss_quadrature(n);
    const DenseMatrix                S = basis.values_at(gauss.points), D = basis.derivatives_at(gauss.points);
    const DenseMatrix                Dc = collocation_derivatives(gauss.points);
    kernels::PlaneTables<p, Number>  tab;
    for (int e = 0; e < n * n; ++e)
      {
        tab.S[e]  = static_cast<Number>(S.data()[e]);
        tab.D[e]  = static_cast<Number>(D.data()[e]);
        tab.Dc[e] = static_cast<Number>(Dc.data()[e]);
      }

    // random u, and at every point G = B Bᵀ + 0.5 I (symmetric positive definite)
    std::mt19937                           rng(1234 + p);
    std::uniform_real_distribution<double> dist(-1., 1.);
    std::vector<Number>                    u(std::size_t(n_cells) * n3), G(std::size_t(n_cells) * n3 * 6);
    for (Number &v : u)
      v = static_cast<Number>(dist(rng));
    for (std::size_t point = 0; point < std::size_t(n_cells) * n3; ++point)
      {
        double B[3][3];
        for (auto &row : B)
          for (double &b : row)
            b = dist(rng);
        const int pairs[6][2] = {{0, 0}, {1, 1}, {2, 2}, {0, 1}, {0, 2}, {1, 2}};
        for (int e = 0; e < 6; ++e)
          {
            double g = e < 3 ? 0.5 : 0.;
            for (int k = 0; k < 3; ++k)
              g += B[pairs[e][0]][k] * B[pairs[e][1]][k];
            G[point * 6 + e] = static_cast<Number>(g);
          }
      }

    // the phases, block by block, threads in turn
    const double        poison = std::nan("");
    std::vector<Number> out(std::size_t(n_cells) * n3, static_cast<Number>(poison));
    std::vector<Number> W(3 * n3 * C);
    const unsigned int  blocks = (n_cells + C - 1) / C;
    unsigned int        poisoned_stores = 0; // past the last cell: not finite
    for (unsigned int block = 0; block < blocks; ++block)
      {
        const unsigned int first = block * C;
        std::fill(W.begin(), W.end(), static_cast<Number>(poison)); // a phase reads only what the one before wrote
        const auto load = [&](const int c, const int i) {
          const unsigned int cell = first + c;
          return cell < n_cells ? u[std::size_t(cell) * n3 + i] : Number(0);
        };
        const auto store = [&](const int c, const int i, const Number value) {
          const unsigned int cell = first + c;
          if (cell < n_cells)
            out[std::size_t(cell) * n3 + i] = value;
          else
            poisoned_stores += std::isfinite(value) ? 0 : 1; // zero input: finite unless a phase read poison
        };
        for (int t = 0; t < n * C; ++t)
          kernels::plane_gradients<p, C>(t, tab, load, W.data());
        RandomLineMetric<Number> metric{&G, first, n};
        // past the last cell the metric of a cell in range stands in (the
        // device reads nothing there either: its metric is never used)
        std::vector<Number> padded;
        if (first + C > n_cells)
          {
            padded = G;
            padded.resize(std::size_t(first + C) * n3 * 6, Number(1));
            metric.G = &padded;
          }
        for (int t = 0; t < n * C; ++t)
          kernels::z_line_fluxes<p, C>(t, tab, metric, W.data());
        for (int t = 0; t < n * C; ++t)
          kernels::plane_divergence<p, C>(t, tab, W.data(), store);
      }
    EXPECT_EQ(poisoned_stores, 0u);
    EXPECT_TRUE(std::all_of(out.begin(), out.end(), [](const Number v) { return std::isfinite(v); }))
      << "an entry not stored, or computed from poison";

    // the five-stage cell kernel, cell by cell
    std::vector<Number> scratch(6 * n3), expected(n3);
    double              max_error = 0, max_value = 0;
    for (unsigned int cell = 0; cell < n_cells; ++cell)
      {
        const auto metric = [&](const int q, Number *g) {
          for (int e = 0; e < 6; ++e)
            g[e] = G[(std::size_t(cell) * n3 + q) * 6 + e];
        };
        kernels::apply_general_laplace_cell<p, n>(tab.S, tab.D, metric, u.data() + std::size_t(cell) * n3, expected.data(),
                                                  scratch.data());
        for (int i = 0; i < n3; ++i)
          {
            max_error = std::max(max_error, std::abs(double(out[std::size_t(cell) * n3 + i]) - double(expected[i])));
            max_value = std::max(max_value, std::abs(double(expected[i])));
          }
      }
    EXPECT_GT(max_value, 0.);
    EXPECT_LE(max_error, tolerance * max_value) << "largest difference " << max_error << " of " << max_value;
  }
} // namespace

TEST(GeneralLaplacePlanes, PhasesGiveTheCellKernel)
{
  for (const unsigned int n_cells : {1u, 45u, 70u})
    {
      check_degree<1, double>(n_cells, 1e-13);
      check_degree<2, double>(n_cells, 1e-13);
      check_degree<3, double>(n_cells, 1e-13);
      check_degree<4, double>(n_cells, 1e-12);
      check_degree<7, double>(n_cells, 1e-11);
      check_degree<3, float>(n_cells, 2e-5);
    }
}

TEST(GeneralLaplacePlanes, BlockCellsFitTheStaticSharedMemory)
{
  EXPECT_EQ((kernels::plane_block_cells<2, double>()), 32);
  EXPECT_EQ((kernels::plane_block_cells<3, double>()), 16);
  EXPECT_EQ((kernels::plane_block_cells<3, float>()), 32);
  EXPECT_EQ((kernels::plane_block_cells<4, double>()), 8);
  EXPECT_LE(3 * 8 * 8 * 8 * (kernels::plane_block_cells<7, double>()) * 8, 46 * 1024);
}
