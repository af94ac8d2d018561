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
    /// out[post][i][pre] = Σ_j A(i, j) in[post][j][pre] for a runtime
    /// n_out × n_in matrix (set-up and post-processing only).
    void
    contract(const DenseMatrix &A, const std::vector<double> &in, std::vector<double> &out, const unsigned int n_pre,
             const unsigned int n_post)
    {
      const unsigned int n_out = A.m(), n_in = A.n();
      out.assign(static_cast<std::size_t>(n_pre) * n_out * n_post, 0.);
      for (unsigned int post = 0; post < n_post; ++post)
        for (unsigned int i = 0; i < n_out; ++i)
          for (unsigned int pre = 0; pre < n_pre; ++pre)
            {
              double sum = 0;
              for (unsigned int j = 0; j < n_in; ++j)
                sum += A(i, j) * in[(static_cast<std::size_t>(post) * n_in + j) * n_pre + pre];
              out[(static_cast<std::size_t>(post) * n_out + i) * n_pre + pre] = sum;
            }
    }

    /// (A_z ⊗ A_y ⊗ A_x) in on an n^3 array, A_d of size n_q × n.
    std::vector<double>
    tensor_apply(const DenseMatrix &Ax, const DenseMatrix &Ay, const DenseMatrix &Az, const std::vector<double> &in)
    {
      const unsigned int  n = Ax.n(), n_q = Ax.m();
      std::vector<double> a, b, c;
      contract(Ax, in, a, 1, n * n);
      contract(Ay, a, b, n_q, n);
      contract(Az, b, c, n_q * n_q, 1);
      return c;
    }
  } // namespace

  void
  evaluate_mapping(const CellMapping                  &mapping,
                   const unsigned int                  cell,
                   const std::vector<double>          &points_1d,
                   std::vector<Point>                 &points,
                   std::vector<std::array<double, 9>> &jacobians)
  {
    CELLWISE_CHECK(!mapping.empty(), "evaluate_mapping: the level has no mapping");
    const LagrangeBasis1D basis(mapping.degree);
    const DenseMatrix     V       = basis.values_at(points_1d);
    const DenseMatrix     W       = basis.derivatives_at(points_1d);
    const unsigned int    n       = static_cast<unsigned int>(points_1d.size());
    const unsigned int    n_nodes = mapping.nodes_per_cell(), q3 = n * n * n;
    const Point          *X       = mapping.cell_nodes(cell);
    points.assign(q3, Point{});
    jacobians.assign(q3, std::array<double, 9>{});
    std::vector<double> component(n_nodes);
    for (unsigned int a = 0; a < 3; ++a)
      {
        for (unsigned int i = 0; i < n_nodes; ++i)
          component[i] = X[i][a];
        const std::vector<double> x  = tensor_apply(V, V, V, component);
        const std::vector<double> dx = tensor_apply(W, V, V, component);
        const std::vector<double> dy = tensor_apply(V, W, V, component);
        const std::vector<double> dz = tensor_apply(V, V, W, component);
        for (unsigned int q = 0; q < q3; ++q)
          {
            points[q][a]            = x[q];
            jacobians[q][3 * a]     = dx[q];
            jacobians[q][3 * a + 1] = dy[q];
            jacobians[q][3 * a + 2] = dz[q];
          }
      }
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
} // namespace cellwise
