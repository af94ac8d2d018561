#pragma once
/**
 * @file
 * The Dirichlet mask of a distributed level (storage/dirichlet_mask.h
 * across MPI ranks): each cell marks the DoFs of its own Dirichlet faces,
 * the DSS across ranks spreads the mark to the copies in cells that touch
 * such a face only at an edge or a vertex (on whichever rank they live), and
 * the mask is its complement. The owned cells get the serial mask's values.
 *
 * Built only with MPI (library cellwise::mpi).
 */

#include <cellwise/base/parallel.h>
#include <cellwise/storage/dirichlet_mask.h>
#include <cellwise/storage/mpi_distributed_cell_vector.h>

#include <memory>
#include <vector>

namespace cellwise
{
  /// 0 on the copies of DoFs on faces with a boundary id of
  /// @p dirichlet_ids (every boundary face if empty), 1 elsewhere, on the
  /// owned cells of @p level. Collective.
  template <typename Number, typename Layout = CellContiguous>
  DistributedCellVector<Number, Layout>
  make_distributed_dirichlet_mask(const std::shared_ptr<const DistributedLevel> &level,
                                  const unsigned int                              degree,
                                  const std::vector<unsigned int>                &dirichlet_ids = {})
  {
    DistributedCellVector<Number, Layout> mask(level, degree);
    mask.local() = mark_own_face_dofs<Number, Layout>(level->local->level, degree, level->layers, [&](const int neighbor) {
      return is_dirichlet_face(neighbor, dirichlet_ids);
    });
    level->dss.apply(mask.local(), DssMode::sum);
    auto &local = mask.local();
    parallel_for(local.n_cells(), cell_grain, [&](const std::size_t cell) {
      for (unsigned int i = 0; i < local.dofs_per_cell(); ++i)
        local(cell, i) = local(cell, i) != Number(0) ? Number(0) : Number(1);
    });
    return mask;
  }
} // namespace cellwise
