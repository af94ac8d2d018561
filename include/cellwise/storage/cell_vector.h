#pragma once
/**
 * @file
 * CellVector: a field stored per cell, (p+1)^3 values per cell; a DoF shared by
 * n cells has n copies. Whether a CellVector is primal (continuous: all copies
 * agree) or dual (unassembled: the represented functional is the sum of the
 * copies) is a property of its use, not of its type; see DESIGN.md.
 *
 * This file holds the host specialization; the CUDA one lives in
 * cellwise/storage/cuda_cell_vector.h.
 */

#include <cellwise/base/exceptions.h>
#include <cellwise/base/memory_space.h>
#include <cellwise/base/parallel.h>
#include <cellwise/base/uninitialized_vector.h>
#include <cellwise/storage/layout.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace cellwise
{
  template <typename Number, typename MemorySpace = MemorySpace::Host, typename Layout = CellContiguous>
  class CellVector;

  namespace internal
  {
    /// Fixed chunk size of the deterministic reductions: partial sums over
    /// chunks independent of the thread count, then summed in order, so that
    /// results do not change with the number of threads.
    constexpr std::size_t reduction_chunk = 4096;

    /**
     * What the host and device CellVector share, written once over the
     * derived vector (CRTP): the shape (cells, degree, values per cell), the
     * shape checks, and deal.II's vector operators (= 0, +=, −=,
     * reinit(other, omit_zeroing)) in terms of the derived vector's
     * reinit(n_cells, degree), set_zero() and add().
     */
    template <typename Derived, typename Number>
    class CellVectorBase
    {
    public:
      unsigned int
      n_cells() const
      {
        return n_cells_;
      }
      unsigned int
      degree() const
      {
        return degree_;
      }
      unsigned int
      dofs_per_cell() const
      {
        return (degree_ + 1) * (degree_ + 1) * (degree_ + 1);
      }
      /// Number of values (copies) without layout padding.
      std::size_t
      size() const
      {
        return static_cast<std::size_t>(n_cells_) * dofs_per_cell();
      }

      /// Whether @p other (of any number type, layout or memory space) has
      /// this number of cells and degree.
      template <typename Other>
      bool
      has_shape_of(const Other &other) const
      {
        return n_cells_ == other.n_cells() && degree_ == other.degree();
      }
      /// Throws unless @p other has the same number of cells and degree.
      template <typename Other>
      void
      check_compatible(const Other &other) const
      {
        CELLWISE_CHECK(has_shape_of(other), "cell vectors do not match: " << n_cells_ << " cells of degree " << degree_ << " against "
                                                                           << other.n_cells() << " cells of degree " << other.degree());
      }

      /// Same shape as @p other (of any number type), set to zero.
      template <typename Other>
      void
      reinit(const Other &other)
      {
        derived().reinit(other.n_cells(), other.degree());
      }
      /// deal.II's vector interface (what Multigrid<V> and the MG adapters
      /// call): same shape as @p other, zeroed unless @p omit_zeroing.
      void
      reinit(const Derived &other, const bool omit_zeroing)
      {
        if (!has_shape_of(other))
          derived().reinit(other.n_cells(), other.degree());
        else if (!omit_zeroing)
          derived().set_zero();
      }

      /// Only zero may be assigned (as for deal.II's vectors): padding stays zero.
      Derived &
      operator=(const Number s)
      {
        CELLWISE_CHECK(s == Number(0), "a cell vector can only be assigned zero, got " << s << "; use fill()");
        derived().set_zero();
        return derived();
      }
      Derived &
      operator+=(const Derived &x)
      {
        derived().add(Number(1), x);
        return derived();
      }
      Derived &
      operator-=(const Derived &x)
      {
        derived().add(Number(-1), x);
        return derived();
      }

    protected:
      unsigned int n_cells_ = 0;
      unsigned int degree_  = 0;

    private:
      Derived &
      derived()
      {
        return static_cast<Derived &>(*this);
      }
    };
  } // namespace internal

  /// Host cell-wise vector.
  template <typename Number, typename Layout>
  class CellVector<Number, MemorySpace::Host, Layout>
    : public internal::CellVectorBase<CellVector<Number, MemorySpace::Host, Layout>, Number>
  {
    using Base = internal::CellVectorBase<CellVector, Number>;

  public:
    using value_type   = Number;
    using memory_space = MemorySpace::Host;
    using layout_type  = Layout;
    /// The host vector of this number type and layout: the vector itself
    /// (copy_from_host and copy_to_host are copies), so that algorithms
    /// written over either memory space can move data to and from the host.
    using HostVector = CellVector;

    using Base::check_compatible;
    using Base::degree;
    using Base::dofs_per_cell;
    using Base::n_cells;
    using Base::reinit;
    using Base::size;
    using Base::operator=;

    CellVector() = default;

    /// Zero vector of @p n_cells cells of degree @p degree.
    CellVector(const unsigned int n_cells, const unsigned int degree)
    {
      reinit(n_cells, degree);
    }

    /// Resize to @p n_cells cells of degree @p degree and set to zero.
    void
    reinit(const unsigned int n_cells, const unsigned int degree)
    {
      reinit(n_cells, degree, false);
    }

    /// Resize to @p n_cells cells of degree @p degree; with
    /// @p omit_zeroing_entries (as deal.II's reinit) the values are left
    /// unspecified, for a caller that writes every cell next (the load
    /// vector of 10^9 values is then written once, not twice). The layout's
    /// padding is zeroed either way.
    void
    reinit(const unsigned int n_cells, const unsigned int degree, const bool omit_zeroing_entries)
    {
      CELLWISE_CHECK(degree >= 1, "a cell vector needs degree >= 1, got " << degree);
      n_cells_ = n_cells;
      degree_  = degree;
      const std::size_t size = ::cellwise::storage_size<Layout>(n_cells, dofs_per_cell());
      if (size != values_.size())
        Storage(size).swap(values_); // uninitialized: set_zero() below writes it in parallel, or the caller does
      if (!omit_zeroing_entries)
        set_zero();
      else if (size > std::size_t(n_cells) * dofs_per_cell())
        {
          // the padding lies in the last block: zero that block
          const std::size_t last_block = n_cells / Layout::cell_block * Layout::cell_block;
          std::fill(values_.begin() + Layout::index(last_block, 0, dofs_per_cell()), values_.end(), Number(0));
        }
    }

    /// Number of stored entries including layout padding (which stays zero).
    std::size_t
    storage_size() const
    {
      return values_.size();
    }

    Number &
    operator()(const unsigned int cell, const unsigned int i)
    {
      return values_[Layout::index(cell, i, dofs_per_cell())];
    }
    Number
    operator()(const unsigned int cell, const unsigned int i) const
    {
      return values_[Layout::index(cell, i, dofs_per_cell())];
    }

    Number *
    data()
    {
      return values_.data();
    }
    const Number *
    data() const
    {
      return values_.data();
    }

    /// Copy the values of @p cell into @p local (dofs_per_cell entries).
    template <typename LocalNumber>
    void
    read_cell(const unsigned int cell, LocalNumber *local) const
    {
      const unsigned int n = dofs_per_cell();
      for (unsigned int i = 0; i < n; ++i)
        local[i] = values_[Layout::index(cell, i, n)];
    }
    /// Overwrite the values of @p cell.
    template <typename LocalNumber>
    void
    write_cell(const unsigned int cell, const LocalNumber *local)
    {
      const unsigned int n = dofs_per_cell();
      for (unsigned int i = 0; i < n; ++i)
        values_[Layout::index(cell, i, n)] = static_cast<Number>(local[i]);
    }
    /// Add @p local to the values of @p cell.
    template <typename LocalNumber>
    void
    add_cell(const unsigned int cell, const LocalNumber *local)
    {
      const unsigned int n = dofs_per_cell();
      for (unsigned int i = 0; i < n; ++i)
        values_[Layout::index(cell, i, n)] += static_cast<Number>(local[i]);
    }

    /// Set all values to zero.
    void
    set_zero()
    {
      // in parallel: the first touch of a new vector's pages happens on the
      // threads that use them, and 10^9 values are not zeroed by one thread
      Number *const v = values_.data();
      parallel_for_ranges(values_.size(), value_grain,
                          [v](const std::size_t begin, const std::size_t end) { std::fill(v + begin, v + end, Number(0)); });
    }

    /// Set all values (not the padding) to @p s.
    void
    fill(const Number s)
    {
      const unsigned int n = dofs_per_cell();
      parallel_for_ranges(n_cells_, cell_grain, [&](const std::size_t begin, const std::size_t end) {
        for (std::size_t cell = begin; cell < end; ++cell)
          for (unsigned int i = 0; i < n; ++i)
            values_[Layout::index(cell, i, n)] = s;
      });
    }

    /// this = a x
    void
    equ(const Number a, const CellVector &x)
    {
      check_compatible(x);
      const std::size_t n = values_.size();
      Number *const       v = values_.data();
      const Number *const w = x.values_.data();
      parallel_for_ranges(n, value_grain, [&](const std::size_t begin, const std::size_t end) {
        for (std::size_t k = begin; k < end; ++k)
          v[k] = a * w[k];
      });
    }
    /// this += a x
    void
    add(const Number a, const CellVector &x)
    {
      check_compatible(x);
      const std::size_t n = values_.size();
      Number *const       v = values_.data();
      const Number *const w = x.values_.data();
      parallel_for_ranges(n, value_grain, [&](const std::size_t begin, const std::size_t end) {
        for (std::size_t k = begin; k < end; ++k)
          v[k] += a * w[k];
      });
    }
    /// this += a Number(x) for x of another number type (same layout): the
    /// rounding of copy_from followed by add, without the converted copy (the
    /// mixed-precision stationary step adds its FP32 correction to the FP64
    /// iterate this way).
    template <typename OtherNumber>
    void
    add(const Number a, const CellVector<OtherNumber, MemorySpace::Host, Layout> &x)
    {
      check_compatible(x);
      const std::size_t n = values_.size();
      Number *const      v   = values_.data();
      const OtherNumber *src = x.data();
      parallel_for_ranges(n, value_grain, [&](const std::size_t begin, const std::size_t end) {
        for (std::size_t k = begin; k < end; ++k)
          v[k] += a * static_cast<Number>(src[k]);
      });
    }
    /// this = s this + a x
    void
    sadd(const Number s, const Number a, const CellVector &x)
    {
      sadd<Number>(s, a, x);
    }
    /// this = s this + a Number(x) for x of any number type (same layout), in
    /// one pass: the mixed-precision CG forms its search direction from its
    /// FP32 correction this way, without a widened copy.
    template <typename OtherNumber>
    void
    sadd(const Number s, const Number a, const CellVector<OtherNumber, MemorySpace::Host, Layout> &x)
    {
      check_compatible(x);
      const std::size_t  n   = values_.size();
      Number *const      v   = values_.data();
      const OtherNumber *src = x.data();
      parallel_for_ranges(n, value_grain, [&](const std::size_t begin, const std::size_t end) {
        for (std::size_t k = begin; k < end; ++k)
          v[k] = s * v[k] + a * static_cast<Number>(src[k]);
      });
    }
    /// this += a x, then x = s x + Number(z), in one pass (z of any number
    /// type, same layout): CG adds α p to its iterate with the search
    /// direction it then replaces by z + β p, reading p once instead of twice.
    template <typename OtherNumber>
    void
    add_and_sadd(const Number a, CellVector &x, const Number s, const CellVector<OtherNumber, MemorySpace::Host, Layout> &z)
    {
      check_compatible(x);
      check_compatible(z);
      const std::size_t  n   = values_.size();
      Number *const      v   = values_.data();
      Number *const      w   = x.values_.data();
      const OtherNumber *src = z.data();
      parallel_for_ranges(n, value_grain, [&](const std::size_t begin, const std::size_t end) {
        for (std::size_t k = begin; k < end; ++k)
          {
            v[k] += a * w[k];
            w[k] = s * w[k] + static_cast<Number>(src[k]);
          }
      });
    }
    /// this += a x, then converted = OtherNumber(this), in one pass (same
    /// layout; @p converted takes this vector's shape): the mixed-precision
    /// CG updates its FP64 residual and rounds it for the FP32 cycle,
    /// reading the residual once instead of twice.
    template <typename OtherNumber>
    void
    add_and_convert(const Number a, const CellVector &x, CellVector<OtherNumber, MemorySpace::Host, Layout> &converted)
    {
      check_compatible(x);
      if (!converted.has_shape_of(*this))
        converted.reinit(this->n_cells(), this->degree());
      const std::size_t n   = values_.size();
      Number *const     v   = values_.data();
      const Number     *w   = x.values_.data();
      OtherNumber      *dst = converted.data();
      parallel_for_ranges(n, value_grain, [&](const std::size_t begin, const std::size_t end) {
        for (std::size_t k = begin; k < end; ++k)
          {
            v[k] += a * w[k];
            dst[k] = static_cast<OtherNumber>(v[k]);
          }
      });
    }
    /// this *= s
    void
    scale(const Number s)
    {
      const std::size_t n = values_.size();
      Number *const     v = values_.data();
      parallel_for_ranges(n, value_grain, [&](const std::size_t begin, const std::size_t end) {
        for (std::size_t k = begin; k < end; ++k)
          v[k] *= s;
      });
    }
    /// this *= d entrywise
    void
    scale(const CellVector &d)
    {
      check_compatible(d);
      const std::size_t n = values_.size();
      Number *const       v = values_.data();
      const Number *const w = d.values_.data();
      parallel_for_ranges(n, value_grain, [&](const std::size_t begin, const std::size_t end) {
        for (std::size_t k = begin; k < end; ++k)
          v[k] *= w[k];
      });
    }
    /// Copy with conversion of the number type (FP64 <-> FP32).
    template <typename OtherNumber>
    void
    copy_from(const CellVector<OtherNumber, MemorySpace::Host, Layout> &other)
    {
      if (!this->has_shape_of(other))
        reinit(other.n_cells(), other.degree());
      const std::size_t n = values_.size();
      Number *const     v   = values_.data();
      const auto *const src = other.data();
      parallel_for_ranges(n, value_grain, [&](const std::size_t begin, const std::size_t end) {
        for (std::size_t k = begin; k < end; ++k)
          v[k] = static_cast<Number>(src[k]);
      });
    }

    /// Pairing sum_K x_K . y_K, accumulated in double, deterministic.
    double
    dot(const CellVector &x) const
    {
      check_compatible(x);
      return chunked_sum([&](const std::size_t k) { return double(values_[k]) * double(x.values_[k]); });
    }
    /// The pairing over the cells 0 .. @p n_first_cells − 1 only (a
    /// distributed vector's owned cells, which come before its ghosts).
    double
    dot(const CellVector &x, const unsigned int n_first_cells) const
    {
      check_compatible(x);
      CELLWISE_CHECK(n_first_cells <= n_cells(), "dot over the first " << n_first_cells << " of " << n_cells() << " cells");
      const unsigned int n = dofs_per_cell();
      return chunked_sum([&](const std::size_t k) {
        return Layout::cell_of(k, n) < n_first_cells ? double(values_[k]) * double(x.values_[k]) : 0.;
      });
    }
    /// Euclidean norm of all copies (not of the represented vector).
    double
    l2_norm() const
    {
      return std::sqrt(chunked_sum([&](const std::size_t k) { return double(values_[k]) * double(values_[k]); }));
    }
    /// Largest absolute value.
    double
    linfty_norm() const
    {
      double m = 0;
      for (const Number v : values_)
        m = std::max(m, double(std::abs(v)));
      return m;
    }
    /// False if any value is NaN or infinite.
    bool
    all_finite() const
    {
      for (const Number v : values_)
        if (!std::isfinite(v))
          return false;
      return true;
    }
    /// False if a value of the cells 0 .. @p n_first_cells − 1 is NaN or
    /// infinite.
    bool
    all_finite(const unsigned int n_first_cells) const
    {
      CELLWISE_CHECK(n_first_cells <= n_cells(), "all_finite over the first " << n_first_cells << " of " << n_cells() << " cells");
      const unsigned int n = dofs_per_cell();
      for (std::size_t k = 0; k < values_.size(); ++k)
        if (Layout::cell_of(k, n) < n_first_cells && !std::isfinite(values_[k]))
          return false;
      return true;
    }

    /// this = @p host (the device vector's upload, here a copy).
    void
    copy_from_host(const HostVector &host)
    {
      *this = host;
    }
    /// @p host = this (the device vector's download, here a copy).
    void
    copy_to_host(HostVector &host) const
    {
      host = *this;
    }

  private:
    using Base::degree_;
    using Base::n_cells_;

    /// Sum of term(k) over all stored values, in fixed chunks added in
    /// order (the same result on any thread count).
    template <typename Term>
    double
    chunked_sum(const Term &term) const
    {
      return deterministic_sum(values_.size(), internal::reduction_chunk, [&](const std::size_t begin, const std::size_t end) {
        double s = 0;
        for (std::size_t k = begin; k < end; ++k)
          s += term(k);
        return s;
      });
    }

    /// std::vector whose growth leaves the numbers uninitialized (reinit
    /// zeroes them in parallel instead of one thread value-initializing).
    using Storage = UninitializedVector<Number>;
    Storage values_;
  };
} // namespace cellwise
