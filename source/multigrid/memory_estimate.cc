#include <cellwise/multigrid/memory_estimate.h>

namespace cellwise
{
  namespace
  {
    /// Cells of all levels of a uniform hierarchy per cell of its finest:
    /// 1 + 1/8 + 1/64 + ... < 8/7.
    constexpr double all_levels = 8. / 7.;

    /// The bytes per finest cell of @p values stored per cell by the
    /// operators of every level: in FP64 on every level (the finest level's
    /// operator shared by the outer iteration), or in mixed precision FP64
    /// on the finest level (the outer iteration's) and FP32 on every level
    /// (the cycle's).
    double
    per_level_values_bytes(const double values, const bool mixed)
    {
      return mixed ? values * (8. + 4. * all_levels) : values * 8. * all_levels;
    }

    /// Whether the coefficient enters the operators at the quadrature points.
    bool
    coefficient_at_points(const MultigridParameters &parameters)
    {
      return parameters.coefficient && parameters.coefficient_evaluation == CoefficientEvaluation::quadrature_points;
    }

    /// The bytes per finest cell that the geometry adds on the host, with
    /// (p + 1)³ = @p points: a mapping of degree @p k keeps every level's
    /// (k + 1)³ mapping nodes (3 doubles each), and the host operators store
    /// the metric of every general cell, 6 values per point (an upper bound:
    /// a mapped cell may be a box or affine); box cells with the coefficient
    /// at the points store its n³ values.
    double
    host_geometry_bytes(const double points, const unsigned int k, const bool mixed, const bool at_points)
    {
      if (k == 0)
        return at_points ? per_level_values_bytes(points, mixed) : 0.;
      const double nodes = double(k + 1) * (k + 1) * (k + 1);
      return 3. * 8. * nodes * all_levels + per_level_values_bytes(6. * points, mixed);
    }

    /// The same on the device (cuda::GeneralLaplaceOperator): trilinear
    /// cells with one coefficient each keep their nodes, 1 + 3 · 8 numbers
    /// per cell in the operator's precision, from which the kernel
    /// recomputes the metric; other mapped cells keep the stored metric, and
    /// while the finest level's is made it is staged beside it in double
    /// (the host's values, or the mapping's nodes from which the device
    /// makes it, 3 (k+1)³ doubles, with a cell index and a coefficient).
    double
    device_geometry_bytes(const double points, const unsigned int k, const bool mixed, const bool at_points)
    {
      if (k == 0)
        return at_points ? per_level_values_bytes(points, mixed) : 0.;
      if (k == 1 && !at_points)
        return per_level_values_bytes(1. + 3. * 8., mixed);
      const double nodes  = double(k + 1) * (k + 1) * (k + 1);
      const double staged = at_points ? 6. * points : 1.5 + 3. * nodes;
      return per_level_values_bytes(6. * points, mixed) + 8. * staged;
    }
  } // namespace

  double
  estimate_host_solve_bytes(const double finest_cells, const unsigned int degree, const MultigridParameters &parameters,
                            const unsigned int mapping_degree)
  {
    const double values_per_cell = double(degree + 1) * (degree + 1) * (degree + 1);
    const bool   mixed           = parameters.precision == Precision::mixed;
    const double bytes_per_value = !mixed ? 112. : parameters.outer == OuterIteration::cg ? 92. : 70.;
    const double geometry = host_geometry_bytes(values_per_cell, mapping_degree, mixed, coefficient_at_points(parameters));
    return finest_cells * (160. + bytes_per_value * values_per_cell + geometry);
  }

  double
  estimate_device_solve_bytes(const double finest_cells, const unsigned int degree, const MultigridParameters &parameters,
                              const unsigned int mapping_degree)
  {
    const double values_per_cell = double(degree + 1) * (degree + 1) * (degree + 1);
    const bool   mixed           = parameters.precision == Precision::mixed;
    const double bytes_per_value = !mixed ? 120. : parameters.outer == OuterIteration::cg ? 104. : 64.;
    const double geometry = device_geometry_bytes(values_per_cell, mapping_degree, mixed, coefficient_at_points(parameters));
    return finest_cells * (160. + bytes_per_value * values_per_cell + geometry);
  }
} // namespace cellwise
