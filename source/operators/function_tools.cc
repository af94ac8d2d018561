#include <cellwise/base/config.h>
#include <cellwise/base/parallel.h>
#include <cellwise/fe/lagrange_basis_1d.h>
#include <cellwise/fe/quadrature.h>
#include <cellwise/mesh/cell_mapping.h>
#include <cellwise/operators/function_tools.h>

#include "point_contractions.h"
#include "separable_axis_tables.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <vector>

namespace cellwise
{
  using internal::ContractionScratch;
  using internal::evaluate_at_points;
  using internal::integrate_against_basis;
  using internal::point_in_cell;
  using internal::SeparableAxisTables;
  using internal::separable_cell_integrals;

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


  template <typename Number, typename Layout>
  void
  assemble_right_hand_side(const Level                                   &level,
                           const unsigned int                             degree,
                           const SeparableFunction                       &f,
                           CellVector<Number, MemorySpace::Host, Layout> &rhs,
                           unsigned int                                   n_q_points)
  {
    internal::check_separable_factors(f, "assemble_right_hand_side");
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
          separable_cell_integrals(level, static_cast<unsigned int>(cell), f, tables, quad, phi, own, integrals);
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
