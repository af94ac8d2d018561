#include <cellwise/base/config.h>
#include <cellwise/base/parallel.h>
#include <cellwise/fe/lagrange_basis_1d.h>
#include <cellwise/fe/quadrature.h>
#include <cellwise/mesh/cell_mapping.h>
#include <cellwise/operators/function_tools.h>

#include "point_contractions.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <mutex>
#include <optional>
#include <vector>

namespace cellwise
{
  using internal::ContractionScratch;
  using internal::evaluate_at_points;
  using internal::integrate_against_basis;
  using internal::point_in_cell;

  namespace
  {
    /// A range of mapped cells at the tensor points of one quadrature: the
    /// mapping's evaluator (its tables made once) and the points and
    /// Jacobians of the cell last evaluated.
    struct MappedPoints
    {
      MappedPoints(const Level &level, const std::vector<double> &points_1d)
        : evaluator(level.mapping, points_1d)
      {}
      MappingEvaluator                   evaluator;
      std::vector<Point>                 points;
      std::vector<std::array<double, 9>> jacobians;
    };

    /// g(x_q) w_q det J(q) at the tensor Gauss points of @p quadrature in
    /// mapped @p cell: the point values that integrate_against_basis takes
    /// (the points stay in @p mapped).
    template <typename Function>
    void
    mapped_weighted_values(MappedPoints &mapped, const unsigned int cell, const Quadrature1D &quadrature, const Function &g,
                           std::vector<double> &weighted)
    {
      mapped.evaluator.evaluate(cell, mapped.points, mapped.jacobians);
      const std::vector<Point>                 &points    = mapped.points;
      const std::vector<std::array<double, 9>> &jacobians = mapped.jacobians;
      const unsigned int q = static_cast<unsigned int>(quadrature.points.size());
      weighted.resize(q * q * q);
      for (unsigned int k = 0; k < q; ++k)
        for (unsigned int j = 0; j < q; ++j)
          for (unsigned int i = 0; i < q; ++i)
            {
              const unsigned int p   = i + q * (j + q * k);
              const double       det = determinant(jacobians[p]);
              CELLWISE_CHECK(det > 0, "cell " << cell << " is inverted or degenerate: det J = " << det);
              weighted[p] = g(points[p]) * quadrature.weights[i] * quadrature.weights[j] * quadrature.weights[k] * det;
            }
    }
  } // namespace

  template <typename Number, typename Layout>
  void
  interpolate(const Level &level, const unsigned int degree, const ScalarFunction &f, CellVector<Number, MemorySpace::Host, Layout> &v)
  {
    const LagrangeBasis1D basis(degree);
    const auto           &x = basis.nodes();
    const unsigned int    n = degree + 1;
    v.reinit(level.n_cells(), degree, true); // every value written below
    parallel_for_ranges(level.n_cells(), cell_grain, [&](const std::size_t begin, const std::size_t end) {
      std::optional<MappedPoints> mapped;
      if (!level.mapping.empty())
        mapped.emplace(level, x);
      for (std::size_t cell = begin; cell < end; ++cell)
        {
          if (mapped)
            {
              // the support points through the cell's map
              mapped->evaluator.evaluate(static_cast<unsigned int>(cell), mapped->points, mapped->jacobians);
              for (unsigned int i = 0; i < n * n * n; ++i)
                v(cell, i) = static_cast<Number>(f(mapped->points[i]));
              continue;
            }
          for (unsigned int k = 0; k < n; ++k)
            for (unsigned int j = 0; j < n; ++j)
              for (unsigned int i = 0; i < n; ++i)
                v(cell, i + n * (j + n * k)) = static_cast<Number>(f(point_in_cell(level.boxes[cell], x[i], x[j], x[k])));
        }
    });
  }

  template <typename Number, typename Layout>
  void
  assemble_right_hand_side(const Level                                   &level,
                           const unsigned int                             degree,
                           const ScalarFunction                          &f,
                           CellVector<Number, MemorySpace::Host, Layout> &rhs,
                           unsigned int                                   n_q_points)
  {
    // f(x_q) w_q |K| at the q³ Gauss points, integrated against the basis
    const unsigned int    q = n_q_points == 0 ? degree + 2 : n_q_points;
    const LagrangeBasis1D basis(degree);
    const Quadrature1D    quad = gauss_quadrature(q);
    const DenseMatrix     phi  = basis.values_at(quad.points);
    rhs.reinit(level.n_cells(), degree, true); // every cell written below
    parallel_for_ranges(level.n_cells(), cell_grain, [&](const std::size_t begin, const std::size_t end) {
      std::vector<double>         weighted(q * q * q), integrals;
      ContractionScratch          scratch;
      std::optional<MappedPoints> mapped;
      if (!level.mapping.empty())
        mapped.emplace(level, quad.points);
      for (std::size_t cell = begin; cell < end; ++cell)
        {
          if (mapped)
            {
              mapped_weighted_values(*mapped, static_cast<unsigned int>(cell), quad, [&](const Point &x) { return f(x); }, weighted);
              integrate_against_basis(phi, weighted, integrals, scratch);
              rhs.write_cell(static_cast<unsigned int>(cell), integrals.data());
              continue;
            }
          const CellBox &box    = level.boxes[cell];
          const double   volume = box.size[0] * box.size[1] * box.size[2];
          for (unsigned int k = 0; k < q; ++k)
            for (unsigned int j = 0; j < q; ++j)
              for (unsigned int i = 0; i < q; ++i)
                weighted[i + q * (j + q * k)] = f(point_in_cell(box, quad.points[i], quad.points[j], quad.points[k])) *
                                                quad.weights[i] * quad.weights[j] * quad.weights[k] * volume;
          integrate_against_basis(phi, weighted, integrals, scratch);
          rhs.write_cell(static_cast<unsigned int>(cell), integrals.data());
        }
    });
  }

  namespace
  {
    /// The 1D integrals g(i) = h Σ_p φ_i(x_p) w_p f(l + x_p h) of one factor
    /// over the interval [l, l + h], i = 0..n−1 (φ: q x n at the Gauss points).
    void
    factor_integrals(const std::function<double(double)> &factor,
                     const double                         lower,
                     const double                         size,
                     const Quadrature1D                  &quad,
                     const DenseMatrix                   &phi,
                     double                              *g)
    {
      const unsigned int q = static_cast<unsigned int>(quad.points.size());
      const unsigned int n = static_cast<unsigned int>(phi.n());
      double             weighted[32];
      CELLWISE_CHECK(q <= 32, "assemble_right_hand_side: at most 32 quadrature points per axis, not " << q);
      for (unsigned int p = 0; p < q; ++p) // the coordinates of point_in_cell
        weighted[p] = factor(lower + quad.points[p] * size) * quad.weights[p];
      for (unsigned int i = 0; i < n; ++i)
        {
          double sum = 0;
          for (unsigned int p = 0; p < q; ++p)
            sum += phi(p, i) * weighted[p];
          g[i] = sum * size;
        }
    }

    /// The factor integrals of every term along every axis per lattice
    /// position of a level of box cells. Cells in one position along an axis
    /// share their interval there, so a level of N cells and M positions per
    /// axis needs 3 M instead of 3 N evaluations of q points per term: at
    /// L = 8 (256 positions, 16.8 M cells) the sine right-hand side of the
    /// main program evaluated 45 sines per cell, most of its 0.87 s. A
    /// cell uses its position's integrals only where its interval is the
    /// representative's bit for bit, else its own (a lattice of unequal
    /// steps, a partitioned level): the same values either way.
    class SeparableAxisTables
    {
    public:
      SeparableAxisTables(const Level &level, const SeparableFunction &f, const Quadrature1D &quad, const DenseMatrix &phi)
        : n_(static_cast<unsigned int>(phi.n()))
        , terms_(static_cast<unsigned int>(f.size()))
      {
        const std::size_t n_cells = level.n_cells();
        if (n_cells == 0 || !level.mapping.empty() || level.coordinates.size() != n_cells)
          return;
        // the range of positions per axis (ranges merged under a lock)
        std::mutex mutex;
        lowest_ = {{std::numeric_limits<int>::max(), std::numeric_limits<int>::max(), std::numeric_limits<int>::max()}};
        std::array<int, 3> highest = {{std::numeric_limits<int>::min(), std::numeric_limits<int>::min(), std::numeric_limits<int>::min()}};
        parallel_for_ranges(n_cells, value_grain, [&](const std::size_t begin, const std::size_t end) {
          std::array<int, 3> low = {{std::numeric_limits<int>::max(), std::numeric_limits<int>::max(), std::numeric_limits<int>::max()}};
          std::array<int, 3> high = {{std::numeric_limits<int>::min(), std::numeric_limits<int>::min(), std::numeric_limits<int>::min()}};
          for (std::size_t cell = begin; cell < end; ++cell)
            for (unsigned int d = 0; d < 3; ++d)
              {
                low[d]  = std::min(low[d], level.coordinates[cell][d]);
                high[d] = std::max(high[d], level.coordinates[cell][d]);
              }
          const std::lock_guard<std::mutex> lock(mutex);
          for (unsigned int d = 0; d < 3; ++d)
            {
              lowest_[d] = std::min(lowest_[d], low[d]);
              highest[d] = std::max(highest[d], high[d]);
            }
        });
        for (unsigned int d = 0; d < 3; ++d)
          {
            const std::size_t positions = std::size_t(std::int64_t(highest[d]) - lowest_[d] + 1);
            // a table longer than the level's cells saves nothing
            if (positions > n_cells)
              return;
            positions_[d] = positions;
          }
        // a representative cell per position (any cell in it will do: the
        // stores race only between valid answers)
        std::array<std::vector<std::atomic<unsigned int>>, 3> representative;
        for (unsigned int d = 0; d < 3; ++d)
          representative[d] = std::vector<std::atomic<unsigned int>>(positions_[d]);
        parallel_for(n_cells, value_grain, [&](const std::size_t cell) {
          for (unsigned int d = 0; d < 3; ++d)
            representative[d][std::size_t(level.coordinates[cell][d] - lowest_[d])].store(static_cast<unsigned int>(cell),
                                                                                      std::memory_order_relaxed);
        });
        for (unsigned int d = 0; d < 3; ++d)
          {
            lower_[d].resize(positions_[d]);
            size_[d].resize(positions_[d]);
            integrals_[d].resize(positions_[d] * terms_ * n_);
            parallel_for(positions_[d], 1, [&](const std::size_t position) {
              const CellBox &box = level.boxes[representative[d][position].load(std::memory_order_relaxed)];
              lower_[d][position] = box.lower[d];
              size_[d][position]  = box.size[d];
              for (unsigned int t = 0; t < terms_; ++t)
                factor_integrals(f[t].factors[d], box.lower[d], box.size[d], quad, phi,
                                 &integrals_[d][(position * terms_ + t) * n_]);
            });
          }
        usable_ = true;
      }

      /// The integrals of term @p t along axis @p d of @p cell, n values, or
      /// nullptr where the cell's interval is not its position's.
      const double *
      integrals(const Level &level, const unsigned int cell, const unsigned int d, const unsigned int t) const
      {
        if (!usable_)
          return nullptr;
        const std::size_t position = std::size_t(level.coordinates[cell][d] - lowest_[d]);
        const CellBox    &box      = level.boxes[cell];
        if (box.lower[d] != lower_[d][position] || box.size[d] != size_[d][position])
          return nullptr;
        return &integrals_[d][(position * terms_ + t) * n_];
      }

    private:
      unsigned int                        n_ = 0, terms_ = 0;
      bool                                usable_ = false;
      std::array<int, 3>                  lowest_{};
      std::array<std::size_t, 3>          positions_{};
      std::array<std::vector<double>, 3>  lower_, size_, integrals_;
    };
  } // namespace

  template <typename Number, typename Layout>
  void
  assemble_right_hand_side(const Level                                   &level,
                           const unsigned int                             degree,
                           const SeparableFunction                       &f,
                           CellVector<Number, MemorySpace::Host, Layout> &rhs,
                           unsigned int                                   n_q_points)
  {
    for (const SeparableTerm &term : f)
      for (const auto &factor : term.factors)
        CELLWISE_CHECK(factor, "assemble_right_hand_side: a term of the separable function has an empty factor");
    // The integral of a product against a tensor-product basis function is
    // the product of three 1D integrals, g_d(i) = Σ_q φ_i(x_q) w_q f_d(x_q)
    // h_d: per cell and term an outer product of n³ entries of 1D integrals
    // (tabulated per lattice position, SeparableAxisTables), instead of q³
    // point values integrated by three contractions (which took 3.7 s at
    // L = 8 on 16 cores; same Gauss rule, same values up to rounding).
    const unsigned int        q = n_q_points == 0 ? degree + 2 : n_q_points;
    const unsigned int        n = degree + 1;
    const LagrangeBasis1D     basis(degree);
    const Quadrature1D        quad = gauss_quadrature(q);
    const DenseMatrix         phi  = basis.values_at(quad.points); // q x n
    const SeparableAxisTables tables(level, f, quad, phi);
    rhs.reinit(level.n_cells(), degree, true); // every cell written below
    parallel_for_ranges(level.n_cells(), cell_grain, [&](const std::size_t begin, const std::size_t end) {
      std::vector<double>                integrals(n * n * n);
      std::array<std::vector<double>, 3> own;
      for (unsigned int d = 0; d < 3; ++d)
        own[d].resize(n);
      std::vector<double>         pointwise;
      ContractionScratch          scratch;
      std::optional<MappedPoints> mapped;
      if (!level.mapping.empty())
        mapped.emplace(level, quad.points);
      for (std::size_t cell = begin; cell < end; ++cell)
        {
          if (mapped)
            {
              // a mapped cell is not a product of intervals: point by point
              mapped_weighted_values(*mapped, static_cast<unsigned int>(cell), quad, [&](const Point &x) { return evaluate(f, x); },
                                     pointwise);
              integrate_against_basis(phi, pointwise, integrals, scratch);
              rhs.write_cell(static_cast<unsigned int>(cell), integrals.data());
              continue;
            }
          const CellBox &box = level.boxes[cell];
          std::fill(integrals.begin(), integrals.end(), 0.);
          for (unsigned int t = 0; t < f.size(); ++t)
            {
              std::array<const double *, 3> g;
              for (unsigned int d = 0; d < 3; ++d)
                {
                  g[d] = tables.integrals(level, static_cast<unsigned int>(cell), d, t);
                  if (!g[d])
                    {
                      factor_integrals(f[t].factors[d], box.lower[d], box.size[d], quad, phi, own[d].data());
                      g[d] = own[d].data();
                    }
                }
              for (unsigned int k = 0; k < n; ++k)
                for (unsigned int j = 0; j < n; ++j)
                  {
                    const double yz = f[t].coefficient * g[1][j] * g[2][k];
                    for (unsigned int i = 0; i < n; ++i)
                      integrals[i + n * (j + n * k)] += g[0][i] * yz;
                  }
            }
          rhs.write_cell(static_cast<unsigned int>(cell), integrals.data());
        }
    });
  }

  template <typename Number, typename Layout>
  double
  compute_l2_error(const Level                                         &level,
                   const CellVector<Number, MemorySpace::Host, Layout> &u,
                   const ScalarFunction                                &exact,
                   const bool                                           active_only,
                   const unsigned int                                   n_q_points)
  {
    CELLWISE_CHECK(u.n_cells() == level.n_cells(),
                   "compute_l2_error: vector has " << u.n_cells() << " cells, the level " << level.n_cells());
    const unsigned int    degree = u.degree();
    const unsigned int    q      = n_q_points == 0 ? degree + 2 : n_q_points;
    const LagrangeBasis1D basis(degree);
    const Quadrature1D    quad = gauss_quadrature(q);
    const DenseMatrix     phi  = basis.values_at(quad.points);
    // chunks of cells added in order: the same error on any thread count
    const double sum = deterministic_sum(level.n_cells(), 64, [&](const std::size_t begin, const std::size_t end) {
      std::vector<double>         nodal(u.dofs_per_cell()), values, weights;
      ContractionScratch          scratch;
      std::optional<MappedPoints> mapped;
      if (!level.mapping.empty())
        mapped.emplace(level, quad.points);
      double sum = 0;
      for (std::size_t cell = begin; cell < end; ++cell)
        {
          // another rank's cell (on a rank's part of a level) is that rank's
          if ((active_only && !level.is_active(cell)) || (level.flags[cell] & cell_flags::ghost))
            continue;
          u.read_cell(cell, nodal.data());
          evaluate_at_points(phi, nodal, values, scratch);
          if (mapped)
            {
              // the weights w_q det J and, kept in mapped, the points
              mapped_weighted_values(*mapped, static_cast<unsigned int>(cell), quad, [](const Point &) { return 1.; }, weights);
              for (unsigned int i = 0; i < q * q * q; ++i)
                {
                  const double e = values[i] - exact(mapped->points[i]);
                  sum += e * e * weights[i];
                }
              continue;
            }
          const CellBox &box    = level.boxes[cell];
          const double   volume = box.size[0] * box.size[1] * box.size[2];
          for (unsigned int k = 0; k < q; ++k)
            for (unsigned int j = 0; j < q; ++j)
              for (unsigned int i = 0; i < q; ++i)
                {
                  const double e = values[i + q * (j + q * k)] -
                                   exact(point_in_cell(box, quad.points[i], quad.points[j], quad.points[k]));
                  sum += e * e * quad.weights[i] * quad.weights[j] * quad.weights[k] * volume;
                }
        }
      return sum;
    });
    return std::sqrt(sum);
  }

#define CELLWISE_INSTANTIATE(Number, Layout)                                                                        \
  template void   interpolate(const Level &, unsigned int, const ScalarFunction &, CellVector<Number, MemorySpace::Host, Layout> &); \
  template void   assemble_right_hand_side(const Level &,                                                         \
                                         unsigned int,                                                            \
                                         const ScalarFunction &,                                                  \
                                         CellVector<Number, MemorySpace::Host, Layout> &,                         \
                                         unsigned int);                                                           \
  template void   assemble_right_hand_side(const Level &,                                                         \
                                         unsigned int,                                                            \
                                         const SeparableFunction &,                                               \
                                         CellVector<Number, MemorySpace::Host, Layout> &,                         \
                                         unsigned int);                                                           \
  template double compute_l2_error(const Level &, const CellVector<Number, MemorySpace::Host, Layout> &, const ScalarFunction &, bool, unsigned int);

  CELLWISE_INSTANTIATE(double, CellContiguous)
  CELLWISE_INSTANTIATE(float, CellContiguous)
  CELLWISE_INSTANTIATE(double, CellBlocked<32>)
  CELLWISE_INSTANTIATE(float, CellBlocked<32>)
#undef CELLWISE_INSTANTIATE
} // namespace cellwise
