// The front door cellwise::dealii::MultigridPreconditioner on several ranks
// (its distributed solver; on one rank the serial one) against deal.II's
// own solution on the same ranks: a parallel::distributed::Triangulation
// (p4est's partition), the load vector assembled with deal.II's
// constraints, the system solved by deal.II (its assembled Trilinos matrix,
// CG with ML's AMG, to 1e-14) and by the front door's solve with Chebyshev
// CG and with the vertex-patch stationary iteration (to 1e-12), and by
// deal.II's CG on its matrix with the cell-wise V-cycle as preconditioner
// (the front door's vmult, step-37's use), then the front door's solve
// again. Also with step-37's variable coefficient at the quadrature
// points. The solutions agree to 1e-9, and the iteration counts are those
// of one rank: the solves of the .output files of 1, 2 and 3 ranks are the
// same. The meshes: 2 x 1 x 1 coarse cells, and 3 x 2 x 2,
// whose trees deal.II hands p4est permuted, with Dirichlet conditions on
// two of the six colorized faces (the box's face ids in the solver; the
// vertex-patch smoother refuses the Neumann faces on every rank). The
// partition taken is deal.II's level subdomains as a box partition (each
// rank builds its own cells only), and the core's BoxPartition from the
// counts alone (which the main program and the machines without deal.II
// use) must equal it: p4est's even cut corrected so that no family of
// sibling leaves is split (partition for coarsening). step-37's first mesh
// (one family of 8 leaves) leaves every rank but one without cells.
// Locally refined meshes (the octant refined once or twice more; hanging
// nodes in deal.II's constraints) are solved with local smoothing on the
// hierarchy every rank rebuilds. A vector of another layout and a Dirichlet
// id that no face carries are refused on every rank; a curved mesh on every
// rank where there are several (on one rank the front door sets up the
// serial solver, which takes curved cells).

#include <cellwise/dealii/mpi_box_partition.h>
#include <cellwise/dealii/multigrid_preconditioner.h>
#include <cellwise/mesh/box_partition.h>

#include <deal.II/base/function.h>
#include <deal.II/base/mpi.h>
#include <deal.II/base/quadrature_lib.h>
#include <deal.II/distributed/tria.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_values.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/lac/affine_constraints.h>
#include <deal.II/lac/dynamic_sparsity_pattern.h>
#include <deal.II/lac/la_parallel_vector.h>
#include <deal.II/lac/solver_cg.h>
#include <deal.II/lac/solver_control.h>
#include <deal.II/lac/sparsity_tools.h>
#include <deal.II/lac/trilinos_precondition.h>
#include <deal.II/lac/trilinos_sparse_matrix.h>
#include <deal.II/lac/trilinos_vector.h>
#include <deal.II/numerics/vector_tools.h>

#include <cmath>
#include <fstream>
#include <iomanip>
#include <string>

#include "collective_refusal.h"

using namespace dealii;

namespace
{
  using Vector = LinearAlgebra::distributed::Vector<double>;

  /// Runs @p what; prints on how many ranks it threw cellwise::Error and
  /// rank 0's message (every rank must refuse: no rank left waiting).
  template <typename What>
  void
  expect_refusal(const char *name, const What &what, std::ostream &out)
  {
    const CollectiveRefusal refusal = collective_refusal(what);
    out << name << ": refused on " << refusal.where() << std::endl << "  " << refusal.message << std::endl;
  }

  /// step-37's coefficient, 1 / (0.05 + 2 |x|²).
  double
  step37_coefficient(const cellwise::Point &x)
  {
    return 1. / (0.05 + 2. * (x[0] * x[0] + x[1] * x[1] + x[2] * x[2]));
  }

  /// A problem on a lattice of coarse cells of size 1.
  struct Case
  {
    unsigned int              degree      = 2;
    unsigned int              refinements = 2;
    std::vector<unsigned int> subdivisions{2, 1, 1};
    /// Boundary ids 0..5 by face, else 0.
    bool colorize = false;
    /// With colorize: some faces are Neumann faces, which the vertex-patch
    /// smoother refuses.
    std::vector<unsigned int> dirichlet_ids{0};
    /// −∇·(c∇u) with step-37's coefficient c, else −Δu.
    bool coefficient = false;
    /// Whether the core's BoxPartition from the counts alone is compared
    /// with deal.II's partition (it refuses ranks without cells, which
    /// p4est makes where a mesh has fewer families of leaves than ranks,
    /// and takes uniform meshes only).
    bool compare_partition = true;
    /// Times the active cells in the lower octant of the lattice are
    /// refined after the global refinements (hanging nodes, local
    /// smoothing).
    unsigned int octant_steps = 0;
  };

  void
  run(const Case &problem, std::ostream &out)
  {
    const auto &[degree, refinements, subdivisions, colorize, dirichlet_ids, coefficient, compare_partition, octant_steps] =
      problem;
    const MPI_Comm                          comm = MPI_COMM_WORLD;
    parallel::distributed::Triangulation<3> tria(comm,
                                                 Triangulation<3>::limit_level_difference_at_vertices,
                                                 parallel::distributed::Triangulation<3>::construct_multigrid_hierarchy);
    GridGenerator::subdivided_hyper_rectangle(tria, subdivisions, Point<3>(0., 0., 0.),
                                              Point<3>(subdivisions[0], subdivisions[1], subdivisions[2]), colorize);
    tria.refine_global(refinements);
    for (unsigned int step = 0; step < octant_steps; ++step)
      {
        for (const auto &cell : tria.active_cell_iterators())
          if (cell->is_locally_owned() && cell->center()[0] < 0.5 * subdivisions[0] &&
              cell->center()[1] < 0.5 * subdivisions[1] && cell->center()[2] < 0.5 * subdivisions[2])
            cell->set_refine_flag();
        tria.execute_coarsening_and_refinement();
      }
    FE_Q<3>       fe(degree);
    DoFHandler<3> dof_handler(tria);
    dof_handler.distribute_dofs(fe);
    dof_handler.distribute_mg_dofs();
    const IndexSet owned    = dof_handler.locally_owned_dofs();
    const IndexSet relevant = DoFTools::extract_locally_relevant_dofs(dof_handler);

    AffineConstraints<double> constraints(relevant);
    DoFTools::make_hanging_node_constraints(dof_handler, constraints);
    for (const unsigned int id : dirichlet_ids)
      VectorTools::interpolate_boundary_values(dof_handler, id, Functions::ZeroFunction<3>(), constraints);
    constraints.close();

    // deal.II's system: the Laplacian and the load of f = 1 + x y z
    DynamicSparsityPattern dsp(relevant);
    DoFTools::make_sparsity_pattern(dof_handler, dsp, constraints, false);
    SparsityTools::distribute_sparsity_pattern(dsp, owned, comm, relevant);
    TrilinosWrappers::SparseMatrix matrix;
    matrix.reinit(owned, owned, dsp, comm);
    TrilinosWrappers::MPI::Vector load(owned, comm), reference(owned, comm);
    const QGauss<3>               quadrature(degree + 1);
    FEValues<3>                   fe_values(fe, quadrature, update_values | update_gradients | update_JxW_values | update_quadrature_points);
    const unsigned int            n = fe.n_dofs_per_cell();
    FullMatrix<double>            cell_matrix(n, n);
    ::dealii::Vector<double>      cell_load(n);
    std::vector<types::global_dof_index> dofs(n);
    for (const auto &cell : dof_handler.active_cell_iterators())
      if (cell->is_locally_owned())
        {
          fe_values.reinit(cell);
          cell_matrix = 0;
          cell_load   = 0;
          for (unsigned int q = 0; q < quadrature.size(); ++q)
            {
              const Point<3> &x = fe_values.quadrature_point(q);
              const double    c = coefficient ? step37_coefficient({{x[0], x[1], x[2]}}) : 1.;
              for (unsigned int i = 0; i < n; ++i)
                {
                  for (unsigned int j = 0; j < n; ++j)
                    cell_matrix(i, j) += c * fe_values.shape_grad(i, q) * fe_values.shape_grad(j, q) * fe_values.JxW(q);
                  cell_load(i) += (1. + x[0] * x[1] * x[2]) * fe_values.shape_value(i, q) * fe_values.JxW(q);
                }
            }
          cell->get_dof_indices(dofs);
          constraints.distribute_local_to_global(cell_matrix, cell_load, dofs, matrix, load);
        }
    matrix.compress(VectorOperation::add);
    load.compress(VectorOperation::add);
    TrilinosWrappers::PreconditionAMG amg;
    amg.initialize(matrix);
    SolverControl                                reference_control(1000, 1e-14 * load.l2_norm());
    SolverCG<TrilinosWrappers::MPI::Vector>      cg(reference_control);
    cg.solve(matrix, reference, load, amg);
    constraints.distribute(reference);

    Vector rhs(owned, comm), expected(owned, comm);
    for (const auto j : owned)
      {
        rhs(j)      = load(j);
        expected(j) = reference(j);
      }

    out << "Q" << degree << ", " << subdivisions[0] << " x " << subdivisions[1] << " x " << subdivisions[2]
        << " coarse cells, Dirichlet ids";
    for (const unsigned int id : dirichlet_ids)
      out << " " << id;
    out << (coefficient ? ", step-37's coefficient" : "")
        << (octant_steps > 0 ? ", the octant refined " + std::to_string(octant_steps) + " times" : std::string()) << ", "
        << dof_handler.n_dofs() << " DoFs:" << std::endl;
    for (const bool patch : {false, true})
      {
        cellwise::MultigridParameters parameters;
        parameters.dirichlet_ids = dirichlet_ids;
        if (coefficient)
          parameters.coefficient = step37_coefficient;
        if (patch)
          {
            parameters.smoother = cellwise::SmootherType::patch;
            parameters.outer    = cellwise::OuterIteration::stationary;
          }
        if (patch && colorize) // Neumann faces: the boundary DoFs are unknowns the patches never write
          {
            expect_refusal("  cellwise, vertex patch, with Neumann faces", [&]() {
              cellwise::dealii::MultigridPreconditioner refused(dof_handler, parameters);
            }, out);
            continue;
          }
        // a solve of the cell-wise outer iteration by @p solver, to 1e-12,
        // reported as "<what>: N iterations, solution equals deal.II's"
        const auto solve_and_report = [&](const auto &solver, const std::string &what) {
          Vector        solution(owned, relevant, comm);
          SolverControl control(100, 1e-12 * rhs.l2_norm());
          solver.solve(solution, rhs, control);
          Vector difference(owned, comm);
          difference.copy_locally_owned_data_from(solution);
          difference -= expected;
          out << "  " << what << ": " << control.last_step() << " iterations, solution equals deal.II's to 1e-9: "
              << (difference.linfty_norm() / expected.linfty_norm() < 1e-9 ? "yes" : "no") << std::endl;
        };
        const cellwise::dealii::MultigridPreconditioner solver(dof_handler, parameters);
        solve_and_report(solver, patch ? "cellwise, vertex patch, stationary" : "cellwise, Chebyshev, CG");
        if (!patch && compare_partition)
          {
            // deal.II's partition as the distributed solver takes it
            // (DealiiBoxPartition) against the one the core computes from
            // the counts alone (BoxPartition, as the main program and the
            // machines without deal.II use it)
            const cellwise::dealii::DealiiBoxPartition taken(tria);
            const cellwise::BoxPartition morton(taken.box(), refinements, int(Utilities::MPI::n_mpi_processes(comm)));
            bool                         equal = true;
            for (unsigned int l = 0; l <= refinements; ++l)
              for (std::uint64_t c = 0; c < morton.n_cells(l); ++c)
                equal = equal && morton.owner(l, c) == taken.partition()->owner(l, c);
            out << "  partition: deal.II's level subdomains, each rank its own cells, "
                << (equal ? "equal" : "not equal") << " to cellwise's Morton partition" << std::endl;
          }
        if (!patch)
          {
            // the cycle as the preconditioner of deal.II's CG on deal.II's
            // matrix (step-37's use): the V-cycle is the serial one, so the
            // iteration count is the same on every number of ranks
            // — the front door on one rank sets up the serial solver
            // (uniform, or local smoothing where the mesh has hanging
            // nodes) and on several the distributed one: the same counts
            // either way
            Vector        x(owned, comm);
            SolverControl outer_control(100, 1e-12 * rhs.l2_norm());
            SolverCG<Vector>(outer_control).solve(matrix, x, rhs, solver);
            constraints.distribute(x); // (the hanging DoFs of the condensed system)
            x -= expected;
            out << "  deal.II's CG on its matrix, cellwise V-cycle as preconditioner: " << outer_control.last_step()
                << " iterations, solution equals deal.II's to 1e-9: "
                << (x.linfty_norm() / expected.linfty_norm() < 1e-9 ? "yes" : "no") << std::endl;
            // and the front door's own solve (the cell-wise outer CG) again,
            // after its vmults
            solve_and_report(solver, "front door's solve");
          }
      }
  }
  void
  refusals(std::ostream &out)
  {
    const MPI_Comm                          comm = MPI_COMM_WORLD;
    parallel::distributed::Triangulation<3> tria(comm,
                                                 Triangulation<3>::limit_level_difference_at_vertices,
                                                 parallel::distributed::Triangulation<3>::construct_multigrid_hierarchy);
    GridGenerator::subdivided_hyper_rectangle(tria, {2, 1, 1}, Point<3>(0., 0., 0.), Point<3>(2., 1., 1.));
    tria.refine_global(2);
    FE_Q<3>       fe(2);
    DoFHandler<3> dof_handler(tria);
    dof_handler.distribute_dofs(fe);
    dof_handler.distribute_mg_dofs();
    const cellwise::dealii::MultigridPreconditioner solver(dof_handler);

    // a vector of another layout than the DoFHandler's: one more entry,
    // owned by the last rank
    expect_refusal("a vector of another layout", [&]() {
      const unsigned int rank = Utilities::MPI::this_mpi_process(comm), size = Utilities::MPI::n_mpi_processes(comm);
      IndexSet           owned(dof_handler.n_dofs() + 1);
      owned.add_indices(dof_handler.locally_owned_dofs());
      if (rank + 1 == size)
        owned.add_index(dof_handler.n_dofs());
      Vector        wrong(owned, comm), solution(wrong);
      SolverControl control(10, 1e-10);
      solver.solve(solution, wrong, control);
    }, out);

    // a Dirichlet id that no face carries
    tria.clear();
    GridGenerator::subdivided_hyper_rectangle(tria, {2, 1, 1}, Point<3>(0., 0., 0.), Point<3>(2., 1., 1.));
    tria.refine_global(2);
    dof_handler.distribute_dofs(fe);
    dof_handler.distribute_mg_dofs();
    expect_refusal("a Dirichlet id that no face carries", [&]() {
      cellwise::MultigridParameters parameters;
      parameters.dirichlet_ids = {0, 7};
      cellwise::dealii::MultigridPreconditioner wrong(dof_handler, parameters);
    }, out);

    // a curved coarse mesh
    tria.clear();
    GridGenerator::hyper_ball(tria);
    tria.refine_global(1);
    dof_handler.distribute_dofs(fe);
    dof_handler.distribute_mg_dofs();
    if (Utilities::MPI::n_mpi_processes(comm) > 1)
      expect_refusal("a curved mesh", [&]() { cellwise::dealii::MultigridPreconditioner curved(dof_handler); }, out);
    else
      {
        const cellwise::dealii::MultigridPreconditioner curved(dof_handler);
        out << "a curved mesh on one rank: taken (" << curved.describe() << ")" << std::endl;
      }
  }
} // namespace

int
main(int argc, char **argv)
{
  Utilities::MPI::MPI_InitFinalize mpi(argc, argv, 1);
  std::ofstream                    out;
  if (Utilities::MPI::this_mpi_process(MPI_COMM_WORLD) == 0)
    out.open("output");
  run({2, 3, {2, 1, 1}}, out);
  run({3, 2, {2, 1, 1}}, out);
  // p4est's trees permuted (deal.II orders the 12 coarse cells 0 1 3 4 6 7
  // 9 10 2 5 8 11), Dirichlet conditions on two faces of six
  run({2, 2, {3, 2, 2}, true, {0, 3}}, out);
  // step-37's variable coefficient at the quadrature points, as deal.II
  // assembles it
  run({3, 2, {2, 1, 1}, false, {0}, true}, out);
  // step-37's first mesh: one family of 8 leaves, which p4est keeps on one
  // rank; the others own no cell
  run({2, 1, {1, 1, 1}, false, {0}, true, false}, out);
  // locally refined: hanging nodes, local smoothing on the hierarchy every
  // rank rebuilds from the ranks' refined cells, deal.II's owners; Q2 with
  // the octant refined twice, Q3 with step-37's coefficient on the
  // 3 x 2 x 2 lattice (trees permuted) refined once there
  run({2, 2, {2, 1, 1}, false, {0}, false, false, 2}, out);
  run({3, 1, {3, 2, 2}, false, {0}, true, false, 1}, out);
  refusals(out);
  return 0;
}
