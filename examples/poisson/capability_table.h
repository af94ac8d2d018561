#pragma once
// The capability table of cellwise-poisson (--capabilities): every
// meaningful combination of problem, geometry, uniform or locally refined
// mesh, precision and smoother, with one column per backend and number of
// ranks, each "yes" or the letter of the reason it is refused. The reasons
// are the library's (cellwise::unsupported_reason), and the program's own
// where it builds no such mesh. doc/capabilities.md holds the same text
// (ctest capabilities_table_in_doc), and scripts/capability-sweep.sh runs
// every cell of a column to check that the table tells the truth.

#include "command_line.h"

#include <cellwise/multigrid/capabilities.h>

#include <iosfwd>
#include <string>

/// The configuration that @p options ask for on @p ranks MPI ranks (the
/// geometry by its library name: box, lattice for lshape, mapped for
/// kershaw, unstructured for ball).
cellwise::Configuration
program_configuration(const ProgramOptions &options, int ranks);

/// Empty where cellwise-poisson runs @p configuration, otherwise why not:
/// the library's reason, or the program's own (a mesh it does not build).
std::string
program_unsupported_reason(const cellwise::Configuration &configuration);

/// The table, Markdown, as doc/capabilities.md holds it.
void
print_capability_table(std::ostream &out);
