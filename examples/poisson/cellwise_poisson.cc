// cellwise-poisson: −Δu = f with homogeneous Dirichlet conditions on a box,
// solved by cell-wise geometric multigrid for one or several refinement
// levels; prints a convergence table (as 000 Table 2, 003 Table 1). Under
// `mpirun -np N` the solve is distributed over the ranks (doc/mpi.md).

#include "biharmonic_solve.h"
#include "capability_table.h"
#include "command_line.h"
#include "manufactured_solutions.h"
#include "mpi_session.h"
#include "problem_file_solve.h"
#include "solve_control.h"

#include <cellwise/mesh/adaptive_builder.h>
#include <cellwise/mesh/box_builder.h>
#include <cellwise/mesh/kershaw_map.h>
#include <cellwise/mesh/unstructured_builder.h>
#include <cellwise/storage/dof_numbering.h>
#include <cellwise/multigrid/multigrid_solver.h>
#include <cellwise/multigrid/host_vector_solvers.h>
#include <cellwise/base/setup_times.h>
#include <cellwise/base/system_memory.h>
#include <cellwise/multigrid/memory_estimate.h>
#include <cellwise/operators/function_tools.h>

#include <omp.h>

#include <new>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <functional>
#include <memory>
#include <sstream>
#include <vector>

namespace
{
  using namespace poisson_program;

  struct Row
  {
    int          level;
    unsigned int cells;
    double       dofs;
    unsigned int iterations;
    double       fractional_iterations;
    double       reduction;
    double       contraction;
    double       l2_error;
    double       setup_seconds;
    double       solve_seconds;
  };

  std::string
  format_row(const Row &row, const Row *previous)
  {
    char rate[16] = "    -";
    if (previous)
      std::snprintf(rate, sizeof(rate), "%5.2f", std::log2(previous->l2_error / row.l2_error));
    char line[256];
    std::snprintf(line, sizeof(line), "%2d %10u %12.0f %5u %6.2f %10.2e %8.4f %11.3e %s %9.3f %9.3f %9.2f",
                  row.level, row.cells, row.dofs, row.iterations, row.fractional_iterations, row.reduction,
                  row.contraction, row.l2_error, rate, row.setup_seconds, row.solve_seconds,
                  row.dofs / row.solve_seconds * 1e-6);
    return line;
  }

  /// One adaptive mesh: L global and k local refinements (003 Algorithms 4–5),
  /// on the host or (--backend cuda) on the device; b and the error on the
  /// host either way. DoFs are counted as active cells × p³, as 003 Table 4.
  Row
  solve_adaptive(const ProgramOptions &options, const ManufacturedSolution &solution, const int L)
  {
    using namespace cellwise;
    const auto           setup_start = std::chrono::steady_clock::now();
    LevelHierarchy hierarchy =
      make_adaptive_box_hierarchy(options.box, L, options.adaptive_steps, make_marker(options.marker, options.box));
    // the Kershaw box: every level deformed by the map, which the trilinear
    // mapping represents exactly (so a child's geometry is its parent's, and
    // the hanging faces match); the marker selects on the undeformed box
    if (options.geometry == "kershaw")
      map_hierarchy(hierarchy, 1, kershaw_map(options.kershaw_epsilon, options.kershaw_epsilon));
    const auto solver = make_adaptive_solver(hierarchy, options.degree, options.multigrid, &std::cout);
    const ActiveMesh &mesh = solver->active_mesh();
    std::cout << "  active cells per level:";
    for (unsigned int l = 0; l < hierarchy.n_levels(); ++l)
      std::cout << " " << mesh.active_cells[l].size();
    std::cout << std::endl;
    CellVector<double> b, u(mesh.n_active_cells(), options.degree);
    assemble_right_hand_side(mesh.level, options.degree, solution.right_hand_side, b);
    const double setup_seconds = seconds_since(setup_start);

    const auto control = make_control(options);
    // timed by the solver: on the device between two synchronizations
    const SolveStatistics statistics =
      solve_with_history(*control, [&](cellwise::IterationControl &c) { return solver->solve(u, b, c); });
    Row row;
    row.solve_seconds = solver->last_solve_seconds();
    if (const std::string exchange = exchange_summary(*solver); !exchange.empty())
      std::cout << exchange << std::endl;
    for (unsigned int k = 0; k < statistics.monitor.size(); ++k)
      std::cout << "  iteration " << k << ": η/η_0 = " << statistics.monitor[k] / statistics.monitor[0] << std::endl;
    row.level                 = L;
    row.cells                 = mesh.n_active_cells();
    row.dofs                  = double(mesh.n_active_cells()) * options.degree * options.degree * options.degree;
    row.iterations            = statistics.iterations();
    row.fractional_iterations = statistics.fractional_iterations(options.tolerance);
    row.reduction             = statistics.reduction();
    row.contraction           = statistics.average_contraction();
    row.l2_error              = compute_l2_error(mesh.level, u, solution.solution, true, options.degree + 1);
    row.setup_seconds         = setup_seconds;
    return row;
  }

  const char *table_header = " L      cells         DoFs  iter  frac.  η_n/η_0    ρ      L2 error   rate  setup[s]  solve[s]   MDoF/s";

  /// An error at one level of the refinement range, with the level named.
  struct LevelFailure : std::runtime_error
  {
    LevelFailure(const std::string &what, const bool no_convergence)
      : std::runtime_error(what)
      , no_convergence(no_convergence)
    {}
    bool no_convergence;
  };

  void
  print_summary(const std::vector<Row> &rows)
  {
    std::cout << "\nSummary\n" << table_header << "\n";
    for (std::size_t k = 0; k < rows.size(); ++k)
      std::cout << format_row(rows[k], k > 0 ? &rows[k - 1] : nullptr) << "\n";
    std::cout << std::flush;
  }

  void
  solve_level(const ProgramOptions &options, const ManufacturedSolution &solution, bool on_device, int L, std::vector<Row> &rows);

  /// The cells of the finest level of a uniform run at refinement @p L.
  double
  finest_cells(const ProgramOptions &options, const int L)
  {
    const double coarse = options.geometry == "ball" ? 7. : double(options.box.subdivisions[0]) * options.box.subdivisions[1] *
                                                             options.box.subdivisions[2] - double(options.box.removed.size());
    return coarse * std::ldexp(1., 3 * L);
  }

  /// Refuses refinement @p L before anything is allocated when the estimated
  /// @p memory (host or device) of its solve exceeds the @p available bytes
  /// (negative: unknown, no check), naming the estimate, the limit that
  /// bounds (@p bound: MemAvailable, ulimit -v, a cgroup's limit, ...) and the
  /// largest refinement that fits (a run that the operating system kills, or
  /// that dies of std::bad_alloc after minutes, says nothing).
  void
  check_memory(const char *memory, const double available, const std::string &bound,
               const std::function<double(int)> &estimate, const int L)
  {
    if (available < 0 || estimate(L) <= available)
      return;
    int fits = L - 1;
    while (fits >= 0 && estimate(fits) > available)
      --fits;
    std::ostringstream message;
    message << "the solve needs about " << cellwise::format_bytes(estimate(L)) << " of " << memory
            << " memory (estimated from the mesh and the options), " << cellwise::format_bytes(available)
            << " are available (" << bound << "); ";
    if (fits >= 0)
      message << "the largest refinement that fits is L = " << fits << " (" << cellwise::format_bytes(estimate(fits)) << ")";
    else
      message << "not even L = 0 fits";
    throw cellwise::Error(message.str());
  }

  /// The degree of the mapping of the levels (0: boxes): the ball's curved
  /// cells through a mapping of the element's degree, the Kershaw box's
  /// trilinear cells (solve_level builds them so).
  unsigned int
  mapping_degree(const ProgramOptions &options)
  {
    return options.geometry == "ball" ? options.degree : options.geometry == "kershaw" ? 1u : 0u;
  }

  void
  check_host_memory(const ProgramOptions &options, const int L)
  {
    const cellwise::HostMemoryLimit limit = cellwise::host_memory_limit();
    check_memory("host", limit.known ? double(limit.bytes) : -1., "bounded by " + limit.source, [&](const int l) {
      return cellwise::estimate_host_solve_bytes(finest_cells(options, l), options.degree, options.multigrid,
                                                 mapping_degree(options));
    }, L);
  }

  void
  check_device_memory(const ProgramOptions &options, const int L)
  {
    const double free = double(cellwise::backend_free_memory(cellwise::Backend::cuda));
    check_memory("device", free > 0 ? free : -1., "free on the device", [&](const int l) {
      return cellwise::estimate_device_solve_bytes(finest_cells(options, l), options.degree, options.multigrid,
                                                   mapping_degree(options));
    }, L);
  }

  /// One line on stderr from every rank: the same options on every rank
  /// refuse alike, and every rank says why (the first rank to exit ends the
  /// job, and a rank's message can be lost with it). One write of the whole
  /// line: std::cerr is unbuffered, and the ranks' pieces interleaved
  /// mid-line ("on on 22 MPI ranks").
  void
  refuse_on_every_rank(const std::string &why)
  {
    const std::string line = "cellwise-poisson: " + why + "\n";
    std::fputs(line.c_str(), stderr);
    std::fflush(stderr);
  }

  int
  run(const ProgramOptions &options)
  {
    using namespace cellwise;
    if (options.threads > 0)
      omp_set_num_threads(static_cast<int>(options.threads));
    const bool on_device = options.multigrid.backend == Backend::cuda;
    if (on_device)
      {
        const std::string reason = backend_unavailable_reason(Backend::cuda);
        if (!reason.empty())
          {
            std::cerr << "cellwise-poisson: --backend cuda: " << reason << std::endl;
            return 2;
          }
        std::cout << backend_description(Backend::cuda) << std::endl;
      }

    if (mpi_ranks() > 1 && !options.problem_file.empty())
      {
        refuse_on_every_rank("on " + std::to_string(mpi_ranks()) +
                             " MPI ranks the program does not solve problem files yet (run it on one rank; doc/mpi.md)");
        return 2;
      }
    if (mpi_ranks() > 1)
      std::cout << "  distributed over " << mpi_ranks() << " MPI ranks (doc/mpi.md)" << std::endl;
    if (!options.problem_file.empty())
      return solve_problem_file(options);
    if (options.problem == "biharmonic")
      return solve_biharmonic(options);

    // on the L-shape the solution's period is the coarse cell, so that it
    // vanishes on the re-entrant faces too
    std::array<double, 3> period_upper = options.box.upper;
    if (options.geometry == "lshape")
      for (unsigned int d = 0; d < 3; ++d)
        period_upper[d] = options.box.lower[d] + (options.box.upper[d] - options.box.lower[d]) / options.box.subdivisions[d];
    const ManufacturedSolution solution = options.geometry == "ball" ? make_ball_solution()
                                                                      : make_manufactured_solution(options.solution, options.box.lower, period_upper);
    std::cout << "cellwise-poisson: -Δu = f on [" << options.box.lower[0] << "," << options.box.upper[0] << "]x["
              << options.box.lower[1] << "," << options.box.upper[1] << "]x[" << options.box.lower[2] << ","
              << options.box.upper[2] << "] with " << options.box.subdivisions[0] << "x" << options.box.subdivisions[1]
              << "x" << options.box.subdivisions[2] << " coarse cells";
    if (options.geometry == "lshape")
      std::cout << " without the upper octant (the L-shape of deal.II's hyper_L)";
    else if (options.geometry == "kershaw")
      std::cout << " deformed by the Kershaw map, epsilon " << options.kershaw_epsilon;
    if (options.geometry == "ball")
      std::cout << " (replaced: the unit ball in 7 coarse cells as deal.II's hyper_ball, mapping of degree " << options.degree
                << ", u = 1 - |x|^2)";
    std::cout << ", solution '" << solution.name << "', Q"
              << options.degree << "\n  outer " << to_string(options.multigrid.outer) << ", smoother "
              << to_string(options.multigrid.smoother) << ", cycle " << to_string(options.multigrid.cycle) << ", precision "
              << to_string(options.multigrid.precision) << ", coarse " << to_string(options.multigrid.coarse_solver)
              << ", tolerance " << options.tolerance << ", backend " << options.backend << ", " << omp_get_max_threads()
              << " threads" << std::endl;

    if (options.adaptive_steps > 0)
      {
        std::cout << "  adaptive: " << options.adaptive_steps << " local refinements by the marker '" << options.marker
                  << "' after L global ones; 'cells' are active cells, DoFs ≈ active cells × p³" << std::endl;
      }

    std::vector<Row> rows;
    for (int L = options.min_refinements; L <= options.max_refinements; ++L)
      try
        {
          solve_level(options, solution, on_device, L, rows);
        }
      catch (const std::exception &e)
        {
          // which level failed, and the rows finished before it; the error
          // itself goes to stderr (one line) from main. An allocation that
          // failed although the estimate fit (what the estimate does not
          // count: thread stacks and malloc arenas under ulimit -v, other
          // processes meanwhile) names the limit, not only std::bad_alloc.
          std::string what = e.what();
          if (dynamic_cast<const std::bad_alloc *>(&e) != nullptr)
            {
              const cellwise::HostMemoryLimit limit = cellwise::host_memory_limit();
              what = "out of host memory (" + what + "): an allocation failed with " +
                     (limit.known ? cellwise::format_bytes(double(limit.bytes)) + " available now, bounded by " + limit.source
                                  : std::string("no limit the system reports")) +
                     "; refine less or raise the limit";
            }
          std::cout << "L = " << L << " failed: " << what << std::endl;
          print_summary(rows);
          throw LevelFailure("at L = " + std::to_string(L) + ": " + what,
                             dynamic_cast<const cellwise::NoConvergence *>(&e) != nullptr);
        }
    print_summary(rows);
    return 0;
  }

  void
  solve_level(const ProgramOptions &options, const ManufacturedSolution &solution, const bool on_device, const int L, std::vector<Row> &rows)
  {
    using namespace cellwise;
    if (options.adaptive_steps == 0)
      {
        if (options.geometry != "ball")
          check_box_hierarchy_size(options.box, L); // what a level can hold, then what the machine has
        if (!on_device)
          check_host_memory(options, L);
        else
          check_device_memory(options, L);
      }
    std::cout << "L = " << L << ": setting up" << std::endl;
    if (options.adaptive_steps > 0)
      {
        rows.push_back(solve_adaptive(options, solution, L));
        std::cout << table_header << "\n" << format_row(rows.back(), rows.size() > 1 ? &rows[rows.size() - 2] : nullptr) << std::endl;
        return;
      }
    // the set-up by stage (the solver's own stages are in its log above)
    SetupTimes        times;
    LevelHierarchy    hierarchy;
    FinestLevelSolver target;
    // on ranks a uniform box (the L-shape, the Kershaw box) is built by each
    // rank for its own cells (the ball is refused on ranks)
    const bool partitioned = mpi_ranks() > 1 && options.geometry != "ball";
    if (partitioned)
      times.measure("partition and solver (" + to_string(options.multigrid.backend) + ", each rank its own cells)", [&] {
        target = make_box_partition_solver(options.box, L, options.degree, options.multigrid, &std::cout,
                                           options.geometry == "kershaw"
                                             ? kershaw_map(options.kershaw_epsilon, options.kershaw_epsilon)
                                             : PointMap());
      });
    else
      {
        times.measure("mesh hierarchy (host)", [&] {
          if (options.geometry == "ball") // curved cells through a mapping of the element's degree
            hierarchy = make_unstructured_hierarchy(make_ball_coarse_mesh(), L, options.degree);
          else
            hierarchy = make_box_hierarchy(options.box, L, CellOrdering::child_major);
          if (options.geometry == "kershaw")
            map_hierarchy(hierarchy, 1, kershaw_map(options.kershaw_epsilon, options.kershaw_epsilon));
        });
        times.measure("solver (" + to_string(options.multigrid.backend) + ")",
                      [&] { target.solver = make_solver(hierarchy, options.degree, options.multigrid, &std::cout); });
        target.fine    = &hierarchy.levels.back();
        target.n_cells = target.fine->n_cells();
      }
    const Level                &fine   = *target.fine;
    const HostVectorSolver     &solver = *target.solver;
    CellVector<double>          b, u;
    // u stays empty: the zero initial guess, which a device solver makes on
    // the device (no host vector zeroed, nothing uploaded)
    times.measure(partitioned ? "right-hand side (host, this rank's cells)" : "right-hand side (host)",
                  [&] { assemble_right_hand_side(fine, options.degree, solution.separable_right_hand_side, b); });
    const double setup_seconds = times.total();
    times.print(std::cout, "set-up of the program");

    const auto control = make_control(options);
    // timed by the solver: on the device between two synchronizations; the
    // call itself also copies b and u up and u down
    const auto            call_start = std::chrono::steady_clock::now();
    const SolveStatistics statistics =
      solve_with_history(*control, [&](cellwise::IterationControl &c) { return solver.solve(u, b, c); });
    const double call_seconds  = std::chrono::duration<double>(std::chrono::steady_clock::now() - call_start).count();
    const double solve_seconds = solver.last_solve_seconds();
    for (unsigned int k = 0; k < statistics.monitor.size(); ++k)
      std::cout << "  iteration " << k << ": η/η_0 = " << statistics.monitor[k] / statistics.monitor[0] << std::endl;
    std::cout << "  time to solution " << setup_seconds + call_seconds << " s: set-up " << setup_seconds
              << " s, solve call " << call_seconds << " s (the solve " << solve_seconds
              << " s, the rest copies between host and device and checks)" << std::endl;
    // on ranks: the exchange time alone (collective, every rank calls it)
    if (const std::string exchange = exchange_summary(solver); !exchange.empty())
      std::cout << exchange << std::endl;
    // --solves N: the same solve from the same guess again (warm)
    for (unsigned int k = 1; k < options.solves; ++k)
      {
        CellVector<double> again; // the zero guess, as the first solve
        const auto         repeat = make_control(options);
        const auto         result = solver.solve(again, b, *repeat);
        std::cout << "  solve " << k + 1 << " of " << options.solves << ": " << solver.last_solve_seconds() << " s, "
                  << result.iterations() << " iterations (the table reports the first)" << std::endl;
      }
    // host memory: what the set-up and the solve kept resident at most
    // (collective on ranks: the largest rank's)
    const double resident = double(peak_resident_memory()), most_resident = largest_over_ranks(resident);
    std::cout << "  host memory: peak resident " << format_bytes(resident)
              << (mpi_ranks() > 1 ? " on rank 0, the most on a rank " + format_bytes(most_resident) : std::string())
              << (partitioned ? " (each rank its own cells)" : std::string()) << std::endl;
    if (on_device && mpi_ranks() == 1) // the serial device solver counts its memory
      {
        const DeviceMemoryUse memory = solver.memory_use();
        std::cout << "  device memory: set-up " << format_bytes(double(memory.setup)) << ", peak of the solve "
                  << format_bytes(double(memory.peak)) << " ("
                  << double(memory.peak) / (double(fine.n_cells()) * b.dofs_per_cell()) << " B per finest value; estimate "
                  << format_bytes(estimate_device_solve_bytes(fine.n_cells(), options.degree, options.multigrid, mapping_degree(options)))
                  << "), " << format_bytes(double(memory.free_before)) << " free before the set-up" << std::endl;
      }

    Row row;
    row.level = L;
    row.cells = static_cast<unsigned int>(target.n_cells);
    row.dofs  = 1;
    for (unsigned int d = 0; d < 3; ++d)
      row.dofs *= double(options.box.subdivisions[d]) * double(1u << L) * options.degree + 1;
    if (options.geometry == "lshape") // the upper octant's nodes off the faces it shares
      row.dofs -= std::pow(double(1u << L) * options.degree, 3);
    if (options.geometry == "ball")
      row.dofs = make_dof_numbering(fine, options.degree).n_unique;
    row.iterations            = statistics.iterations();
    row.fractional_iterations = statistics.fractional_iterations(options.tolerance);
    row.reduction             = statistics.reduction();
    row.contraction           = statistics.average_contraction();
    // QGauss(p+1) for the error, as the papers' tables (000 Table 2: 2.419e-7 at
    // L = 4); p+2 points give 3.018e-7 there, the same rate.
    row.l2_error              = l2_error(target, u, solution.solution, options.degree + 1);
    row.setup_seconds         = setup_seconds;
    row.solve_seconds         = solve_seconds;
    rows.push_back(row);
    std::cout << table_header << "\n" << format_row(row, rows.size() > 1 ? &rows[rows.size() - 2] : nullptr) << std::endl;
  }
} // namespace

int
main(int argc, char **argv)
{
  // MPI where built with it; `mpirun -np N` runs the distributed solve
  const MpiSession mpi(argc, argv);
  if (const std::string why = mpi.command_line_disagreement(argc, argv); !why.empty())
    {
      refuse_on_every_rank(why);
      return 2;
    }
  ProgramOptions options;
  try
    {
      options = parse_command_line(argc, argv);
    }
  catch (const UsageError &e)
    {
      std::cerr << "cellwise-poisson: " << e.what() << std::endl;
      return 2;
    }
  if (options.help)
    {
      std::cout << usage_text();
      return 0;
    }
  if (options.capabilities)
    {
      print_capability_table(std::cout);
      return 0;
    }
  // the combination of the axes, before anything is built (a problem
  // file's comes from the file: its solver checks it)
  if (options.problem_file.empty())
    if (const std::string why = program_unsupported_reason(program_configuration(options, mpi.size())); !why.empty())
      {
        refuse_on_every_rank(why + " (cellwise-poisson --capabilities lists what runs)");
        return 2;
      }
  int status = 1;
  try
    {
      status = run(options);
    }
  catch (const LevelFailure &e)
    {
      std::cerr << "cellwise-poisson: " << (e.no_convergence ? "" : "error ") << e.what() << std::endl;
      return 1;
    }
  catch (const std::exception &e)
    {
      std::cerr << "cellwise-poisson: error: " << e.what() << std::endl;
      return 1;
    }
  // The results are the point of the run: a failed write (a full disk,
  // > /dev/full) is an error, not a silent success.
  std::cout.flush();
  if (!std::cout)
    {
      std::cerr << "cellwise-poisson: error: writing the results to standard output failed" << std::endl;
      return 1;
    }
  return status;
}
