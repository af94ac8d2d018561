#pragma once
/**
 * @file
 * Masked damped Jacobi with DSS on the host (003 (27), Algorithm 6):
 * u ← u + ω D^{-1} S ι*(b − A u), repeated n_steps times; the algorithm, shared
 * with the device, is PointJacobiSmoother of multigrid/point_smoothers.h.
 */

#include <cellwise/multigrid/dss_jacobi_preconditioner.h>
#include <cellwise/multigrid/point_smoothers.h>

namespace cellwise
{
  template <typename Number, typename Layout = CellContiguous>
  using JacobiSmoother = PointJacobiSmoother<DssJacobiPreconditioner<Number, Layout>>;
} // namespace cellwise
