// Throughput of the device multigrid solver on locally refined meshes (local
// smoothing, 003 §6.3 Table 4 analogue): Q3, FP64 or mixed precision (FP32
// levels in the FP64 CG, doc/adaptive.md), unit cube, octant marker,
// CG + Chebyshev(4) V-cycle (the defaults of cellwise-poisson), against the
// uniform device solver on 128^3 cells (L = 7, about 57 M DoFs).
//
// Printed first: the same-run device copy bandwidth (cudaMemcpy D2D and a
// float4 copy kernel). Then per hierarchy: the active cells per level, the
// unique active DoFs, the V-cycle time (median of n_runs after warm-up, CUDA
// events) and MDoF/s, the CG solve to an η reduction of 1e-14 (iterations,
// time as the median of 3 solves, MDoF/s), and the adaptive/uniform
// throughput ratios (003's goal: about 0.9 or better).
//
// Unique active DoFs: the distinct nodal positions of the active cells,
// hanging nodes included (as deal.II's n_dofs()) and the Dirichlet boundary
// included (as the papers count). For the octant marker on the unit cube
// (L global, k local steps: level L active outside the octant, level L + k
// active inside, nothing active in between) this is
//   (p 2^L + 1)^3 − (p 2^(L−1))^3      coarse nodes (all but those strictly
//                                      inside the octant's lower corner box)
// + (p 2^(L+k−1) + 1)^3                fine nodes of the octant
// − (m^3 − (m − 1)^3)                  nodes counted twice: on the interface
//                                      x_d = 1/2, positions that are nodes of
//                                      both grids; m = common 1D positions on
//                                      [0, 1/2] (all for k = 0, the vertices
//                                      and, for even p, midpoints otherwise)
// checked at start-up against a brute-force count of positions on small
// meshes.
//
// Usage: cellwise-benchmark-adaptive [n_runs] [fp64|mixed]   (the uniform
// reference in the same precision)

#include <cellwise/base/cuda_check.h>
#include <cellwise/multigrid/cuda_multigrid_solver.h>
#include <cellwise/fe/lagrange_basis_1d.h>
#include <cellwise/mesh/adaptive_builder.h>
#include <cellwise/mesh/box_builder.h>
#include <cellwise/operators/function_tools.h>
#include <cellwise/storage/cuda_cell_vector.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "benchmark_timing.h"

using namespace cellwise;

namespace
{
  constexpr unsigned int degree = 3;
  constexpr double       pi     = 3.14159265358979323846;
  using Vector                  = CellVector<double, MemorySpace::CUDA, CellContiguous>;

  double
  sine_rhs(const Point &x)
  {
    return 3 * pi * pi * std::sin(pi * x[0]) * std::sin(pi * x[1]) * std::sin(pi * x[2]);
  }

  double
  seconds_since(const std::chrono::steady_clock::time_point start)
  {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }

  /// Common nodal positions of the coarse (2^(L−1) cells) and the fine
  /// (2^(L+k−1) cells) Gauss–Lobatto grids of [0, 1/2].
  double
  common_interface_positions(const int L, const int k, const unsigned int p)
  {
    const LagrangeBasis1D basis(p);
    const auto            positions = [&](const long n_cells) {
      std::vector<double> x;
      for (long c = 0; c < n_cells; ++c)
        for (unsigned int i = 0; i < basis.size(); ++i)
          x.push_back(0.5 * (c + basis.nodes()[i]) / n_cells);
      std::sort(x.begin(), x.end());
      x.erase(std::unique(x.begin(), x.end(), [](double a, double b) { return std::abs(a - b) < 1e-13; }), x.end());
      return x;
    };
    const std::vector<double> coarse = positions(1l << (L - 1)), fine = positions(1l << (L + k - 1));
    double                    m = 0;
    for (const double x : coarse)
      {
        const auto it = std::lower_bound(fine.begin(), fine.end(), x - 1e-13);
        m += it != fine.end() && std::abs(*it - x) < 1e-13;
      }
    return m;
  }

  /// The formula of the file comment.
  double
  unique_active_dofs_octant(const int L, const int k, const unsigned int p)
  {
    const double coarse = std::pow(p * std::ldexp(1., L) + 1, 3) - std::pow(p * std::ldexp(1., L - 1), 3);
    const double fine   = std::pow(p * std::ldexp(1., L + k - 1) + 1, 3);
    const double m      = common_interface_positions(L, k, p);
    return coarse + fine - (m * m * m - (m - 1) * (m - 1) * (m - 1));
  }

  /// Distinct nodal positions of the active cells, counted one by one.
  double
  unique_active_dofs_brute_force(const LevelHierarchy &hierarchy, const unsigned int p)
  {
    const ActiveMesh                     mesh = make_active_mesh(hierarchy);
    const LagrangeBasis1D                basis(p);
    std::set<std::tuple<long, long, long>> positions;
    for (unsigned int a = 0; a < mesh.n_active_cells(); ++a)
      {
        const CellBox &box = mesh.level.boxes[a];
        for (unsigned int kz = 0; kz <= p; ++kz)
          for (unsigned int ky = 0; ky <= p; ++ky)
            for (unsigned int kx = 0; kx <= p; ++kx)
              positions.emplace(std::lround((box.lower[0] + basis.nodes()[kx] * box.size[0]) * 1e10),
                                std::lround((box.lower[1] + basis.nodes()[ky] * box.size[1]) * 1e10),
                                std::lround((box.lower[2] + basis.nodes()[kz] * box.size[2]) * 1e10));
      }
    return static_cast<double>(positions.size());
  }

  /// Throws if the formula disagrees with the count on small meshes.
  void
  check_dof_formula()
  {
    for (const unsigned int p : {2u, 3u})
      for (const auto &[L, k] : std::vector<std::pair<int, int>>{{2, 0}, {2, 1}, {2, 2}, {3, 1}, {1, 3}})
        {
          const double formula = unique_active_dofs_octant(L, k, p);
          const double counted =
            unique_active_dofs_brute_force(make_adaptive_box_hierarchy(BoxDescription{}, L, k, make_octant_marker(BoxDescription{})), p);
          CELLWISE_CHECK(formula == counted, "unique DoF formula " << formula << " != counted " << counted << " for L = " << L
                                                                   << ", k = " << k << ", p = " << p);
        }
  }

  /// The levels' precision (argument 2: fp64 or mixed).
  Precision precision = Precision::fp64;

  MultigridParameters
  parameters()
  {
    MultigridParameters p;
    p.precision = precision;
    return p;
  }

  struct Result
  {
    std::string  name;
    double       dofs            = 0;
    double       cycle_seconds   = 0;
    unsigned int iterations      = 0;
    double       reduction       = 0;
    double       solve_seconds   = 0;
    double       setup_seconds   = 0;
  };

  /// V-cycle time on the masked right-hand side, then 3 CG solves (median).
  template <typename Solver>
  void
  measure(const Solver &solver, const Vector &b, const unsigned int n_cells, const int n_runs, Result &result)
  {
    Vector r = b, z(n_cells, degree);
    r.scale(solver.dirichlet_mask());
    result.cycle_seconds = median_time([&] { solver.preconditioner().vmult(z, r); }, n_runs, 2);
    std::vector<double> times;
    for (int run = 0; run < 3; ++run)
      {
        Vector        u(n_cells, degree);
        MonitorControl control(200, 1e-14);
        CELLWISE_CUDA_CHECK(cudaDeviceSynchronize());
        const auto start = std::chrono::steady_clock::now();
        try
          {
            const SolveStatistics statistics = solver.solve(u, b, control);
            result.iterations                = statistics.iterations();
            result.reduction                 = statistics.reduction();
          }
        catch (const NoConvergence &e)
          {
            std::printf("  CG did not reach 1e-14: %s\n", e.what());
          }
        CELLWISE_CUDA_CHECK(cudaDeviceSynchronize());
        times.push_back(seconds_since(start));
      }
    std::sort(times.begin(), times.end());
    result.solve_seconds = times[1];
  }

  void
  print(const Result &r, const Result *uniform)
  {
    std::printf("%-22s %12.4g %10.3f %9.1f %5u %10.3f %9.1f", r.name.c_str(), r.dofs, r.cycle_seconds * 1e3,
                r.dofs / r.cycle_seconds * 1e-6, r.iterations, r.solve_seconds * 1e3, r.dofs / r.solve_seconds * 1e-6);
    if (uniform)
      std::printf(" %7.3f %7.3f", (r.dofs / r.cycle_seconds) / (uniform->dofs / uniform->cycle_seconds),
                  (r.dofs / r.solve_seconds) / (uniform->dofs / uniform->solve_seconds));
    else
      std::printf(" %7s %7s", "-", "-");
    std::printf("   (η_n/η_0 = %.2e, set-up %.1f s)\n", r.reduction, r.setup_seconds);
  }

  Result
  run_uniform(const int L, const int n_runs)
  {
    const auto           start     = std::chrono::steady_clock::now();
    const LevelHierarchy hierarchy = make_box_hierarchy(BoxDescription{}, L, CellOrdering::child_major);
    const Level         &fine      = hierarchy.levels.back();
    CellVector<double>   host_b;
    assemble_right_hand_side(fine, degree, sine_rhs, host_b);
    const cuda::MultigridSolver<CellContiguous> solver(hierarchy, degree, parameters());
    Vector                                      b;
    b.copy_from_host(host_b);
    Result result;
    result.name          = "uniform L=" + std::to_string(L);
    result.dofs          = std::pow(3. * (1 << L) + 1., 3);
    result.setup_seconds = seconds_since(start);
    measure(solver, b, fine.n_cells(), n_runs, result);
    return result;
  }

  Result
  run_adaptive(const int L, const int k, const int n_runs)
  {
    const auto           start = std::chrono::steady_clock::now();
    const LevelHierarchy hierarchy =
      make_adaptive_box_hierarchy(BoxDescription{}, L, k, make_octant_marker(BoxDescription{}), CellOrdering::child_major);
    const cuda::MultigridSolver<CellContiguous> solver(hierarchy, degree, parameters());
    const ActiveMesh                                   &mesh = solver.active_mesh();
    CellVector<double>                                  host_b;
    assemble_right_hand_side(mesh.level, degree, sine_rhs, host_b);
    Vector b;
    b.copy_from_host(host_b);
    Result result;
    result.name          = "adaptive L=" + std::to_string(L) + " k=" + std::to_string(k);
    result.dofs          = unique_active_dofs_octant(L, k, degree);
    result.setup_seconds = seconds_since(start);
    std::printf("  %s: %u active cells; active per level:", result.name.c_str(), mesh.n_active_cells());
    for (unsigned int l = 0; l < mesh.n_levels(); ++l)
      std::printf(" %zu", mesh.active_cells[l].size());
    std::printf("; cells per level:");
    for (unsigned int l = 0; l < hierarchy.n_levels(); ++l)
      std::printf(" %u", hierarchy.level(l).n_cells());
    std::printf("\n");
    measure(solver, b, mesh.n_active_cells(), n_runs, result);
    return result;
  }
} // namespace

int
main(int argc, char **argv)
{
  line_buffered_stdout();
  try
    {
      const int n_runs = argc > 1 ? std::max(5, std::atoi(argv[1])) : 20;
      if (argc > 2)
        precision = parse_precision(argv[2]);
      char      date[64];
      const std::time_t now = std::time(nullptr);
      std::strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S %Z", std::localtime(&now));
      std::printf("cellwise adaptive solver benchmark, %s\ndevice: %s\nQ%u, %s, octant marker, CG + Chebyshev(4) V-cycle; "
                  "median of %d cycles after warm-up, CG solve: median of 3\n",
                  date, cuda::device_description().c_str(), degree,
                  precision == Precision::fp64 ? "FP64" : "mixed (FP32 levels, FP64 CG)", n_runs);
      if (!cuda::device_available())
        return 0;
      check_dof_formula();
      std::printf("unique active DoFs: formula checked against a brute-force count on small meshes\n");

      // the same-run copy reference: a vector of the size of the L = 7 fine level
      {
        const std::size_t n = std::size_t(1) << 27; // 1 GiB of doubles
        double           *x = cuda::allocate<double>(n, "the copy benchmark"), *y = cuda::allocate<double>(n, "the copy benchmark");
        CELLWISE_CUDA_CHECK(cudaMemset(x, 0, n * sizeof(double)));
        const double bytes  = 2. * n * sizeof(double);
        const double memcpy = median_time([&] {
          CELLWISE_CUDA_CHECK(cudaMemcpyAsync(y, x, n * sizeof(double), cudaMemcpyDeviceToDevice));
        }, n_runs);
        const double kernel = median_time([&] {
          copy_float4_kernel<<<4 * 132 * 8, 256>>>(reinterpret_cast<const float4 *>(x), reinterpret_cast<float4 *>(y), n / 2);
          CELLWISE_CUDA_CHECK_LAUNCH();
        }, n_runs);
        std::printf("device copy (1 GiB read + 1 GiB written): cudaMemcpy D2D %.1f GB/s, float4 kernel %.1f GB/s\n",
                    bytes / memcpy * 1e-9, bytes / kernel * 1e-9);
        cuda::free_bytes(x);
        cuda::free_bytes(y);
      }

      std::vector<Result> results;
      results.push_back(run_uniform(7, n_runs));
      // active DoFs 10^7..10^8: k = 1..4 with L chosen by size (k = 0 is
      // the uniform hierarchy, which the solver runs with the uniform cycle)
      const std::vector<std::pair<int, int>> adaptive = {{6, 1}, {6, 2}, {5, 3}, {4, 4}};
      for (const auto &[L, k] : adaptive)
        results.push_back(run_adaptive(L, k, n_runs));

      std::printf("\n%-22s %12s %10s %9s %5s %10s %9s %7s %7s\n", "hierarchy", "unique DoFs", "cycle[ms]", "MDoF/s", "iter",
                  "solve[ms]", "MDoF/s", "cycle/u", "solve/u");
      for (std::size_t i = 0; i < results.size(); ++i)
        print(results[i], i == 0 ? nullptr : &results[0]);
      std::printf("cycle/u, solve/u: adaptive throughput (unique DoFs per second) over the uniform L = 7 one (003 Table 4: "
                  "goal >= 0.9)\n");
    }
  catch (const std::exception &e)
    {
      std::fprintf(stderr, "error: %s\n", e.what());
      return 1;
    }
  return 0;
}
