#pragma once
/**
 * @file
 * The coarse solver of large coarse levels in deal.II programs: the level's
 * matrix assembled on its free DoFs (through the level's numbering, from
 * the cell-wise operator's cell matrices) into a Trilinos matrix, and CG
 * preconditioned by deal.II's TrilinosWrappers::PreconditionAMG to a
 * reduction of the residual by 1e-3 (the inexact coarse solve of 003's large
 * unstructured coarse meshes). MultigridComponents builds it for
 * CoarseSolverType::amg, and for the automatic choice on large Q1 coarse
 * levels (dealii_coarse_solver_for). From Q2 up CG preconditioned by the
 * level smoother (CgCoarseSolver) took less time for its set-up plus ten
 * coarse solves on every coarse level measured (cellwise-benchmark-coarse-solvers,
 * doc/method.md): the assembled high-order matrix is costly to set up and
 * to apply, and ML's aggregation is made for low order.
 */

#include <cellwise/mesh/level.h>
#include <cellwise/multigrid/interfaces.h>
#include <cellwise/multigrid/multigrid_solver.h>
#include <cellwise/operators/laplace_operator.h>
#include <cellwise/storage/cell_vector.h>

#include <memory>
#include <string>

namespace cellwise::dealii
{
  /// Whether deal.II was built with Trilinos (the AMG coarse solver exists).
  bool
  amg_coarse_solver_available();

  /// The coarse solver of deal.II programs: coarse_solver_for, except that
  /// the automatic choice above the Cholesky limit is AMG instead of CG on
  /// Q1 levels where deal.II has Trilinos.
  CoarseSolverType
  dealii_coarse_solver_for(const MultigridParameters &parameters, const Level &coarse_level, unsigned int degree);

  /// For the set-up log, e.g. "coarse solver amg (automatic: 12167 DoFs,
  /// Cholesky up to 1500, AMG above on Q1)".
  std::string
  describe_dealii_coarse_solver(const MultigridParameters &parameters, const Level &coarse_level, unsigned int degree);

  template <typename Number>
  class AmgCoarseSolver : public CoarseSolver<CellVector<Number>>
  {
  public:
    /// @p mask: 1 on free, 0 on Dirichlet copies of the level. Throws
    /// cellwise::Error where deal.II has no Trilinos.
    AmgCoarseSolver(const Level &level, const LaplaceOperator<Number> &op, const CellVector<Number> &mask, double reduction = 1e-3);
    ~AmgCoarseSolver() override;

    /// u ≈ A⁻¹ b on the free DoFs (0 on Dirichlet copies), b dual.
    void
    solve(CellVector<Number> &u, const CellVector<Number> &b) const override;

    unsigned int
    n_free_dofs() const;
    /// CG iterations of the last solve.
    unsigned int
    last_iterations() const;

  private:
    /// Serializes the solves of threads that share this object (base/work_space_lock.h).
    WorkSpaceLock work_space_lock_;
    struct Data;
    std::unique_ptr<Data> data_;
  };
} // namespace cellwise::dealii
