// The device general Laplacian per geometry form (issue: curved and
// unstructured meshes on the GPU): one application of
// cuda::GeneralLaplaceOperator on n³ cells of FE_Q(p) (default 128³ cells,
// p = 3), each mesh chosen so that every cell has one form — the unit cube
// (cartesian), the cube with a coefficient at the points
// (cartesian_coefficient), a sheared cube (affine), the Kershaw cube with
// ε = 0.3 (general; its metric recomputed from the trilinear nodes, the
// default, and stored), the cube under a smooth wobble through a mapping of
// degree 2 (general, curved; recomputed and stored) — against the box
// operator cuda::LaplaceOperator on the
// cube (the same DoFs) and a float4 copy of an FP64 vector of the mesh in
// the same run. Bytes counted: the cell-wise vector read and written once
// plus every byte of geometry and coefficient (forms, offsets, factors,
// values, nodes), shown per cell-wise value and per unique DoF ((p n + 1)³).
// Next to the copy, chains of FMAs give the same run's arithmetic rate; each
// row's floor is the roofline's time, its bytes at the copy rate or the
// fewest flops of the operator at the FMA rate, whichever is longer (the
// forms that move little geometry are bound by their arithmetic, where a
// fraction of the copy says little). Median of n_runs after 3 warm-up runs,
// CUDA events. The same for the operator of the ball's finest level (the
// solve tables' mesh, in the general solver's forms). Then the whole solve
// on the Kershaw box (6 × 2 × 2 cells refined L times, ε = 0.3;
// cuda::GeneralMultigridSolver, CG with the Chebyshev(4)–Jacobi V-cycle to
// a reduction of the preconditioned residual norm by 1e-8, f = 1): set-up,
// iterations, solve and V-cycle time, unique DoFs per second, FP64 and mixed;
// the same on the ball (7 coarse cells refined L times, mapping degree = p:
// the skeleton phase of the device DSS in every smoothing step). Each row
// with the line kernel and, where it takes the operator (blocked, degrees
// 2..4), the plane kernel. On the ball's finest level also one smoother
// step alone (the plane kernel's fused pass against the line kernel's two).
// Last, the GPU time per component of the ball's
// solve on its largest mesh (cuda::EventTimer), FP64 and mixed, both kernels.
//
// Usage: cellwise-benchmark-geometry [n_runs] [cells per axis] [degree] [largest L] [largest L of the ball]

#include <cellwise/base/config.h>
#include <cellwise/base/cuda_check.h>
#include <cellwise/base/cuda_event_timer.h>
#include <cellwise/mesh/box_builder.h>
#include <cellwise/mesh/cell_mapping.h>
#include <cellwise/mesh/kershaw_map.h>
#include <cellwise/mesh/unstructured_builder.h>
#include <cellwise/multigrid/cuda_multigrid_solver.h>
#include <cellwise/operators/function_tools.h>
#include <cellwise/operators/cuda_general_laplace_operator.h>
#include <cellwise/operators/cuda_laplace_operator.h>
#include <cellwise/storage/cuda_cell_vector.h>
#include <cellwise/storage/dof_numbering.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "benchmark_timing.h"

using namespace cellwise;

namespace
{
  struct Reference
  {
    double copy_bandwidth = 0; ///< bytes/s
    double fp64_rate      = 0; ///< flop/s of FP64 FMA chains
    double fp32_rate      = 0; ///< flop/s of FP32 FMA chains
    double box_time       = 0; ///< seconds of cuda::LaplaceOperator (FP64, same layout)
    double unique_dofs    = 0;
  };

  /// The fewest flops per cell of the general Laplacian by sum factorization
  /// (an FMA as two): 12 one-dimensional contractions of n⁴ multiply-adds
  /// (values to the points along x, y, z, the collocation derivatives there,
  /// and their transposes back) and G g at each of the n³ points, 9
  /// multiply-adds (3 where G is diagonal: cartesian cells). The geometry's
  /// own arithmetic (a recomputed metric) is not counted: a lower bound.
  double
  general_floor_flops(const unsigned int degree, const bool diagonal_metric)
  {
    const double n = degree + 1.;
    return 2. * (12. * n * n * n * n + (diagonal_metric ? 3. : 9.) * n * n * n);
  }

  /// The box operator's: 7 contractions (the Kronecker sum of 1D mass and
  /// stiffness, kernels::apply_laplace_cell).
  double
  box_floor_flops(const unsigned int degree)
  {
    const double n = degree + 1.;
    return 2. * 7. * n * n * n * n;
  }

  /// The roofline's time: the bytes at the same-run copy rate or the flops
  /// at the same-run FMA rate, whichever is longer.
  double
  floor_time(const double bytes, const double flops, const double copy_bandwidth, const double flop_rate)
  {
    return std::max(bytes / copy_bandwidth, flops / flop_rate);
  }

  /// The floor of one application of @p op that moves @p bytes: its cells'
  /// fewest flops by form at the same-run FMA rate of Number, or the bytes
  /// at the copy rate.
  template <typename Number, typename Layout>
  double
  operator_floor(const cuda::GeneralLaplaceOperator<Number, Layout> &op, const unsigned int degree, const double bytes,
                 const Reference &reference)
  {
    // the forms' counts: cartesian, cartesian_coefficient, affine, general
    const auto  &forms = op.form_counts();
    const double flops = double(forms[0] + forms[1]) * general_floor_flops(degree, true) +
                         double(forms[2] + forms[3]) * general_floor_flops(degree, false);
    return floor_time(bytes, flops, reference.copy_bandwidth, sizeof(Number) == 8 ? reference.fp64_rate : reference.fp32_rate);
  }

  template <typename Number, typename Layout>
  void
  row(const char *name, const Level &level, const unsigned int degree, const ScalarFunction &coefficient, const int n_runs,
      const Reference &reference, const cuda::GeneralCellMetric general = cuda::GeneralCellMetric::recomputed)
  {
    using Vector     = CellVector<Number, MemorySpace::CUDA, Layout>;
    const auto start = std::chrono::steady_clock::now();
    cuda::GeneralLaplaceOperator<Number, Layout> op(level, degree, coefficient, CoefficientEvaluation::quadrature_points, general);
    const double setup = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    Vector       x(level.n_cells(), degree), y(level.n_cells(), degree);
    x.fill(Number(1.25));
    const double values = double(level.n_cells()) * x.dofs_per_cell();
    const double bytes  = 2. * values * sizeof(Number) + double(op.metric_bytes());
    const double floor  = operator_floor(op, degree, bytes, reference);
    // the line kernel, then the plane kernel where it takes the operator
    for (const cuda::GeneralKernel kernel : {cuda::GeneralKernel::lines, cuda::GeneralKernel::planes})
      {
        if (kernel == cuda::GeneralKernel::planes && !op.planes_available())
          continue;
        op.use_kernel(kernel);
        const double      seconds = median_time([&] { op.vmult(y, x); }, n_runs);
        const std::string label   = std::string(name) + (kernel == cuda::GeneralKernel::planes ? " [planes]" : "");
        std::printf("%-44s %8.2f %9.1f %9.1f %10.3f %9.1f %8.3f %8.2f %8.2f %8.2f %10.3f %8.3f\n", label.c_str(), setup,
                    double(op.metric_bytes()) / values, double(op.metric_bytes()) / reference.unique_dofs, seconds * 1e3,
                    bytes / seconds * 1e-9, bytes / seconds / reference.copy_bandwidth, reference.unique_dofs / seconds * 1e-9,
                    values / seconds * 1e-9, seconds / reference.box_time, floor * 1e3, floor / seconds);
      }
  }

  /// One step of the Chebyshev smoother alone (smoother_step(), a middle
  /// step: the update d ← α d + β D^{-1} z read and written, u ← u + d, then
  /// r ← b − A u) on @p level in the general solver's forms, with each
  /// kernel: the line kernel's two passes (the update, then the residual)
  /// and the plane kernel's one. Bytes counted: those of the one pass, the
  /// least any kernel moves — u, d, r (holding z), D^{-1} and b read, u, d
  /// and r written (8 vectors), and the geometry; the line kernel's two
  /// passes move one vector more (u written, then read). Floor as in row().
  template <typename Number>
  void
  smoother_step_row(const char *name, const Level &level, const unsigned int degree, const int n_runs, const Reference &reference)
  {
    using Layout = CellBlocked<32>;
    using Vector = CellVector<Number, MemorySpace::CUDA, Layout>;
    cuda::GeneralLaplaceOperator<Number, Layout> op(level, degree, {}, CoefficientEvaluation::quadrature_points,
                                                    cuda::GeneralCellMetric::automatic);
    Vector u(level.n_cells(), degree), r(level.n_cells(), degree), d(level.n_cells(), degree), b(level.n_cells(), degree),
      inverse_diagonal(level.n_cells(), degree);
    // values that stay bounded over the repetitions: a small β keeps the
    // undamped iteration (no DSS here) from growing within the runs
    inverse_diagonal.fill(Number(0.1));
    b.fill(Number(1));
    SmootherStep<Number> step;
    step.alpha        = Number(0.5);
    step.beta         = Number(1e-3);
    step.store_update = true;
    const double values = double(level.n_cells()) * u.dofs_per_cell();
    const double bytes  = 8. * values * sizeof(Number) + double(op.metric_bytes());
    const double floor  = operator_floor(op, degree, bytes, reference);
    for (const cuda::GeneralKernel kernel : {cuda::GeneralKernel::lines, cuda::GeneralKernel::planes})
      {
        if (kernel == cuda::GeneralKernel::planes && !op.planes_available())
          continue;
        op.use_kernel(kernel);
        u.fill(Number(0));
        d.fill(Number(0));
        r.fill(Number(1));
        const double      seconds = median_time([&] { op.smoother_step(u, r, &d, b, inverse_diagonal, step); }, n_runs);
        const std::string label   = std::string(name) + (kernel == cuda::GeneralKernel::planes ? " [planes, one pass]" : " [lines, two passes]");
        std::printf("%-44s %10.3f %9.1f %8.3f %10.3f %8.3f\n", label.c_str(), seconds * 1e3, bytes / seconds * 1e-9,
                    bytes / seconds / reference.copy_bandwidth, floor * 1e3, floor / seconds);
      }
  }

  /// One row of a whole solve on the hierarchy that @p build makes (its
  /// time counted in the set-up): set-up, iterations, solve and V-cycle
  /// time and rate in unique DoFs per second, the finest level's geometry
  /// bytes per unique DoF.
  void
  solve_row(const std::function<LevelHierarchy()> &build, const int L, const unsigned int degree, const Precision precision,
            const int n_runs, const cuda::GeneralKernel kernel, const bool show_setup)
  {
    using Layout = CellBlocked<32>;
    using Vector = cuda::MultigridSolver<Layout>::VectorType;
    const auto           start = std::chrono::steady_clock::now();
    const LevelHierarchy h     = build();
    MultigridParameters  parameters;
    parameters.precision = precision;
    std::ostringstream                         log;
    const cuda::MultigridSolver<Layout> solver(h, degree, parameters, show_setup ? &log : nullptr, nullptr, kernel);
    CELLWISE_CUDA_CHECK(cudaDeviceSynchronize());
    const double       setup = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const Level       &fine  = h.levels.back();
    CellVector<double> host_b;
    assemble_right_hand_side(fine, degree, [](const Point &) { return 1.; }, host_b);
    CellVector<double, MemorySpace::CUDA> staged;
    staged.copy_from_host(host_b);
    Vector b, u, r;
    b.copy_from(staged);
    unsigned int iterations = 0;
    const double solve      = median_time(
      [&] {
        u.reinit(b.n_cells(), b.degree());
        MonitorControl control(200, 1e-8);
        iterations = solver.solve(u, b, control).iterations();
      },
      n_runs, 1);
    const double cycle       = median_time([&] { solver.preconditioner().vmult(r, b); }, n_runs);
    const double unique_dofs = make_dof_numbering(fine, degree).n_unique;
    const auto  &op          = dynamic_cast<const cuda::GeneralLaplaceOperator<double, Layout> &>(solver.fine_operator());
    std::printf("%2d %10u %12.4g %-6s %-6s %9.2f %5u %10.2f %8.3f %9.3f %9.3f %8.1f\n", L, fine.n_cells(), unique_dofs,
                precision == Precision::fp64 ? "FP64" : "mixed", kernel == cuda::GeneralKernel::planes ? "planes" : "lines", setup, iterations, solve * 1e3, unique_dofs / solve * 1e-9,
                cycle * 1e3, unique_dofs / cycle * 1e-9, double(op.metric_bytes()) / unique_dofs);
    if (show_setup)
      {
        // the solver's set-up by stage (its log from "set-up of" on; the
        // hierarchy's construction, in the row's set-up, is not in it)
        std::istringstream lines(log.str());
        bool               printing = false;
        for (std::string line; std::getline(lines, line);)
          {
            printing = printing || line.find("set-up of") != std::string::npos;
            if (printing)
              std::printf("%s\n", line.c_str());
          }
      }
  }

  /// The GPU time of a solve per component (cuda::EventTimer) on the
  /// hierarchy of @p build: the solver's parts, average of @p n_runs solves
  /// after one.
  void
  breakdown(const std::function<LevelHierarchy()> &build, const char *mesh, const unsigned int degree, const Precision precision,
            const cuda::GeneralKernel kernel, const int n_runs)
  {
    using Layout = CellBlocked<32>;
    using Vector = cuda::MultigridSolver<Layout>::VectorType;
    const LevelHierarchy h = build();
    MultigridParameters  parameters;
    parameters.precision = precision;
    cuda::EventTimer                           timer;
    const cuda::MultigridSolver<Layout> solver(h, degree, parameters, nullptr, &timer, kernel);
    CellVector<double>                         host_b;
    assemble_right_hand_side(h.levels.back(), degree, [](const Point &) { return 1.; }, host_b);
    CellVector<double, MemorySpace::CUDA> staged;
    staged.copy_from_host(host_b);
    Vector b, u;
    b.copy_from(staged);
    unsigned int iterations = 0;
    const auto   solve      = [&] {
      u.reinit(b.n_cells(), b.degree());
      MonitorControl control(200, 1e-8);
      iterations = solver.solve(u, b, control).iterations();
    };
    solve(); // the count for the title
    char title[200];
    std::snprintf(title, sizeof title, "GPU time per component, %s, %s, %s kernel, %u iterations", mesh,
                  precision == Precision::fp64 ? "FP64" : "mixed", kernel == cuda::GeneralKernel::planes ? "plane" : "line", iterations);
    print_component_times(timer, solve, n_runs, title);
  }

  void
  solve_header()
  {
    std::printf("%2s %10s %12s %-6s %-6s %9s %5s %10s %8s %9s %9s %8s\n", "L", "cells", "DoFs", "prec.", "kernel", "setup [s]", "iter",
                "solve [ms]", "GDoF/s", "V [ms]", "V GDoF/s", "geo B/DoF");
  }
} // namespace

int
main(int argc, char **argv)
{
  line_buffered_stdout();
  try
    {
      const int          n_runs = argc > 1 ? std::max(10, std::atoi(argv[1])) : 20;
      const unsigned int n      = argc > 2 ? static_cast<unsigned int>(std::atoi(argv[2])) : 128;
      const unsigned int degree = argc > 3 ? static_cast<unsigned int>(std::atoi(argv[3])) : 3;
      const int          L_max  = argc > 4 ? std::atoi(argv[4]) : 5;
      const int          ball_L_max = argc > 5 ? std::atoi(argv[5]) : L_max;
      char               date[64];
      const std::time_t  now = std::time(nullptr);
      std::strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S %Z", std::localtime(&now));
      std::printf("cellwise general Laplace operator benchmark (geometry forms), %s\ndevice: %s\nmedian of %d runs after 3 "
                  "warm-up runs\n",
                  date, cuda::device_description().c_str(), n_runs);
      if (!cuda::device_available())
        return 0;
      if (n < 2 || n > 512)
        {
          std::fprintf(stderr, "error: the cells per axis must be 2..512, got %u\n", n);
          return 1;
        }
      check_degree(degree);
      BoxDescription box;
      box.subdivisions = {{n, n, n}};
      const LevelHierarchy cube = make_box_hierarchy(box, 0);
      LevelHierarchy       sheared = make_box_hierarchy(box, 0), kershaw = make_box_hierarchy(box, 0);
      map_hierarchy(sheared, 1, [](const Point &x) { return Point{{x[0] + 0.3 * x[1], 1.5 * x[1] - 0.2 * x[2], x[2] + 0.1 * x[0]}}; });
      map_hierarchy(kershaw, 1, kershaw_map(0.3, 0.3));
      LevelHierarchy wobbled = make_box_hierarchy(box, 0);
      map_hierarchy(wobbled, 2, [](const Point &x) {
        return Point{{x[0] + 0.03 * std::sin(6. * x[1] + 1.) * std::cos(3. * x[2]), x[1] + 0.03 * std::sin(5. * x[0] * x[2] + 0.5),
                      x[2] + 0.03 * std::cos(4. * x[0] + 3. * x[1])}};
      });
      const Level         &level = cube.levels.back();
      const ScalarFunction coefficient = [](const Point &x) { return 1. + 0.5 * std::sin(3. * x[0]) * std::cos(2. * x[1] + x[2]); };

      Reference reference;
      reference.unique_dofs = std::pow(double(degree) * n + 1., 3.);
      CellVector<double, MemorySpace::CUDA> a(level.n_cells(), degree), b(level.n_cells(), degree);
      a.fill(1.);
      reference.copy_bandwidth = measure_copy_bandwidth(a.data(), b.data(), a.storage_size() * sizeof(double), n_runs);
      reference.fp64_rate = measure_fma_throughput<double>(n_runs);
      reference.fp32_rate = measure_fma_throughput<float>(n_runs);
      std::printf("\n%u^3 cells (%u) of degree %u, %.4g unique DoFs; copy (float4 kernel, FP64 vector) %.1f GB/s; "
                  "FMA chains %.1f TFLOP/s FP64, %.1f FP32\n",
                  n, level.n_cells(), degree, reference.unique_dofs, reference.copy_bandwidth * 1e-9, reference.fp64_rate * 1e-12,
                  reference.fp32_rate * 1e-12);
      std::printf("floor: the roofline's time, max(bytes / copy, flops / FMA rate), with the fewest flops of the operator "
                  "(general: 12 n^4 + 9 n^3 multiply-adds per cell, 3 n^3 on cartesian cells; box: 7 n^4; a recomputed "
                  "metric's arithmetic not counted); of floor: floor / time\n");

      double contiguous_box_time = 0, blocked_box_time = 0;
      for (const bool blocked : {false, true})
        {
          // the box operator on the cube: the reference time of this layout
          const auto box_time = [&](auto layout) {
            using Layout = decltype(layout);
            const cuda::LaplaceOperator<double, Layout>     op(level, degree);
            CellVector<double, MemorySpace::CUDA, Layout> x(level.n_cells(), degree), y(level.n_cells(), degree);
            x.fill(1.25);
            return median_time([&] { op.vmult(y, x); }, n_runs);
          };
          reference.box_time = blocked ? box_time(CellBlocked<32>{}) : box_time(CellContiguous{});
          (blocked ? blocked_box_time : contiguous_box_time) = reference.box_time;
          const double box_values = double(level.n_cells()) * std::pow(degree + 1., 3.);
          const double box_floor  = floor_time(2. * box_values * sizeof(double), double(level.n_cells()) * box_floor_flops(degree),
                                               reference.copy_bandwidth, reference.fp64_rate);
          std::printf("\nFP64, %s; box operator (cuda::LaplaceOperator, cube) %.3f ms = %.2f GDoF/s, floor %.3f ms (%.3f of it)\n",
                      blocked ? "blocked by 32 cells" : "cell-contiguous", reference.box_time * 1e3,
                      reference.unique_dofs / reference.box_time * 1e-9, box_floor * 1e3, box_floor / reference.box_time);
          std::printf("%-44s %8s %9s %9s %10s %9s %8s %8s %8s %8s %10s %8s\n", "form (mesh)", "setup[s]", "geo B/v", "geo B/DoF",
                      "time [ms]", "GB/s", "of copy", "GDoF/s", "Gval/s", "/ box", "floor [ms]", "of floor");
          const auto rows = [&](auto layout) {
            using Layout = decltype(layout);
            row<double, Layout>("cartesian (cube)", level, degree, {}, n_runs, reference);
            row<double, Layout>("cartesian_coefficient (cube, c(x))", level, degree, coefficient, n_runs, reference);
            row<double, Layout>("affine (sheared cube)", sheared.levels.back(), degree, {}, n_runs, reference);
            row<double, Layout>("general, recomputed (Kershaw)", kershaw.levels.back(), degree, {}, n_runs, reference);
            row<double, Layout>("general, stored (Kershaw)", kershaw.levels.back(), degree, {}, n_runs, reference,
                                cuda::GeneralCellMetric::stored);
            row<double, Layout>("general, recomputed (wobble, k=2)", wobbled.levels.back(), degree, {}, n_runs, reference);
            row<double, Layout>("general, stored (wobble, k=2)", wobbled.levels.back(), degree, {}, n_runs, reference,
                                cuda::GeneralCellMetric::stored);
          };
          if (blocked)
            rows(CellBlocked<32>{});
          else
            rows(CellContiguous{});
        }
      // FP32: the levels of the mixed-precision cycle (blocked in the general solver)
      std::printf("\nFP32, cell-contiguous (/ box: against the FP64 cell-contiguous box operator)\n");
      reference.box_time = contiguous_box_time;
      row<float, CellContiguous>("cartesian (cube)", level, degree, {}, n_runs, reference);
      row<float, CellContiguous>("general, recomputed (Kershaw)", kershaw.levels.back(), degree, {}, n_runs, reference);
      row<float, CellContiguous>("general, stored (Kershaw)", kershaw.levels.back(), degree, {}, n_runs, reference,
                                 cuda::GeneralCellMetric::stored);
      std::printf("\nFP32, blocked by 32 cells (/ box: against the FP64 blocked box operator)\n");
      reference.box_time = blocked_box_time;
      row<float, CellBlocked<32>>("cartesian (cube)", level, degree, {}, n_runs, reference);
      row<float, CellBlocked<32>>("general, recomputed (Kershaw)", kershaw.levels.back(), degree, {}, n_runs, reference);
      row<float, CellBlocked<32>>("general, stored (Kershaw)", kershaw.levels.back(), degree, {}, n_runs, reference,
                                  cuda::GeneralCellMetric::stored);
      row<float, CellBlocked<32>>("general, recomputed (wobble, k=2)", wobbled.levels.back(), degree, {}, n_runs, reference);

      // the operator of the ball's finest level, the solve tables' mesh: the
      // general solver's own choice (blocked; the metric of its curved cells
      // stored, its inner cube cartesian)
      if (ball_L_max >= 1)
        {
          const LevelHierarchy ball  = make_unstructured_hierarchy(make_ball_coarse_mesh(), ball_L_max, degree);
          const Level         &fine  = ball.levels.back();
          Reference            on_ball = reference;
          on_ball.unique_dofs          = double(make_dof_numbering(fine, degree).n_unique);
          // the cube's box operator scaled to the ball's cells
          on_ball.box_time = blocked_box_time * double(fine.n_cells()) / double(level.n_cells());
          // the copy of the ball's own vectors: a copy of smaller arrays is
          // slower (64^3 cells: 3.5 TB/s, 128^3: 3.9), and the floor of the
          // ball's rows would be too long
          {
            CellVector<double, MemorySpace::CUDA> x(fine.n_cells(), degree), y(fine.n_cells(), degree);
            x.fill(1.);
            on_ball.copy_bandwidth = measure_copy_bandwidth(x.data(), y.data(), x.storage_size() * sizeof(double), n_runs);
          }
          std::printf("\nthe ball's finest level, L = %d (%u cells, %.4g unique DoFs), mapping degree %u, blocked by 32 cells "
                      "(/ box: against the blocked FP64 box operator of the cube, scaled to the ball's cells); copy of "
                      "its FP64 vector %.1f GB/s (of copy, floor: against this copy)\n",
                      ball_L_max, fine.n_cells(), on_ball.unique_dofs, degree, on_ball.copy_bandwidth * 1e-9);
          row<double, CellBlocked<32>>("ball, FP64 (the solver's forms)", fine, degree, {}, n_runs, on_ball,
                                       cuda::GeneralCellMetric::automatic);
          row<float, CellBlocked<32>>("ball, FP32 (the solver's forms)", fine, degree, {}, n_runs, on_ball,
                                      cuda::GeneralCellMetric::automatic);
          std::printf("\none smoother step (a middle Chebyshev step: update, then the residual) on the same level; bytes: "
                      "8 vectors and the geometry, the one pass's\n");
          std::printf("%-44s %10s %9s %8s %10s %8s\n", "step (kernel)", "time [ms]", "GB/s", "of copy", "floor [ms]", "of floor");
          smoother_step_row<double>("ball, FP64", fine, degree, n_runs, on_ball);
          smoother_step_row<float>("ball, FP32", fine, degree, n_runs, on_ball);
        }

      std::printf("\nKershaw box (eps 0.3), 6 x 2 x 2 cells refined L times, Q%u, CG + Chebyshev(4)-Jacobi V-cycle to 1e-8, "
                  "blocked; median of 3 solves after one\n",
                  degree);
      solve_header();
      const cuda::GeneralKernel kernels[] = {cuda::GeneralKernel::lines, cuda::GeneralKernel::planes};
      for (int L = 1; L <= L_max; ++L)
        for (const Precision precision : {Precision::fp64, Precision::mixed})
          for (const cuda::GeneralKernel kernel : kernels)
            solve_row(
              [L] {
                BoxDescription box;
                box.subdivisions = {{6, 2, 2}};
                LevelHierarchy h = make_box_hierarchy(box, L);
                map_hierarchy(h, 1, kershaw_map(0.3, 0.3));
                return h;
              },
              L, degree, precision, 3, kernel, L == L_max);
      std::printf("\nball (7 coarse cells in different frames, deal.II's hyper_ball) refined L times, mapping degree %u, Q%u, "
                  "the same solver and stop\n",
                  degree, degree);
      solve_header();
      for (int L = 1; L <= ball_L_max; ++L)
        for (const Precision precision : {Precision::fp64, Precision::mixed})
          for (const cuda::GeneralKernel kernel : kernels)
            solve_row([L, degree] { return make_unstructured_hierarchy(make_ball_coarse_mesh(), L, degree); }, L, degree, precision, 3,
                      kernel, L == ball_L_max);
      // where the ball's solve goes, on its largest mesh
      if (ball_L_max >= 1)
        for (const Precision precision : {Precision::fp64, Precision::mixed})
          for (const cuda::GeneralKernel kernel : kernels)
            breakdown([ball_L_max, degree] { return make_unstructured_hierarchy(make_ball_coarse_mesh(), ball_L_max, degree); },
                      ("ball, L = " + std::to_string(ball_L_max)).c_str(), degree, precision, kernel, 3);
    }
  catch (const std::exception &e)
    {
      std::fprintf(stderr, "error: %s\n", e.what());
      return 1;
    }
  return 0;
}
