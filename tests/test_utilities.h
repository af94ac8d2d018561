#pragma once
/**
 * @file
 * Helpers for the unit tests: seeded random cell-wise data, continuous fields
 * from a global vector, and a global numbering built from node coordinates —
 * independent of the mesh's neighbour tables, so that DSS and the operator are
 * checked against something they do not share code with; and a loop executor
 * that partitions loops as no OpenMP team would (results must not change).
 */

#include <cellwise/base/parallel.h>
#include <cellwise/fe/lagrange_basis_1d.h>
#include <cellwise/mesh/level.h>
#include <cellwise/operators/smoother_step.h>
#include <cellwise/storage/cell_vector.h>
#include <cellwise/storage/dof_numbering.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include <unistd.h>

namespace cellwise::testing
{
  /// The same values in another layout (host).
  template <typename To, typename Number, typename From>
  CellVector<Number, MemorySpace::Host, To>
  relayout(const CellVector<Number, MemorySpace::Host, From> &v)
  {
    CellVector<Number, MemorySpace::Host, To> w(v.n_cells(), v.degree());
    for (unsigned int cell = 0; cell < v.n_cells(); ++cell)
      for (unsigned int i = 0; i < v.dofs_per_cell(); ++i)
        w(cell, i) = v(cell, i);
    return w;
  }

  /// Global numbering by the physical coordinates of the Gauss–Lobatto nodes.
  struct CoordinateNumbering
  {
    unsigned int              n_unique = 0;
    unsigned int              dofs_per_cell = 0;
    std::vector<unsigned int> index; // [cell * dofs_per_cell + i]

    unsigned int
    operator()(const unsigned int cell, const unsigned int i) const
    {
      return index[static_cast<std::size_t>(cell) * dofs_per_cell + i];
    }
  };

  inline CoordinateNumbering
  number_by_coordinates(const Level &level, const unsigned int degree, const double resolution = 1e-9)
  {
    const LagrangeBasis1D basis(degree);
    const unsigned int    n = degree + 1;
    CoordinateNumbering   numbering;
    numbering.dofs_per_cell = n * n * n;
    numbering.index.resize(static_cast<std::size_t>(level.n_cells()) * n * n * n);
    std::map<std::tuple<long, long, long>, unsigned int> known;
    for (unsigned int cell = 0; cell < level.n_cells(); ++cell)
      for (unsigned int k = 0; k < n; ++k)
        for (unsigned int j = 0; j < n; ++j)
          for (unsigned int i = 0; i < n; ++i)
            {
              const CellBox &box = level.boxes[cell];
              const auto     key = std::make_tuple(std::lround((box.lower[0] + basis.nodes()[i] * box.size[0]) / resolution),
                                               std::lround((box.lower[1] + basis.nodes()[j] * box.size[1]) / resolution),
                                               std::lround((box.lower[2] + basis.nodes()[k] * box.size[2]) / resolution));
              const auto     it  = known.emplace(key, numbering.n_unique);
              if (it.second)
                ++numbering.n_unique;
              numbering.index[static_cast<std::size_t>(cell) * n * n * n + i + n * (j + n * k)] = it.first->second;
            }
    return numbering;
  }

  inline std::vector<double>
  random_vector(const std::size_t size, const unsigned int seed)
  {
    std::mt19937                           generator(seed);
    std::uniform_real_distribution<double> distribution(-1., 1.);
    std::vector<double>                    v(size);
    for (double &x : v)
      x = distribution(generator);
    return v;
  }

  /// The DoF numbering of @p level with its unique DoFs permuted at random
  /// by @p seed (as deal.II numbers them: not in cell order).
  inline DofNumbering
  permuted_dof_numbering(const Level &level, const unsigned int degree, const unsigned int seed)
  {
    DofNumbering              numbering = make_dof_numbering(level, degree);
    std::vector<unsigned int> permutation(numbering.n_unique);
    for (unsigned int j = 0; j < numbering.n_unique; ++j)
      permutation[j] = j;
    std::shuffle(permutation.begin(), permutation.end(), std::mt19937(seed));
    for (unsigned int &j : numbering.global_index)
      j = permutation[j];
    return numbering;
  }

  /// Independent random values in every copy (a generic dual vector).
  template <typename Number, typename Layout>
  void
  fill_random(CellVector<Number, MemorySpace::Host, Layout> &v, const unsigned int seed)
  {
    const std::vector<double> r = random_vector(v.size(), seed);
    for (unsigned int cell = 0; cell < v.n_cells(); ++cell)
      for (unsigned int i = 0; i < v.dofs_per_cell(); ++i)
        v(cell, i) = static_cast<Number>(r[static_cast<std::size_t>(cell) * v.dofs_per_cell() + i]);
  }

  /// v = G u_global (a continuous primal vector).
  template <typename Number, typename Layout>
  void
  gather_by(const CoordinateNumbering &numbering, const std::vector<double> &global, CellVector<Number, MemorySpace::Host, Layout> &v)
  {
    for (unsigned int cell = 0; cell < v.n_cells(); ++cell)
      for (unsigned int i = 0; i < v.dofs_per_cell(); ++i)
        v(cell, i) = static_cast<Number>(global[numbering(cell, i)]);
  }

  /// G^T v: sums of the copies.
  template <typename Number, typename Layout>
  std::vector<double>
  sum_copies_by(const CoordinateNumbering &numbering, const CellVector<Number, MemorySpace::Host, Layout> &v)
  {
    std::vector<double> global(numbering.n_unique, 0.);
    for (unsigned int cell = 0; cell < v.n_cells(); ++cell)
      for (unsigned int i = 0; i < v.dofs_per_cell(); ++i)
        global[numbering(cell, i)] += double(v(cell, i));
    return global;
  }

  /// Largest difference between two copies of one DoF.
  template <typename Number, typename Layout>
  double
  max_copy_difference(const CoordinateNumbering &numbering, const CellVector<Number, MemorySpace::Host, Layout> &v)
  {
    std::vector<double> lo(numbering.n_unique, 1e300), hi(numbering.n_unique, -1e300);
    for (unsigned int cell = 0; cell < v.n_cells(); ++cell)
      for (unsigned int i = 0; i < v.dofs_per_cell(); ++i)
        {
          const unsigned int g = numbering(cell, i);
          lo[g]                = std::min(lo[g], double(v(cell, i)));
          hi[g]                = std::max(hi[g], double(v(cell, i)));
        }
    double m = 0;
    for (unsigned int g = 0; g < numbering.n_unique; ++g)
      m = std::max(m, hi[g] - lo[g]);
    return m;
  }

  /// f = 3π² sin(πx) sin(πy) sin(πz) = −Δu for u = sin(πx) sin(πy) sin(πz),
  /// which is zero on the unit cube's boundary: the tests' load.
  inline double
  sine_load(const Point &x)
  {
    return 3 * M_PI * M_PI * std::sin(M_PI * x[0]) * std::sin(M_PI * x[1]) * std::sin(M_PI * x[2]);
  }

  inline double
  max_abs_difference(const std::vector<double> &a, const std::vector<double> &b)
  {
    double m = 0;
    for (std::size_t k = 0; k < a.size(); ++k)
      m = std::max(m, std::abs(a[k] - b[k]));
    return m;
  }

  inline double
  max_abs(const std::vector<double> &a)
  {
    double m = 0;
    for (const double x : a)
      m = std::max(m, std::abs(x));
    return m;
  }

  /// The step kinds of the point smoothers' step loops (alpha, beta, from
  /// zero, store d, residual), and a middle Chebyshev step whose d is read:
  /// the cases of the fused smoother step's host and device tests.
  struct SmootherStepCase
  {
    const char *name;
    double      alpha, beta;
    bool        zero_initial_guess, store_update, compute_residual;

    template <typename Number>
    SmootherStep<Number>
    step() const
    {
      SmootherStep<Number> s;
      s.alpha              = Number(alpha);
      s.beta               = Number(beta);
      s.zero_initial_guess = zero_initial_guess;
      s.store_update       = store_update;
      s.compute_residual   = compute_residual;
      return s;
    }
  };

  inline std::vector<SmootherStepCase>
  smoother_step_cases()
  {
    return {
      {"Jacobi step", 0., 0.7, false, false, true},
      {"Jacobi step from zero", 0., 0.7, true, false, true},
      {"last Jacobi step (update only)", 0., 0.7, false, false, false},
      {"last Jacobi step from zero (one step)", 0., 0.7, true, false, false},
      {"first Chebyshev step", 0., 0.37, false, true, true},
      {"first Chebyshev step from zero", 0., 0.37, true, true, true},
      {"Chebyshev step", 0.61, 1.3, false, true, true},
      {"last Chebyshev step (update only)", 0.61, 1.3, false, false, false},
    };
  }

  /// Runs the ranges one after the other, last range first, cut at the grain:
  /// a partition no OpenMP team would choose, and a count of its calls.
  class ReversedSerialExecutor : public LoopExecutor
  {
  public:
    mutable std::atomic<unsigned int> loops{0};

    void
    run(const std::size_t n, const std::size_t grain, const RangeBody &body) const override
    {
      ++loops;
      const std::size_t n_ranges = (n + grain - 1) / grain;
      for (std::size_t r = n_ranges; r-- > 0;)
        body(r * grain, std::min(n, (r + 1) * grain));
    }
    unsigned int
    n_threads() const override
    {
      return 1;
    }
    const char *
    name() const override
    {
      return "reversed serial";
    }
  };

  /// Installs an executor for the scope of a test and puts OpenMP back.
  struct ScopedExecutor
  {
    explicit ScopedExecutor(std::shared_ptr<const LoopExecutor> executor)
    {
      set_loop_executor(std::move(executor));
    }
    ~ScopedExecutor()
    {
      set_loop_executor(nullptr);
    }
  };
  /// A file name in GoogleTest's temporary folder of its own per test,
  /// process and @p name (with @p extension): ctest runs the tests of one
  /// program side by side, and two that wrote one file read each other's
  /// bytes.
  inline std::string
  temporary_file(const std::string &name, const std::string &extension = ".cwp")
  {
    const ::testing::TestInfo *test  = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string                owner = test != nullptr ? std::string(test->test_suite_name()) + "." + test->name() : "";
    for (char &c : owner)
      if (c == '/')
        c = '_';
    return ::testing::TempDir() + "cellwise_" + owner + "_" + std::to_string(::getpid()) + "_" + name + extension;
  }
} // namespace cellwise::testing
