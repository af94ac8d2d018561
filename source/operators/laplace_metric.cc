#include <cellwise/base/config.h>
#include <cellwise/base/exceptions.h>
#include <cellwise/base/parallel.h>
#include <cellwise/fe/lagrange_basis_1d.h>
#include <cellwise/fe/quadrature.h>
#include <cellwise/kernels/general_laplace_cell.h>
#include <cellwise/kernels/laplace_cell.h>
#include <cellwise/kernels/mapped_laplace_cell.h>
#include <cellwise/mesh/cell_mapping.h>
#include <cellwise/operators/laplace_metric.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <sstream>

namespace cellwise
{
  CoefficientEvaluation
  parse_coefficient_evaluation(const std::string &name)
  {
    if (name == "quadrature-points")
      return CoefficientEvaluation::quadrature_points;
    if (name == "cell-average")
      return CoefficientEvaluation::cell_average;
    CELLWISE_CHECK(false, "unknown coefficient evaluation '" << name << "': use quadrature-points or cell-average");
  }

  std::string
  to_string(const CoefficientEvaluation evaluation)
  {
    return evaluation == CoefficientEvaluation::quadrature_points ? "quadrature-points" : "cell-average";
  }

  namespace
  {
    struct Inverse
    {
      double det;
      /// det J J^-1 J^-T as (xx, yy, zz, xy, xz, yz)
      std::array<double, 6> metric;
    };

    /// det J and det J J^{-1} J^{-T} = cof(J)^T cof(J) / det J for J row-major
    /// (row a: ∂x_a/∂ξ): kernels::inverse_metric, which the metric
    /// recomputed from the nodes uses too.
    Inverse
    invert(const std::array<double, 9> &J)
    {
      Inverse r;
      r.det = kernels::inverse_metric(J.data(), r.metric.data());
      return r;
    }

    double
    max_abs(const std::array<double, 9> &J)
    {
      double m = 0;
      for (const double v : J)
        m = std::max(m, std::abs(v));
      return m;
    }
  } // namespace

  template <typename Number>
  std::array<Number, 3>
  checked_laplace_factors(const CellBox &box, const unsigned int cell)
  {
    const auto &h = box.size;
    for (unsigned int d = 0; d < 3; ++d)
      CELLWISE_CHECK(h[d] > 0 && std::isfinite(h[d]),
                     "cell " << cell << " has size " << h[d] << " along axis " << d << " (sizes must be positive and finite)");
    std::array<Number, 3> c;
    kernels::laplace_factors(h.data(), c.data());
    const double volume   = h[0] * h[1] * h[2];
    const bool   in_range = std::isnormal(volume) && std::isnormal(c[0]) && std::isnormal(c[1]) && std::isnormal(c[2]);
    CELLWISE_CHECK(in_range, "cell " << cell << " of size " << h[0] << " x " << h[1] << " x " << h[2]
                                      << " is out of the range of the " << (sizeof(Number) == 4 ? "FP32" : "FP64")
                                      << " operator: its volume " << volume << " and metric factors " << c[0] << ", "
                                      << c[1] << ", " << c[2]
                                      << " must be normal finite numbers; scale the problem to moderate lengths"
                                      << (sizeof(Number) == 4 ? " or solve in double precision" : ""));
    return c;
  }

  template std::array<double, 3>
  checked_laplace_factors<double>(const CellBox &, unsigned int);
  template std::array<float, 3>
  checked_laplace_factors<float>(const CellBox &, unsigned int);

  MappingTables
  make_mapping_tables(const unsigned int mapping_degree, const unsigned int n_q)
  {
    CELLWISE_CHECK(mapping_degree >= 1, "make_mapping_tables: a mapping of degree " << mapping_degree << " (at least 1)");
    const LagrangeBasis1D basis(mapping_degree);
    const Quadrature1D    gauss = gauss_quadrature(n_q);
    const DenseMatrix     V     = basis.values_at(gauss.points);
    const DenseMatrix     W     = basis.derivatives_at(gauss.points);
    MappingTables         tables;
    tables.mapping_degree = mapping_degree;
    tables.n_q            = n_q;
    const unsigned int m  = mapping_degree + 1;
    tables.values.resize(n_q * m);
    tables.derivatives.resize(n_q * m);
    for (unsigned int q = 0; q < n_q; ++q)
      for (unsigned int i = 0; i < m; ++i)
        {
          tables.values[q * m + i]      = V(q, i);
          tables.derivatives[q * m + i] = W(q, i);
        }
    return tables;
  }

  template <typename Number>
  std::array<double, 3>
  LaplaceMetric<Number>::surrogate_factors(const unsigned int cell) const
  {
    std::array<double, 3> f = {{double(factors[cell][0]), double(factors[cell][1]), double(factors[cell][2])}};
    if (form[cell] == MetricForm::cartesian_coefficient)
      for (double &v : f)
        v *= coefficient_averages[cell];
    return f;
  }

  template <typename Number>
  std::size_t
  LaplaceMetric<Number>::bytes() const
  {
    return form.size() * (sizeof(MetricForm) + sizeof(std::array<Number, 3>)) + data.size() * sizeof(Number) +
           (count()[0] == form.size() ? 0 : offset.size() * sizeof(std::size_t));
  }

  template <typename Number>
  std::array<std::size_t, 4>
  LaplaceMetric<Number>::count() const
  {
    std::array<std::size_t, 4> n = {{0, 0, 0, 0}};
    for (const MetricForm f : form)
      ++n[static_cast<unsigned int>(f)];
    return n;
  }

  template <typename Number>
  std::string
  LaplaceMetric<Number>::describe() const
  {
    const auto         n      = count();
    const double       values = double(form.size()) * (degree + 1) * (degree + 1) * (degree + 1);
    std::ostringstream s;
    s << "geometry: " << n[0] << " cartesian, " << n[1] << " cartesian with coefficient at points, " << n[2] << " affine, " << n[3]
      << " general cells; " << (values > 0 ? double(bytes()) / values : 0.) << " B per cell-wise value";
    return s.str();
  }

  void
  check_coefficient_contrast(const std::vector<double> &averages)
  {
    if (averages.empty())
      return;
    const auto [low, high] = std::minmax_element(averages.begin(), averages.end());
    CELLWISE_CHECK(*high <= max_coefficient_contrast * *low,
                   "the coefficient ranges from " << *low << " (cell " << low - averages.begin() << ") to " << *high << " (cell "
                                                  << high - averages.begin() << ") on one level: a contrast of "
                                                  << *high / *low << ", beyond the " << max_coefficient_contrast
                                                  << " an FP64 solve resolves (its answer on the cells of the small values "
                                                     "would be rounding error); bound the coefficient's range");
  }

  template <typename Number>
  LaplaceMetric<Number>
  make_laplace_metric(const Level                &level,
                      const unsigned int          degree,
                      const ScalarFunction       &coefficient,
                      const CoefficientEvaluation evaluation,
                      const GeneralCellValues     general_values)
  {
    check_degree(degree);
    const unsigned int    n_cells = level.n_cells();
    const unsigned int    n_q     = degree + 1;
    const unsigned int    q3      = n_q * n_q * n_q;
    const Quadrature1D    gauss   = gauss_quadrature(n_q);
    const bool            mapped  = !level.mapping.empty();
    CELLWISE_CHECK(!mapped || level.mapping.nodes.size() == static_cast<std::size_t>(n_cells) * level.mapping.nodes_per_cell(),
                   "the level's mapping has " << level.mapping.nodes.size() << " nodes for " << n_cells << " cells of "
                                              << level.mapping.nodes_per_cell() << " nodes");
    std::vector<double> weights(q3);
    for (unsigned int k = 0; k < n_q; ++k)
      for (unsigned int j = 0; j < n_q; ++j)
        for (unsigned int i = 0; i < n_q; ++i)
          weights[(k * n_q + j) * n_q + i] = gauss.weights[i] * gauss.weights[j] * gauss.weights[k];

    LaplaceMetric<Number> metric;
    metric.degree = degree;
    metric.n_q    = n_q;
    metric.form.resize(n_cells);
    metric.factors.resize(n_cells);
    metric.coefficient_averages.assign(n_cells, 1.);

    // The work arrays of one range of cells (kept between its cells).
    struct Work
    {
      std::optional<MappingEvaluator>    evaluator;
      std::vector<Point>                 x;
      std::vector<std::array<double, 9>> J;
      /// det J and the inverse metric at each point (made once per point)
      std::vector<Inverse>               inverse;
      std::vector<double>                cq;
      /// the cell's values (at most 6 q3); of a general cell the weighted
      /// coefficient w_q c(x_q) where c varies over it (pointwise)
      std::vector<double>                v;
      bool                               pointwise = false;
    };
    // The form, factors and coefficient average of @p cell into metric, its
    // values into work.v; returns how many values it has. A general cell's
    // values are not made here but by general_values_of below, written where
    // they end up.
    auto cell_metric = [&](const unsigned int cell, Work &work) -> std::size_t {
      std::vector<Point>                 &x  = work.x;
      std::vector<std::array<double, 9>> &J  = work.J;
      std::vector<Inverse>               &G  = work.inverse;
      std::vector<double>                &v  = work.v;
      std::array<double, 3>               h  = level.boxes[cell].size;
      bool                                box = true;
      if (mapped)
        {
          work.evaluator->evaluate(cell, x, J);
          const double scale = max_abs(J[0]);
          for (unsigned int q = 0; q < q3; ++q)
            {
              G[q]             = invert(J[q]);
              const double det = G[q].det;
              CELLWISE_CHECK(std::isfinite(det) && det > 0,
                             "cell " << cell << " is inverted or degenerate: det J = " << det << " at its quadrature point ("
                                     << x[q][0] << ", " << x[q][1] << ", " << x[q][2] << ")");
              for (unsigned int e = 0; e < 9; ++e)
                box = box && std::abs(J[q][e] - J[0][e]) <= 1e-12 * scale && (e % 4 == 0 || std::abs(J[q][e]) <= 1e-12 * scale);
            }
          if (box) // a box, possibly reflected along two axes: the Laplacian sees |J_dd|
            h = {{std::abs(J[0][0]), std::abs(J[0][4]), std::abs(J[0][8])}};
        }
      else
        {
          const CellBox &b = level.boxes[cell];
          for (unsigned int k = 0; k < n_q; ++k)
            for (unsigned int j = 0; j < n_q; ++j)
              for (unsigned int i = 0; i < n_q; ++i)
                x[(k * n_q + j) * n_q + i] = {{b.lower[0] + gauss.points[i] * b.size[0], b.lower[1] + gauss.points[j] * b.size[1],
                                               b.lower[2] + gauss.points[k] * b.size[2]}};
        }
      // the coefficient at the points, its (volume-weighted) average, and
      // whether it is constant on the cell
      std::vector<double> &cq = work.cq;
      std::fill(cq.begin(), cq.end(), 1.);
      double average  = 1.;
      bool   constant = true;
      if (coefficient)
        {
          double integral = 0, volume = 0;
          for (unsigned int q = 0; q < q3; ++q)
            {
              cq[q] = coefficient(x[q]);
              CELLWISE_CHECK(std::isfinite(cq[q]) && cq[q] > 0, "the coefficient is " << cq[q] << " at (" << x[q][0] << ", " << x[q][1] << ", "
                                                                                     << x[q][2] << ") in cell " << cell
                                                                                     << ": it must be positive and finite");
              const double dv = weights[q] * (box ? 1. : G[q].det);
              integral += dv * cq[q];
              volume += dv;
            }
          // on a box Σ w_q = 1: the sum itself, as the CUDA operator's
          // cell_coefficient_averages (bit for bit)
          average = box ? integral : integral / volume;
          for (unsigned int q = 0; q < q3; ++q)
            constant = constant && std::abs(cq[q] - cq[0]) <= 1e-14 * cq[0];
          if (evaluation == CoefficientEvaluation::cell_average)
            constant = true;
        }
      metric.coefficient_averages[cell] = average;
      if (box)
        {
          CellBox b;
          b.lower                = level.boxes[cell].lower;
          b.size                 = h;
          std::array<Number, 3> f = checked_laplace_factors<Number>(b, cell);
          std::size_t           count = 0;
          if (constant)
            {
              metric.form[cell] = MetricForm::cartesian;
              if (coefficient)
                for (unsigned int d = 0; d < 3; ++d)
                  f[d] = static_cast<Number>(average * double(f[d]));
            }
          else
            {
              metric.form[cell] = MetricForm::cartesian_coefficient;
              count             = q3;
              for (unsigned int q = 0; q < q3; ++q)
                v[q] = weights[q] * cq[q];
            }
          metric.factors[cell] = f;
          return count;
        }
      bool affine = constant;
      for (unsigned int q = 0; q < q3 && affine; ++q)
        for (unsigned int e = 0; e < 9; ++e)
          affine = affine && std::abs(J[q][e] - J[0][e]) <= 1e-12 * max_abs(J[0]);
      std::array<double, 3> diagonal_sum = {{0., 0., 0.}};
      std::size_t           count        = 0;
      if (affine)
        {
          metric.form[cell] = MetricForm::affine;
          count             = 6;
          for (unsigned int e = 0; e < 6; ++e)
            v[e] = average * G[0].metric[e];
          diagonal_sum = {{v[0], v[1], v[2]}};
        }
      else
        {
          metric.form[cell] = MetricForm::general;
          if (general_values == GeneralCellValues::stored)
            count = 6 * q3;
          work.pointwise = !constant;
          for (unsigned int q = 0; q < q3; ++q)
            {
              const std::array<double, 6> &g = G[q].metric;
              const double                 s = weights[q] * (constant ? average : cq[q]);
              for (unsigned int d = 0; d < 3; ++d)
                diagonal_sum[d] += s * g[d];
              if (!constant)
                v[q] = s;
            }
        }
      for (unsigned int d = 0; d < 3; ++d)
        metric.factors[cell][d] = static_cast<Number>(diagonal_sum[d]);
      return count;
    };

    // The stored values of a general cell, 6 per point, into @p out: its
    // Jacobians evaluated again (pass 1 checked them), scaled by
    // w_q c(x_q) from @p scales where the coefficient varies over the cell,
    // by w_q times its average otherwise: the products that pass 1 formed
    // for the diagonal sums, bit for bit.
    auto general_values_of = [&](const unsigned int cell, const double *scales, Work &work, Number *out) {
      work.evaluator->evaluate(cell, work.x, work.J);
      for (unsigned int q = 0; q < q3; ++q)
        {
          const std::array<double, 6> g = invert(work.J[q]).metric;
          const double                s = scales != nullptr ? scales[q] : weights[q] * metric.coefficient_averages[cell];
          for (unsigned int e = 0; e < 6; ++e)
            out[6 * q + e] = static_cast<Number>(s * g[e]);
        }
    };

    // Two passes over the cells in chunks (at least 256 cells, at most 1024
    // chunks). Pass 1 finds each cell's form, factors and how many values it
    // has; the values of the other forms (at most n_q³ a cell) go, rounded to
    // Number, into a buffer per chunk, and so do the weighted coefficients of
    // general cells where it varies. Pass 2, with the offsets known, writes
    // every chunk's values into the packed array: the buffered ones copied,
    // the general cells' made there by general_values_of. Buffering the
    // general values too (6 n_q³ a cell) doubled the memory they take and
    // made the stored form of the ball at L = 5, p = 3 take 2.6 s on one
    // core, where the omitted form takes 0.6 s: the first touch of the
    // buffers and the copy, not the arithmetic.
    const bool                               storing  = mapped && general_values == GeneralCellValues::stored;
    const std::size_t                        chunk    = std::max<std::size_t>(256, (std::size_t(n_cells) + 1023) / 1024);
    const std::size_t                        n_chunks = (std::size_t(n_cells) + chunk - 1) / chunk;
    std::vector<UninitializedVector<Number>> chunk_values(n_chunks);
    std::vector<UninitializedVector<double>> chunk_scales(n_chunks);
    UninitializedVector<std::size_t>         n_values(n_cells);
    std::vector<unsigned char>               pointwise(storing ? n_cells : 0, 0);
    auto                                     make_work = [&] {
      Work work;
      work.x.resize(q3);
      work.cq.resize(q3);
      work.inverse.resize(q3);
      work.v.resize(6 * std::size_t(q3));
      if (mapped)
        work.evaluator.emplace(level.mapping, gauss.points);
      return work;
    };
    parallel_for(n_chunks, 1, [&](const std::size_t k) {
      const std::size_t            begin = k * chunk, end = std::min<std::size_t>(n_cells, begin + chunk);
      Work                         work  = make_work();
      UninitializedVector<Number> &out   = chunk_values[k];
      for (std::size_t c = begin; c < end; ++c)
        {
          work.pointwise          = false;
          const std::size_t count = cell_metric(static_cast<unsigned int>(c), work);
          n_values[c]             = count;
          if (metric.form[c] != MetricForm::general)
            for (std::size_t i = 0; i < count; ++i)
              out.push_back(static_cast<Number>(work.v[i]));
          else if (storing && work.pointwise)
            {
              pointwise[c] = 1;
              chunk_scales[k].insert(chunk_scales[k].end(), work.v.begin(), work.v.begin() + q3);
            }
        }
    });
    metric.offset.resize(n_cells + 1);
    metric.offset[0] = 0;
    for (unsigned int c = 0; c < n_cells; ++c)
      metric.offset[c + 1] = metric.offset[c] + n_values[c];
    metric.data.resize(metric.offset[n_cells]);
    parallel_for(n_chunks, 1, [&](const std::size_t k) {
      const std::size_t begin = k * chunk, end = std::min<std::size_t>(n_cells, begin + chunk);
      Number           *out   = metric.data.data() + metric.offset[begin];
      const Number     *in    = chunk_values[k].data();
      const double     *scale = chunk_scales[k].data();
      std::optional<Work> work;
      for (std::size_t c = begin; c < end; ++c)
        {
          if (metric.form[c] == MetricForm::general && storing)
            {
              if (!work)
                work.emplace(make_work());
              general_values_of(static_cast<unsigned int>(c), pointwise[c] ? scale : nullptr, *work, out);
              scale += pointwise[c] ? q3 : 0;
            }
          else
            {
              std::copy(in, in + n_values[c], out);
              in += n_values[c];
            }
          out += n_values[c];
        }
      UninitializedVector<Number>().swap(chunk_values[k]); // freed as it is copied
      UninitializedVector<double>().swap(chunk_scales[k]);
    });
    metric.offset.resize(n_cells);
    if (coefficient)
      check_coefficient_contrast(metric.coefficient_averages);
    return metric;
  }

  template <typename Number>
  std::size_t
  n_metric_values(const LaplaceMetric<Number> &metric, const GeneralCellValues general_values)
  {
    const std::array<std::size_t, 4> c  = metric.count();
    const std::size_t                q3 = std::size_t(metric.n_q) * metric.n_q * metric.n_q;
    return c[1] * q3 + c[2] * 6 + (general_values == GeneralCellValues::stored ? c[3] * 6 * q3 : 0);
  }

  template std::size_t
  n_metric_values<double>(const LaplaceMetric<double> &, GeneralCellValues);
  template std::size_t
  n_metric_values<float>(const LaplaceMetric<float> &, GeneralCellValues);

  template <typename Number>
  void
  check_given_metric(const LaplaceMetric<Number> &metric,
                     const unsigned int           n_cells,
                     const unsigned int           degree,
                     const GeneralCellValues      general_values,
                     const char                  *who)
  {
    CELLWISE_CHECK(metric.n_cells() == n_cells && metric.degree == degree && metric.n_q == degree + 1,
                   who << ": a given metric of " << metric.n_cells() << " cells of degree " << metric.degree << " for a level of "
                       << n_cells << " cells of degree " << degree);
    CELLWISE_CHECK(metric.offset.size() == n_cells && metric.factors.size() == n_cells && metric.coefficient_averages.size() == n_cells,
                   who << ": the given metric's per-cell arrays are not of its " << n_cells << " cells");
    const std::size_t expected = n_metric_values(metric, general_values);
    CELLWISE_CHECK(metric.data.size() == expected,
                   who << ": the given metric has " << metric.data.size() << " values, this operator takes " << expected
                       << " (general cells' values " << (general_values == GeneralCellValues::stored ? "stored" : "omitted") << ")");
  }

  template void
  check_given_metric<double>(const LaplaceMetric<double> &, unsigned int, unsigned int, GeneralCellValues, const char *);
  template void
  check_given_metric<float>(const LaplaceMetric<float> &, unsigned int, unsigned int, GeneralCellValues, const char *);

  LaplaceMetric<float>
  rounded_to_float(const LaplaceMetric<double> &metric)
  {
    LaplaceMetric<float> rounded;
    rounded.degree               = metric.degree;
    rounded.n_q                  = metric.n_q;
    rounded.form                 = metric.form;
    rounded.offset               = metric.offset;
    rounded.coefficient_averages = metric.coefficient_averages;
    rounded.factors.resize(metric.factors.size());
    rounded.data.resize(metric.data.size());
    parallel_for(metric.factors.size(), cell_grain, [&](const std::size_t cell) {
      for (unsigned int d = 0; d < 3; ++d)
        rounded.factors[cell][d] = static_cast<float>(metric.factors[cell][d]);
      const bool box = metric.form[cell] == MetricForm::cartesian || metric.form[cell] == MetricForm::cartesian_coefficient;
      CELLWISE_CHECK(!box || (std::isnormal(rounded.factors[cell][0]) && std::isnormal(rounded.factors[cell][1]) &&
                              std::isnormal(rounded.factors[cell][2])),
                     "cell " << cell << " with metric factors " << metric.factors[cell][0] << ", " << metric.factors[cell][1] << ", "
                             << metric.factors[cell][2]
                             << " is out of the range of the FP32 operator: the factors must be normal finite numbers; scale "
                                "the problem to moderate lengths or solve in double precision");
    });
    parallel_for(metric.data.size(), value_grain,
                 [&](const std::size_t i) { rounded.data[i] = static_cast<float>(metric.data[i]); });
    return rounded;
  }

  template struct LaplaceMetric<double>;
  template struct LaplaceMetric<float>;
  template LaplaceMetric<double>
  make_laplace_metric<double>(const Level &, unsigned int, const ScalarFunction &, CoefficientEvaluation, GeneralCellValues);
  template LaplaceMetric<float>
  make_laplace_metric<float>(const Level &, unsigned int, const ScalarFunction &, CoefficientEvaluation, GeneralCellValues);
} // namespace cellwise
