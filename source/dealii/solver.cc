#include <cellwise/dealii/solver.h>
#include <cellwise/dealii/vector_transfer.h>

#include <deal.II/lac/la_parallel_vector.h>
#include <deal.II/lac/solver_control.h>

#include <cmath>
#include <functional>
#include <ostream>
#include <utility>
#include <sstream>

namespace cellwise::dealii
{
  DealiiIterationControl::DealiiIterationControl(::dealii::SolverControl &control, const double initial_residual_l2)
    : control_(control)
    , initial_residual_l2_(initial_residual_l2)
  {}

  IterationControl::State
  DealiiIterationControl::check(const unsigned int step, const double value)
  {
    // The scale is fixed at step 0: η_n ‖r₀‖₂/η₀, so that a tolerance meant
    // for ‖r‖₂ (step-37's absolute one) is met by the same reduction of η.
    if (step == 0)
      scale_ = initial_residual_l2_ >= 0 && value > 0 && std::isfinite(value) ? initial_residual_l2_ / value : 1.;
    switch (control_.check(step, value * scale_))
      {
        case ::dealii::SolverControl::iterate:
          return iterate;
        case ::dealii::SolverControl::success:
          return success;
        case ::dealii::SolverControl::failure:
          break;
      }
    return failure;
  }

  std::string
  DealiiIterationControl::failure_reason() const
  {
    std::ostringstream out;
    out << "deal.II's SolverControl reported failure at step " << control_.last_step() << " (value "
        << control_.last_value() << ", limit " << control_.max_steps() << " steps, tolerance " << control_.tolerance()
        << ")";
    return out.str();
  }

  NoConvergenceWithReason::NoConvergenceWithReason(const unsigned int last_step, const double last_value, std::string reason)
    : ::dealii::SolverControl::NoConvergence(last_step, last_value)
    , reason_(std::move(reason))
  {}

  void
  NoConvergenceWithReason::print_info(std::ostream &out) const
  {
    out << "cellwise: " << reason_ << "\n\n";
    ::dealii::SolverControl::NoConvergence::print_info(out);
  }

  MultigridPoissonSolver::MultigridPoissonSolver(const ::dealii::DoFHandler<3, 3> &dof_handler,
                                                 const MultigridParameters        &parameters,
                                                 std::ostream                     *log)
    : dof_handler_(&dof_handler, "cellwise::dealii::MultigridPoissonSolver")
    , imported_(import_dof_handler(dof_handler))
  {
    // MultigridSolver works on the finest level: every active cell must be
    // there (local smoothing on adaptive meshes is not wired up yet).
    const LevelHierarchy &h = imported_.hierarchy;
    CELLWISE_CHECK(h.n_active_cells() == h.level(h.max_level()).n_cells(),
                   "cellwise::dealii::MultigridPoissonSolver: the mesh is locally refined ("
                     << h.n_active_cells() << " active cells, " << h.level(h.max_level()).n_cells()
                     << " on the finest level); this entry point takes globally refined meshes, "
                        "cellwise::dealii::AdaptivePoissonSolver takes locally refined ones");
    solver_ = std::make_unique<MultigridSolver>(h, imported_.degree, parameters, log);
  }

  namespace
  {
    /// ‖b − A u‖₂ in deal.II's numbering without the Dirichlet entries: the
    /// value deal.II's solvers report at step 0 (G^T of the masked residual).
    double
    residual_l2_norm(const LaplaceOperator<double> &A,
                     const CellVector<double>      &dirichlet_mask,
                     const DofMap                  &map,
                     const CellVector<double>      &b,
                     const CellVector<double>      &u,
                     const DealiiVector            &like)
    {
      CellVector<double> r;
      A.residual(r, b, u);
      r.scale(dirichlet_mask);
      DealiiVector assembled;
      assembled.reinit(like);
      gather_transpose_add(map, r, assembled);
      return assembled.l2_norm();
    }

    SolveStatistics
    forward_solve(const std::function<SolveStatistics(IterationControl &)> &solve,
                  ::dealii::SolverControl                                  &control,
                  const double                                              initial_residual_l2)
    {
      DealiiIterationControl forward(control, initial_residual_l2);
      try
        {
          return solve(forward);
        }
      catch (const NoConvergence &e)
        {
          // deal.II's exception type, so that step-37-style code catches it,
          // and the cell-wise solver's reason with it
          throw NoConvergenceWithReason(e.last_step, e.last_value, e.what());
        }
    }
  } // namespace

  SolveStatistics
  MultigridPoissonSolver::solve(DealiiVector &solution, const DealiiVector &rhs, ::dealii::SolverControl &control) const
  {
    CELLWISE_CHECK(&solution != &rhs, "cellwise::dealii::MultigridPoissonSolver::solve: the solution and the right-hand "
                                      "side must be different vectors");
    check_numbering_unchanged(imported_, *dof_handler_, "cellwise::dealii::MultigridPoissonSolver::solve");
    const DofMap &map = imported_.active_dofs.back();
    CellVector<double> b, u;
    scatter_balanced(map, rhs, b);
    gather(map, solution, u);

    const double r0 = residual_l2_norm(solver_->fine_operator(), solver_->dirichlet_mask(), map, b, u, rhs);
    const SolveStatistics statistics =
      forward_solve([&](IterationControl &forward) { return solver_->solve(u, b, forward); }, control, r0);
    solution = 0;
    gather_mean_add(map, u, solution);
    return statistics;
  }

  AdaptivePoissonSolver::AdaptivePoissonSolver(const ::dealii::DoFHandler<3, 3> &dof_handler,
                                               const MultigridParameters        &parameters,
                                               std::ostream                     *log)
    : dof_handler_(&dof_handler, "cellwise::dealii::AdaptivePoissonSolver")
    , imported_(import_dof_handler(dof_handler))
  {
    solver_     = std::make_unique<AdaptiveMultigridSolver>(imported_.hierarchy, imported_.degree, parameters, log);
    active_map_ = make_active_mesh_map(imported_, solver_->active_mesh());
  }

  SolveStatistics
  AdaptivePoissonSolver::solve(DealiiVector &solution, const DealiiVector &rhs, ::dealii::SolverControl &control) const
  {
    CELLWISE_CHECK(&solution != &rhs, "cellwise::dealii::AdaptivePoissonSolver::solve: the solution and the right-hand "
                                      "side must be different vectors");
    check_numbering_unchanged(imported_, *dof_handler_, "cellwise::dealii::AdaptivePoissonSolver::solve");
    CellVector<double> b, u;
    // Balanced: G^T b = rhs; the hanging copies of a plain load vector are
    // routed to the masters by the cycle (C^T), those of a condensed one are 0.
    scatter_balanced(active_map_, rhs, b);
    // The initial guess satisfies the constraints: G of it is conforming.
    gather(active_map_, solution, u);
    const double r0 = residual_l2_norm(solver_->active_operator(), solver_->dirichlet_mask(), active_map_, b, u, rhs);
    const SolveStatistics statistics =
      forward_solve([&](IterationControl &forward) { return solver_->solve(u, b, forward); }, control, r0);
    // Every DoF, hanging ones included: the copies agree (conforming solution).
    solution = 0;
    gather_mean_add(active_map_, u, solution);
    return statistics;
  }
} // namespace cellwise::dealii
