#include "command_line.h"

#include <cellwise/base/config.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <vector>

namespace
{
  /// @p x as the message shows it ("1e-300", "0.5").
  std::string
  format_number(const double x)
  {
    std::ostringstream text;
    text << x;
    return text.str();
  }

  /// The decimal exponent a of what --box may span for @p options' problem:
  /// widths in [1e-a, 1e+a] and coordinates in [-1e+a, 1e+a], so that on the
  /// finest cells (up to 1024 coarse cells times 2^(12 + 10) per axis: h
  /// down to w / 4.3e9) the numbers of the solve stay normal doubles
  /// (1e-308 .. 1e308), and a why for the message:
  /// - Poisson, sine or oscillatory solution: the metric terms h_y h_z / h_x
  ///   (the 1/h² of the Laplacian times the h³ volume) lie within 1e±(3a+10),
  ///   the volumes h³ above 1e-(3a+29), and the right-hand side f h³ ≈
  ///   π² h³ / w_x² up to 1e(3a+2), whose sum of squares over 1e9 values
  ///   (CG's inner products) must stay below 1e308: a <= 49, taken 40;
  /// - the polynomial solution u = Π (x−a)(b−x) grows as width^6: ∫u² up to
  ///   1e15a and the right-hand side's squares down to 1e-(14a+58): a <= 17,
  ///   taken 15;
  /// - the biharmonic problem's Hessian terms h_y h_z / h_x³ and f h³ ≈
  ///   (2π)^4 h³ / w_x^4 up to 1e(5a+3), squared and summed: a <= 29, taken 25.
  std::pair<int, std::string>
  box_range_exponent(const ProgramOptions &options)
  {
    if (options.problem == "biharmonic")
      return {25, "the biharmonic operator's 1/h^4 terms, the h^3 volumes and the sums of squares of the right-hand "
                  "side ~ 1/w^4"};
    if (options.solution == "polynomial")
      return {15, "the polynomial solution ~ w^6, its square integrated over the box and the sums of squares of the "
                  "right-hand side"};
    return {40, "the Laplacian's 1/h^2 metric terms, the h^3 volumes and the sums of squares of the right-hand side ~ 1/w^2"};
  }

  /// Refuses a --box (given as @p value) whose widths or coordinates leave
  /// the range of box_range_exponent, or whose finest cells the library
  /// would refuse (check_box_geometry), before anything is built: otherwise
  /// such boxes showed as "the right-hand side contains NaN" (width 1e-300:
  /// f ~ 1/w² overflows) or "size -nan" (±1e308: the width overflows).
  void
  check_box_range(const ProgramOptions &options, const std::string &value)
  {
    const auto [a, why]     = box_range_exponent(options);
    const double        big = std::pow(10., a), small = 1. / big;
    const char         *axis[3] = {"x", "y", "z"};
    const std::string   range = "widths in [1e-" + std::to_string(a) + ", 1e" + std::to_string(a) +
                              "] and coordinates in [-1e" + std::to_string(a) + ", 1e" + std::to_string(a) + "]";
    const std::string   because = " (allowed are " + range + ", where on cells refined to L = 12 with 1024 subdivisions and 10 "
                                                         "adaptive steps " + why +
                                " stay normal doubles; scale the problem to moderate lengths)";
    for (unsigned int d = 0; d < 3; ++d)
      for (const double x : {options.box.lower[d], options.box.upper[d]})
        if (!(std::abs(x) <= big))
          fail_option("--box", value, "the coordinate " + format_number(x) + " along " + axis[d] + " is beyond ±1e" +
                                        std::to_string(a) + because);
    for (unsigned int d = 0; d < 3; ++d)
      {
        const double width = options.box.upper[d] - options.box.lower[d];
        if (!(width >= small && width <= big))
          fail_option("--box", value, "the width " + format_number(width) + " along " + axis[d] +
                                        (width < small ? " is below 1e-" : " is above 1e") + std::to_string(a) + because);
      }
    try
      {
        cellwise::check_box_geometry(options.box, options.max_refinements + int(options.adaptive_steps));
      }
    catch (const cellwise::Error &e)
      {
        // without the library's " [file.cc:line]"
        const std::string message = e.what();
        fail_option("--box", value, message.substr(0, message.rfind(" [")));
      }
  }

  template <typename Parse>
  auto
  parse_enum(const std::string &option, const std::string &value, Parse parse)
  {
    try
      {
        return parse(value);
      }
    catch (const cellwise::Error &e)
      {
        std::string message = e.what();
        message             = message.substr(0, message.find(" ["));
        throw UsageError(option + ": " + message);
      }
  }
} // namespace

std::string
usage_text()
{
  return R"(Usage: cellwise-poisson [options]
Solves -Δu = f with homogeneous Dirichlet conditions on a box by cell-wise
geometric multigrid, for one or several refinement levels, and prints per level
L, cells, unique DoFs (boundary included), iterations, monitor reduction,
L2 error, rate, set-up and solve time and throughput.

Default: the papers' test: unit cube, u = Π sin(π x_d), f = 3π² u, Q3, L = 2..5,
CG with the Chebyshev-Jacobi V-cycle, tolerance 1e-9 on η/η0.

Options:
  --degree P               polynomial degree 1..8 (default 3)
  --geometry NAME          box | lshape | kershaw | ball (default box):
                           lshape is deal.II's hyper_L, [-1,1]^3 without
                           [0,1]^3 in 7 coarse cells; kershaw the unit cube
                           in 6x2x2 coarse cells deformed by the Kershaw map
                           (the CEED benchmarks' deformed box); ball the unit
                           ball in 7 curved coarse cells in different frames
                           (deal.II's hyper_ball), u = 1 - |x|^2; kershaw and
                           ball: on the cuda backend uniform meshes with
                           --smoother chebyshev or jacobi (one rank); the
                           ball is not refined locally
  --kershaw-epsilon E      the Kershaw parameter in (0, 1] (default 0.3; 1:
                           no deformation)
  --box X0,Y0,Z0,X1,Y1,Z1  the box (default 0,0,0,1,1,1): widths and
                           coordinates within 1e-40..1e40 (polynomial
                           solution 1e±15, biharmonic 1e±25), where the
                           solve's numbers stay normal doubles
  --subdivisions NX,NY,NZ  coarse cells per axis (default 1,1,1)
  --refinements L | L0-L1  refinement level(s) (default 2-5)
  --solution NAME          sine | oscillatory | polynomial (default sine)
  --adaptive-steps K       K local refinements after the L global ones, of
                           the cells the marker selects (default 0)
  --marker NAME            octant | ball | shell (default octant); with
                           --adaptive-steps
  --smoother NAME          jacobi | chebyshev | patch (default chebyshev)
  --smoothing-steps N      smoother applications before and after the coarse
                           correction (default 1)
  --jacobi-omega W         Jacobi damping in (0,2) (default 0.7; with
                           --smoother jacobi)
  --jacobi-steps N         Jacobi steps per smoother application (default 2;
                           with --smoother jacobi)
  --chebyshev-degree K     Chebyshev degree (default 4; with the chebyshev
                           smoother)
  --patch-sweeps N         vertex-patch sweeps per application (default 1;
                           with --smoother patch)
  --coarse NAME            auto | cholesky | smoother | cg (default auto: the
                           dense Cholesky solve up to 1500 coarse DoFs, else
                           cg; the set-up log says which); cg: CG
                           preconditioned by the level smoother to a
                           reduction of 1e-3; smoother: 20 applications of it
  --solver NAME            cg | stationary (default cg)
  --cycle NAME             auto | symmetric | forward: post-smoothing sweeps
                           reverse (symmetric) or forward; auto: symmetric
                           for cg, forward for stationary (default auto)
  --precision NAME         fp64 | mixed: the V-cycle in FP64, or in FP32
                           inside the FP64 outer iteration (default fp64)
  --rebalance WHEN         every | never | K: rebalance the FP64 residual
                           every K-th outer iteration (default: every cycle
                           for stationary, every 3rd for cg)
  --stop-on NAME           measured | extrapolated: stationary iteration
                           stops on η_n or on η_n^2/η_{n-1} (default measured;
                           extrapolated with --solver stationary)
  --tolerance T            relative reduction of η, in (0,1) (default 1e-9)
  --max-iterations N       iteration limit (default 100)
  --solves N               solve N times (default 1) and report each time:
                           the first solve after the set-up pays for first
                           allocations, the others are warm (what the
                           benchmarks report)
  --iterations N           run exactly N outer iterations, ignoring the
                           tolerance (000 Table 3); default: stop on the
                           tolerance
  --problem-file F         solve the problem stored in F (storage/problem_file.h,
                           written by cellwise::dealii::write_problem_file)
                           and report the difference to its stored solution;
                           the file gives mesh, degree and right-hand side,
                           so --degree, --box, --subdivisions, --refinements,
                           --solution, --adaptive-steps and --marker do not
                           go with it
  --problem NAME           poisson | biharmonic (default poisson): biharmonic
                           solves Δ²u = f with u = ∂n u = 0 on the box by the
                           C¹ cubic Hermite element, u = Π sin²(π t_d) with
                           t_d the box coordinate in [0,1], in FP64;
                           --smoother chebyshev (3 stages,
                           --chebyshev-degree) or patch (vertex blocks,
                           --patch-sweeps),
                           --solver cg or stationary, --cycle, --coarse,
                           --adaptive-steps and --marker as for poisson; of
                           the other options it takes --box, --subdivisions,
                           --refinements, --tolerance, --max-iterations,
                           --threads, --backend (both smoothers, uniform
                           and locally refined boxes on either backend),
                           --precision mixed and --rebalance (uniform
                           boxes) and --degree 3
  --backend NAME           host | cuda (default host)
  --threads N              OpenMP threads (default: OpenMP's choice)
  --capabilities           print which combinations of problem, geometry,
                           mesh, precision, smoother, backend and ranks run
                           (doc/capabilities.md), and exit
  --help                   this text

Under mpirun -np N (N > 1) the Poisson solve is distributed over the ranks
(host or --backend cuda, FP64 or --precision mixed, every --smoother, either
--solver; boxes, the L-shape, the Kershaw box on the host; --adaptive-steps
on boxes and the L-shape, mixed precision on the host; doc/mpi.md); use
--threads 1 with one rank per core, and one rank
per GPU. --capabilities lists every combination that runs.
)";
}

ProgramOptions
parse_command_line(const int argc, const char *const *argv)
{
  ProgramOptions           options;
  std::string              box_value;      // --box's value, for the range check after the loop
  std::string              problem_option; // the first option the problem file replaces
  std::vector<std::string> given;          // every option on the line, for --problem biharmonic
  for (int i = 1; i < argc; ++i)
    {
      const std::string option = argv[i];
      if (option == "--help" || option == "-h")
        {
          options.help = true;
          return options;
        }
      if (option == "--capabilities")
        {
          options.capabilities = true;
          return options;
        }
      if (option.rfind("--", 0) != 0)
        throw UsageError("unexpected argument '" + option + "' (options start with --; see --help)");
      if (i + 1 >= argc)
        throw UsageError("option " + option + " needs a value (see --help)");
      const std::string value = argv[++i];
      given.push_back(option);
      for (const char *defines_problem : {"--degree", "--box", "--subdivisions", "--refinements", "--solution", "--adaptive-steps",
                                          "--marker", "--geometry", "--kershaw-epsilon"})
        if (option == defines_problem && problem_option.empty())
          problem_option = option;

      if (option == "--degree")
        options.degree = static_cast<unsigned int>(parse_integer(option, value, cellwise::min_degree, cellwise::max_degree));
      else if (option == "--box")
        {
          box_value        = value;
          const auto parts = split(value, ',');
          if (parts.size() != 6)
            fail_option(option, value, "expected six numbers X0,Y0,Z0,X1,Y1,Z1");
          for (unsigned int d = 0; d < 3; ++d)
            {
              options.box.lower[d] = parse_double(option, parts[d]);
              options.box.upper[d] = parse_double(option, parts[d + 3]);
              if (!(options.box.upper[d] > options.box.lower[d]))
                fail_option(option, value, "each upper coordinate must exceed the lower one");
            }
        }
      else if (option == "--subdivisions")
        {
          const auto parts = split(value, ',');
          if (parts.size() != 3)
            fail_option(option, value, "expected three integers NX,NY,NZ");
          for (unsigned int d = 0; d < 3; ++d)
            options.box.subdivisions[d] = static_cast<unsigned int>(parse_integer(option, parts[d], 1, 1024));
        }
      else if (option == "--refinements")
        {
          const auto parts = split(value, '-');
          // "-1" splits into "" and "1": name the whole value, not the empty part
          for (const std::string &part : parts)
            if (part.empty())
              fail_option(option, value, "expected L or L0-L1 with 0 <= L <= 12");
          if (parts.size() == 1)
            options.min_refinements = options.max_refinements = static_cast<int>(parse_integer(option, parts[0], 0, 12));
          else if (parts.size() == 2)
            {
              options.min_refinements = static_cast<int>(parse_integer(option, parts[0], 0, 12));
              options.max_refinements = static_cast<int>(parse_integer(option, parts[1], 0, 12));
              if (options.min_refinements > options.max_refinements)
                fail_option(option, value, "the range L0-L1 needs L0 <= L1");
            }
          else
            fail_option(option, value, "expected L or L0-L1 with 0 <= L <= 12");
        }
      else if (option == "--geometry")
        {
          if (value != "box" && value != "lshape" && value != "kershaw" && value != "ball")
            fail_option(option, value, "use box, lshape, kershaw or ball");
          options.geometry = value;
        }
      else if (option == "--kershaw-epsilon")
        {
          options.kershaw_epsilon = parse_double(option, value);
          if (!(options.kershaw_epsilon > 0 && options.kershaw_epsilon <= 1))
            fail_option(option, value, "the Kershaw parameter must lie in (0, 1]");
        }
      else if (option == "--solution")
        {
          if (value != "sine" && value != "oscillatory" && value != "polynomial")
            fail_option(option, value, "use sine, oscillatory or polynomial");
          options.solution = value;
        }
      else if (option == "--adaptive-steps")
        options.adaptive_steps = static_cast<unsigned int>(parse_integer(option, value, 0, 10));
      else if (option == "--marker")
        {
          if (value != "octant" && value != "ball" && value != "shell")
            fail_option(option, value, "use octant, ball or shell");
          options.marker = value;
        }
      else if (option == "--smoother")
        options.multigrid.smoother = parse_enum(option, value, cellwise::parse_smoother_type);
      else if (option == "--smoothing-steps")
        options.multigrid.smoothing_steps = static_cast<unsigned int>(parse_integer(option, value, 1, 100));
      else if (option == "--jacobi-omega")
        {
          options.multigrid.jacobi_omega = parse_double(option, value);
          if (!(options.multigrid.jacobi_omega > 0 && options.multigrid.jacobi_omega < 2))
            fail_option(option, value, "the damping must lie in (0, 2)");
        }
      else if (option == "--jacobi-steps")
        options.multigrid.jacobi_steps = static_cast<unsigned int>(parse_integer(option, value, 1, 100));
      else if (option == "--chebyshev-degree")
        {
          options.multigrid.chebyshev_degree = static_cast<unsigned int>(parse_integer(option, value, 1, 100));
          options.chebyshev_degree_given     = true;
        }
      else if (option == "--patch-sweeps")
        options.multigrid.patch_sweeps = static_cast<unsigned int>(parse_integer(option, value, 1, 100));
      else if (option == "--coarse")
        options.multigrid.coarse_solver = parse_enum(option, value, cellwise::parse_coarse_solver_type);
      else if (option == "--solver")
        options.multigrid.outer = parse_enum(option, value, cellwise::parse_outer_iteration);
      else if (option == "--cycle")
        options.multigrid.cycle = parse_enum(option, value, cellwise::parse_cycle_type);
      else if (option == "--precision")
        options.multigrid.precision = parse_enum(option, value, cellwise::parse_precision);
      else if (option == "--rebalance")
        {
          if (value == "every")
            options.multigrid.rebalance_every = 1;
          else if (value == "never")
            options.multigrid.rebalance_every = 0;
          else
            options.multigrid.rebalance_every = static_cast<int>(parse_integer(option, value, 1, 1000));
        }
      else if (option == "--stop-on")
        {
          if (value != "measured" && value != "extrapolated")
            fail_option(option, value, "use measured or extrapolated");
          options.multigrid.stop_on_extrapolated_monitor = value == "extrapolated";
        }
      else if (option == "--tolerance")
        {
          options.tolerance = parse_double(option, value);
          if (!(options.tolerance > 0 && options.tolerance < 1))
            fail_option(option, value, "the tolerance must lie in (0, 1)");
        }
      else if (option == "--iterations")
        options.fixed_iterations = static_cast<unsigned int>(parse_integer(option, value, 1, 100000));
      else if (option == "--max-iterations")
        options.max_iterations = static_cast<unsigned int>(parse_integer(option, value, 1, 100000));
      else if (option == "--solves")
        options.solves = static_cast<unsigned int>(parse_integer(option, value, 1, 1000));
      else if (option == "--backend")
        {
          if (value != "host" && value != "cuda")
            fail_option(option, value, "use host or cuda");
          options.backend           = value;
          options.multigrid.backend = cellwise::parse_backend(value);
        }
      else if (option == "--threads")
        options.threads = static_cast<unsigned int>(parse_integer(option, value, 1, 4096));
      else if (option == "--problem")
        {
          if (value != "poisson" && value != "biharmonic")
            throw UsageError("--problem: '" + value + "' is not one of poisson, biharmonic");
          options.problem = value;
        }
      else if (option == "--problem-file")
        {
          if (value.empty())
            fail_option(option, value, "give a file name");
          options.problem_file = value;
        }
      else
        throw UsageError("unknown option " + option + " (see --help)");
    }
  // Combinations the solvers would refuse only after the mesh is built, or
  // that would run but be wrong for the method: refused here, exit 2.
  const cellwise::MultigridParameters &mg = options.multigrid;
  if (mg.outer == cellwise::OuterIteration::cg && mg.cycle == cellwise::CycleType::forward &&
      mg.smoother == cellwise::SmootherType::patch)
    throw UsageError("--solver cg needs a symmetric preconditioner: the forward cycle with the patch smoother is not "
                     "(use --cycle symmetric, or --solver stationary)");
  if (!options.problem_file.empty() && !problem_option.empty())
    throw UsageError(problem_option + " does not go with --problem-file: the file defines the mesh, the degree and the "
                                      "right-hand side");
  if (options.problem == "biharmonic")
    {
      // the Hermite solver: cubic; Chebyshev-Jacobi or the vertex-block
      // patch smoother; uniform or locally refined boxes, FP64 or (uniform)
      // mixed precision, on either backend (the solvers refuse the rest with
      // their messages)
      for (const std::string &option : given)
        if (option != "--problem" && option != "--box" && option != "--subdivisions" && option != "--refinements" &&
            option != "--tolerance" && option != "--max-iterations" && option != "--threads" && option != "--degree" &&
            option != "--chebyshev-degree" && option != "--smoother" && option != "--solver" && option != "--cycle" &&
            option != "--coarse" && option != "--adaptive-steps" && option != "--marker" && option != "--patch-sweeps" &&
            option != "--backend" && option != "--precision" && option != "--rebalance")
          throw UsageError(option + " does not go with --problem biharmonic (it takes --box, --subdivisions, "
                                    "--refinements, --adaptive-steps, --marker, --smoother, --patch-sweeps, --solver, --cycle, --coarse, "
                                    "--chebyshev-degree, --tolerance, --max-iterations, --threads, --backend, --precision, "
                                    "--rebalance and --degree 3)");
      if (options.degree != 3)
        throw UsageError("--problem biharmonic: the C¹ Hermite element is cubic; --degree " +
                         std::to_string(options.degree) + " is not available (use 3 or leave it out)");
    }
  if (options.geometry != "box")
    {
      // the geometry defines the domain and its coarse mesh
      for (const std::string &option : given)
        if (option == "--box" || option == "--subdivisions")
          throw UsageError(option + " does not go with --geometry " + options.geometry + ", which defines the domain");
      if (options.geometry == "lshape")
        {
          options.box = cellwise::make_lshape_description();
          if (options.solution == "polynomial")
            throw UsageError("--geometry lshape: the polynomial solution does not vanish on the re-entrant faces "
                             "(use sine or oscillatory)");
        }
      else
        {
          if (options.geometry == "kershaw")
            options.box.subdivisions = {{6, 2, 2}}; // the map's kinks at x = k/6, y, z = 1/2
          else
            for (const std::string &option : given)
              if (option == "--solution")
                throw UsageError("--geometry ball has its own solution, u = 1 - |x|^2 (drop --solution)");
        }
    }
  else
    for (const std::string &option : given)
      if (option == "--kershaw-epsilon")
        throw UsageError("--kershaw-epsilon goes with --geometry kershaw");
  // options that would be silently ignored in this combination: refused,
  // naming what they go with
  auto given_option = [&given](const char *name) { return std::find(given.begin(), given.end(), name) != given.end(); };
  if (mg.stop_on_extrapolated_monitor && mg.outer == cellwise::OuterIteration::cg)
    throw UsageError(std::string("--stop-on extrapolated applies to the stationary iteration only; --solver cg") +
                     (given_option("--solver") ? "" : " (the default)") +
                     " stops on the measured monitor (add --solver stationary, or drop --stop-on)");
  if (given_option("--marker") && options.adaptive_steps == 0)
    throw UsageError("--marker selects the cells of the local refinements; add --adaptive-steps K (K >= 1)");
  const std::string smoother = cellwise::to_string(mg.smoother);
  for (const auto &[name, goes_with] : {std::pair<const char *, cellwise::SmootherType>{"--jacobi-omega", cellwise::SmootherType::jacobi},
                                        {"--jacobi-steps", cellwise::SmootherType::jacobi},
                                        {"--chebyshev-degree", cellwise::SmootherType::chebyshev},
                                        {"--patch-sweeps", cellwise::SmootherType::patch}})
    if (given_option(name) && mg.smoother != goes_with)
      throw UsageError(std::string(name) + " sets the " + cellwise::to_string(goes_with) + " smoother, and the smoother is " +
                       smoother + (given_option("--smoother") ? "" : " (the default)") + " (add --smoother " +
                       cellwise::to_string(goes_with) + ", or drop " + name + ")");
  if (options.geometry == "box" && options.problem_file.empty())
    check_box_range(options, box_value.empty() ? "0,0,0,1,1,1" : box_value);
  // the combination of problem, geometry, mesh, precision, smoother,
  // backend and ranks is checked against the capability table in main,
  // where the number of ranks is known
  return options;
}
