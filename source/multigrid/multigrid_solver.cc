#include <cellwise/base/config.h>
#include <cellwise/multigrid/capabilities.h>
#include <cellwise/multigrid/cell_transfer.h>
#include <cellwise/multigrid/coarse_solvers.h>
#include <cellwise/multigrid/level_smoothers.h>
#include <cellwise/multigrid/mixed_local_smoothing.h>
#include <cellwise/multigrid/mixed_precision.h>
#include <cellwise/multigrid/multigrid_solver.h>
#include <cellwise/multigrid/refinement_edge.h>
#include <cellwise/operators/function_tools.h>
#include <cellwise/storage/dof_numbering.h>
#include <cellwise/storage/dirichlet_mask.h>
#include <cellwise/storage/dss.h>

#include "lagrange_levels.h"

#include <chrono>
#include <iomanip>
#include <ostream>

namespace cellwise
{
  namespace
  {
    unsigned int
    unique_dofs(const Level &level, const unsigned int degree)
    {
      // a box level: (n_x p + 1)(n_y p + 1)(n_z p + 1) would do, but the
      // numbering also counts imported and locally refined coarse levels
      return make_dof_numbering(level, degree).n_unique;
    }
  } // namespace

  void
  check_solver_set_up(const LevelHierarchy &hierarchy, const unsigned int degree, const MultigridParameters &parameters)
  {
    check_degree(degree);
    parameters.check();
    CELLWISE_CHECK(hierarchy.n_levels() > 0, "the level hierarchy is empty");
    if (!parameters.pure_neumann)
      check_dirichlet_ids(hierarchy.level(0), parameters.dirichlet_ids);
    const std::string patch = patch_smoother_refusal(hierarchy.level(0), parameters);
    CELLWISE_CHECK(patch.empty(), patch);
  }

  std::string
  patch_smoother_refusal(const Level &coarse_level, const MultigridParameters &parameters)
  {
    if (parameters.smoother != SmootherType::patch || parameters.pure_neumann) // (pure Neumann: refused by check())
      return {};
    return patch_smoother_refusal(neumann_ids(coarse_level, parameters.dirichlet_ids));
  }

  std::string
  patch_smoother_refusal(const std::vector<unsigned int> &neumann)
  {
    if (neumann.empty())
      return {};
    std::ostringstream why;
    why << "the vertex-patch smoother does not update the DoFs on the boundary, so it needs Dirichlet conditions on all of "
           "it; the faces with boundary id";
    for (const unsigned int id : neumann)
      why << " " << id;
    why << " are Neumann faces: use the Chebyshev or the Jacobi smoother there";
    return why.str();
  }

  void
  check_no_pure_neumann(const MultigridParameters &parameters, const char *solver)
  {
    CELLWISE_CHECK(!parameters.pure_neumann, solver << " does not solve pure Neumann problems; cellwise::MultigridSolver "
                                                       "(host backend, uniform meshes) does");
  }

  void
  check_device_geometry_and_coefficient(const LevelHierarchy &hierarchy, const MultigridParameters &parameters, const char *solver)
  {
    CELLWISE_CHECK(!parameters.coefficient || parameters.coefficient_evaluation == CoefficientEvaluation::cell_average,
                   solver << " takes the coefficient as its cell averages only (its operators have one coefficient per "
                             "cell): set MultigridParameters::coefficient_evaluation = CoefficientEvaluation::cell_average "
                             "(--coefficient-at cell-average), or use the host backend for the coefficient at the quadrature "
                             "points (on uniform meshes cellwise::cuda::MultigridSolver takes them)");
    CELLWISE_CHECK(!parameters.coefficient || parameters.smoother != SmootherType::patch,
                   solver << ": a variable coefficient with the vertex-patch smoother is not available on the CUDA backend yet "
                             "(its patch kernels assume one coefficient per level): use the Chebyshev or Jacobi smoother, or the "
                             "host backend");
    for (const Level &level : hierarchy.levels)
      {
        CELLWISE_CHECK(level.mapping.empty(), solver << " takes axis-aligned box cells only; this level's cells have a mapping "
                                                        "of degree "
                                                     << level.mapping.degree
                                                     << " (curved or deformed cells): use the host backend, which takes them (on "
                                                        "uniform meshes cellwise::cuda::MultigridSolver does too)");
        CELLWISE_CHECK(!level.has_skeleton(), solver << " takes structured meshes only so far: this level of " << level.n_cells()
                                                      << " cells has " << level.skeleton_faces.size()
                                                      << " skeleton faces (an unstructured coarse mesh); use the host backend, which takes them (on "
                                                         "uniform meshes cellwise::cuda::MultigridSolver does too)");
      }
  }

  CoarseSolverType
  coarse_solver_for(const MultigridParameters &parameters, const Level &coarse_level, const unsigned int degree)
  {
    if (parameters.coarse_solver != CoarseSolverType::automatic)
      return parameters.coarse_solver;
    return unique_dofs(coarse_level, degree) <= automatic_cholesky_max_dofs ? CoarseSolverType::cholesky : CoarseSolverType::cg;
  }

  std::string
  describe_coarse_solver(const MultigridParameters &parameters, const Level &coarse_level, const unsigned int degree)
  {
    const CoarseSolverType type = coarse_solver_for(parameters, coarse_level, degree);
    std::string            text = "coarse solver " + to_string(type);
    if (parameters.coarse_solver == CoarseSolverType::automatic)
      text += " (automatic: " + std::to_string(unique_dofs(coarse_level, degree)) + " DoFs, Cholesky up to " +
              std::to_string(automatic_cholesky_max_dofs) + ")";
    return text;
  }

  namespace
  {
    /// The V-cycle with all level components in precision Number; @p
    /// finest, if given, is the finest level's operator, already built (the
    /// outer iteration's in FP64: on curved cells its metric is most of the
    /// set-up).
    template <typename Number>
    std::shared_ptr<VCycle<CellVector<Number>>>
    make_cycle(const LevelHierarchy                            &hierarchy,
               const unsigned int                               degree,
               const MultigridParameters                       &parameters,
               const std::shared_ptr<LaplaceOperator<Number>> &finest,
               std::ostream                                    *log)
    {
      internal::HostLagrangeParts<Number> parts(hierarchy, degree, parameters);
      internal::LagrangeLevels            levels(hierarchy, degree, parameters, parts,
                                                 internal::SmoothedCopies::all_but_dirichlet, finest);
      const VCycleParameters cycle = parameters.cycle_parameters();
      return std::make_shared<VCycle<CellVector<Number>>>(internal::assemble_levels(hierarchy, levels, log), cycle);
    }

    /// The FP32 local-smoothing cycle in its FP64 routing and rebuilding of
    /// the refinement-edge copies (mixed_local_smoothing.h); @p free_masks
    /// receives the levels' smoothing masks in FP64.
    std::shared_ptr<const Preconditioner<CellVector<double>>>
    make_mixed_local_smoothing_cycle(const LevelHierarchy            &hierarchy,
                                     const ActiveMesh                &mesh,
                                     const unsigned int               degree,
                                     const MultigridParameters       &parameters,
                                     std::vector<CellVector<double>> &free_masks,
                                     std::ostream                    *log)
    {
      internal::HostLagrangeParts<float> parts(hierarchy, degree, parameters);
      std::vector<CellVector<float>>     masks;
      internal::LagrangeLevels levels(hierarchy, degree, parameters, parts,
                                      internal::SmoothedCopies::all_but_dirichlet_and_refinement_edge, nullptr, &mesh, &masks);
      auto cycle = std::make_shared<AdaptiveVCycle<float>>(mesh, internal::assemble_levels(hierarchy, levels, log),
                                                           parameters.cycle_parameters());
      for (const CellVector<float> &mask : masks)
        free_masks.emplace_back(mask.n_cells(), degree).copy_from(mask); // 0 and 1: exact

      using Mixed = MixedLocalSmoothingCycle<CellVector<double>, CellVector<float>>;
      typename Mixed::Levels fp64;
      fp64.active_transfer = std::make_shared<HostActiveLevelTransfer<double>>(mesh);
      fp64.transfer        = std::make_shared<CellTransfer<double>>(hierarchy, degree);
      auto skeletons       = std::make_shared<std::vector<DssSkeleton>>();
      for (unsigned int l = 0; l < hierarchy.n_levels(); ++l)
        {
          const Level &level = hierarchy.level(l);
          skeletons->emplace_back(level, degree);
          fp64.make_corrections_consistent = fp64.make_corrections_consistent || level.has_skeleton();
          // (level 0 covers the domain: no refinement edge)
          fp64.edge.push_back(l == 0 ? CellVector<double>() : make_refinement_edge_mask<double>(level, degree));
          CellVector<double> kept(level.n_cells(), degree);
          kept.fill(1.);
          if (l > 0)
            kept.add(-1., fp64.edge.back());
          fp64.kept.push_back(std::move(kept));
        }
      fp64.level_mean = [&hierarchy, skeletons](const unsigned int l, CellVector<double> &v) {
        apply_dss(hierarchy.level(l), (*skeletons)[l], v, DssMode::mean);
      };
      return std::make_shared<Mixed>(std::move(cycle), std::move(fp64));
    }
  } // namespace

  MultigridSolver::MultigridSolver(const LevelHierarchy      &hierarchy,
                                   const unsigned int         degree,
                                   const MultigridParameters &parameters,
                                   std::ostream              *log)
    : hierarchy_(hierarchy)
    , degree_(degree)
    , parameters_(parameters)
  {
    check_solver_set_up(hierarchy, degree, parameters);
    Configuration configuration = configuration_of(hierarchy, parameters);
    configuration.backend       = Backend::host;
    check_supported(configuration, "cellwise::MultigridSolver");
    const auto start = std::chrono::steady_clock::now();
    if (configuration.refinement == MeshRefinement::local)
      set_up_local_smoothing(log);
    else
      set_up_uniform(log);
    if (log)
      *log << "  " << (mesh_ ? "adaptive set-up" : "set-up") << " of " << hierarchy.n_levels() << " levels"
           << (mesh_ ? ", " + std::to_string(mesh_->n_active_cells()) + " active cells" : std::string()) << ": "
           << std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() << " s" << std::endl;
  }

  void
  MultigridSolver::set_up_local_smoothing(std::ostream *log)
  {
    // Curved cells and unstructured coarse meshes need nothing of their own
    // here: the active operator is cell-local (the active mesh keeps each
    // cell's mapping), and every DSS happens on the levels, whose smoothers
    // hold their skeletons.
    check_no_pure_neumann(parameters_, "cellwise::MultigridSolver on a locally refined hierarchy");
    CELLWISE_CHECK(!has_refinement_edge(hierarchy_.level(0)), "level 0 must cover the domain");
    mesh_ = std::make_unique<const ActiveMesh>(make_active_mesh(hierarchy_));
    fine_operator_ = std::make_shared<LaplaceOperator<double>>(mesh_->level, degree_, parameters_.coefficient,
                                                               parameters_.coefficient_evaluation);
    masks_.push_back(internal::make_active_dirichlet_mask<double>(hierarchy_, *mesh_, degree_, parameters_.dirichlet_ids,
                                                                  lagrange_trace_layers(degree_)));
    // the smoother works on the free copies (the refinement edge E_l zero,
    // 003 §5), the coarse solver on the Dirichlet mask of level 0
    if (parameters_.precision == Precision::mixed)
      {
        preconditioner_ = make_mixed_local_smoothing_cycle(hierarchy_, *mesh_, degree_, parameters_, free_masks_, log);
        return;
      }
    internal::HostLagrangeParts<double> parts(hierarchy_, degree_, parameters_);
    internal::LagrangeLevels levels(hierarchy_, degree_, parameters_, parts,
                                    internal::SmoothedCopies::all_but_dirichlet_and_refinement_edge, nullptr, mesh_.get(),
                                    &free_masks_);
    preconditioner_ = std::make_shared<AdaptiveVCycle<double>>(*mesh_, internal::assemble_levels(hierarchy_, levels, log),
                                                               parameters_.cycle_parameters());
  }

  void
  MultigridSolver::set_up_uniform(std::ostream *log)
  {
    const LevelHierarchy      &hierarchy  = hierarchy_;
    const unsigned int         degree     = degree_;
    const MultigridParameters &parameters = parameters_;
    const Level &fine = hierarchy.levels.back();
    fine_skeleton_    = DssSkeleton(fine, degree);
    masks_.push_back(internal::HostLagrangeParts<double>(hierarchy, degree, parameters).dirichlet_mask(hierarchy.n_levels() - 1));
    if (parameters.pure_neumann)
      null_space_ = std::make_shared<ConstantNullSpace<double>>(fine, degree);
    fine_operator_ = std::make_shared<LaplaceOperator<double>>(fine, degree, parameters.coefficient, parameters.coefficient_evaluation);
    if (log)
      *log << "  finest level " << fine_operator_->metric().describe() << std::endl;
    if (parameters.precision == Precision::fp64)
      preconditioner_ = make_cycle<double>(hierarchy, degree, parameters, fine_operator_, log);
    else
      {
        // Without a coefficient the FP32 finest operator's metric is the FP64
        // one rounded, bit for bit (rounded_to_float): on a curved level,
        // evaluating the mapping at every point again was as long as the
        // FP64 operator's set-up.
        const auto finest = parameters.coefficient ? nullptr
                                                   : std::make_shared<LaplaceOperator<float>>(
                                                       fine, degree, rounded_to_float(fine_operator_->metric()));
        auto mixed = std::make_shared<MixedPrecisionPreconditioner<VectorType, CellVector<float>>>(
          make_cycle<float>(hierarchy, degree, parameters, finest, log), CellVector<float>(fine.n_cells(), degree));
        // on unstructured levels the FP32 copies of a DoF differ in their
        // last bits (mixed_precision.h): one value per DoF before widening
        if (fine.has_skeleton())
          mixed->make_corrections_consistent(
            [&fine, this](CellVector<float> &z) { apply_dss(fine, fine_skeleton_, z, DssMode::mean); });
        preconditioner_ = mixed;
      }
  }

  SolveStatistics
  MultigridSolver::solve(VectorType &u, const VectorType &b, IterationControl &control) const
  {
    const auto lock = work_space_lock_.lock("cellwise::MultigridSolver::solve");
    // On the active mesh the mixed cycle rebalances the level right-hand
    // sides itself, after routing the refinement-edge copies to the levels
    // where their sums are small (mixed_local_smoothing.h): a mean DSS of
    // the active residual would keep its hanging copies large.
    const auto mean_dss = [this](VectorType &r) {
      if (!mesh_)
        apply_dss(hierarchy_.levels.back(), fine_skeleton_, r, DssMode::mean);
    };
    if (!null_space_)
      return solve_outer(parameters_, *fine_operator_, fine_operator_->n_cells(), degree_, *preconditioner_, u, b, masks_.back(),
                         control, mean_dss, &work_);
    // Pure Neumann: a compatible right-hand side, residuals kept compatible
    // against rounding, and the solution of zero mean.
    CELLWISE_CHECK(&u != &b, "solve: the solution and the right-hand side must be different vectors");
    VectorType compatible = b;
    null_space_->make_compatible(compatible);
    const SolveStatistics statistics =
      solve_outer(parameters_, *fine_operator_, fine_operator_->n_cells(), degree_, *preconditioner_, u, compatible, masks_.back(),
                  control, mean_dss, &work_,
                  ResidualHook<VectorType>([this](VectorType &r, unsigned int) { null_space_->make_compatible(r); }));
    null_space_->subtract_mean(u);
    return statistics;
  }

  const ActiveMesh &
  MultigridSolver::active_mesh() const
  {
    CELLWISE_CHECK(mesh_, "cellwise::MultigridSolver::active_mesh: the hierarchy is uniformly refined; the solve's cells are its "
                          "finest level");
    return *mesh_;
  }

  const MultigridSolver::VectorType &
  MultigridSolver::free_mask(const unsigned int level) const
  {
    CELLWISE_CHECK(mesh_, "cellwise::MultigridSolver::free_mask: the hierarchy is uniformly refined (no refinement edges; its "
                          "smoothers take the Dirichlet masks)");
    return free_masks_.at(level);
  }

  void
  MultigridSolver::assemble_right_hand_side(const ScalarFunction &f, VectorType &b, const unsigned int n_q_points) const
  {
    ::cellwise::assemble_right_hand_side(solve_level(), degree_, f, b, n_q_points);
  }

  void
  MultigridSolver::interpolate(const ScalarFunction &f, VectorType &u) const
  {
    ::cellwise::interpolate(solve_level(), degree_, f, u);
  }

  double
  MultigridSolver::compute_l2_error(const VectorType &u, const ScalarFunction &exact, const unsigned int n_q_points) const
  {
    return ::cellwise::compute_l2_error(solve_level(), u, exact, false, n_q_points);
  }
} // namespace cellwise
