// The device Dirichlet mask of a distributed level
// (storage/mpi_cuda_distributed_dirichlet_mask.h). Built into cellwise::mpi
// only with the CUDA backend.

#include <cellwise/storage/cuda_level_data.h>
#include <cellwise/storage/cuda_dirichlet_mask.h>
#include <cellwise/storage/mpi_cuda_distributed_dirichlet_mask.h>

namespace cellwise
{
  template <typename Number>
  DistributedCellVector<Number, CellContiguous, MemorySpace::CUDA>
  make_device_distributed_dirichlet_mask(const std::shared_ptr<const DistributedLevel> &level,
                                         const unsigned int                             degree,
                                         const std::vector<unsigned int>               &dirichlet_ids)
  {
    using LocalVector = CellVector<Number, MemorySpace::CUDA, CellContiguous>;
    DistributedCellVector<Number, CellContiguous, MemorySpace::CUDA> mask(level, degree);
    // the local level's neighbours on the device, for the marking kernel
    const cuda::LevelData level_data(level->local->level);
    cuda::make_dirichlet_mask<Number, CellContiguous>(level_data, degree, dirichlet_ids, mask.local(),
                                                      [&](LocalVector &marker) { level->dss.apply(marker, DssMode::sum); });
    return mask;
  }

  template DistributedCellVector<double, CellContiguous, MemorySpace::CUDA>
  make_device_distributed_dirichlet_mask(const std::shared_ptr<const DistributedLevel> &, unsigned int,
                                         const std::vector<unsigned int> &);
  template DistributedCellVector<float, CellContiguous, MemorySpace::CUDA>
  make_device_distributed_dirichlet_mask(const std::shared_ptr<const DistributedLevel> &, unsigned int,
                                         const std::vector<unsigned int> &);
} // namespace cellwise
