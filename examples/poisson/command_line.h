#pragma once
// Options of cellwise-poisson and their parsing. Every malformed or
// out-of-range value raises UsageError with one line naming the option, the
// value and what is allowed.

#include <cellwise/mesh/box_builder.h>
#include <cellwise/multigrid/multigrid_solver.h>

#include "option_values.h"

#include <string>

struct ProgramOptions
{
  unsigned int                  degree           = 3;
  cellwise::BoxDescription      box;
  int                           min_refinements  = 2;
  int                           max_refinements  = 5;
  std::string                   solution         = "sine";
  std::string                   backend          = "host";
  unsigned int                  threads          = 0; // 0: OpenMP default
  double                        tolerance        = 1e-9;
  unsigned int                  adaptive_steps   = 0;
  std::string                   marker           = "octant";
  unsigned int                  max_iterations   = 100;
  unsigned int                  fixed_iterations = 0; // > 0: exactly this many, no tolerance
  unsigned int                  solves           = 1; // > 1: the same solve again, warm
  cellwise::MultigridParameters multigrid;
  /// Non-empty: solve the problem of this file (mesh, degree, right-hand
  /// side and reference solution from it) instead of the box problem.
  std::string                   problem_file;
  /// poisson (-Δu = f, FE_Q) or biharmonic (Δ²u = f clamped, cubic Hermite).
  std::string                   problem = "poisson";
  /// box (--box, --subdivisions), lshape (deal.II's hyper_L: [-1,1]^3
  /// without the upper octant) or kershaw (the unit cube in 6x2x2 coarse
  /// cells deformed by the Kershaw map, mapping degree 1).
  std::string                   geometry        = "box";
  double                        kershaw_epsilon = 0.3;
  /// Whether --chebyshev-degree was given (the biharmonic default is 3).
  bool                          chebyshev_degree_given = false;
  bool                          help = false;
  /// --capabilities: print the capability table and exit.
  bool                          capabilities = false;
};

/// Parse argv; throws UsageError.
ProgramOptions
parse_command_line(int argc, const char *const *argv);

/// The --help text.
std::string
usage_text();
