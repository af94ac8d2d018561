#pragma once
/**
 * @file
 * The cell-wise geometric multigrid solver of the host backend, assembled from
 * the pieces: Laplace operators per level, cell-wise transfers, a smoother per
 * level, an exact or smoother coarse solve, the V-cycle, and the FP64 outer
 * iteration (CG or stationary). Set-up prints its progress to an optional
 * stream.
 *
 * On a uniformly refined hierarchy the solve's cells are the finest level's;
 * on a locally refined one (is_locally_refined) they are the active cells
 * (ActiveMesh: the operator A_act on them, the local-smoothing cycle of
 * adaptive_v_cycle.h, a mask that zeroes the Dirichlet copies, not the
 * hanging ones; doc/adaptive.md). Usage, either way:
 *
 *   MultigridSolver solver(h, degree, parameters, &std::cout);
 *   CellVector<double> b, u;
 *   solver.assemble_right_hand_side(f, b);
 *   SolveStatistics s = solver.solve(u, b, control);
 *   double e = solver.compute_l2_error(u, exact);
 */

#include <cellwise/base/function.h>
#include <cellwise/mesh/level.h>
#include <cellwise/multigrid/adaptive_v_cycle.h>
#include <cellwise/multigrid/coarse_solvers.h>
#include <cellwise/multigrid/multigrid_parameters.h>
#include <cellwise/multigrid/outer_solvers.h>
#include <cellwise/multigrid/v_cycle.h>
#include <cellwise/operators/laplace_operator.h>
#include <cellwise/storage/cell_vector.h>
#include <cellwise/storage/constant_null_space.h>
#include <cellwise/storage/dss.h>

#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

namespace cellwise
{

  /// The checks every solver makes before its set-up: a supported degree,
  /// valid parameters, a non-empty hierarchy, Dirichlet ids that the coarse
  /// mesh carries (check_dirichlet_ids) and no Neumann boundary with the
  /// vertex-patch smoother (patch_smoother_refusal). Throws cellwise::Error.
  void
  check_solver_set_up(const LevelHierarchy &hierarchy, unsigned int degree, const MultigridParameters &parameters);

  /// Why the vertex-patch smoother cannot run with @p parameters on the mesh
  /// of @p coarse_level (empty: it can). It never writes the DoFs on the
  /// boundary (mesh/vertex_patches.h): right for Dirichlet faces, but a
  /// Neumann face's DoFs are unknowns that no level would smooth — the
  /// iteration then stalls or stops on a monitor that does not see them,
  /// with a wrong solution.
  std::string
  patch_smoother_refusal(const Level &coarse_level, const MultigridParameters &parameters);
  /// The same for a boundary whose faces with the ids @p neumann are
  /// Neumann faces (ids as the caller's user knows them).
  std::string
  patch_smoother_refusal(const std::vector<unsigned int> &neumann);

  /// Throws cellwise::Error if @p parameters ask for the pure Neumann problem,
  /// which @p solver does not solve (yet).
  void
  check_no_pure_neumann(const MultigridParameters &parameters, const char *solver);

  /// Throws cellwise::Error unless the box parts of the CUDA backend
  /// (cuda::MultigridSolver's on box cells and on locally refined hierarchies)
  /// take @p parameters' coefficient (none, or
  /// CoefficientEvaluation::cell_average) and the cells of @p hierarchy
  /// (boxes, no mapping): their fused kernels are those of box cells with
  /// one coefficient per cell. The messages name the host backend, and
  /// cuda::MultigridSolver for uniform meshes, which take both. A coefficient with the
  /// vertex-patch smoother is refused too (the device patch kernels take one
  /// coefficient per level).
  void
  check_device_geometry_and_coefficient(const LevelHierarchy &hierarchy, const MultigridParameters &parameters, const char *solver);

  /// The coarse solver of level 0 other than the dense factorization: the
  /// level smoother applied @p n_applications times (CoarseSolverType::
  /// smoother), or CG preconditioned by it to a reduction of 1e-3
  /// (CoarseSolverType::cg, for large coarse levels; the patch smoother
  /// sweeps forward and in reverse per CG step). Host and device.
  template <typename VectorType>
  std::shared_ptr<const CoarseSolver<VectorType>>
  make_smoother_coarse_solver(const MultigridParameters                        &parameters,
                              const CoarseSolverType                            type,
                              std::shared_ptr<const LevelOperator<VectorType>> op,
                              std::shared_ptr<const LevelSmoother<VectorType>> smoother,
                              const VectorType                                &mask,
                              const unsigned int                               n_applications)
  {
    CELLWISE_CHECK(type != CoarseSolverType::amg, "the AMG coarse solver works through deal.II's Trilinos and is built by the "
                                                  "deal.II adapters (cellwise::dealii::MultigridComponents); here use "
                                                  "cholesky or cg");
    if (type == CoarseSolverType::cg)
      return std::make_shared<CgCoarseSolver<VectorType>>(std::move(op), std::move(smoother), mask,
                                                          parameters.smoother == SmootherType::patch);
    return std::make_shared<SmootherCoarseSolver<VectorType>>(std::move(smoother), n_applications);
  }

  /// Largest number of unique DoFs of the coarse level for which
  /// CoarseSolverType::automatic takes the dense Cholesky solve: its set-up
  /// is cubic in the DoFs (measured on the 2-core development machine: 11–13 s
  /// at 3536 free DoFs, 150 s at 8855). Above it the automatic choice is CG
  /// with the level smoother to a reduction of 1e-3 (CgCoarseSolver), which
  /// keeps the outer counts of the exact solve on coarse meshes of 10^4 cells
  /// (tests/unit/solver_test.cc); a fixed number of smoother applications
  /// does not, once the coarse mesh has modes the smoother barely reduces.
  constexpr unsigned int automatic_cholesky_max_dofs = 1500;

  /// The coarse solver that @p parameters ask for on @p coarse_level with
  /// FE_Q(@p degree): automatic resolved by the number of unique DoFs of the
  /// level (automatic_cholesky_max_dofs).
  CoarseSolverType
  coarse_solver_for(const MultigridParameters &parameters, const Level &coarse_level, unsigned int degree);

  /// What the set-up logs about the coarse solver: "coarse solver cholesky"
  /// or, where it was picked, "coarse solver cg (automatic: 8855 DoFs,
  /// Cholesky up to 1500)".
  std::string
  describe_coarse_solver(const MultigridParameters &parameters, const Level &coarse_level, unsigned int degree);

  /**
   * The outer solve shared by the host and CUDA multigrid solvers: reports a
   * NaN or infinity in the right-hand side or the initial guess, rebalances
   * the FP64 residual every k-th iteration in mixed precision (with
   * @p mean_dss, the averaging DSS of the finest level), and runs CG or the
   * stationary iteration as @p parameters say, in the work vectors @p work
   * if given (a solver keeps them between its solves). @p project_residual, if
   * given, acts on every residual after the rebalancing (the pure Neumann
   * solve keeps it compatible there).
   */
  template <typename VectorType, typename MeanDss>
  SolveStatistics
  solve_outer(const MultigridParameters          &parameters,
              const LevelOperator<VectorType>    &A,
              const unsigned int                  n_cells,
              const unsigned int                  degree,
              const Preconditioner<VectorType>   &V,
              VectorType                         &u,
              const VectorType                   &b,
              const VectorType                   &mask,
              IterationControl                   &control,
              const MeanDss                      &mean_dss,
              OuterWorkVectors<VectorType>       *work             = nullptr,
              const ResidualHook<VectorType>     &project_residual = {})
  {
    CELLWISE_CHECK(b.n_cells() == n_cells && b.degree() == degree,
                   "solve: right-hand side of " << b.n_cells() << " cells of degree " << b.degree() << ", the finest level has "
                                                << n_cells << " cells of degree " << degree);
    // An empty u (default-constructed) is the zero initial guess; any other
    // shape is a mistake (a vector of another level or degree) and refused,
    // as is u and b being the same vector, which would overwrite the
    // right-hand side with the iterate.
    CELLWISE_CHECK(&u != &b, "solve: the solution and the right-hand side must be different vectors");
    if (u.n_cells() == 0)
      u.reinit(b);
    CELLWISE_CHECK(u.n_cells() == n_cells && u.degree() == degree,
                   "solve: initial guess of " << u.n_cells() << " cells of degree " << u.degree()
                                              << ", the finest level has " << n_cells << " cells of degree " << degree
                                              << " (an empty vector is taken as the zero guess)");

    // Rebalancing removes the O(1) opposite-sign fluxes from the copies before
    // the residual is rounded to FP32 (000 §4.3–4.4); in FP64 it is optional.
    ResidualHook<VectorType> rebalance;
    const unsigned int       period = parameters.effective_rebalance_period();
    if (parameters.precision == Precision::mixed && period > 0)
      rebalance = [&mean_dss, period, &project_residual](VectorType &r, const unsigned int step) {
        if (step % period == 0)
          mean_dss(r);
        if (project_residual)
          project_residual(r, step);
      };
    else if (project_residual)
      rebalance = project_residual;
    try
      {
        // CG calls the hook at its steps only: between them its
        // preconditioner's step may round the residual in the update's pass
        if (parameters.outer == OuterIteration::cg)
          return solve_cg(A, V, u, b, mask, control, rebalance, rebalance && !project_residual && period > 0 ? period : 1,
                          work);
        return solve_stationary(A, V, u, b, mask, control, rebalance, parameters.stop_on_extrapolated_monitor, work);
      }
    catch (const NoConvergence &e)
      {
        // A NaN or infinity in b or u makes the first monitor non-finite, and
        // the solvers stop there with u unchanged: name the input (two
        // passes over b and u on this error path only, not in every solve).
        if (e.last_step == 0 && !std::isfinite(e.last_value))
          {
            CELLWISE_CHECK(b.all_finite(), "solve: the right-hand side contains NaN or infinite values");
            CELLWISE_CHECK(u.all_finite(), "solve: the initial guess contains NaN or infinite values");
          }
        throw;
      }
  }

  class MultigridSolver
  {
  public:
    using VectorType = CellVector<double>;

    /// Set up on all levels of @p hierarchy (kept by reference). Every
    /// smoother, precision, outer iteration and coarse solver; on a locally
    /// refined hierarchy not yet the pure Neumann problem (cellwise::Error
    /// naming what works: capabilities.h).
    MultigridSolver(const LevelHierarchy &hierarchy, unsigned int degree, const MultigridParameters &parameters, std::ostream *log = nullptr);
    /// The hierarchy is kept by reference: a temporary would dangle.
    MultigridSolver(const LevelHierarchy &&hierarchy, unsigned int degree, const MultigridParameters &parameters, std::ostream *log = nullptr) = delete;

    /// Solve A u = b on the solve's cells (the finest level, or the active
    /// cells) from the given u (an empty u: from zero; on the active mesh
    /// continuous with the hanging-node constraints); b is the dual load
    /// vector, a different vector. Dirichlet entries of u must hold the
    /// boundary values (zero for homogeneous conditions) and are not changed.
    SolveStatistics
    solve(VectorType &u, const VectorType &b, IterationControl &control) const;

    /// b~_K = ∫_K f φ_i on the solve's cells (a dual vector).
    void
    assemble_right_hand_side(const ScalarFunction &f, VectorType &b, unsigned int n_q_points = 0) const;
    /// Nodal interpolation on the solve's cells. On the active mesh not
    /// continuous at hanging nodes in general (use only for Dirichlet data
    /// that is polynomial on the boundary, or for post-processing).
    void
    interpolate(const ScalarFunction &f, VectorType &u) const;
    /// ‖u_h − u‖_L2 over the solve's cells.
    double
    compute_l2_error(const VectorType &u, const ScalarFunction &exact, unsigned int n_q_points = 0) const;

    /// Whether the hierarchy is locally refined (the solve on its active
    /// cells with local smoothing).
    bool
    locally_refined() const
    {
      return mesh_ != nullptr;
    }
    /// The active cells of a locally refined hierarchy (cellwise::Error on
    /// a uniform one, whose solve's cells are its finest level).
    const ActiveMesh &
    active_mesh() const;
    /// The cells of the solve's vectors.
    unsigned int
    n_active_cells() const
    {
      return fine_operator_->n_cells();
    }
    /// Smoother mask of level ℓ of a locally refined hierarchy (1 free, 0 on
    /// Dirichlet and the refinement edge E_ℓ).
    const VectorType &
    free_mask(unsigned int level) const;

    /// The operator of the solve's cells (the finest level's, or A_act).
    const LaplaceOperator<double> &
    fine_operator() const
    {
      return *fine_operator_;
    }
    /// The V-cycle as seen by the FP64 outer iteration (in mixed precision the
    /// FP32 cycle with its conversions).
    const Preconditioner<VectorType> &
    preconditioner() const
    {
      return *preconditioner_;
    }
    /// Dirichlet mask of the solve's cells (1 free, 0 constrained).
    const VectorType &
    dirichlet_mask() const
    {
      return masks_.back();
    }
    const MultigridParameters &
    parameters() const
    {
      return parameters_;
    }
    unsigned int
    degree() const
    {
      return degree_;
    }

  private:
    void
    set_up_uniform(std::ostream *log);
    void
    set_up_local_smoothing(std::ostream *log);
    /// The mesh of the solve's cells: the finest level, or the active cells.
    const Level &
    solve_level() const
    {
      return mesh_ ? mesh_->level : hierarchy_.levels.back();
    }

    /// Serializes the solves of threads that share this object (base/work_space_lock.h).
    WorkSpaceLock work_space_lock_;
    const LevelHierarchy                                 &hierarchy_;
    unsigned int                                          degree_;
    MultigridParameters                                   parameters_;
    std::vector<VectorType>                               masks_;
    /// The active cells (locally refined hierarchies only).
    std::unique_ptr<const ActiveMesh>                     mesh_;
    /// The levels' smoothing masks (locally refined hierarchies only).
    std::vector<VectorType>                               free_masks_;
    /// The skeleton phase of the finest level's DSS (unstructured meshes).
    DssSkeleton                                           fine_skeleton_;
    std::shared_ptr<const ConstantNullSpace<double>>      null_space_; // pure Neumann only
    /// The outer iteration's work vectors, kept between solves.
    mutable OuterWorkVectors<VectorType>                  work_;
    std::shared_ptr<LaplaceOperator<double>>              fine_operator_;
    std::shared_ptr<const Preconditioner<VectorType>>     preconditioner_;
  };
} // namespace cellwise
