#pragma once
/**
 * @file
 * The refinement edge E_ℓ and the smoother's free mask of a level
 * distributed over MPI ranks (multigrid/refinement_edge.h across ranks):
 * each owned cell marks the DoFs of its faces without a same-level
 * neighbour (face_neighbor::none; a face to another rank's cell leads to a
 * ghost, so only true refinement edges are marked), the DSS across ranks
 * spreads the mark to the edge and vertex copies as the serial DSS does,
 * and the owned cells get the serial masks' values. Ghost cells start from
 * zero: their faces toward cells this rank does not hold read `none`, and
 * no such mark may enter the sum.
 *
 * On a uniform level the free mask is the Dirichlet mask.
 *
 * Built only with MPI (library cellwise::mpi).
 */

#include <cellwise/base/mpi_check.h>
#include <cellwise/base/parallel.h>
#include <cellwise/fe/face_dofs.h>
#include <cellwise/storage/dirichlet_mask.h>
#include <cellwise/storage/mpi_distributed_cell_vector.h>
#include <cellwise/storage/mpi_distributed_dirichlet_mask.h>

#include <memory>
#include <vector>

namespace cellwise
{
  /// 1 on the owned copies of the DoFs of E_ℓ, 0 elsewhere. Collective.
  template <typename Number, typename Layout = CellContiguous>
  DistributedCellVector<Number, Layout>
  make_distributed_refinement_edge_mask(const std::shared_ptr<const DistributedLevel> &level, const unsigned int degree)
  {
    DistributedCellVector<Number, Layout> edge(level, degree);
    edge.local() = mark_own_face_dofs<Number, Layout>(level->local->level, degree, level->layers,
                                                      [](const int neighbor) { return neighbor == face_neighbor::none; });
    auto              &local = edge.local();
    const unsigned int owned = level->local->n_owned_cells();
    parallel_for(local.n_cells() - owned, cell_grain, [&](const std::size_t ghost) {
      for (unsigned int i = 0; i < local.dofs_per_cell(); ++i)
        local(owned + ghost, i) = Number(0);
    });
    level->dss.apply(local, DssMode::sum);
    parallel_for(local.n_cells(), cell_grain, [&](const std::size_t cell) {
      for (unsigned int i = 0; i < local.dofs_per_cell(); ++i)
        local(cell, i) = local(cell, i) != Number(0) ? Number(1) : Number(0);
    });
    return edge;
  }

  /// Whether level @p level has a refinement edge on any rank (an owned
  /// cell with a face without a same-level neighbour). Collective.
  inline bool
  has_refinement_edge(const DistributedLevel &level)
  {
    const Level       &cells = level.local->level;
    const unsigned int owned = level.local->n_owned_cells();
    int                mine  = 0;
    for (unsigned int cell = 0; cell < owned && mine == 0; ++cell)
      for (const int neighbor : cells.neighbors[cell])
        if (neighbor == face_neighbor::none)
          mine = 1;
    int any = 0;
    CELLWISE_MPI_CHECK(MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_LOR, level.comm));
    return any != 0;
  }

  /// 1 on free copies, 0 on Dirichlet copies (boundary ids @p dirichlet_ids,
  /// all if empty) and on E_ℓ, on the owned cells. Collective.
  template <typename Number, typename Layout = CellContiguous>
  DistributedCellVector<Number, Layout>
  make_distributed_free_mask(const std::shared_ptr<const DistributedLevel> &level,
                             const unsigned int                              degree,
                             const std::vector<unsigned int>                &dirichlet_ids = {})
  {
    DistributedCellVector<Number, Layout> mask = make_distributed_dirichlet_mask<Number, Layout>(level, degree, dirichlet_ids);
    if (!has_refinement_edge(*level)) // a uniform level: the Dirichlet mask
      return mask;
    const DistributedCellVector<Number, Layout> edge = make_distributed_refinement_edge_mask<Number, Layout>(level, degree);
    auto                                       &local = mask.local();
    parallel_for(local.n_cells(), cell_grain, [&](const std::size_t cell) {
      for (unsigned int i = 0; i < local.dofs_per_cell(); ++i)
        if (edge.local()(cell, i) != Number(0))
          local(cell, i) = Number(0);
    });
    return mask;
  }
} // namespace cellwise
