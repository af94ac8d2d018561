// cellwise-dealii-baseline: the Poisson problem -Δu = f on a box with
// homogeneous Dirichlet conditions, solved side by side in one run by
//
//  (a) step-37's own configuration (deal.II 9.4.1 step-37.cc lines 790–1087):
//      MatrixFree LaplaceOperator (double outer, float levels),
//      MGTransferMatrixFree, mg::SmootherRelaxation<PreconditionChebyshev>
//      degree 5 / range 15 / 10 eigenvalue CG steps, MGCoarseGridApplySmoother
//      (Chebyshev as a solver on level 0), SolverCG with
//      SolverControl(100, 1e-12 ‖b‖₂);
//  (b) cellwise's fast entry point, the solve of
//      cellwise::dealii::MultigridPreconditioner (the whole cell-wise V-cycle
//      and the FP64 outer CG, no deal.II Multigrid in the loop), with all
//      levels in FP64, and
//  (c) the same with the FP32 hierarchy (MultigridParameters::precision =
//      Precision::mixed).
//
// Same mesh (step-37's: the unit cube refined 6 times), same FE_Q(3), same
// right-hand side, same number of threads on one MPI rank. Differences from
// step-37 that every method shares: coefficient 1 (the cell-wise operator is
// the constant-coefficient Laplacian) and f from the exact solution
// u = sin(πx/Lx) sin(πy/Ly) sin(πz/Lz), so that each solution's L2 error can be
// reported.
//
// Stopping tests (they are not the same quantity):
//  (a) deal.II: ‖b − A u‖₂ ≤ 1e-12 ‖b‖₂ (u₀ = 0, so a reduction of ‖r‖₂).
//  (b, c) cellwise: η_n ≤ reduction · η₀ with η = ⟨r, M⁻¹ r⟩^{1/2}, the
//      V-cycle's own monitor (no assembly needed); --cellwise-reduction,
//      default 1e-12.
// For a common yardstick the program evaluates ‖b − A u‖₂/‖b‖₂ of every
// solution with deal.II's double MatrixFree operator afterwards.
//
// With more than one MPI rank (mpirun -n N) only (a) runs: the cell-wise import
// refuses more than one rank until distributed DSS exists.
//
// Options: --degree p (2, 3, 4; default 3), --refinements r (default 6),
// --threads t (per rank; default: all cores / ranks), --box Lx,Ly,Lz
// (default 1,1,1), --cellwise-reduction tol (default 1e-12),
// --dealii-tasks auto|none|partition_partition (MatrixFree's cell loop;
// step-37 uses none, i.e. one thread per rank; auto: none with one thread,
// partition_partition with more), --skip-dealii, --skip-mixed.

#include <cellwise/dealii/multigrid_preconditioner.h>

#include <deal.II/base/conditional_ostream.h>
#include <deal.II/base/index_set.h>
#include <deal.II/base/mpi.h>
#include <deal.II/base/multithread_info.h>
#include <deal.II/base/quadrature_lib.h>
#include <deal.II/distributed/tria.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/mapping_q1.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/lac/affine_constraints.h>
#include <deal.II/lac/la_parallel_vector.h>
#include <deal.II/lac/precondition.h>
#include <deal.II/lac/solver_cg.h>
#include <deal.II/lac/solver_control.h>
#include <deal.II/matrix_free/fe_evaluation.h>
#include <deal.II/matrix_free/matrix_free.h>
#include <deal.II/matrix_free/operators.h>
#include <deal.II/multigrid/mg_coarse.h>
#include <deal.II/multigrid/mg_constrained_dofs.h>
#include <deal.II/multigrid/mg_matrix.h>
#include <deal.II/multigrid/mg_smoother.h>
#include <deal.II/multigrid/mg_transfer_matrix_free.h>
#include <deal.II/multigrid/multigrid.h>

#ifdef _OPENMP
#  include <omp.h>
#endif

#include <array>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "option_values.h"

namespace baseline
{
  using namespace dealii;
  using VectorD = LinearAlgebra::distributed::Vector<double>;
  using VectorF = LinearAlgebra::distributed::Vector<float>;

  struct Options
  {
    unsigned int          degree             = 3;
    unsigned int          refinements        = 6;
    unsigned int          threads            = 0; // 0: cores / ranks
    std::array<double, 3> box                = {{1., 1., 1.}};
    double                cellwise_reduction = 1e-12;
    std::string           dealii_tasks       = "auto";
    bool                  skip_dealii        = false;
    bool                  skip_mixed         = false;
  };

  Options
  parse(int argc, char **argv)
  {
    Options o;
    for (int i = 1; i < argc; ++i)
      {
        const std::string a = argv[i];
        auto              value = [&]() -> std::string {
          if (i + 1 >= argc)
            throw UsageError("option " + a + " needs a value (see --help)");
          return argv[++i];
        };
        // the checked parsers of the main program (examples/common)
        if (a == "--degree")
          o.degree = static_cast<unsigned int>(parse_integer(a, value(), 2, 4));
        else if (a == "--refinements")
          o.refinements = static_cast<unsigned int>(parse_integer(a, value(), 0, 12));
        else if (a == "--threads")
          o.threads = static_cast<unsigned int>(parse_integer(a, value(), 0, 4096));
        else if (a == "--cellwise-reduction")
          {
            o.cellwise_reduction = parse_double(a, value());
            if (!(o.cellwise_reduction > 0 && o.cellwise_reduction < 1))
              fail_option(a, std::to_string(o.cellwise_reduction), "a reduction in (0, 1)");
          }
        else if (a == "--dealii-tasks")
          o.dealii_tasks = value();
        else if (a == "--skip-dealii")
          o.skip_dealii = true;
        else if (a == "--skip-mixed")
          o.skip_mixed = true;
        else if (a == "--box")
          {
            const std::string              text  = value();
            const std::vector<std::string> parts = split(text, ',');
            if (parts.size() != 3)
              fail_option(a, text, "expected Lx,Ly,Lz");
            for (unsigned int d = 0; d < 3; ++d)
              {
                o.box[d] = parse_double(a, parts[d]);
                if (!(o.box[d] > 0))
                  fail_option(a, text, "the lengths must be positive");
              }
          }
        else if (a == "--help" || a == "-h")
          {
            std::cout << "usage: cellwise-dealii-baseline [--degree 2|3|4] [--refinements r] [--threads t]\n"
                         "       [--box Lx,Ly,Lz] [--cellwise-reduction tol] [--dealii-tasks auto|none|partition_partition]\n"
                         "       [--skip-dealii] [--skip-mixed]\n";
            std::exit(0);
          }
        else
          throw UsageError("unknown option " + a + " (see --help)");
      }
    if (o.dealii_tasks != "auto" && o.dealii_tasks != "none" && o.dealii_tasks != "partition_partition")
      fail_option("--dealii-tasks", o.dealii_tasks, "allowed are auto, none, partition_partition");
    return o;
  }

  /// Progress lines with the wall time since the start.
  class Progress
  {
  public:
    explicit Progress(ConditionalOStream &out)
      : out_(out)
      , start_(std::chrono::steady_clock::now())
    {}
    void
    operator()(const std::string &what) const
    {
      out_ << "[" << std::fixed << std::setprecision(1) << std::setw(7) << elapsed() << " s] " << what << std::endl;
      out_.get_stream().unsetf(std::ios_base::floatfield);
    }
    double
    elapsed() const
    {
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    }

  private:
    ConditionalOStream                   &out_;
    std::chrono::steady_clock::time_point start_;
  };

  class Stopwatch
  {
  public:
    Stopwatch()
      : start_(std::chrono::steady_clock::now())
    {}
    double
    seconds() const
    {
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    }

  private:
    std::chrono::steady_clock::time_point start_;
  };

  /// One row of the table.
  struct Result
  {
    std::string  method;
    std::string  stops_on;
    unsigned int iterations = 0;
    double       setup      = 0.;
    double       solve      = 0.;
    double       residual   = 0.; // ‖b − A u‖₂ / ‖b‖₂
    double       l2_error   = 0.;
    double       l2_diff    = -1.; // vs (a); < 0: not available
    VectorD      solution;
  };

  template <int degree>
  class Problem
  {
  public:
    using SystemMatrix = MatrixFreeOperators::LaplaceOperator<3, degree, degree + 1, 1, VectorD>;
    using LevelMatrix  = MatrixFreeOperators::LaplaceOperator<3, degree, degree + 1, 1, VectorF>;

    Problem(const Options &options, ConditionalOStream &out, const Progress &progress)
      : options_(options)
      , out_(out)
      , progress_(progress)
      , triangulation_(MPI_COMM_WORLD,
                       Triangulation<3>::limit_level_difference_at_vertices,
                       parallel::distributed::Triangulation<3>::construct_multigrid_hierarchy)
      , fe_(degree)
      , dof_handler_(triangulation_)
    {}

    void
    run()
    {
      const unsigned int n_ranks = Utilities::MPI::n_mpi_processes(MPI_COMM_WORLD);
      setup_common();

      std::vector<Result> results;
      if (!options_.skip_dealii)
        results.push_back(solve_dealii());
      if (n_ranks == 1)
        {
          results.push_back(solve_cellwise(false));
          if (!options_.skip_mixed)
            results.push_back(solve_cellwise(true));
        }
      else
        out_ << "note: " << n_ranks << " MPI ranks: the cell-wise columns are skipped (the import takes one rank)"
             << std::endl;

      progress_("evaluating residuals and L2 errors");
      for (Result &r : results)
        {
          r.residual = relative_residual(r.solution);
          r.l2_error = l2_norm_of(r.solution, true);
          if (!options_.skip_dealii && &r != &results.front())
            {
              VectorD d = r.solution;
              d -= results.front().solution;
              r.l2_diff = l2_norm_of(d, false);
            }
        }
      print_table(results);
    }

  private:
    void
    setup_common()
    {
      Stopwatch watch;
      std::ostringstream box;
      box << "[0," << options_.box[0] << "]x[0," << options_.box[1] << "]x[0," << options_.box[2] << "]";
      progress_("mesh: box " + box.str() + ", " + std::to_string(options_.refinements) + " global refinements");
      GridGenerator::hyper_rectangle(triangulation_, Point<3>(), Point<3>(options_.box[0], options_.box[1], options_.box[2]));
      triangulation_.refine_global(options_.refinements);
      progress_("distributing DoFs (active and level) for FE_Q(" + std::to_string(degree) + ")");
      dof_handler_.distribute_dofs(fe_);
      dof_handler_.distribute_mg_dofs();
      progress_(std::to_string(dof_handler_.n_dofs()) + " DoFs on " + std::to_string(triangulation_.n_global_active_cells()) +
                " cells, " + std::to_string(triangulation_.n_global_levels()) + " levels");

      const IndexSet relevant = DoFTools::extract_locally_relevant_dofs(dof_handler_);
      constraints_.reinit(relevant);
      DoFTools::make_zero_boundary_constraints(dof_handler_, 0, constraints_);
      constraints_.close();

      progress_("deal.II MatrixFree operator on the finest level (double; also used for the right-hand side and the checks)");
      {
        typename MatrixFree<3, double>::AdditionalData data;
        data.tasks_parallel_scheme = tasks_scheme<double>();
        data.mapping_update_flags  = update_gradients | update_JxW_values | update_quadrature_points;
        auto storage               = std::make_shared<MatrixFree<3, double>>();
        // Quadrature 0: the operator's QGauss(p+1); 1: QGauss(p+2) for the L2 norms.
        const std::vector<QGauss<1>> quadratures = {QGauss<1>(degree + 1), QGauss<1>(degree + 2)};
        const std::vector<const DoFHandler<3> *>             dof_handlers = {&dof_handler_};
        const std::vector<const AffineConstraints<double> *> constraints  = {&constraints_};
        storage->reinit(MappingQ1<3>(), dof_handlers, constraints, quadratures, data);
        system_matrix_.initialize(storage);
      }
      system_matrix_.initialize_dof_vector(rhs_);

      progress_("assembling the right-hand side f = π²(Lx⁻² + Ly⁻² + Lz⁻²) u_exact");
      FEEvaluation<3, degree> phi(*system_matrix_.get_matrix_free());
      for (unsigned int cell = 0; cell < system_matrix_.get_matrix_free()->n_cell_batches(); ++cell)
        {
          phi.reinit(cell);
          for (unsigned int q = 0; q < phi.n_q_points; ++q)
            phi.submit_value(laplacian_factor() * exact(phi.quadrature_point(q)), q);
          phi.integrate_scatter(EvaluationFlags::values, rhs_);
        }
      rhs_.compress(VectorOperation::add);
      rhs_norm_     = rhs_.l2_norm();
      common_setup_ = watch.seconds();
      progress_("common set-up done in " + seconds(common_setup_) + ", ‖b‖₂ = " + sci(rhs_norm_));
    }

    template <typename Number>
    typename MatrixFree<3, Number>::AdditionalData::TasksParallelScheme
    tasks_scheme() const
    {
      using AD = typename MatrixFree<3, Number>::AdditionalData;
      if (options_.dealii_tasks == "none" || (options_.dealii_tasks == "auto" && MultithreadInfo::n_threads() == 1))
        return AD::none;
      return AD::partition_partition;
    }

    double
    laplacian_factor() const
    {
      const double pi = numbers::PI;
      return pi * pi *
             (1. / (options_.box[0] * options_.box[0]) + 1. / (options_.box[1] * options_.box[1]) +
              1. / (options_.box[2] * options_.box[2]));
    }

    VectorizedArray<double>
    exact(const Point<3, VectorizedArray<double>> &x) const
    {
      VectorizedArray<double> u;
      for (unsigned int v = 0; v < VectorizedArray<double>::size(); ++v)
        u[v] = std::sin(numbers::PI * x[0][v] / options_.box[0]) * std::sin(numbers::PI * x[1][v] / options_.box[1]) *
               std::sin(numbers::PI * x[2][v] / options_.box[2]);
      return u;
    }

    /// ‖u − u_exact‖_{L2} (with_exact) or ‖u‖_{L2}, QGauss(p+2).
    double
    l2_norm_of(VectorD &u, const bool with_exact) const
    {
      u.update_ghost_values();
      FEEvaluation<3, degree, degree + 2> phi(*system_matrix_.get_matrix_free(), 0, 1);
      double                              sum = 0.;
      for (unsigned int cell = 0; cell < system_matrix_.get_matrix_free()->n_cell_batches(); ++cell)
        {
          phi.reinit(cell);
          phi.read_dof_values_plain(u);
          phi.evaluate(EvaluationFlags::values);
          VectorizedArray<double> local = 0.;
          for (unsigned int q = 0; q < phi.n_q_points; ++q)
            {
              VectorizedArray<double> e = phi.get_value(q);
              if (with_exact)
                e -= exact(phi.quadrature_point(q));
              local += e * e * phi.JxW(q);
            }
          for (unsigned int v = 0; v < system_matrix_.get_matrix_free()->n_active_entries_per_cell_batch(cell); ++v)
            sum += local[v];
        }
      u.zero_out_ghost_values();
      return std::sqrt(Utilities::MPI::sum(sum, MPI_COMM_WORLD));
    }

    /// ‖b − A u‖₂ / ‖b‖₂ with deal.II's double operator.
    double
    relative_residual(const VectorD &u) const
    {
      VectorD r;
      system_matrix_.initialize_dof_vector(r);
      system_matrix_.vmult(r, u);
      r.sadd(-1., 1., rhs_);
      return r.l2_norm() / rhs_norm_;
    }

    /// (a) step-37's configuration, lines 838–1087 of deal.II 9.4.1's step-37.cc.
    Result
    solve_dealii()
    {
      Result result;
      result.method   = "(a) deal.II step-37 GMG";
      result.stops_on = "‖r‖₂ ≤ 1e-12‖b‖₂";
      Stopwatch watch;
      progress_("(a) deal.II: MatrixFree level operators (float), diagonals");
      const unsigned int             n_levels = triangulation_.n_global_levels();
      MGConstrainedDoFs              mg_constrained_dofs;
      MGLevelObject<LevelMatrix>     mg_matrices(0, n_levels - 1);
      mg_constrained_dofs.initialize(dof_handler_);
      mg_constrained_dofs.make_zero_boundary_constraints(dof_handler_, {0});
      for (unsigned int level = 0; level < n_levels; ++level)
        {
          const IndexSet            relevant = DoFTools::extract_locally_relevant_level_dofs(dof_handler_, level);
          AffineConstraints<double> level_constraints;
          level_constraints.reinit(relevant);
          level_constraints.add_lines(mg_constrained_dofs.get_boundary_indices(level));
          level_constraints.close();
          typename MatrixFree<3, float>::AdditionalData data;
          data.tasks_parallel_scheme = tasks_scheme<float>();
          data.mapping_update_flags  = update_gradients | update_JxW_values | update_quadrature_points;
          data.mg_level              = level;
          auto storage               = std::make_shared<MatrixFree<3, float>>();
          storage->reinit(MappingQ1<3>(), dof_handler_, level_constraints, QGauss<1>(degree + 1), data);
          mg_matrices[level].initialize(storage, mg_constrained_dofs, level);
          mg_matrices[level].compute_diagonal();
        }

      progress_("(a) deal.II: MGTransferMatrixFree");
      MGTransferMatrixFree<3, float> mg_transfer(mg_constrained_dofs);
      mg_transfer.build(dof_handler_);

      progress_("(a) deal.II: Chebyshev(5) smoothers with eigenvalue estimates");
      using Smoother = PreconditionChebyshev<LevelMatrix, VectorF>;
      mg::SmootherRelaxation<Smoother, VectorF>        mg_smoother;
      MGLevelObject<typename Smoother::AdditionalData> smoother_data(0, n_levels - 1);
      for (unsigned int level = 0; level < n_levels; ++level)
        {
          if (level > 0)
            {
              smoother_data[level].smoothing_range     = 15.;
              smoother_data[level].degree              = 5;
              smoother_data[level].eig_cg_n_iterations = 10;
            }
          else
            {
              smoother_data[0].smoothing_range     = 1e-3;
              smoother_data[0].degree              = numbers::invalid_unsigned_int;
              smoother_data[0].eig_cg_n_iterations = mg_matrices[0].m();
            }
          smoother_data[level].preconditioner = mg_matrices[level].get_matrix_diagonal_inverse();
        }
      mg_smoother.initialize(mg_matrices, smoother_data);
      // step-37 estimates the eigenvalues lazily in the first V-cycle, inside
      // its solve time; here they are estimated now, as cellwise does in its
      // set-up, so that both solve times contain V-cycles only.
      for (unsigned int level = 0; level < n_levels; ++level)
        {
          VectorF v;
          mg_matrices[level].initialize_dof_vector(v);
          mg_smoother[level].estimate_eigenvalues(v);
        }

      MGCoarseGridApplySmoother<VectorF> mg_coarse;
      mg_coarse.initialize(mg_smoother);
      mg::Matrix<VectorF> mg_matrix(mg_matrices);
      // step-37's interface matrices are empty on a globally refined mesh
      // (no refinement edges); they are left out.
      Multigrid<VectorF>                                      mg(mg_matrix, mg_coarse, mg_transfer, mg_smoother, mg_smoother);
      PreconditionMG<3, VectorF, MGTransferMatrixFree<3, float>> preconditioner(dof_handler_, mg, mg_transfer);
      SolverControl                                           control(100, 1e-12 * rhs_norm_);
      SolverCG<VectorD>                                       cg(control);
      result.setup = watch.seconds();
      progress_("(a) deal.II: set-up done in " + seconds(result.setup) + "; SolverCG");

      system_matrix_.initialize_dof_vector(result.solution);
      constraints_.set_zero(result.solution);
      Stopwatch solve_watch;
      cg.solve(system_matrix_, result.solution, rhs_, preconditioner);
      constraints_.distribute(result.solution);
      result.solve      = solve_watch.seconds();
      result.iterations = control.last_step();
      progress_("(a) deal.II: " + std::to_string(result.iterations) + " CG iterations in " + seconds(result.solve) +
                ", ‖r‖₂/‖b‖₂ = " + sci(control.last_value() / rhs_norm_));
      return result;
    }

    /// (b, c) cellwise::dealii::MultigridPreconditioner::solve.
    Result
    solve_cellwise(const bool mixed)
    {
      Result result;
      result.method   = mixed ? "(c) cellwise FP32 hierarchy" : "(b) cellwise FP64";
      result.stops_on = "η ≤ " + sci(options_.cellwise_reduction, 0) + "·η₀";
      const std::string tag = mixed ? "(c) cellwise mixed: " : "(b) cellwise FP64: ";

      cellwise::MultigridParameters parameters;
      // step-37's smoother: Chebyshev–Jacobi degree 5, range 15 (the
      // cell-wise coarse solve is exact, Cholesky, on level 0).
      parameters.smoother         = cellwise::SmootherType::chebyshev;
      parameters.chebyshev_degree = 5;
      parameters.smoothing_range  = 15.;
      parameters.outer            = cellwise::OuterIteration::cg;
      parameters.precision        = mixed ? cellwise::Precision::mixed : cellwise::Precision::fp64;

      Stopwatch watch;
      progress_(tag + "import and set-up (smoother " + cellwise::to_string(parameters.smoother) + ", degree " +
                std::to_string(parameters.chebyshev_degree) + ", precision " + cellwise::to_string(parameters.precision) + ")");
      std::ostringstream                              log;
      const cellwise::dealii::MultigridPreconditioner solver(dof_handler_, parameters, &log);
      result.setup = watch.seconds();
      std::istringstream in(log.str());
      for (std::string line; std::getline(in, line);)
        out_ << "            | " << line << std::endl;
      progress_(tag + "set-up done in " + seconds(result.setup) + "; solve");

      system_matrix_.initialize_dof_vector(result.solution);
      ReductionControl control(100, 1e-300, options_.cellwise_reduction);
      Stopwatch        solve_watch;
      const cellwise::SolveStatistics statistics = solver.solve(result.solution, rhs_, control);
      result.solve      = solve_watch.seconds();
      result.iterations = control.last_step();
      progress_(tag + std::to_string(result.iterations) + " CG iterations in " + seconds(result.solve) +
                ", η/η₀ = " + sci(statistics.reduction()));
      return result;
    }

    void
    print_table(const std::vector<Result> &results) const
    {
      const double n_dofs = dof_handler_.n_dofs();
      out_ << "\nFE_Q(" << degree << "), " << dof_handler_.n_dofs() << " DoFs, " << triangulation_.n_global_active_cells()
           << " cells; " << Utilities::MPI::n_mpi_processes(MPI_COMM_WORLD) << " MPI rank(s) x "
           << MultithreadInfo::n_threads() << " thread(s); deal.II MatrixFree cell loop: "
           << (tasks_scheme<double>() == MatrixFree<3, double>::AdditionalData::none ? "none (serial)" : "partition_partition")
           << "; VectorizedArray<double> width " << VectorizedArray<double>::size()
           << "\ncommon set-up (mesh, DoFs, fine MatrixFree operator, right-hand side): " << seconds(common_setup_)
           << "\n\n";
      out_ << "| method | DoFs | stops on | iterations | setup [s] | solve [s] | MDoF/s | ‖b−Au‖₂/‖b‖₂ | L2 error | L2 diff to (a) |\n"
           << "| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n";
      for (const Result &r : results)
        {
          std::ostringstream row;
          row << "| " << r.method << " | " << dof_handler_.n_dofs() << " | " << r.stops_on << " | " << r.iterations << " | "
              << std::fixed << std::setprecision(2) << r.setup << " | " << r.solve << " | " << std::setprecision(3)
              << n_dofs / r.solve * 1e-6 << " | " << sci(r.residual) << " | " << sci(r.l2_error) << " | "
              << (r.l2_diff < 0 ? std::string("—") : sci(r.l2_diff)) << " |";
          out_ << row.str() << "\n";
        }
      if (results.size() > 1 && !options_.skip_dealii)
        {
          out_ << "\ntime to solution (setup + solve) relative to (a):";
          const double t_a = results.front().setup + results.front().solve;
          for (std::size_t i = 1; i < results.size(); ++i)
            out_ << "  " << results[i].method.substr(0, 3) << " " << std::fixed << std::setprecision(2)
                 << (results[i].setup + results[i].solve) / t_a << " (solve alone "
                 << results[i].solve / results.front().solve << ")";
          out_ << "\n";
        }
      out_ << std::defaultfloat << std::flush;
    }

    static std::string
    seconds(const double s)
    {
      std::ostringstream o;
      o << std::fixed << std::setprecision(2) << s << " s";
      return o.str();
    }
    static std::string
    sci(const double v, const int digits = 2)
    {
      std::ostringstream o;
      o << std::scientific << std::setprecision(digits) << v;
      return o.str();
    }

    const Options                          &options_;
    ConditionalOStream                     &out_;
    const Progress                         &progress_;
    parallel::distributed::Triangulation<3> triangulation_;
    FE_Q<3>                                 fe_;
    DoFHandler<3>                           dof_handler_;
    AffineConstraints<double>               constraints_;
    SystemMatrix                            system_matrix_;
    VectorD                                 rhs_;
    double                                  rhs_norm_     = 0.;
    double                                  common_setup_ = 0.;
  };
} // namespace baseline

int
main(int argc, char **argv)
{
  try
    {
      baseline::Options options = baseline::parse(argc, argv);
      // The thread limit of deal.II (TBB); without --threads, deal.II divides
      // the cores of the node among the ranks. OpenMP (cellwise) gets the same.
      dealii::Utilities::MPI::MPI_InitFinalize mpi(argc, argv,
                                                   options.threads > 0 ? options.threads : dealii::numbers::invalid_unsigned_int);
      const unsigned int n_ranks = dealii::Utilities::MPI::n_mpi_processes(MPI_COMM_WORLD);
      options.threads            = dealii::MultithreadInfo::n_threads();
#ifdef _OPENMP
      omp_set_num_threads(static_cast<int>(options.threads));
#endif
      dealii::ConditionalOStream out(std::cout, dealii::Utilities::MPI::this_mpi_process(MPI_COMM_WORLD) == 0);
      const baseline::Progress   progress(out);
      const char                *wait = std::getenv("OMP_WAIT_POLICY");
      progress("cellwise-dealii-baseline: " + std::to_string(n_ranks) + " rank(s) x " +
               std::to_string(dealii::MultithreadInfo::n_threads()) + " thread(s) (deal.II TBB limit and OpenMP), OMP_WAIT_POLICY=" +
               (wait ? wait : "unset"));
      switch (options.degree)
        {
          case 2:
            baseline::Problem<2>(options, out, progress).run();
            break;
          case 3:
            baseline::Problem<3>(options, out, progress).run();
            break;
          case 4:
            baseline::Problem<4>(options, out, progress).run();
            break;
          default:
            throw std::runtime_error("--degree " + std::to_string(options.degree) +
                                     ": this program is compiled for degrees 2, 3, 4 (MatrixFree needs the degree at compile time)");
        }
    }
  catch (const UsageError &e)
    {
      std::cerr << "cellwise-dealii-baseline: " << e.what() << std::endl;
      return 2;
    }
  catch (const std::exception &e)
    {
      std::cerr << "cellwise-dealii-baseline: " << e.what() << std::endl;
      return 1;
    }
  return 0;
}
