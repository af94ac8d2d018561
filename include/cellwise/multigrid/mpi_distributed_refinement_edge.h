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
    for (unsigned int cell = level->local->n_owned_cells(); cell < edge.n_cells(); ++cell)
      for (unsigned int i = 0; i < edge.dofs_per_cell(); ++i)
        edge.local()(cell, i) = Number(0);
    level->dss.apply(edge.local(), DssMode::sum);
    for (unsigned int cell = 0; cell < edge.n_cells(); ++cell)
      for (unsigned int i = 0; i < edge.dofs_per_cell(); ++i)
        edge.local()(cell, i) = edge.local()(cell, i) != Number(0) ? Number(1) : Number(0);
    return edge;
  }

  /// 1 on free copies, 0 on Dirichlet copies (boundary ids @p dirichlet_ids,
  /// all if empty) and on E_ℓ, on the owned cells. Collective.
  template <typename Number, typename Layout = CellContiguous>
  DistributedCellVector<Number, Layout>
  make_distributed_free_mask(const std::shared_ptr<const DistributedLevel> &level,
                             const unsigned int                              degree,
                             const std::vector<unsigned int>                &dirichlet_ids = {})
  {
    DistributedCellVector<Number, Layout>       mask = make_distributed_dirichlet_mask<Number, Layout>(level, degree, dirichlet_ids);
    const DistributedCellVector<Number, Layout> edge = make_distributed_refinement_edge_mask<Number, Layout>(level, degree);
    for (unsigned int cell = 0; cell < mask.n_cells(); ++cell)
      for (unsigned int i = 0; i < mask.dofs_per_cell(); ++i)
        if (edge.local()(cell, i) != Number(0))
          mask.local()(cell, i) = Number(0);
    return mask;
  }
} // namespace cellwise
