// The import of a deal.II DoFHandler: the cell-wise operator assembled through
// G^T A_cell G equals deal.II's assembled Laplace matrix (active numbering on
// the finest level, level numbering on level 1) on a box of 2 x 1 x 3 coarse
// cells of unequal edges refined twice (p = 1..4), and on meshes that are not
// lattices of boxes (p = 1..4): hyper_L, a sheared box, a graded box, a box
// rotated by 90 degrees, a randomly distorted cube, hyper_ball with MappingQ1
// and with MappingQ(2); G, G^T and the balanced scatter are consistent; what
// cellwise cannot take is refused with a message.

#include <cellwise/dealii/import.h>
#include <cellwise/dealii/vector_transfer.h>
#include <cellwise/operators/laplace_operator.h>

#include <deal.II/base/mpi.h>
#include <deal.II/base/quadrature_lib.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_dgq.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_simplex_p.h>
#include <deal.II/fe/fe_values.h>
#include <deal.II/fe/mapping_cartesian.h>
#include <deal.II/fe/mapping_q.h>
#include <deal.II/fe/mapping_q1.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/grid/grid_tools.h>
#include <deal.II/grid/tria.h>
#include <deal.II/lac/dynamic_sparsity_pattern.h>
#include <deal.II/lac/la_parallel_vector.h>
#include <deal.II/lac/sparse_matrix.h>
#include <deal.II/lac/sparsity_pattern.h>
#include <deal.II/multigrid/mg_tools.h>

#include <cmath>
#include <fstream>
#include <functional>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

using namespace dealii;
using cellwise::dealii::DofMap;

namespace
{
  std::ofstream out("output");

  void
  make_box(Triangulation<3> &tria)
  {
    // cells 0.5 x 0.3 x 0.7
    GridGenerator::subdivided_hyper_rectangle(tria, {2, 1, 3}, Point<3>(0., 0., 0.), Point<3>(1., 0.3, 2.1), true);
    tria.refine_global(2);
  }

  /// deal.II's Laplace matrix with FE_Q(p) and QGauss(p+1) on the active
  /// cells (level == -1) or the cells of one level.
  void
  assemble_dealii(const Mapping<3> &mapping, const DoFHandler<3> &dof_handler, const int level, SparseMatrix<double> &matrix)
  {
    const auto        &fe = dof_handler.get_fe();
    FEValues<3>        fe_values(mapping, fe, QGauss<3>(fe.degree + 1), update_gradients | update_JxW_values);
    FullMatrix<double> cell_matrix(fe.n_dofs_per_cell(), fe.n_dofs_per_cell());
    std::vector<types::global_dof_index> indices(fe.n_dofs_per_cell());
    auto add = [&](const auto &cell) {
      fe_values.reinit(cell);
      cell_matrix = 0;
      for (unsigned int q = 0; q < fe_values.n_quadrature_points; ++q)
        for (unsigned int i = 0; i < fe.n_dofs_per_cell(); ++i)
          for (unsigned int j = 0; j < fe.n_dofs_per_cell(); ++j)
            cell_matrix(i, j) += fe_values.shape_grad(i, q) * fe_values.shape_grad(j, q) * fe_values.JxW(q);
      matrix.add(indices, cell_matrix);
    };
    if (level < 0)
      for (const auto &cell : dof_handler.active_cell_iterators())
        {
          cell->get_dof_indices(indices);
          add(cell);
        }
    else
      for (const auto &cell : dof_handler.mg_cell_iterators_on_level(level))
        {
          cell->get_mg_dof_indices(indices);
          add(cell);
        }
  }

  /// G^T A_cell G: the cell matrices of the cell-wise operator summed through
  /// the DoF map.
  void
  assemble_cellwise(const DofMap &map, const cellwise::LaplaceOperator<double> &op, SparseMatrix<double> &matrix)
  {
    const unsigned int n = map.dofs_per_cell();
    for (unsigned int cell = 0; cell < map.n_cells; ++cell)
      if (map.contains(cell))
        {
          const cellwise::DenseMatrix A = op.cell_matrix(cell);
          for (unsigned int i = 0; i < n; ++i)
            for (unsigned int j = 0; j < n; ++j)
              matrix.add(map(cell, i), map(cell, j), A(i, j));
        }
  }

  /// max |A - B| / max |A| over the entries of the common pattern.
  double
  relative_difference(const SparseMatrix<double> &A, const SparseMatrix<double> &B)
  {
    double diff = 0, size = 0;
    for (unsigned int row = 0; row < A.m(); ++row)
      for (auto a = A.begin(row), b = B.begin(row); a != A.end(row); ++a, ++b)
        {
          diff = std::max(diff, std::abs(a->value() - b->value()));
          size = std::max(size, std::abs(a->value()));
        }
    return diff / size;
  }

  std::string
  yes_no(const bool condition)
  {
    return condition ? "yes" : "NO";
  }

  void
  check_degree(const unsigned int p, const std::string &name = "box", const std::function<void(Triangulation<3> &)> &make = make_box,
               const Mapping<3> &mapping = StaticMappingQ1<3>::mapping)
  {
    Triangulation<3> tria(Triangulation<3>::limit_level_difference_at_vertices);
    make(tria);
    FE_Q<3>       fe(p);
    DoFHandler<3> dof_handler(tria);
    dof_handler.distribute_dofs(fe);
    dof_handler.distribute_mg_dofs();

    const cellwise::dealii::ImportedHierarchy imported = cellwise::dealii::import_dof_handler(mapping, dof_handler);
    const cellwise::LevelHierarchy           &h        = imported.hierarchy;
    out << name << ", p = " << p << ": " << dof_handler.n_dofs() << " DoFs, levels " << h.n_levels() << ", cells";
    for (unsigned int l = 0; l < h.n_levels(); ++l)
      out << " " << h.level(l).n_cells();
    if (h.level(0).has_skeleton())
      out << ", unstructured: " << h.level(0).skeleton_faces.size() / 2 << " coarse skeleton faces, mapping degree "
          << h.level(0).mapping.degree << std::endl;
    else
      out << ", coarse " << h.coarse_subdivisions[0] << " x " << h.coarse_subdivisions[1] << " x " << h.coarse_subdivisions[2]
          << (h.level(0).mapping.empty() ? "" : ", mapped") << std::endl;

    // Active numbering on the finest level.
    {
      DynamicSparsityPattern dsp(dof_handler.n_dofs());
      DoFTools::make_sparsity_pattern(dof_handler, dsp);
      SparsityPattern pattern;
      pattern.copy_from(dsp);
      SparseMatrix<double> A(pattern), B(pattern);
      assemble_dealii(mapping, dof_handler, -1, A);
      const cellwise::LaplaceOperator<double> op(h.level(h.max_level()), p);
      assemble_cellwise(imported.active_dofs.back(), op, B);
      out << "  active matrix: max entry difference <= 1e-12 relative: "
          << yes_no(relative_difference(A, B) <= 1e-12) << std::endl;

      // The matrix-free operator through G and G^T.
      LinearAlgebra::distributed::Vector<double> u(dof_handler.n_dofs()), Au(dof_handler.n_dofs()),
        Bu(dof_handler.n_dofs());
      std::mt19937                           generator(p);
      std::uniform_real_distribution<double> random(-1., 1.);
      for (auto &x : u)
        x = random(generator);
      for (unsigned int i = 0; i < u.size(); ++i)
        {
          double s = 0;
          for (auto a = A.begin(i); a != A.end(i); ++a)
            s += a->value() * u(a->column());
          Au(i) = s;
        }
      cellwise::CellVector<double> uc, Auc;
      cellwise::dealii::gather(imported.active_dofs.back(), u, uc);
      Auc.reinit(uc);
      op.vmult(Auc, uc);
      cellwise::dealii::gather_transpose_add(imported.active_dofs.back(), Auc, Bu);
      Bu -= Au;
      out << "  G^T A_cell G u = A u to 1e-12 relative: " << yes_no(Bu.linfty_norm() <= 1e-12 * Au.linfty_norm())
          << std::endl;

      // G^T of the balanced scatter is the identity; the mean of the copies
      // of G u is u.
      cellwise::CellVector<double>               b;
      LinearAlgebra::distributed::Vector<double> r(u.size()), w(u.size());
      cellwise::dealii::scatter_balanced(imported.active_dofs.back(), u, b);
      cellwise::dealii::gather_transpose_add(imported.active_dofs.back(), b, r);
      cellwise::dealii::gather_mean_add(imported.active_dofs.back(), uc, w);
      r -= u;
      w -= u;
      out << "  G^T balanced(r) = r, mean(G u) = u: " << yes_no(r.linfty_norm() < 1e-14 && w.linfty_norm() < 1e-14)
          << std::endl;
    }

    // Level numbering on level 1.
    {
      DynamicSparsityPattern dsp(dof_handler.n_dofs(1));
      MGTools::make_sparsity_pattern(dof_handler, dsp, 1);
      SparsityPattern pattern;
      pattern.copy_from(dsp);
      SparseMatrix<double> A(pattern), B(pattern);
      assemble_dealii(mapping, dof_handler, 1, A);
      const cellwise::LaplaceOperator<double> op(h.level(1), p);
      assemble_cellwise(imported.level_dofs[1], op, B);
      out << "  level 1 matrix (" << dof_handler.n_dofs(1) << " level DoFs): max entry difference <= 1e-12 relative: "
          << yes_no(relative_difference(A, B) <= 1e-12) << std::endl;
    }
  }

  /// Without level DoFs (no distribute_mg_dofs) the import gives the same
  /// levels and active maps, no level maps, and its numbering check does
  /// not see a distribute_mg_dofs() made after it.
  void
  check_without_level_dofs(const std::string &name, const std::function<void(Triangulation<3> &)> &make)
  {
    Triangulation<3> tria(Triangulation<3>::limit_level_difference_at_vertices);
    make(tria);
    FE_Q<3>       fe(2);
    DoFHandler<3> dof_handler(tria);
    dof_handler.distribute_dofs(fe);
    const cellwise::dealii::ImportedHierarchy without = cellwise::dealii::import_dof_handler(dof_handler);
    dof_handler.distribute_mg_dofs();
    const cellwise::dealii::ImportedHierarchy with = cellwise::dealii::import_dof_handler(dof_handler);
    bool same = without.hierarchy.n_levels() == with.hierarchy.n_levels() &&
                without.active_dofs.size() == with.active_dofs.size();
    for (unsigned int l = 0; same && l < with.hierarchy.n_levels(); ++l)
      same = without.hierarchy.level(l).n_cells() == with.hierarchy.level(l).n_cells() &&
             without.active_dofs[l].indices == with.active_dofs[l].indices &&
             *without.active_dofs[l].valence == *with.active_dofs[l].valence;
    bool unchanged = true;
    try
      {
        cellwise::dealii::check_numbering_unchanged(without, dof_handler, "import_operator");
      }
    catch (const cellwise::Error &)
      {
        unchanged = false;
      }
    out << name << " without level DoFs: same levels and active maps " << yes_no(same) << ", level maps "
        << without.level_dofs.size() << " (with: " << with.level_dofs.size() << "), numbering still accepted after "
        << "distribute_mg_dofs " << yes_no(unchanged) << std::endl;
  }

  /// dirichlet_dofs gives deal.II's extract_boundary_dofs set: every
  /// boundary id and some of them, on a box of six boundary ids, the ball,
  /// and hyper_L locally refined (active cells on several levels).
  void
  check_dirichlet_dofs(const std::string &name, const std::function<void(Triangulation<3> &)> &make,
                       const std::vector<unsigned int> &ids, const unsigned int p)
  {
    Triangulation<3> tria(Triangulation<3>::limit_level_difference_at_vertices);
    make(tria);
    FE_Q<3>       fe(p);
    DoFHandler<3> dof_handler(tria);
    dof_handler.distribute_dofs(fe);
    const cellwise::dealii::ImportedHierarchy imported = cellwise::dealii::import_dof_handler(dof_handler);
    const std::vector<cellwise::dealii::dof_index>    ours     = cellwise::dealii::dirichlet_dofs(imported, ids);
    const IndexSet deal = DoFTools::extract_boundary_dofs(dof_handler, ComponentMask(),
                                                          std::set<types::boundary_id>(ids.begin(), ids.end()));
    out << "Dirichlet DoFs, " << name << ", Q" << p << ", ids";
    for (const unsigned int id : ids)
      out << " " << id;
    out << (ids.empty() ? " all" : "") << ": " << ours.size() << " of " << dof_handler.n_dofs()
        << ", those of extract_boundary_dofs: "
        << yes_no(ours.size() == deal.n_elements() &&
                  std::equal(ours.begin(), ours.end(), deal.begin(), [](cellwise::dealii::dof_index a, IndexSet::size_type b) { return a == b; }))
        << std::endl;
  }

  void
  expect_refusal(const std::string &what, const std::function<void()> &f)
  {
    try
      {
        f();
        out << what << ": NOT refused" << std::endl;
      }
    catch (const cellwise::Error &e)
      {
        // The message without the source location.
        std::string message = e.what();
        message             = message.substr(0, message.rfind(" ["));
        out << what << ": refused: " << message << std::endl;
      }
  }

  void
  check_refusals()
  {
    expect_refusal("FE_DGQ", [] {
      Triangulation<3> tria;
      make_box(tria);
      FE_DGQ<3>     fe(1);
      DoFHandler<3> dof_handler(tria);
      dof_handler.distribute_dofs(fe);
      dof_handler.distribute_mg_dofs();
      cellwise::dealii::import_dof_handler(dof_handler);
    });
    expect_refusal("no DoFs", [] {
      Triangulation<3> tria;
      make_box(tria);
      DoFHandler<3> dof_handler(tria);
      cellwise::dealii::import_dof_handler(dof_handler);
    });
    expect_refusal("a ball with MappingCartesian", [] {
      Triangulation<3> tria;
      GridGenerator::hyper_ball(tria);
      FE_Q<3>       fe(2);
      DoFHandler<3> dof_handler(tria);
      dof_handler.distribute_dofs(fe);
      dof_handler.distribute_mg_dofs();
      cellwise::dealii::import_dof_handler(MappingCartesian<3>(), dof_handler);
    });
    expect_refusal("tetrahedra", [] {
      Triangulation<3> tria;
      GridGenerator::subdivided_hyper_cube_with_simplices(tria, 1);
      FE_SimplexP<3> fe(1);
      DoFHandler<3>  dof_handler(tria);
      dof_handler.distribute_dofs(fe);
      cellwise::dealii::import_dof_handler(dof_handler);
    });
    expect_refusal("anisotropic refinement", [] {
      Triangulation<3> tria;
      make_box(tria);
      tria.begin_active()->set_refine_flag(RefinementCase<3>::cut_x);
      tria.execute_coarsening_and_refinement();
      FE_Q<3>       fe(2);
      DoFHandler<3> dof_handler(tria);
      dof_handler.distribute_dofs(fe);
      dof_handler.distribute_mg_dofs();
      cellwise::dealii::import_dof_handler(dof_handler);
    });
    expect_refusal("a level with holes left by coarsening", [] {
      Triangulation<3> tria(Triangulation<3>::limit_level_difference_at_vertices);
      make_box(tria);
      // the children of the first cell of level 1 coarsened away: level 2
      // keeps its indices, with 8 unused ones at the front
      for (unsigned int c = 0; c < 8; ++c)
        tria.begin(1)->child(c)->set_coarsen_flag();
      tria.execute_coarsening_and_refinement();
      FE_Q<3>       fe(2);
      DoFHandler<3> dof_handler(tria);
      dof_handler.distribute_dofs(fe);
      dof_handler.distribute_mg_dofs();
      cellwise::dealii::import_dof_handler(dof_handler);
    });
    expect_refusal("a mirrored (inverted) cube", [] {
      Triangulation<3> tria;
      GridGenerator::subdivided_hyper_cube(tria, 2);
      GridTools::transform([](const Point<3> &x) { return Point<3>(-x[0], x[1], x[2]); }, tria);
      tria.refine_global(1);
      FE_Q<3>       fe(2);
      DoFHandler<3> dof_handler(tria);
      dof_handler.distribute_dofs(fe);
      dof_handler.distribute_mg_dofs();
      const cellwise::dealii::ImportedHierarchy imported = cellwise::dealii::import_dof_handler(dof_handler);
      cellwise::LaplaceOperator<double>(imported.hierarchy.level(0), 2);
    });
    expect_refusal("FE_Q on equidistant points", [] {
      Triangulation<3> tria;
      make_box(tria);
      FE_Q<3>       fe(QIterated<1>(QTrapezoid<1>(), 3));
      DoFHandler<3> dof_handler(tria);
      dof_handler.distribute_dofs(fe);
      dof_handler.distribute_mg_dofs();
      cellwise::dealii::import_dof_handler(dof_handler);
    });
  }
} // namespace

int
main(int argc, char **argv)
{
  Utilities::MPI::MPI_InitFinalize mpi(argc, argv, 1);
  out.precision(6);
  for (unsigned int p = 1; p <= 4; ++p)
    check_degree(p);
  // meshes that are not lattices of boxes: blocks with skeleton faces and
  // cell mappings (and hyper_L, which is a lattice)
  const std::vector<std::pair<std::string, std::function<void(Triangulation<3> &)>>> meshes = {
    {"hyper_L", [](Triangulation<3> &t) { GridGenerator::hyper_L(t, -1., 1.); t.refine_global(2); }},
    {"sheared box", [](Triangulation<3> &t) {
       GridGenerator::subdivided_hyper_rectangle(t, {2, 1, 3}, Point<3>(0., 0., 0.), Point<3>(1., 0.3, 2.1));
       GridTools::transform([](const Point<3> &x) { return Point<3>(x[0] + 0.25 * x[2], x[1], x[2]); }, t);
       t.refine_global(2);
     }},
    {"graded box", [](Triangulation<3> &t) {
       const std::vector<std::vector<double>> steps = {{0.5, 0.25, 0.25}, {1.}, {1.}};
       GridGenerator::subdivided_hyper_rectangle(t, steps, Point<3>(0., 0., 0.), Point<3>(1., 1., 1.));
       t.refine_global(2);
     }},
    {"rotated box", [](Triangulation<3> &t) {
       GridGenerator::subdivided_hyper_rectangle(t, {2, 1, 3}, Point<3>(0., 0., 0.), Point<3>(1., 0.3, 2.1));
       GridTools::rotate(Tensor<1, 3>({0., 0., 1.}), 0.5 * numbers::PI, t);
       t.refine_global(2);
     }},
    {"distorted cube", [](Triangulation<3> &t) {
       GridGenerator::subdivided_hyper_cube(t, 3);
       GridTools::distort_random(0.2, t, true, 11);
       t.refine_global(1);
     }},
    {"hyper_ball", [](Triangulation<3> &t) { GridGenerator::hyper_ball(t); t.refine_global(1); }}};
  for (const auto &[name, make] : meshes)
    for (unsigned int p = 1; p <= 4; ++p)
      check_degree(p, name, make);
  const MappingQ<3> quadratic(2);
  for (unsigned int p = 1; p <= 4; ++p)
    check_degree(p, "hyper_ball, MappingQ(2)", meshes.back().second, quadratic);
  const auto colorized_box = [](Triangulation<3> &t) {
    GridGenerator::subdivided_hyper_rectangle(t, {2, 1, 3}, Point<3>(0., 0., 0.), Point<3>(1., 0.3, 2.1), true);
    t.refine_global(1);
  };
  const auto refined_l = [](Triangulation<3> &t) {
    GridGenerator::hyper_L(t, -1., 1.);
    t.refine_global(1);
    for (const auto &cell : t.active_cell_iterators())
      if (cell->center().norm() < 0.6)
        cell->set_refine_flag();
    t.execute_coarsening_and_refinement();
  };
  for (const unsigned int p : {1u, 3u})
    {
      check_dirichlet_dofs("colorized box", colorized_box, {}, p);
      check_dirichlet_dofs("colorized box", colorized_box, {1, 4}, p);
      check_dirichlet_dofs("hyper_ball", meshes.back().second, {}, p);
      check_dirichlet_dofs("hyper_L locally refined", refined_l, {}, p);
    }
  check_without_level_dofs("box", make_box);
  check_without_level_dofs("hyper_ball", meshes.back().second);
  check_refusals();
  return 0;
}
