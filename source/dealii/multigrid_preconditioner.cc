#include <cellwise/dealii/multigrid_preconditioner.h>
#include <cellwise/dealii/vector_transfer.h>
#include <cellwise/operators/function_tools.h>

#include <deal.II/base/mpi.h>
#include <deal.II/distributed/tria_base.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/mapping_q1.h>
#include <deal.II/lac/affine_constraints.h>
#include <deal.II/lac/la_parallel_vector.h>

#include "multigrid_preconditioner_implementation.h"
#include "poisson_solvers.h"

#include <vector>

namespace cellwise::dealii
{
  namespace
  {
    /// The DoF map of the outer iteration's cells: the finest level's, or
    /// the active cells' on a locally refined mesh.
    const DofMap &
    outer_dof_map(const internal::MultigridPoissonSolver &solver)
    {
      return solver.imported().active_dofs.back();
    }
    const DofMap &
    outer_dof_map(const internal::AdaptivePoissonSolver &solver)
    {
      return solver.active_map();
    }
    /// The outer iteration's cells.
    const Level &
    outer_level(const internal::MultigridPoissonSolver &solver)
    {
      return solver.imported().hierarchy.levels.back();
    }
    const Level &
    outer_level(const internal::AdaptivePoissonSolver &solver)
    {
      return solver.solver().active_mesh().level;
    }

    /// One rank: internal::MultigridPoissonSolver without hanging nodes,
    /// internal::AdaptivePoissonSolver (local smoothing on the active cells) with
    /// them; its cycle on deal.II's vectors through the outer cells' DoF
    /// map, the correction zero on the hanging DoFs.
    template <typename Solver>
    class SerialImplementation : public MultigridPreconditioner::Implementation
    {
    public:
      SerialImplementation(const ::dealii::Mapping<3, 3>    &mapping,
                           const ::dealii::DoFHandler<3, 3> &dof_handler,
                           const MultigridParameters        &parameters,
                           std::ostream                     *log)
        : dof_handler_(dof_handler, "cellwise::dealii::MultigridPreconditioner", "preconditioner")
        , solver_(mapping, dof_handler, parameters, log)
      {
        configuration = configuration_of(solver_.imported().hierarchy, parameters);
        if (!dof_handler.get_triangulation().has_hanging_nodes())
          return;
        ::dealii::AffineConstraints<double> hanging;
        ::dealii::DoFTools::make_hanging_node_constraints(dof_handler, hanging);
        hanging.close();
        for (const auto &line : hanging.get_lines())
          hanging_dofs_.push_back(line.index);
      }

      void
      vmult(DealiiVector &dst, const DealiiVector &src) const override
      {
        check_numbering_unchanged(solver_.imported(), *dof_handler_, "cellwise::dealii::MultigridPreconditioner::vmult");
        const std::size_t n_dofs = outer_dof_map(solver_).n_dofs;
        check_whole_vector(src, n_dofs, "cellwise::dealii::MultigridPreconditioner::vmult (src)");
        check_whole_vector(dst, n_dofs, "cellwise::dealii::MultigridPreconditioner::vmult (dst)");
        // deal.II's vectors as they are: on cuda r goes over and z comes
        // back, once each, and the conversions run on the device
        solver_.numbered().precondition(dst.begin(), src.begin());
        // the correction of the constrained system: zero on the hanging
        // DoFs, which the cycle's conforming correction interpolates (as
        // the distributed path does)
        for (const ::dealii::types::global_dof_index j : hanging_dofs_)
          dst(j) = 0.;
      }

      SolveStatistics
      solve(DealiiVector &solution, const DealiiVector &rhs, ::dealii::SolverControl &control) const override
      {
        dof_handler_.check(); // the front door's name in the error, not the solver's
        return solver_.solve(solution, rhs, control);
      }

      void
      assemble_right_hand_side(const ScalarFunction &f, DealiiVector &rhs, const unsigned int n_q_points) const override
      {
        check_numbering_unchanged(solver_.imported(), *dof_handler_,
                                  "cellwise::dealii::MultigridPreconditioner::assemble_right_hand_side");
        const DofMap &map = outer_dof_map(solver_);
        check_whole_vector(rhs, map.n_dofs, "cellwise::dealii::MultigridPreconditioner::assemble_right_hand_side (rhs)");
        // the cells' integrals on the host's threads, summed into deal.II's
        // DoFs (G^T, one pass: 57 M additions at 2 M cells of Q2)
        CellVector<double> cells;
        ::cellwise::assemble_right_hand_side(outer_level(solver_), map.degree, f, cells, n_q_points);
        rhs = 0.;
        gather_transpose_add(map, cells, rhs);
        for (const auto j : solver_.dirichlet_dofs())
          rhs(j) = 0.;
      }

    private:
      LiveDoFHandler                                          dof_handler_;
      Solver                                                  solver_;
      std::vector<::dealii::types::global_dof_index>          hanging_dofs_;
    };

    std::unique_ptr<const MultigridPreconditioner::Implementation>
    make_implementation(const ::dealii::Mapping<3, 3>    &mapping,
                        const ::dealii::DoFHandler<3, 3> &dof_handler,
                        const MultigridParameters        &parameters,
                        std::ostream                     *log)
    {
      const auto &triangulation = dof_handler.get_triangulation();
      const auto *parallel      = dynamic_cast<const ::dealii::parallel::TriangulationBase<3, 3> *>(&triangulation);
      if (parallel != nullptr && ::dealii::Utilities::MPI::n_mpi_processes(parallel->get_communicator()) > 1)
        {
#ifdef CELLWISE_DEALII_WITH_MPI
          // on ranks the mesh is a lattice of boxes: every mapping gives the
          // same cells there, and the distributed solver refuses the rest
          return internal::make_distributed_implementation(dof_handler, parameters, log);
#else
          throw Error("cellwise::dealii::MultigridPreconditioner: the triangulation is distributed over " +
                      std::to_string(::dealii::Utilities::MPI::n_mpi_processes(parallel->get_communicator())) +
                      " MPI ranks, and this build of cellwise has no MPI (cellwise::mpi); run on one rank or build "
                      "cellwise with MPI");
#endif
        }
      if (triangulation.has_hanging_nodes())
        return std::make_unique<const SerialImplementation<internal::AdaptivePoissonSolver>>(mapping, dof_handler,
                                                                                             parameters, log);
      return std::make_unique<const SerialImplementation<internal::MultigridPoissonSolver>>(mapping, dof_handler,
                                                                                            parameters, log);
    }
  } // namespace

  MultigridPreconditioner::MultigridPreconditioner(const ::dealii::Mapping<3, 3>    &mapping,
                                                   const ::dealii::DoFHandler<3, 3> &dof_handler,
                                                   const MultigridParameters        &parameters,
                                                   std::ostream                     *log)
    : implementation_(make_implementation(mapping, dof_handler, parameters, log))
  {}

  MultigridPreconditioner::MultigridPreconditioner(const ::dealii::DoFHandler<3, 3> &dof_handler,
                                                   const MultigridParameters        &parameters,
                                                   std::ostream                     *log)
    : MultigridPreconditioner(::dealii::StaticMappingQ1<3, 3>::mapping, dof_handler, parameters, log)
  {}

  MultigridPreconditioner::~MultigridPreconditioner() = default;

  void
  MultigridPreconditioner::vmult(DealiiVector &dst, const DealiiVector &src) const
  {
    const auto lock = work_space_lock_.lock("cellwise::dealii::MultigridPreconditioner::vmult");
    CELLWISE_CHECK(&dst != &src, "cellwise::dealii::MultigridPreconditioner::vmult: dst and src must be different vectors");
    implementation_->vmult(dst, src);
  }

  void
  MultigridPreconditioner::assemble_right_hand_side(const ::dealii::Function<3> &f,
                                                    DealiiVector                &rhs,
                                                    const unsigned int           n_q_points) const
  {
    const auto lock = work_space_lock_.lock("cellwise::dealii::MultigridPreconditioner::assemble_right_hand_side");
    CELLWISE_CHECK(f.n_components == 1, "cellwise::dealii::MultigridPreconditioner::assemble_right_hand_side: the function "
                                        "has "
                                          << f.n_components << " components; the Poisson problem's right-hand side has one");
    // (a rule of hundreds of points per direction would run for hours on a
    // large mesh rather than fail)
    CELLWISE_CHECK(n_q_points <= max_right_hand_side_points,
                   "cellwise::dealii::MultigridPreconditioner::assemble_right_hand_side: "
                     << n_q_points << " Gauss points per direction; take 0 (the default, p + 2) or up to "
                     << max_right_hand_side_points);
    // f is called from the host's threads, as deal.II's own parallel loops do
    implementation_->assemble_right_hand_side(
      [&f](const Point &x) { return f.value(::dealii::Point<3>(x[0], x[1], x[2])); }, rhs, n_q_points);
  }

  SolveStatistics
  MultigridPreconditioner::solve(DealiiVector &solution, const DealiiVector &rhs, ::dealii::SolverControl &control) const
  {
    const auto lock = work_space_lock_.lock("cellwise::dealii::MultigridPreconditioner::solve");
    return implementation_->solve(solution, rhs, control);
  }

  const Configuration &
  MultigridPreconditioner::configuration() const
  {
    return implementation_->configuration;
  }

  std::string
  MultigridPreconditioner::describe() const
  {
    const Configuration &c = configuration();
    return std::string("cellwise::dealii::MultigridPreconditioner (") +
           (c.refinement == MeshRefinement::local ? "local smoothing" : "uniform") + ", " + to_string(c.backend) + ", " +
           to_string(c.precision) + ", " + to_string(c.smoother) + ", " +
           (c.distributed ? "distributed over " + std::to_string(implementation_->n_ranks) + " MPI ranks" : "1 rank") + ")";
  }
} // namespace cellwise::dealii
