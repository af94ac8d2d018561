#include <cellwise/base/exceptions.h>
#include <cellwise/base/parallel.h>
#include <cellwise/fe/hermite_basis_1d.h>
#include <cellwise/fe/quadrature.h>
#include <cellwise/mesh/cell_mapping.h>
#include <cellwise/operators/hermite_function_tools.h>

#include "point_contractions.h"
#include "separable_axis_tables.h"

#include <cmath>

namespace cellwise
{
  namespace
  {
    using hermite::dofs_per_cell;

    void
    check_hermite_vector(const Level &level, const unsigned int n_cells, const unsigned int degree, const char *what)
    {
      CELLWISE_CHECK(n_cells == level.n_cells() && degree == hermite::storage_degree,
                     what << ": vector of " << n_cells << " cells of degree " << degree << " on a level of " << level.n_cells()
                          << " cells; a Hermite field is stored as degree " << hermite::storage_degree);
    }

    /// D^k φ_i(t) for the 1D basis, k = 0, 1, 2.
    double
    basis_derivative(const unsigned int i, const double t, const unsigned int k)
    {
      return k == 0 ? hermite::value(i, t) : (k == 1 ? hermite::derivative(i, t) : hermite::second_derivative(i, t));
    }

    /// The load vector of @p cell from its integrals against the reference
    /// basis: the reference functions of derivative DoFs carry their widths.
    template <typename Number, typename Layout>
    void
    write_load_of_cell(CellVector<Number, MemorySpace::Host, Layout> &rhs,
                       const unsigned int                             cell,
                       const CellBox                                 &box,
                       const std::vector<double>                     &integrals)
    {
      const std::array<double, dofs_per_cell> s = hermite::hermite_scaling(box.size);
      Number                                  local[dofs_per_cell];
      for (unsigned int i = 0; i < dofs_per_cell; ++i)
        local[i] = static_cast<Number>(s[i] * integrals[i]);
      rhs.write_cell(cell, local);
    }
  } // namespace

  HermiteJetFunction
  separable_jet(const std::array<std::function<double(double)>, 3> &factors,
                const std::array<std::function<double(double)>, 3> &derivatives)
  {
    for (unsigned int d = 0; d < 3; ++d)
      CELLWISE_CHECK(factors[d] && derivatives[d], "separable_jet: factor or derivative " << d << " is empty");
    return [factors, derivatives](const Point &x) {
      std::array<std::array<double, 2>, 3> f;
      for (unsigned int d = 0; d < 3; ++d)
        f[d] = {{factors[d](x[d]), derivatives[d](x[d])}};
      HermiteJet jet;
      for (unsigned int j = 0; j < hermite::dofs_per_vertex; ++j)
        jet[j] = f[0][j & 1] * f[1][(j >> 1) & 1] * f[2][(j >> 2) & 1];
      return jet;
    };
  }

  template <typename Number, typename Layout>
  void
  interpolate_hermite(const Level &level, const HermiteJetFunction &f, CellVector<Number, MemorySpace::Host, Layout> &v)
  {
    v.reinit(level.n_cells(), hermite::storage_degree, true); // every value written below
    parallel_for(level.n_cells(), cell_grain, [&](const std::size_t cell) {
      const CellBox &box = level.boxes[cell];
      for (unsigned int vertex = 0; vertex < 8; ++vertex)
        {
          Point x;
          for (unsigned int d = 0; d < 3; ++d)
            x[d] = ((vertex >> d) & 1) ? box.lower[d] + box.size[d] : box.lower[d];
          const HermiteJet jet = f(x);
          for (unsigned int j = 0; j < hermite::dofs_per_vertex; ++j)
            v(static_cast<unsigned int>(cell), hermite::local_index(vertex, j)) = static_cast<Number>(jet[j]);
        }
    });
  }

  template <typename Number, typename Layout>
  void
  assemble_hermite_right_hand_side(const Level                                   &level,
                                   const ScalarFunction                          &f,
                                   CellVector<Number, MemorySpace::Host, Layout> &rhs,
                                   const unsigned int                             n_q_points)
  {
    CELLWISE_CHECK(n_q_points >= 1, "assemble_hermite_right_hand_side: needs at least one quadrature point per axis");
    const Quadrature1D quad = gauss_quadrature(n_q_points);
    const unsigned int q    = n_q_points;
    const DenseMatrix  phi  = hermite::values_at(quad.points); // q x 4
    rhs.reinit(level.n_cells(), hermite::storage_degree, true); // every cell written below
    parallel_for_ranges(level.n_cells(), cell_grain, [&](const std::size_t begin, const std::size_t end) {
      std::vector<double>          weighted(q * q * q), integrals;
      internal::ContractionScratch scratch;
      for (std::size_t cell = begin; cell < end; ++cell)
        {
          const CellBox &box    = level.boxes[cell];
          const double   volume = box.size[0] * box.size[1] * box.size[2];
          for (unsigned int c = 0; c < q; ++c)
            for (unsigned int b = 0; b < q; ++b)
              for (unsigned int a = 0; a < q; ++a)
                weighted[a + q * (b + q * c)] = f(internal::point_in_cell(box, quad.points[a], quad.points[b], quad.points[c])) *
                                                quad.weights[a] * quad.weights[b] * quad.weights[c] * volume;
          internal::integrate_against_basis(phi, weighted, integrals, scratch);
          write_load_of_cell(rhs, static_cast<unsigned int>(cell), box, integrals);
        }
    });
  }

  template <typename Number, typename Layout>
  void
  assemble_hermite_right_hand_side(const Level                                   &level,
                                   const SeparableFunction                       &f,
                                   CellVector<Number, MemorySpace::Host, Layout> &rhs,
                                   const unsigned int                             n_q_points)
  {
    internal::check_separable_factors(f, "assemble_hermite_right_hand_side");
    CELLWISE_CHECK(n_q_points >= 1, "assemble_hermite_right_hand_side: needs at least one quadrature point per axis");
    check_box_cells(level, "assemble_hermite_right_hand_side");
    const Quadrature1D                  quad = gauss_quadrature(n_q_points);
    const DenseMatrix                   phi  = hermite::values_at(quad.points); // q x 4
    const internal::SeparableAxisTables tables(level, f, quad, phi);
    rhs.reinit(level.n_cells(), hermite::storage_degree, true); // every cell written below
    parallel_for_ranges(level.n_cells(), cell_grain, [&](const std::size_t begin, const std::size_t end) {
      std::vector<double>                integrals;
      std::array<std::vector<double>, 3> own;
      for (std::size_t cell = begin; cell < end; ++cell)
        {
          internal::separable_cell_integrals(level, static_cast<unsigned int>(cell), f, tables, quad, phi, own, integrals);
          write_load_of_cell(rhs, static_cast<unsigned int>(cell), level.boxes[cell], integrals);
        }
    });
  }

  template <typename Number, typename Layout>
  double
  evaluate_hermite(const Level                                         &level,
                   const CellVector<Number, MemorySpace::Host, Layout> &u,
                   const unsigned int                                   cell,
                   const Point                                         &t,
                   const std::array<unsigned int, 3>                   &k)
  {
    check_hermite_vector(level, u.n_cells(), u.degree(), "evaluate_hermite");
    CELLWISE_CHECK(cell < level.n_cells(), "evaluate_hermite: cell " << cell << " of " << level.n_cells());
    for (unsigned int d = 0; d < 3; ++d)
      CELLWISE_CHECK(k[d] <= 2, "evaluate_hermite: derivative order " << k[d] << " along axis " << d << " (0..2)");
    const CellBox                          &box = level.boxes[cell];
    const std::array<double, dofs_per_cell> s   = hermite::hermite_scaling(box.size);
    double                                  sum = 0;
    for (unsigned int i = 0; i < dofs_per_cell; ++i)
      sum += double(u(cell, i)) * s[i] * basis_derivative(i % 4, t[0], k[0]) * basis_derivative((i / 4) % 4, t[1], k[1]) *
             basis_derivative(i / 16, t[2], k[2]);
    // d/dx = (1/h) d/dt per order
    return sum / (std::pow(box.size[0], k[0]) * std::pow(box.size[1], k[1]) * std::pow(box.size[2], k[2]));
  }

  template <typename Number, typename Layout>
  double
  compute_hermite_l2_error(const Level                                         &level,
                           const CellVector<Number, MemorySpace::Host, Layout> &u,
                           const ScalarFunction                                &exact,
                           const bool                                           active_only,
                           const unsigned int                                   n_q_points)
  {
    check_hermite_vector(level, u.n_cells(), u.degree(), "compute_hermite_l2_error");
    const Quadrature1D quad = gauss_quadrature(n_q_points);
    const unsigned int q    = n_q_points;
    const DenseMatrix  phi  = hermite::values_at(quad.points); // q x 4
    // chunks of cells added in order: the same error on any thread count
    const double sum = deterministic_sum(level.n_cells(), 64, [&](const std::size_t begin, const std::size_t end) {
      std::vector<double>          coefficients(dofs_per_cell), values;
      internal::ContractionScratch scratch;
      double                       total = 0;
      for (std::size_t cell = begin; cell < end; ++cell)
        {
          if (active_only && !level.is_active(static_cast<unsigned int>(cell)))
            continue;
          const CellBox                          &box    = level.boxes[cell];
          const double                            volume = box.size[0] * box.size[1] * box.size[2];
          const std::array<double, dofs_per_cell> s      = hermite::hermite_scaling(box.size);
          for (unsigned int i = 0; i < dofs_per_cell; ++i)
            coefficients[i] = double(u(static_cast<unsigned int>(cell), i)) * s[i];
          internal::evaluate_at_points(phi, coefficients, values, scratch);
          for (unsigned int z = 0; z < q; ++z)
            for (unsigned int y = 0; y < q; ++y)
              for (unsigned int x = 0; x < q; ++x)
                {
                  const double e =
                    values[x + q * (y + q * z)] - exact(internal::point_in_cell(box, quad.points[x], quad.points[y], quad.points[z]));
                  total += e * e * quad.weights[x] * quad.weights[y] * quad.weights[z] * volume;
                }
        }
      return total;
    });
    return std::sqrt(sum);
  }

#define CELLWISE_INSTANTIATE(Number, Layout)                                                                                  \
  template void   interpolate_hermite(const Level &, const HermiteJetFunction &, CellVector<Number, MemorySpace::Host, Layout> &); \
  template void   assemble_hermite_right_hand_side(const Level &, const ScalarFunction &,                                     \
                                                 CellVector<Number, MemorySpace::Host, Layout> &, unsigned int);              \
  template void   assemble_hermite_right_hand_side(const Level &, const SeparableFunction &,                                  \
                                                 CellVector<Number, MemorySpace::Host, Layout> &, unsigned int);              \
  template double compute_hermite_l2_error(const Level &, const CellVector<Number, MemorySpace::Host, Layout> &,              \
                                           const ScalarFunction &, bool, unsigned int);                                       \
  template double evaluate_hermite(const Level &, const CellVector<Number, MemorySpace::Host, Layout> &, unsigned int,        \
                                   const Point &, const std::array<unsigned int, 3> &);
  CELLWISE_INSTANTIATE(double, CellContiguous)
  CELLWISE_INSTANTIATE(float, CellContiguous)
  CELLWISE_INSTANTIATE(double, CellBlocked<32>)
  CELLWISE_INSTANTIATE(float, CellBlocked<32>)
#undef CELLWISE_INSTANTIATE
} // namespace cellwise
