#include <cellwise/base/degree_dispatch.h>
#include <cellwise/base/exceptions.h>
#include <cellwise/base/parallel.h>
#include <cellwise/fe/lagrange_basis_1d.h>
#include <cellwise/mesh/cell_mapping.h>
#include <cellwise/mesh/level.h>

#include <cmath>

namespace cellwise
{
  void
  map_level(Level &level, const unsigned int degree, const PointMap &map)
  {
    CELLWISE_CHECK(degree >= 1, "map_hierarchy: the mapping degree must be at least 1, got " << degree);
    CELLWISE_CHECK(static_cast<bool>(map), "map_hierarchy: the map is empty");
    CELLWISE_CHECK(level.mapping.empty(), "map_hierarchy: the level already has a mapping");
    const LagrangeBasis1D basis(degree); // checks the degree's range
    const unsigned int    n = degree + 1;
    CellMapping           mapping;
    mapping.degree = degree;
    mapping.nodes.resize(static_cast<std::size_t>(level.n_cells()) * mapping.nodes_per_cell());
    parallel_for(level.n_cells(), cell_grain, [&](const std::size_t c) {
      const CellBox &box = level.boxes[c];
      Point         *out = mapping.nodes.data() + c * mapping.nodes_per_cell();
      for (unsigned int k = 0; k < n; ++k)
        for (unsigned int j = 0; j < n; ++j)
          for (unsigned int i = 0; i < n; ++i)
            {
              const Point reference = {{box.lower[0] + basis.nodes()[i] * box.size[0], box.lower[1] + basis.nodes()[j] * box.size[1],
                                        box.lower[2] + basis.nodes()[k] * box.size[2]}};
              const Point x         = map(reference);
              CELLWISE_CHECK(std::isfinite(x[0]) && std::isfinite(x[1]) && std::isfinite(x[2]),
                             "map_hierarchy: the map sends (" << reference[0] << ", " << reference[1] << ", " << reference[2]
                                                              << ") to a non-finite point");
              out[(k * n + j) * n + i] = x;
            }
    });
    level.mapping = std::move(mapping);
  }

  void
  map_hierarchy(LevelHierarchy &hierarchy, const unsigned int degree, const PointMap &map)
  {
    for (Level &level : hierarchy.levels)
      map_level(level, degree, map);
  }

  namespace
  {
    /// out[post][i][pre] = Σ_j A(i, j) in[post][j][pre] for the n_out × n_in
    /// row-major table @p A (set-up and post-processing only).
    void
    contract(const double *A, const unsigned int n_out, const unsigned int n_in, const std::vector<double> &in,
             std::vector<double> &out, const unsigned int n_pre, const unsigned int n_post)
    {
      out.resize(static_cast<std::size_t>(n_pre) * n_out * n_post);
      for (unsigned int post = 0; post < n_post; ++post)
        for (unsigned int i = 0; i < n_out; ++i)
          for (unsigned int pre = 0; pre < n_pre; ++pre)
            {
              double sum = 0;
              for (unsigned int j = 0; j < n_in; ++j)
                sum += A[i * n_in + j] * in[(static_cast<std::size_t>(post) * n_in + j) * n_pre + pre];
              out[(static_cast<std::size_t>(post) * n_out + i) * n_pre + pre] = sum;
            }
    }
  } // namespace

  MappingEvaluator::MappingEvaluator(const CellMapping &mapping, const std::vector<double> &points_1d)
    : mapping_(mapping)
  {
    CELLWISE_CHECK(!mapping.empty(), "evaluate_mapping: the level has no mapping");
    const LagrangeBasis1D basis(mapping.degree);
    const DenseMatrix     V = basis.values_at(points_1d);
    const DenseMatrix     W = basis.derivatives_at(points_1d);
    n_q_                    = static_cast<unsigned int>(points_1d.size());
    n_                      = mapping.degree + 1;
    values_.resize(n_q_ * n_);
    derivatives_.resize(n_q_ * n_);
    for (unsigned int q = 0; q < n_q_; ++q)
      for (unsigned int i = 0; i < n_; ++i)
        {
          values_[q * n_ + i]      = V(q, i);
          derivatives_[q * n_ + i] = W(q, i);
        }
  }

  namespace
  {
    /// contract with its sizes fixed: the same sums in the same order (each
    /// output from zero, j ascending), so the two give the same numbers bit
    /// for bit; the loop over pre runs innermost, where it vectorizes.
    template <int n_out, int n_in, int n_pre, int n_post>
    void
    contract_fixed(const double *A, const double *in, double *out)
    {
      for (int post = 0; post < n_post; ++post)
        for (int i = 0; i < n_out; ++i)
          {
            double sum[n_pre];
            for (int pre = 0; pre < n_pre; ++pre)
              sum[pre] = 0;
            for (int j = 0; j < n_in; ++j)
              {
                const double a = A[i * n_in + j];
                for (int pre = 0; pre < n_pre; ++pre)
                  sum[pre] += a * in[(post * n_in + j) * n_pre + pre];
              }
            for (int pre = 0; pre < n_pre; ++pre)
              out[(post * n_out + i) * n_pre + pre] = sum[pre];
          }
    }

    /// MappingEvaluator::evaluate for n nodes and n_q points per axis, with
    /// the work arrays on the stack: the set-up of a curved level evaluates
    /// its mapping at every quadrature point of every cell (the ball at L = 6:
    /// 1.8 M cells), and the general form spent most of its time resizing
    /// vectors and in loops of unknown length.
    template <int n, int n_q>
    void
    evaluate_fixed(const Point *X, const double *V, const double *W, Point *points, std::array<double, 9> *jacobians)
    {
      constexpr int q2 = n_q * n_q, q3 = q2 * n_q;
      double        component[n * n * n], x[2][n * n * n_q], xy[3][n * q2], out[q3];
      for (int a = 0; a < 3; ++a)
        {
          for (int i = 0; i < n * n * n; ++i)
            component[i] = X[i][a];
          contract_fixed<n_q, n, 1, n * n>(V, component, x[0]);
          contract_fixed<n_q, n, 1, n * n>(W, component, x[1]);
          contract_fixed<n_q, n, n_q, n>(V, x[0], xy[0]);
          contract_fixed<n_q, n, n_q, n>(V, x[1], xy[1]);
          contract_fixed<n_q, n, n_q, n>(W, x[0], xy[2]);
          const double *z_table[4] = {V, V, V, W};
          const int     input[4]   = {0, 1, 2, 0};
          for (int o = 0; o < 4; ++o)
            {
              contract_fixed<n_q, n, q2, 1>(z_table[o], xy[input[o]], out);
              for (int q = 0; q < q3; ++q)
                {
                  if (o == 0)
                    points[q][a] = out[q];
                  else
                    jacobians[q][3 * a + (o - 1)] = out[q];
                }
            }
        }
    }
  } // namespace

  void
  MappingEvaluator::evaluate(const unsigned int cell, std::vector<Point> &points, std::vector<std::array<double, 9>> &jacobians)
  {
    const unsigned int n = n_, n_q = n_q_, n_nodes = mapping_.nodes_per_cell(), q3 = n_q * n_q * n_q;
    const Point       *X = mapping_.cell_nodes(cell);
    points.resize(q3);
    jacobians.resize(q3);
    const double *V = values_.data(), *W = derivatives_.data();
    // mappings of degree 1..4 at 2..9 points per axis (the metric of the
    // elements of degree 1..8 on trilinear cells and of the ball's mapping
    // of the element's degree up to 4) by the fixed sizes; others below
    if (n >= 2 && n <= 5 && n_q >= 2 && n_q <= 9)
      return dispatch_constant<2, 5>(n, [&](auto n_c) {
        dispatch_constant<2, 9>(n_q, [&](auto n_q_c) {
          evaluate_fixed<decltype(n_c)::value, decltype(n_q_c)::value>(X, V, W, points.data(), jacobians.data());
        });
      });
    component_.resize(n_nodes);
    for (unsigned int a = 0; a < 3; ++a)
      {
        for (unsigned int i = 0; i < n_nodes; ++i)
          component_[i] = X[i][a];
        // x: V, W; then y: VV, WV (∂x), VW (∂y); then z: the four outputs
        contract(V, n_q, n, component_, x_[0], 1, n * n);
        contract(W, n_q, n, component_, x_[1], 1, n * n);
        contract(V, n_q, n, x_[0], xy_[0], n_q, n);
        contract(V, n_q, n, x_[1], xy_[1], n_q, n);
        contract(W, n_q, n, x_[0], xy_[2], n_q, n);
        // (z table, xy input, where): value, ∂/∂ξ_x, ∂/∂ξ_y, ∂/∂ξ_z
        const double *z_table[4] = {V, V, V, W};
        const int     input[4]   = {0, 1, 2, 0};
        for (unsigned int o = 0; o < 4; ++o)
          {
            contract(z_table[o], n_q, n, xy_[input[o]], out_, n_q * n_q, 1);
            for (unsigned int q = 0; q < q3; ++q)
              {
                if (o == 0)
                  points[q][a] = out_[q];
                else
                  jacobians[q][3 * a + (o - 1)] = out_[q];
              }
          }
      }
  }

  void
  evaluate_mapping(const CellMapping                  &mapping,
                   const unsigned int                  cell,
                   const std::vector<double>          &points_1d,
                   std::vector<Point>                 &points,
                   std::vector<std::array<double, 9>> &jacobians)
  {
    MappingEvaluator(mapping, points_1d).evaluate(cell, points, jacobians);
  }

  double
  determinant(const std::array<double, 9> &J)
  {
    return J[0] * (J[4] * J[8] - J[5] * J[7]) - J[1] * (J[3] * J[8] - J[5] * J[6]) + J[2] * (J[3] * J[7] - J[4] * J[6]);
  }

  void
  check_box_cells(const Level &level, const char *who)
  {
    CELLWISE_CHECK(level.mapping.empty(), who << " takes axis-aligned box cells only; this level's cells have a mapping of degree "
                                              << level.mapping.degree
                                              << " (curved or deformed cells): use the host backend with FE_Q and the "
                                                 "Laplace operator, which take them");
  }

  std::optional<std::array<double, 3>>
  common_box_size(const Level &level)
  {
    if (!level.mapping.empty() || level.n_cells() == 0)
      return std::nullopt;
    const std::array<double, 3> &first = level.boxes[0].size;
    for (const auto &box : level.boxes)
      for (unsigned int d = 0; d < 3; ++d)
        if (!(std::abs(box.size[d] - first[d]) <= 1e-12 * std::abs(first[d])))
          return std::nullopt;
    return first;
  }

  std::optional<BoxShape>
  common_box_shape(const Level &level)
  {
    if (!level.mapping.empty() || level.n_cells() == 0)
      return std::nullopt;
    BoxShape shape;
    shape.size = level.boxes[0].size;
    shape.scale.resize(level.n_cells());
    for (unsigned int c = 0; c < level.n_cells(); ++c)
      {
        const std::array<double, 3> &h = level.boxes[c].size;
        const double                 t = h[0] / shape.size[0];
        for (unsigned int d = 0; d < 3; ++d)
          if (!(std::abs(h[d] - t * shape.size[d]) <= 1e-12 * std::abs(h[d])))
            return std::nullopt;
        shape.scale[c] = t;
      }
    return shape;
  }
} // namespace cellwise
