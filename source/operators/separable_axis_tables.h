#pragma once
/**
 * @file
 * Private to source/operators: the load vector of a separable right-hand side
 * (base/function.h, SeparableFunction) from 1D integrals, shared by the
 * elements (Lagrange: function_tools.cc, Hermite: hermite_function_tools.cc).
 * The integral of c g_x g_y g_z against a tensor-product basis function is
 * c times three 1D integrals; SeparableAxisTables keeps them per lattice
 * position of a level of box cells, factor_integrals forms them for one
 * interval. phi(p, i) is the i-th 1D basis function of the element at the
 * p-th Gauss point (q × n); an element's own scaling of its coefficients
 * (Hermite derivative DoFs) is applied by the caller.
 */

#include <cellwise/base/dense_matrix.h>
#include <cellwise/base/exceptions.h>
#include <cellwise/base/function.h>
#include <cellwise/base/parallel.h>
#include <cellwise/fe/quadrature.h>
#include <cellwise/mesh/level.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <limits>
#include <mutex>
#include <vector>

namespace cellwise
{
  namespace internal
  {
    /// The 1D integrals g(i) = h Σ_p φ_i(x_p) w_p f(l + x_p h) of one factor
    /// over the interval [l, l + h], i = 0..n−1 (φ: q x n at the Gauss points).
    inline void
    factor_integrals(const std::function<double(double)> &factor,
                     const double                         lower,
                     const double                         size,
                     const Quadrature1D                  &quad,
                     const DenseMatrix                   &phi,
                     double                              *g)
    {
      const unsigned int q = static_cast<unsigned int>(quad.points.size());
      const unsigned int n = static_cast<unsigned int>(phi.n());
      double             weighted[32];
      CELLWISE_CHECK(q <= 32, "the load vector of a separable function: at most 32 quadrature points per axis, not " << q);
      for (unsigned int p = 0; p < q; ++p) // the coordinates of point_in_cell
        weighted[p] = factor(lower + quad.points[p] * size) * quad.weights[p];
      for (unsigned int i = 0; i < n; ++i)
        {
          double sum = 0;
          for (unsigned int p = 0; p < q; ++p)
            sum += phi(p, i) * weighted[p];
          g[i] = sum * size;
        }
    }

    /// The factor integrals of every term along every axis per lattice
    /// position of a level of box cells. Cells in one position along an axis
    /// share their interval there, so a level of N cells and M positions per
    /// axis needs 3 M instead of 3 N evaluations of q points per term: at
    /// L = 8 (256 positions, 16.8 M cells) the sine right-hand side of the
    /// main program evaluated 45 sines per cell, most of its 0.87 s. A
    /// cell uses its position's integrals only where its interval is the
    /// representative's bit for bit, else its own (a lattice of unequal
    /// steps, a partitioned level): the same values either way.
    class SeparableAxisTables
    {
    public:
      SeparableAxisTables(const Level &level, const SeparableFunction &f, const Quadrature1D &quad, const DenseMatrix &phi)
        : n_(static_cast<unsigned int>(phi.n()))
        , terms_(static_cast<unsigned int>(f.size()))
      {
        const std::size_t n_cells = level.n_cells();
        if (n_cells == 0 || !level.mapping.empty() || level.coordinates.size() != n_cells)
          return;
        // the range of positions per axis (ranges merged under a lock)
        std::mutex mutex;
        lowest_ = {{std::numeric_limits<int>::max(), std::numeric_limits<int>::max(), std::numeric_limits<int>::max()}};
        std::array<int, 3> highest = {{std::numeric_limits<int>::min(), std::numeric_limits<int>::min(), std::numeric_limits<int>::min()}};
        parallel_for_ranges(n_cells, value_grain, [&](const std::size_t begin, const std::size_t end) {
          std::array<int, 3> low = {{std::numeric_limits<int>::max(), std::numeric_limits<int>::max(), std::numeric_limits<int>::max()}};
          std::array<int, 3> high = {{std::numeric_limits<int>::min(), std::numeric_limits<int>::min(), std::numeric_limits<int>::min()}};
          for (std::size_t cell = begin; cell < end; ++cell)
            for (unsigned int d = 0; d < 3; ++d)
              {
                low[d]  = std::min(low[d], level.coordinates[cell][d]);
                high[d] = std::max(high[d], level.coordinates[cell][d]);
              }
          const std::lock_guard<std::mutex> lock(mutex);
          for (unsigned int d = 0; d < 3; ++d)
            {
              lowest_[d] = std::min(lowest_[d], low[d]);
              highest[d] = std::max(highest[d], high[d]);
            }
        });
        for (unsigned int d = 0; d < 3; ++d)
          {
            const std::size_t positions = std::size_t(std::int64_t(highest[d]) - lowest_[d] + 1);
            // a table longer than the level's cells saves nothing
            if (positions > n_cells)
              return;
            positions_[d] = positions;
          }
        // a representative cell per position (any cell in it will do: the
        // stores race only between valid answers)
        std::array<std::vector<std::atomic<unsigned int>>, 3> representative;
        for (unsigned int d = 0; d < 3; ++d)
          representative[d] = std::vector<std::atomic<unsigned int>>(positions_[d]);
        parallel_for(n_cells, value_grain, [&](const std::size_t cell) {
          for (unsigned int d = 0; d < 3; ++d)
            representative[d][std::size_t(level.coordinates[cell][d] - lowest_[d])].store(static_cast<unsigned int>(cell),
                                                                                      std::memory_order_relaxed);
        });
        for (unsigned int d = 0; d < 3; ++d)
          {
            lower_[d].resize(positions_[d]);
            size_[d].resize(positions_[d]);
            integrals_[d].resize(positions_[d] * terms_ * n_);
            parallel_for(positions_[d], 1, [&](const std::size_t position) {
              const CellBox &box = level.boxes[representative[d][position].load(std::memory_order_relaxed)];
              lower_[d][position] = box.lower[d];
              size_[d][position]  = box.size[d];
              for (unsigned int t = 0; t < terms_; ++t)
                factor_integrals(f[t].factors[d], box.lower[d], box.size[d], quad, phi,
                                 &integrals_[d][(position * terms_ + t) * n_]);
            });
          }
        usable_ = true;
      }

      /// The integrals of term @p t along axis @p d of @p cell, n values, or
      /// nullptr where the cell's interval is not its position's.
      const double *
      integrals(const Level &level, const unsigned int cell, const unsigned int d, const unsigned int t) const
      {
        if (!usable_)
          return nullptr;
        const std::size_t position = std::size_t(level.coordinates[cell][d] - lowest_[d]);
        const CellBox    &box      = level.boxes[cell];
        if (box.lower[d] != lower_[d][position] || box.size[d] != size_[d][position])
          return nullptr;
        return &integrals_[d][(position * terms_ + t) * n_];
      }

    private:
      unsigned int                        n_ = 0, terms_ = 0;
      bool                                usable_ = false;
      std::array<int, 3>                  lowest_{};
      std::array<std::size_t, 3>          positions_{};
      std::array<std::vector<double>, 3>  lower_, size_, integrals_;
    };

    /// Throws cellwise::Error, naming @p who, where a term of @p f has an
    /// empty factor.
    inline void
    check_separable_factors(const SeparableFunction &f, const char *who)
    {
      for (const SeparableTerm &term : f)
        for (const auto &factor : term.factors)
          CELLWISE_CHECK(factor, who << ": a term of the separable function has an empty factor");
    }

    /// The integrals of @p f against the n³ tensor-product basis functions of
    /// the box cell @p cell (n = phi.n(), x fastest): Σ_t c_t g_x ⊗ g_y ⊗ g_z,
    /// each g from @p tables where the cell's interval is its position's,
    /// else formed in @p own (three work arrays of n).
    inline void
    separable_cell_integrals(const Level                        &level,
                             const unsigned int                  cell,
                             const SeparableFunction            &f,
                             const SeparableAxisTables          &tables,
                             const Quadrature1D                 &quad,
                             const DenseMatrix                  &phi,
                             std::array<std::vector<double>, 3> &own,
                             std::vector<double>                &integrals)
    {
      const unsigned int n   = static_cast<unsigned int>(phi.n());
      const CellBox     &box = level.boxes[cell];
      integrals.assign(std::size_t(n) * n * n, 0.);
      for (unsigned int t = 0; t < f.size(); ++t)
        {
          std::array<const double *, 3> g;
          for (unsigned int d = 0; d < 3; ++d)
            {
              g[d] = tables.integrals(level, cell, d, t);
              if (!g[d])
                {
                  own[d].resize(n);
                  factor_integrals(f[t].factors[d], box.lower[d], box.size[d], quad, phi, own[d].data());
                  g[d] = own[d].data();
                }
            }
          for (unsigned int k = 0; k < n; ++k)
            for (unsigned int j = 0; j < n; ++j)
              {
                const double yz = f[t].coefficient * g[1][j] * g[2][k];
                for (unsigned int i = 0; i < n; ++i)
                  integrals[i + n * (j + n * k)] += g[0][i] * yz;
              }
        }
    }
  } // namespace internal
} // namespace cellwise
