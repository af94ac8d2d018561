// The device Dirichlet mask: the three steps of the host make_dirichlet_mask
// (source/storage/dirichlet_mask.cc) as two kernels around the device DSS.
#include <cellwise/base/cuda_check.h>
#include <cellwise/fe/face_dofs.h>
#include <cellwise/storage/cuda_dirichlet_mask.h>
#include <cellwise/storage/cuda_dss.h>

namespace cellwise
{
  namespace cuda
  {
    namespace
    {
      constexpr unsigned int mask_threads = 256;

      /// The ids passed by value to the marking kernel (empty: every id).
      struct DirichletIds
      {
        unsigned int n = 0;
        unsigned int ids[max_device_dirichlet_ids];

        __device__ bool
        contains(const unsigned int id) const
        {
          if (n == 0)
            return true;
          for (unsigned int k = 0; k < n; ++k)
            if (ids[k] == id)
              return true;
          return false;
        }
      };

      /// One thread per (cell, face): 1 on the DoFs of a Dirichlet face. Two
      /// faces of a cell share edge DoFs and both write 1 there.
      template <typename Number, typename Layout>
      __global__ void
      mark_dirichlet_faces(Number *marker, const int *neighbors, const unsigned int n_cells, const unsigned int n,
                           const DirichletIds ids)
      {
        const std::size_t item = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
        if (item >= 6 * static_cast<std::size_t>(n_cells))
          return;
        const std::size_t  cell     = item / 6;
        const unsigned int face     = static_cast<unsigned int>(item % 6);
        const int          neighbor = neighbors[item];
        if (!face_neighbor::is_boundary(neighbor) || !ids.contains(face_neighbor::boundary_id(neighbor)))
          return;
        const unsigned int n3 = n * n * n;
        for (unsigned int b = 0; b < n; ++b)
          for (unsigned int a = 0; a < n; ++a)
            marker[Layout::index(cell, face_dof(n, face / 2, face % 2, a, b), n3)] = Number(1);
      }

      /// marker -> mask in place on the copies of the cells (padding untouched).
      template <typename Number, typename Layout>
      __global__ void
      marker_to_mask(Number *values, const unsigned int n_cells, const unsigned int n3)
      {
        const std::size_t item = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
        if (item >= static_cast<std::size_t>(n_cells) * n3)
          return;
        const std::size_t k = Layout::index(item / n3, static_cast<unsigned int>(item % n3), n3);
        values[k]           = values[k] != Number(0) ? Number(0) : Number(1);
      }

      unsigned int
      blocks_for(const std::size_t items)
      {
        return static_cast<unsigned int>((items + mask_threads - 1) / mask_threads);
      }
    } // namespace

    template <typename Number, typename Layout>
    void
    make_dirichlet_mask(const LevelData                                                           &level_data,
                        const unsigned int                                                         degree,
                        const std::vector<unsigned int>                                           &dirichlet_ids,
                        CellVector<Number, MemorySpace::CUDA, Layout>                            &mask,
                        const std::function<void(CellVector<Number, MemorySpace::CUDA, Layout> &)> &sum_over_copies)
    {
      CELLWISE_CHECK(dirichlet_ids.size() <= max_device_dirichlet_ids,
                     "cuda::make_dirichlet_mask: " << dirichlet_ids.size() << " Dirichlet ids, the device mask takes up to "
                                                   << max_device_dirichlet_ids);
      DirichletIds ids;
      ids.n = static_cast<unsigned int>(dirichlet_ids.size());
      for (unsigned int k = 0; k < ids.n; ++k)
        ids.ids[k] = dirichlet_ids[k];
      const unsigned int n_cells = level_data.n_cells();
      mask.reinit(n_cells, degree); // zero
      const unsigned int n = degree + 1;
      if (n_cells > 0)
        {
          mark_dirichlet_faces<Number, Layout>
            <<<blocks_for(6 * static_cast<std::size_t>(n_cells)), mask_threads>>>(mask.data(), level_data.neighbors(), n_cells, n, ids);
          CELLWISE_CUDA_CHECK_LAUNCH();
        }
      sum_over_copies(mask); // (collective where it is a DSS across ranks: also without cells)
      const unsigned int n3 = n * n * n;
      if (n_cells > 0)
        {
          marker_to_mask<Number, Layout><<<blocks_for(static_cast<std::size_t>(n_cells) * n3), mask_threads>>>(mask.data(), n_cells, n3);
          CELLWISE_CUDA_CHECK_LAUNCH();
        }
    }

    template <typename Number, typename Layout>
    void
    make_dirichlet_mask(const LevelData                                &level_data,
                        const unsigned int                              degree,
                        const std::vector<unsigned int>                &dirichlet_ids,
                        CellVector<Number, MemorySpace::CUDA, Layout> &mask)
    {
      make_dirichlet_mask<Number, Layout>(level_data, degree, dirichlet_ids, mask,
                                          [&](CellVector<Number, MemorySpace::CUDA, Layout> &marker) {
                                            if (marker.n_cells() > 0)
                                              apply_dss(level_data, marker, DssMode::sum);
                                          });
    }

#define CELLWISE_INSTANTIATE(Number, Layout)                                                                                   \
  template void make_dirichlet_mask(const LevelData &, unsigned int, const std::vector<unsigned int> &,                     \
                                    CellVector<Number, MemorySpace::CUDA, Layout> &);                                       \
  template void make_dirichlet_mask(const LevelData &, unsigned int, const std::vector<unsigned int> &,                     \
                                    CellVector<Number, MemorySpace::CUDA, Layout> &,                                        \
                                    const std::function<void(CellVector<Number, MemorySpace::CUDA, Layout> &)> &);
    CELLWISE_INSTANTIATE(double, CellContiguous)
    CELLWISE_INSTANTIATE(float, CellContiguous)
    CELLWISE_INSTANTIATE(double, CellBlocked<32>)
    CELLWISE_INSTANTIATE(float, CellBlocked<32>)
#undef CELLWISE_INSTANTIATE
  } // namespace cuda
} // namespace cellwise
