#include "capability_table.h"

#include <array>
#include <map>
#include <ostream>
#include <vector>

namespace
{
  /// The program's --geometry names of the library's geometries.
  std::string
  geometry_option(const cellwise::MeshGeometry geometry)
  {
    switch (geometry)
      {
        case cellwise::MeshGeometry::box:
          return "box";
        case cellwise::MeshGeometry::lattice:
          return "lshape";
        case cellwise::MeshGeometry::mapped:
          return "kershaw";
        default:
          return "ball";
      }
  }
} // namespace

cellwise::Configuration
program_configuration(const ProgramOptions &options, const int ranks)
{
  using namespace cellwise;
  Configuration c;
  c.equation     = options.problem == "biharmonic" ? Equation::biharmonic : Equation::poisson;
  c.geometry    = options.geometry == "lshape"    ? MeshGeometry::lattice
                  : options.geometry == "kershaw" ? MeshGeometry::mapped
                  : options.geometry == "ball"    ? MeshGeometry::unstructured
                                                  : MeshGeometry::box;
  c.refinement  = options.adaptive_steps > 0 ? MeshRefinement::local : MeshRefinement::uniform;
  c.precision   = options.multigrid.precision;
  c.smoother    = options.multigrid.smoother;
  c.distributed = ranks > 1;
  c.backend     = options.multigrid.backend;
  return c;
}

std::string
program_unsupported_reason(const cellwise::Configuration &configuration)
{
  using namespace cellwise;
  std::string reason = unsupported_reason(configuration);
  if (!reason.empty())
    return reason;
  // what the solvers take but the program cannot build: a locally refined
  // ball (a deal.II program's locally refined curved mesh reaches the host
  // solver through cellwise::dealii or a problem file)
  if (configuration.refinement == MeshRefinement::local && configuration.geometry == MeshGeometry::unstructured)
    return "this program refines box, L-shape and Kershaw meshes locally, not the ball (drop --adaptive-steps; the "
           "solvers take a locally refined curved mesh of a deal.II program on the host)";
  return {};
}

void
print_capability_table(std::ostream &out)
{
  using namespace cellwise;
  // the columns: backend × ranks; the rows: the rest, in the library's order
  const std::array<std::pair<Backend, bool>, 4> columns{
    {{Backend::host, false}, {Backend::host, true}, {Backend::cuda, false}, {Backend::cuda, true}}};
  std::vector<std::string>           reasons; // lettered a, b, ... in order of appearance
  std::map<std::string, std::size_t> letter_of;
  std::array<unsigned int, 4>        supported{};
  unsigned int                       rows = 0;

  out << "| problem | geometry | mesh | precision | smoother | host, 1 rank | host, N ranks | cuda, 1 rank | cuda, N ranks |\n"
      << "|---|---|---|---|---|---|---|---|---|\n";
  for (Configuration row : meaningful_configurations(Backend::host))
    {
      if (row.distributed) // one row per combination of the other axes
        continue;
      ++rows;
      out << "| " << to_string(row.equation) << " | " << geometry_option(row.geometry) << " | " << to_string(row.refinement)
          << " | " << to_string(row.precision) << " | " << to_string(row.smoother) << " |";
      for (std::size_t k = 0; k < columns.size(); ++k)
        {
          row.backend            = columns[k].first;
          row.distributed        = columns[k].second;
          const std::string why  = program_unsupported_reason(row);
          if (why.empty())
            {
              ++supported[k];
              out << " yes |";
              continue;
            }
          auto found = letter_of.find(why);
          if (found == letter_of.end())
            {
              found = letter_of.emplace(why, reasons.size()).first;
              reasons.push_back(why);
            }
          out << " no (" << char('a' + found->second) << ") |";
        }
      out << "\n";
    }
  out << "\nSupported, of " << rows << " combinations per column: host on 1 rank " << supported[0] << ", host on N ranks "
      << supported[1] << ", cuda on 1 rank " << supported[2] << ", cuda on N ranks " << supported[3] << " (host "
      << supported[0] + supported[1] << " and cuda " << supported[2] + supported[3] << " of " << 2 * rows << ").\n\n"
      << "Why not:\n\n";
  for (std::size_t k = 0; k < reasons.size(); ++k)
    out << "- (" << char('a' + k) << ") " << reasons[k] << "\n";
}
