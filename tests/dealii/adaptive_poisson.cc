// Locally refined meshes through the deal.II adapters (issue 9): a box of
// 3 x 2 x 1 coarse cells of 0.5 x 0.5 x 0.8, refined twice globally, then
// locally twice (the cells in the octant x < 0.75, y < 0.5, z < 0.4, then those
// in the octant's corner octant), FE_Q(p), p = 2 and 3.
//
//  - The import: levels, cells and active cells per level, flags and
//    same-level neighbours against deal.II's level cells (face_neighbor::none
//    exactly where the level neighbour is coarser), boundary ids; the
//    active-mesh map covers every active cell of deal.II with its DoFs.
//  - G^T A_act G (the cell-wise operator on the active mesh through the map)
//    equals deal.II's active matrix assembled without constraints, hanging
//    DoFs included; with the hanging-node and Dirichlet constraints,
//    condense(G^T A_act G u) equals deal.II's constrained matrix times u for u
//    satisfying the constraints.
//  - the solution of cellwise::dealii::MultigridPreconditioner (its solve: on
//    this mesh with hanging nodes the local-smoothing solver; the import,
//    active mesh and operator above are the ones it builds), from the
//    condensed right-hand side of distribute_local_to_global and from the
//    plain load vector, equals deal.II's: the sparse system assembled with
//    AffineConstraints (hanging nodes + homogeneous Dirichlet) solved by
//    SparseDirectUMFPACK, then constraints.distribute, to 1e-9 relative in
//    the max norm; the cell-wise solution already satisfies the hanging-node
//    constraints. The same in mixed precision (FP32 levels with local
//    smoothing inside the FP64 outer iteration).

#include <cellwise/dealii/import.h>
#include <cellwise/dealii/multigrid_preconditioner.h>
#include <cellwise/dealii/vector_transfer.h>
#include <cellwise/multigrid/adaptive_v_cycle.h>
#include <cellwise/operators/laplace_operator.h>

#include "test_backend.h"

#include <deal.II/base/mpi.h>
#include <deal.II/base/quadrature_lib.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_values.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/grid/tria.h>
#include <deal.II/lac/affine_constraints.h>
#include <deal.II/lac/dynamic_sparsity_pattern.h>
#include <deal.II/lac/la_parallel_vector.h>
#include <deal.II/lac/solver_control.h>
#include <deal.II/lac/sparse_direct.h>
#include <deal.II/lac/sparse_matrix.h>
#include <deal.II/lac/sparsity_pattern.h>
#include <deal.II/lac/vector.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <random>
#include <set>
#include <string>

using namespace dealii;
using DVector = LinearAlgebra::distributed::Vector<double>;

namespace
{
  std::ofstream out("output");

  std::string
  yes_no(const bool condition)
  {
    return condition ? "yes" : "NO";
  }

  double
  rhs_function(const Point<3> &x)
  {
    return 1. + x[0] * (1.5 - x[1]) * std::sin(3. * x[2]) + std::exp(-4. * (x[0] - 0.4) * (x[0] - 0.4));
  }

  void
  make_mesh(Triangulation<3> &tria)
  {
    GridGenerator::subdivided_hyper_rectangle(tria, {3, 2, 1}, Point<3>(0., 0., 0.), Point<3>(1.5, 1., 0.8), true);
    tria.refine_global(2);
    for (const double scale : {0.5, 0.25})
      {
        for (const auto &cell : tria.active_cell_iterators())
          {
            const Point<3> c = cell->center();
            if (c[0] < 1.5 * scale && c[1] < 1. * scale && c[2] < 0.8 * scale)
              cell->set_refine_flag();
          }
        tria.execute_coarsening_and_refinement();
      }
  }

  template <typename V1, typename V2>
  double
  max_relative_difference(const V1 &a, const V2 &b)
  {
    double diff = 0., size = 0.;
    for (unsigned int i = 0; i < a.size(); ++i)
      {
        diff = std::max(diff, std::abs(a[i] - b[i]));
        size = std::max(size, std::abs(b[i]));
      }
    return diff / size;
  }

  /// The import against deal.II's level cells.
  void
  check_structure(const DoFHandler<3>                      &dof_handler,
                  const cellwise::dealii::ImportedHierarchy &imported,
                  const cellwise::ActiveMesh               &mesh,
                  const cellwise::dealii::DofMap           &map)
  {
    const Triangulation<3>         &tria = dof_handler.get_triangulation();
    const cellwise::LevelHierarchy &h    = imported.hierarchy;
    bool                            flags_ok = h.n_levels() == tria.n_levels(), neighbors_ok = true;
    out << "  levels " << h.n_levels() << ", cells (active) per level:";
    for (unsigned int l = 0; l < h.n_levels(); ++l)
      out << " " << h.level(l).n_cells() << " (" << h.level(l).n_active_cells() << ")";
    out << std::endl << "  refinement-edge faces per level:";
    for (unsigned int l = 0; l < h.n_levels(); ++l)
      {
        const cellwise::Level &level  = h.level(l);
        unsigned int           n_none = 0;
        flags_ok                      = flags_ok && level.n_cells() == tria.n_cells(l);
        for (auto cell = tria.begin(l); cell != tria.end(l); ++cell)
          {
            const unsigned int K = cell->index();
            flags_ok             = flags_ok && level.is_active(K) == cell->is_active() &&
                       level.is_refined(K) == cell->has_children() && level.is_active(K) != level.is_refined(K);
            for (unsigned int f = 0; f < 6; ++f)
              {
                const int n = level.neighbors[K][f];
                if (cell->at_boundary(f))
                  neighbors_ok = neighbors_ok && cellwise::face_neighbor::is_boundary(n) &&
                                 cellwise::face_neighbor::boundary_id(n) == cell->face(f)->boundary_id();
                else if (cell->neighbor_level(f) < static_cast<int>(l))
                  {
                    neighbors_ok = neighbors_ok && n == cellwise::face_neighbor::none;
                    ++n_none;
                  }
                else
                  neighbors_ok = neighbors_ok && n == cell->neighbor_index(f) && cell->neighbor_level(f) == int(l);
              }
          }
        out << " " << n_none;
      }
    out << std::endl;
    out << "  flags as deal.II's: " << yes_no(flags_ok) << ", same-level neighbours and boundary ids as deal.II's: "
        << yes_no(neighbors_ok) << std::endl;

    // The active-mesh map: every active cell of deal.II once, with its DoFs,
    // in ActiveMesh's order (levels ascending, cell index ascending).
    bool                                 map_ok = map.n_cells == tria.n_active_cells() && mesh.n_active_cells() == map.n_cells;
    std::vector<types::global_dof_index> indices(dof_handler.get_fe().n_dofs_per_cell());
    std::set<unsigned int>               seen;
    for (const auto &cell : dof_handler.active_cell_iterators())
      {
        const int a = mesh.active_index[cell->level()][cell->index()];
        if (a < 0)
          {
            map_ok = false;
            continue;
          }
        seen.insert(a);
        cell->get_dof_indices(indices);
        std::vector<types::global_dof_index> mapped(map.indices.begin() + a * indices.size(),
                                                    map.indices.begin() + (a + 1) * indices.size());
        std::sort(indices.begin(), indices.end());
        std::sort(mapped.begin(), mapped.end());
        map_ok = map_ok && indices == mapped;
      }
    for (unsigned int a = 1; a < mesh.n_active_cells(); ++a)
      map_ok = map_ok && (mesh.level_of[a] > mesh.level_of[a - 1] ||
                          (mesh.level_of[a] == mesh.level_of[a - 1] && mesh.cell_of[a] > mesh.cell_of[a - 1]));
    out << "  active-mesh map covers the " << tria.n_active_cells()
        << " active cells with their DoFs: " << yes_no(map_ok && seen.size() == map.n_cells) << std::endl;
  }

  void
  check_degree(const unsigned int p)
  {
    Triangulation<3> tria(Triangulation<3>::limit_level_difference_at_vertices);
    make_mesh(tria);
    FE_Q<3>       fe(p);
    DoFHandler<3> dof_handler(tria);
    dof_handler.distribute_dofs(fe);
    dof_handler.distribute_mg_dofs();

    AffineConstraints<double> constraints;
    DoFTools::make_hanging_node_constraints(dof_handler, constraints);
    const unsigned int n_hanging = constraints.n_constraints();
    DoFTools::make_zero_boundary_constraints(dof_handler, constraints);
    constraints.close();
    out << "FE_Q(" << p << "): " << dof_handler.n_dofs() << " DoFs, " << n_hanging << " hanging" << std::endl;

    // the import, the active mesh and its DoF map as the front door's
    // local-smoothing solver makes them (import_dof_handler with MappingQ1,
    // make_active_mesh, make_active_mesh_map)
    const cellwise::dealii::ImportedHierarchy imported = cellwise::dealii::import_dof_handler(dof_handler);
    const cellwise::ActiveMesh                mesh     = cellwise::make_active_mesh(imported.hierarchy);
    const cellwise::dealii::DofMap            map      = cellwise::dealii::make_active_mesh_map(imported, mesh);
    check_structure(dof_handler, imported, mesh, map);

    // deal.II: the plain active matrix, the constrained one, the condensed
    // and the plain load vector.
    SparsityPattern plain_pattern, constrained_pattern;
    {
      DynamicSparsityPattern dsp(dof_handler.n_dofs());
      DoFTools::make_sparsity_pattern(dof_handler, dsp);
      plain_pattern.copy_from(dsp);
      DynamicSparsityPattern dsp_c(dof_handler.n_dofs());
      DoFTools::make_sparsity_pattern(dof_handler, dsp_c, constraints, false);
      constrained_pattern.copy_from(dsp_c);
    }
    SparseMatrix<double> A_plain(plain_pattern), A_cellwise(plain_pattern), A_constrained(constrained_pattern);
    Vector<double>       b_constrained(dof_handler.n_dofs());
    DVector              b_plain(dof_handler.n_dofs());
    {
      FEValues<3>        fe_values(fe, QGauss<3>(p + 1), update_values | update_gradients | update_JxW_values |
                                                        update_quadrature_points);
      const unsigned int n = fe.n_dofs_per_cell();
      FullMatrix<double> cell_matrix(n, n);
      Vector<double>     cell_rhs(n);
      std::vector<types::global_dof_index> indices(n);
      for (const auto &cell : dof_handler.active_cell_iterators())
        {
          fe_values.reinit(cell);
          cell_matrix = 0;
          cell_rhs    = 0;
          for (unsigned int q = 0; q < fe_values.n_quadrature_points; ++q)
            {
              const double f = rhs_function(fe_values.quadrature_point(q));
              for (unsigned int i = 0; i < n; ++i)
                {
                  for (unsigned int j = 0; j < n; ++j)
                    cell_matrix(i, j) += fe_values.shape_grad(i, q) * fe_values.shape_grad(j, q) * fe_values.JxW(q);
                  cell_rhs(i) += fe_values.shape_value(i, q) * f * fe_values.JxW(q);
                }
            }
          cell->get_dof_indices(indices);
          A_plain.add(indices, cell_matrix);
          for (unsigned int i = 0; i < n; ++i)
            b_plain(indices[i]) += cell_rhs(i);
          constraints.distribute_local_to_global(cell_matrix, cell_rhs, indices, A_constrained, b_constrained);
        }
    }

    // G^T A_act G against the plain matrix (hanging DoFs are ordinary DoFs of
    // the fine cells there).
    // the FP64 operator of the active cells, as the solver's outer iteration
    // applies it (the coefficient 1)
    const cellwise::LaplaceOperator<double> op(mesh.level, p);
    {
      const unsigned int n = map.dofs_per_cell();
      for (unsigned int a = 0; a < map.n_cells; ++a)
        {
          const cellwise::DenseMatrix Ak = op.cell_matrix(a);
          for (unsigned int i = 0; i < n; ++i)
            for (unsigned int j = 0; j < n; ++j)
              A_cellwise.add(map(a, i), map(a, j), Ak(i, j));
        }
      double diff = 0, size = 0;
      for (unsigned int row = 0; row < A_plain.m(); ++row)
        for (auto x = A_plain.begin(row), y = A_cellwise.begin(row); x != A_plain.end(row); ++x, ++y)
          {
            diff = std::max(diff, std::abs(x->value() - y->value()));
            size = std::max(size, std::abs(x->value()));
          }
      out << "  G^T A_act G = deal.II's unconstrained active matrix, max entry difference <= 1e-12 relative: "
          << yes_no(diff <= 1e-12 * size) << std::endl;
    }

    // condense(G^T A_act G u) = A_constrained u on the unconstrained rows, u
    // satisfying the constraints.
    {
      Vector<double>                         u(dof_handler.n_dofs()), Au(dof_handler.n_dofs());
      std::mt19937                           generator(p);
      std::uniform_real_distribution<double> random(-1., 1.);
      for (auto &x : u)
        x = random(generator);
      constraints.distribute(u);
      A_constrained.vmult(Au, u);
      DVector                      ud(u.size()), Bu(u.size());
      cellwise::CellVector<double> uc, Auc;
      std::copy(u.begin(), u.end(), ud.begin());
      cellwise::dealii::gather(map, ud, uc);
      Auc.reinit(uc);
      op.vmult(Auc, uc);
      cellwise::dealii::gather_transpose_add(map, Auc, Bu);
      Vector<double> Bu_serial(Bu.begin(), Bu.end());
      constraints.condense(Bu_serial);
      double diff = 0, size = 0;
      for (unsigned int i = 0; i < u.size(); ++i)
        if (!constraints.is_constrained(i))
          {
            diff = std::max(diff, std::abs(Au(i) - Bu_serial(i)));
            size = std::max(size, std::abs(Au(i)));
          }
      out << "  condense(G^T A_act G u) = deal.II's constrained matrix times u to 1e-12 relative: "
          << yes_no(diff <= 1e-12 * size) << std::endl;
    }

    // The reference: deal.II's constrained system, sparse direct solve.
    Vector<double> reference(dof_handler.n_dofs());
    {
      SparseDirectUMFPACK direct;
      direct.initialize(A_constrained);
      direct.vmult(reference, b_constrained);
      constraints.distribute(reference);
    }

    DVector b_condensed(dof_handler.n_dofs());
    std::copy(b_constrained.begin(), b_constrained.end(), b_condensed.begin());
    for (const cellwise::Precision precision : {cellwise::Precision::fp64, cellwise::Precision::mixed})
      {
        cellwise::MultigridParameters parameters = test::parameters();
        parameters.precision                     = precision;
        const cellwise::dealii::MultigridPreconditioner solver(dof_handler, parameters);
        for (const auto &[name, rhs] : {std::make_pair("condensed", &b_condensed), std::make_pair("plain", &b_plain)})
          {
            ReductionControl control(100, 1e-300, 1e-13);
            DVector          solution(dof_handler.n_dofs());
            solver.solve(solution, *rhs, control);
            DVector distributed = solution;
            constraints.distribute(distributed);
            out << "  cellwise" << (precision == cellwise::Precision::mixed ? " (mixed precision)" : "") << ", " << name
                << " right-hand side: solution equal to deal.II's below 1e-9 relative (max norm): "
                << yes_no(max_relative_difference(solution, reference) <= 1e-9)
                << ", satisfies the constraints to 1e-12: " << yes_no(max_relative_difference(distributed, solution) <= 1e-12)
                << std::endl;
          }
      }
  }
} // namespace

int
main(int argc, char **argv)
{
  Utilities::MPI::MPI_InitFinalize mpi(argc, argv, 1);
  test::backend(); // stops here where the asked backend cannot run
  for (const unsigned int p : {2u, 3u})
    check_degree(p);
  return 0;
}
