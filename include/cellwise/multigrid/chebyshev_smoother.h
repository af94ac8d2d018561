#pragma once
/**
 * @file
 * Chebyshev acceleration of the masked DSS-Jacobi smoother on the host, as
 * deal.II's PreconditionChebyshev; the algorithm, shared with the device, is
 * PointChebyshevSmoother of multigrid/point_smoothers.h.
 */

#include <cellwise/multigrid/dss_jacobi_preconditioner.h>
#include <cellwise/multigrid/point_smoothers.h>

namespace cellwise
{
  template <typename Number, typename Layout = CellContiguous>
  using ChebyshevSmoother = PointChebyshevSmoother<DssJacobiPreconditioner<Number, Layout>>;
} // namespace cellwise
