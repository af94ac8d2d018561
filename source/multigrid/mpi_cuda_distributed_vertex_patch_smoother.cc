// DistributedVertexPatchSmoother on device vectors (the CUDA backend's
// colour steps, halo exchanges packed on the device); the definitions are in
// mpi_distributed_vertex_patch_smoother.templates.h. Built into
// cellwise::mpi only with the CUDA backend.

#include "mpi_distributed_vertex_patch_smoother.templates.h"

namespace cellwise
{
  template class DistributedVertexPatchSmoother<double, CellContiguous, MemorySpace::CUDA>;
  template class DistributedVertexPatchSmoother<float, CellContiguous, MemorySpace::CUDA>;
} // namespace cellwise
