#pragma once
// --problem biharmonic of cellwise-poisson: the clamped biharmonic problem
// Δ²u = f, u = ∂n u = 0 on the box, by the C¹ cubic Hermite element and its
// multigrid (doc/hermite.md), with the manufactured solution
// u = Π_d sin²(π t_d), t_d = (x_d − lower_d) / (upper_d − lower_d).

#include "command_line.h"

/// Returns the exit code (0: solved); throws on errors as the box solves do.
int
solve_biharmonic(const ProgramOptions &options);
