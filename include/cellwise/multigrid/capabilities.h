#pragma once
/**
 * @file
 * What the cell-wise multigrid solves, written down once: a Configuration is
 * one combination of the axes a user chooses (problem and element, kind of
 * mesh, uniform or locally refined, precision, smoother, one or several MPI
 * ranks, backend), and unsupported_reason() says for each whether the solvers
 * take it or why not. Every solver checks its configuration here before its
 * set-up (check_supported), so a refusal has one wording wherever it comes
 * from, and the table that `cellwise-poisson --capabilities` prints and
 * doc/capabilities.md shows is this function (the ctest
 * `capabilities_table_in_doc` compares the two, and `capabilities_sweep`
 * runs every combination to check that the table tells the truth).
 */

#include <cellwise/multigrid/multigrid_parameters.h>

#include <string>
#include <vector>

namespace cellwise
{
  class LevelHierarchy;

  /// The equation, and with it the element.
  enum class Equation
  {
    poisson,   ///< −∇·(c∇u) = f with FE_Q(p)
    biharmonic ///< Δ²u = f clamped, with the C¹ cubic Hermite element (001)
  };

  /// The cells of the levels.
  enum class MeshGeometry
  {
    box,         ///< axis-aligned box cells of one box (000, 003)
    lattice,     ///< box cells of a lattice with cells removed (deal.II's hyper_L)
    mapped,      ///< a lattice whose cells a mapping deforms (the Kershaw box)
    unstructured ///< coarse cells in different frames, curved (the ball, hyper_shell)
  };

  enum class MeshRefinement
  {
    uniform, ///< every level refines all cells of the one below
    local    ///< locally refined: local smoothing on the active mesh (003 §5)
  };

  /// One combination of the axes a user chooses.
  struct Configuration
  {
    Equation       equation    = Equation::poisson;
    MeshGeometry   geometry    = MeshGeometry::box;
    MeshRefinement refinement  = MeshRefinement::uniform;
    Precision      precision   = Precision::fp64;
    SmootherType   smoother    = SmootherType::chebyshev;
    bool           distributed = false; ///< on more than one MPI rank
    Backend        backend     = Backend::host;
  };

  /// Empty where the solvers take @p configuration, otherwise one sentence
  /// saying what is not built and what would work instead.
  std::string
  unsupported_reason(const Configuration &configuration);

  /// Throws cellwise::Error "@p caller: <the reason>" where @p configuration
  /// is not supported.
  void
  check_supported(const Configuration &configuration, const std::string &caller);

  /// The configuration of a Poisson solve of @p hierarchy with @p parameters
  /// (its geometry from the levels: skeleton faces make it unstructured, a
  /// mapping mapped, else box cells; local refinement from the levels).
  Configuration
  configuration_of(const LevelHierarchy &hierarchy, const MultigridParameters &parameters, bool distributed = false);

  /// Every combination that means something, in the order of the table:
  /// the Poisson problem on the four geometries with the three smoothers,
  /// the biharmonic problem on boxes with its two (Chebyshev–Jacobi and
  /// vertex blocks; damped Jacobi is not a smoother of 001), each uniform
  /// and locally refined, FP64 and mixed, on one and on several ranks, for
  /// @p backend: 112 per backend.
  std::vector<Configuration>
  meaningful_configurations(Backend backend);

  /// "poisson", "biharmonic"; "box", "lattice", "mapped", "unstructured";
  /// "uniform", "local".
  std::string
  to_string(Equation equation);
  std::string
  to_string(MeshGeometry geometry);
  std::string
  to_string(MeshRefinement refinement);
} // namespace cellwise
