// DistributedVertexPatchSmoother on host vectors; the definitions are in
// mpi_distributed_vertex_patch_smoother.templates.h.

#include "mpi_distributed_vertex_patch_smoother.templates.h"

namespace cellwise
{
  CELLWISE_INSTANTIATE_NUMBERS(DistributedVertexPatchSmoother, CellContiguous)
} // namespace cellwise
