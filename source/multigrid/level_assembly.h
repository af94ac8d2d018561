#pragma once
// The level loop of every cell-wise solver, written once. A solver's V-cycle
// has per level an operator, a smoother (level 0: a coarse solver instead)
// and the vector shape of the level, and one transfer between the levels;
// what each of those is depends on the element (Lagrange Q_p, Hermite), the
// level kind (box lattice, mapped or unstructured), the backend (host, cuda)
// and the precision. That is the factory's part (source/multigrid/
// lagrange_levels.h for FE_Q, the Hermite solvers' own); the loop, the order
// in which the components are made, and the log line of a level are here.
// Private to source/multigrid; compiled by g++ and nvcc alike (no device
// code).

#include <cellwise/mesh/level.h>
#include <cellwise/fe/face_dofs.h>
#include <cellwise/multigrid/adaptive_v_cycle.h>
#include <cellwise/multigrid/interfaces.h>
#include <cellwise/multigrid/v_cycle.h>
#include <cellwise/storage/dirichlet_mask.h>

#include <iomanip>
#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace cellwise::internal
{
  /// A component with its words for the level's log line.
  template <typename Component>
  struct Described
  {
    std::shared_ptr<const Component> component;
    std::string                      description;
  };

  /// The cells of level @p l (a serial hierarchy; a distributed one counts
  /// its cells over all ranks).
  inline unsigned int
  n_cells_of(const LevelHierarchy &hierarchy, const unsigned int l)
  {
    return hierarchy.level(l).n_cells();
  }
  template <typename Hierarchy>
  auto
  n_cells_of(const Hierarchy &hierarchy, const unsigned int l) -> decltype(hierarchy.n_cells(l))
  {
    return hierarchy.n_cells(l);
  }

  /**
   * The components of a V-cycle on the levels of @p hierarchy, made by
   * @p factory in this order on each level l = 0, 1, …: its masks, its
   * operator, the shape of its vectors, then its smoother (level 0: the
   * coarse solver); after the last level the transfers. With @p log, one
   * line per level as each is made (the progress of a long set-up):
   * "  level  l:  N cells<factory.log_line(l, op, what)>".
   *
   * The factory supplies
   * - `Vector`, `Operator` (a LevelOperator<Vector>) and `Masks`;
   * - `Masks masks(l)`;
   * - `std::shared_ptr<Operator> make_operator(l)`;
   * - `Vector shape(l)`;
   * - `Described<CoarseSolver<Vector>> make_coarse_solver(op, masks)`;
   * - `Described<LevelSmoother<Vector>> make_smoother(l, op, masks)`;
   * - `std::string log_line(l, const Operator &, what)`;
   * - `void add_transfers(components, operators)` (only with two or more
   *   levels): the transfer, and where the backend has them the residual
   *   restrictions with the level's operator fused in.
   */
  template <typename Hierarchy, typename Factory>
  typename VCycle<typename Factory::Vector>::Components
  assemble_levels(const Hierarchy &hierarchy, Factory &factory, std::ostream *log)
  {
    using Operator = typename Factory::Operator;
    typename VCycle<typename Factory::Vector>::Components components;
    std::vector<std::shared_ptr<Operator>>                operators; // the factory's own types, for the fused restrictions
    for (unsigned int l = 0; l < hierarchy.n_levels(); ++l)
      {
        const typename Factory::Masks masks = factory.masks(l);
        std::shared_ptr<Operator>     op    = factory.make_operator(l);
        operators.push_back(op);
        components.operators.push_back(op);
        components.level_shapes.push_back(factory.shape(l));
        std::string what;
        if (l == 0)
          {
            components.smoothers.push_back(nullptr);
            auto coarse              = factory.make_coarse_solver(op, masks);
            components.coarse_solver = std::move(coarse.component);
            what                     = std::move(coarse.description);
          }
        else
          {
            auto smoother = factory.make_smoother(l, op, masks);
            components.smoothers.push_back(std::move(smoother.component));
            what = std::move(smoother.description);
          }
        if (log)
          *log << "  level " << std::setw(2) << l << ": " << std::setw(10) << n_cells_of(hierarchy, l) << " cells"
               << factory.log_line(l, *op, what) << std::endl;
      }
    if (hierarchy.n_levels() > 1)
      factory.add_transfers(components, operators);
    return components;
  }

  /// The Dirichlet copies of the active cells of @p mesh for an element with
  /// the trace layers @p layers: those of their level's mask (a Dirichlet
  /// DoF lies on a boundary face of every box cell touching it). FE_Q's
  /// active mask and the Hermite element's clamped one.
  template <typename Number, typename Layout = CellContiguous>
  CellVector<Number, MemorySpace::Host, Layout>
  make_active_dirichlet_mask(const LevelHierarchy            &hierarchy,
                             const ActiveMesh                &mesh,
                             const unsigned int               degree,
                             const std::vector<unsigned int> &dirichlet_ids,
                             const TraceLayers               &layers)
  {
    CellVector<Number, MemorySpace::Host, Layout> active(mesh.n_active_cells(), degree);
    for (unsigned int l = 0; l < hierarchy.n_levels(); ++l)
      {
        if (mesh.active_cells[l].empty())
          continue;
        const auto dirichlet = make_dirichlet_mask<Number, Layout>(hierarchy.level(l), degree, dirichlet_ids, layers);
        for (unsigned int j = 0; j < mesh.active_cells[l].size(); ++j)
          for (unsigned int i = 0; i < dirichlet.dofs_per_cell(); ++i)
            active(mesh.level_offset[l] + j, i) = dirichlet(mesh.active_cells[l][j], i);
      }
    return active;
  }
} // namespace cellwise::internal
