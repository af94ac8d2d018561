#include <cellwise/multigrid/memory_estimate.h>

namespace cellwise
{
  namespace
  {
    /// Cells of all levels of a uniform hierarchy per cell of its finest:
    /// 1 + 1/8 + 1/64 + ... < 8/7.
    constexpr double all_levels = 8. / 7.;

    /// The bytes per finest cell of the operators' metric where every cell
    /// is general: 6 values per point at the (p + 1)³ points, in FP64 on
    /// every level (the finest level's operator shared by the outer
    /// iteration), or in mixed precision FP64 on the finest level (the outer
    /// iteration's) and FP32 on every level (the cycle's).
    double
    stored_metric_bytes(const double points, const bool mixed)
    {
      const double values = 6. * points;
      return mixed ? values * (8. + 4. * all_levels) : values * 8. * all_levels;
    }

    /// The bytes per finest cell that a mapping of degree @p k adds on the
    /// host: every level's cells keep their (k + 1)³ mapping nodes (3
    /// doubles each), and the host operators store the metric of every
    /// general cell (an upper bound: a mapped cell may be a box or affine).
    double
    host_geometry_bytes(const double points, const unsigned int k, const bool mixed)
    {
      if (k == 0)
        return 0.;
      const double nodes = double(k + 1) * (k + 1) * (k + 1);
      return 3. * 8. * nodes * all_levels + stored_metric_bytes(points, mixed);
    }

    /// The same on the device (cuda::GeneralLaplaceOperator): trilinear
    /// cells keep their nodes, 1 + 3 · 8 numbers per cell in the operator's
    /// precision, from which the kernel recomputes the metric; higher
    /// mappings keep the stored metric, and while the finest level's is
    /// made from its nodes those are staged beside it in double.
    double
    device_geometry_bytes(const double points, const unsigned int k, const bool mixed)
    {
      if (k == 0)
        return 0.;
      if (k == 1)
        {
          const double record = 1. + 3. * 8.;
          return mixed ? record * (8. + 4. * all_levels) : record * 8. * all_levels;
        }
      const double nodes = double(k + 1) * (k + 1) * (k + 1);
      return stored_metric_bytes(points, mixed) + 8. * (1. + 3. * nodes);
    }
  } // namespace

  double
  estimate_host_solve_bytes(const double finest_cells, const unsigned int degree, const MultigridParameters &parameters,
                            const unsigned int mapping_degree)
  {
    const double values_per_cell = double(degree + 1) * (degree + 1) * (degree + 1);
    const bool   mixed           = parameters.precision == Precision::mixed;
    const double bytes_per_value = !mixed ? 112. : parameters.outer == OuterIteration::cg ? 92. : 70.;
    return finest_cells * (160. + bytes_per_value * values_per_cell + host_geometry_bytes(values_per_cell, mapping_degree, mixed));
  }

  double
  estimate_device_solve_bytes(const double finest_cells, const unsigned int degree, const MultigridParameters &parameters,
                              const unsigned int mapping_degree)
  {
    const double values_per_cell = double(degree + 1) * (degree + 1) * (degree + 1);
    const bool   mixed           = parameters.precision == Precision::mixed;
    const double bytes_per_value = !mixed ? 120. : parameters.outer == OuterIteration::cg ? 104. : 64.;
    return finest_cells *
           (160. + bytes_per_value * values_per_cell + device_geometry_bytes(values_per_cell, mapping_degree, mixed));
  }
} // namespace cellwise
