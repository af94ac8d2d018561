#pragma once
/**
 * @file
 * CellVector in device memory (CUDA backend). Same API and same storage as the
 * host specialization in cellwise/storage/cell_vector.h (layout, padding to
 * whole cell blocks, padding kept zero), so that copy_from_host and
 * copy_to_host are plain memcpys; the shape and deal.II's vector operators
 * are the shared internal::CellVectorBase.
 *
 * The member functions are declared here and implemented in
 * source/storage/cuda_cell_vector.cu, so that host code compiled by a plain C++
 * compiler can hold and pass device vectors. Instantiated for double and float
 * and the layouts CellContiguous and CellBlocked<32>.
 *
 * All operations are asynchronous on the default stream except those that
 * return a value to the host (dot, norms, all_finite) and the host copies.
 */

#include <cellwise/base/exceptions.h>
#include <cellwise/base/memory_space.h>
#include <cellwise/storage/cell_vector.h>
#include <cellwise/storage/layout.h>

#include <cstddef>

namespace cellwise
{
  /// Device cell-wise vector: plain cudaMalloc, RAII, deep copy.
  template <typename Number, typename Layout>
  class CellVector<Number, MemorySpace::CUDA, Layout>
    : public internal::CellVectorBase<CellVector<Number, MemorySpace::CUDA, Layout>, Number>
  {
    using Base = internal::CellVectorBase<CellVector, Number>;

  public:
    using value_type   = Number;
    using memory_space = MemorySpace::CUDA;
    using layout_type  = Layout;
    using HostVector   = CellVector<Number, MemorySpace::Host, Layout>;

    // the shape, its checks and deal.II's vector operators (cell_vector.h)
    using Base::check_compatible;
    using Base::degree;
    using Base::dofs_per_cell;
    using Base::n_cells;
    using Base::reinit;
    using Base::size;
    using Base::operator=;

    CellVector() = default;
    /// Zero vector of @p n_cells cells of degree @p degree.
    CellVector(unsigned int n_cells, unsigned int degree);
    /// Deep copy (device to device).
    CellVector(const CellVector &other);
    CellVector(CellVector &&other) noexcept;
    CellVector &
    operator=(const CellVector &other);
    CellVector &
    operator=(CellVector &&other) noexcept;
    ~CellVector();

    /// Resize to @p n_cells cells of degree @p degree and set to zero.
    void
    reinit(unsigned int n_cells, unsigned int degree);
    /// Number of stored entries including layout padding (which stays zero).
    std::size_t
    storage_size() const
    {
      return storage_size_;
    }
    /// Device pointer to the storage_size() entries.
    Number *
    data()
    {
      return values_;
    }
    const Number *
    data() const
    {
      return values_;
    }

    /// Set all values (and the padding) to zero.
    void
    set_zero();
    /// Set all values (not the padding) to @p s.
    void
    fill(Number s);
    /// this = a x
    void
    equ(Number a, const CellVector &x);
    /// this += a x
    void
    add(Number a, const CellVector &x);
    /**
     * this += a Number(x) for x of another number type and/or layout, in one
     * pass: the value of each cell entry is converted to Number and added,
     * rounded as the host's copy_from followed by add (a x is rounded before
     * the addition, never fused into an FMA). The same layout: elementwise;
     * the other layout (cell-contiguous <-> blocked by 32): tiles of 32 cells
     * turned through shared memory as in the relayout copy_from, the padding
     * of the blocked layout left zero. The mixed-precision stationary step adds
     * its FP32 cell-contiguous correction to the FP64 (blocked) iterate this
     * way, without a widened copy (000 §7). Instantiated for double += float
     * and float += double in either layout, and for every number pair across
     * the two layouts.
     */
    template <typename OtherNumber, typename OtherLayout>
    void
    add(Number a, const CellVector<OtherNumber, MemorySpace::CUDA, OtherLayout> &x);
    /// this = s this + a x
    void
    sadd(Number s, Number a, const CellVector &x);
    /// this = s this + a Number(x) for x of the other number type in the same
    /// layout, in one pass: the mixed-precision CG forms its search direction
    /// from its FP32 correction this way, without a widened copy.
    /// Instantiated for double with float and float with double.
    template <typename OtherNumber>
    void
    sadd(Number s, Number a, const CellVector<OtherNumber, MemorySpace::CUDA, Layout> &x);
    /// this += a x, then x = s x + Number(z), in one pass (z of either number
    /// type, same layout): CG adds α p to its iterate with the search
    /// direction it then replaces by z + β p, reading p once instead of
    /// twice. Instantiated for double and float z with double, float with
    /// float.
    template <typename OtherNumber>
    void
    add_and_sadd(Number a, CellVector &x, Number s, const CellVector<OtherNumber, MemorySpace::CUDA, Layout> &z);
    /// this += a x, then converted = OtherNumber(this), in one pass (same
    /// layout; @p converted takes this vector's shape): the mixed-precision
    /// CG updates its FP64 residual and rounds it for the FP32 cycle,
    /// reading the residual once instead of twice. Instantiated for double
    /// with float.
    template <typename OtherNumber>
    void
    add_and_convert(Number a, const CellVector &x, CellVector<OtherNumber, MemorySpace::CUDA, Layout> &converted);
    /// this *= s
    void
    scale(Number s);
    /// this *= d entrywise
    void
    scale(const CellVector &d);
    /// Copy with conversion of the number type in one fused kernel (FP64 <-> FP32).
    template <typename OtherNumber>
    void
    copy_from(const CellVector<OtherNumber, MemorySpace::CUDA, Layout> &other);
    /// Copy from the other layout (cell-contiguous <-> blocked by 32), with
    /// conversion of the number type, in one pass: tiles of 32 cells turned
    /// through shared memory, so that the reads and the writes are coalesced
    /// (the mixed-precision solver's FP64 blocked outer vectors and FP32
    /// cell-contiguous levels, 000 §5.2).
    template <typename OtherNumber, typename OtherLayout>
    void
    copy_from(const CellVector<OtherNumber, MemorySpace::CUDA, OtherLayout> &other);

    /**
     * Pairing sum_K x_K . y_K, accumulated in double. Deterministic: fixed-size
     * chunks of the storage are summed by one block each in a fixed tree, the
     * chunk sums then in a fixed order by one block; the result does not depend
     * on timing and is identical run to run.
     */
    double
    dot(const CellVector &x) const;
    /// The pairing over the cells 0 .. @p n_first_cells − 1 only (a
    /// distributed vector's owned cells, which come before its ghosts); as
    /// deterministic.
    double
    dot(const CellVector &x, unsigned int n_first_cells) const;
    /// Euclidean norm of all copies (not of the represented vector).
    double
    l2_norm() const;
    /// Largest absolute value.
    double
    linfty_norm() const;
    /// False if any value is NaN or infinite.
    bool
    all_finite() const;
    /// False if a value of the cells 0 .. @p n_first_cells − 1 is NaN or
    /// infinite.
    bool
    all_finite(unsigned int n_first_cells) const;

    /// Resize to @p host's shape and copy its values (same number type and layout).
    void
    copy_from_host(const HostVector &host);
    /// Resize @p host to this shape and copy the values into it.
    void
    copy_to_host(HostVector &host) const;

  private:
    using Base::degree_;
    using Base::n_cells_;

    /// Chunk sums of the reductions, kept between calls (sized by storage_size).
    double *
    reduction_buffer() const;

    std::size_t         storage_size_ = 0;
    Number             *values_       = nullptr;
    mutable double     *partials_     = nullptr;
    mutable std::size_t n_partials_   = 0;
  };
} // namespace cellwise
