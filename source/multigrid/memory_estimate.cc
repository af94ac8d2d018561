#include <cellwise/multigrid/memory_estimate.h>

namespace cellwise
{
  double
  estimate_host_solve_bytes(const double finest_cells, const unsigned int degree, const Precision precision)
  {
    const double values_per_cell = double(degree + 1) * (degree + 1) * (degree + 1);
    const double bytes_per_value = precision == Precision::mixed ? 58. : 112.;
    return finest_cells * (160. + bytes_per_value * values_per_cell);
  }

  double
  estimate_device_solve_bytes(const double finest_cells, const unsigned int degree, const MultigridParameters &parameters)
  {
    const double values_per_cell = double(degree + 1) * (degree + 1) * (degree + 1);
    const bool   mixed           = parameters.precision == Precision::mixed;
    const double bytes_per_value = !mixed ? 120. : parameters.outer == OuterIteration::cg ? 104. : 64.;
    return finest_cells * (160. + bytes_per_value * values_per_cell);
  }
} // namespace cellwise
