#pragma once
// --problem-file of cellwise-poisson: solve the problem stored in a problem
// file (storage/problem_file.h), typically written by a deal.II program, on
// the host or the device, and compare with the solution stored with it.

#include "command_line.h"

/// Returns the exit code (0: solved); throws on errors as the box solves do.
int
solve_problem_file(const ProgramOptions &options);
