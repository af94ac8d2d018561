// Device cell-wise vector: elementwise kernels and deterministic reductions.
//
// Thread mapping of the elementwise kernels: one thread per stored entry k
// (padding included, where it stays zero), 256 threads per block:
//
//   thread (blockIdx.x, threadIdx.x) -> entry k = 256 blockIdx.x + threadIdx.x
//
// Reductions (dot, norms, all_finite), deterministic by construction:
//
//   pass 1: block b of 256 threads owns chunk [4096 b, 4096 (b+1));
//           thread t sums entries 4096 b + t + 256 j, j = 0..15, in order of j,
//           then a fixed shared-memory tree over t -> partial[b]
//   pass 2: one block of 1024 threads: thread t sums partial[t + 1024 j] in
//           order of j, fixed tree over t -> result
//
// The grid depends only on the vector size, so the order of every addition is
// fixed: identical results run to run.

#include <cellwise/base/cuda_check.h>
#include <cellwise/storage/cuda_cell_vector.h>

#include <cmath>
#include <type_traits>
#include <utility>

namespace cellwise
{
  namespace
  {
    constexpr unsigned int block_size       = 256;
    constexpr unsigned int values_per_thread = 16;
    constexpr unsigned int chunk            = block_size * values_per_thread;
    constexpr unsigned int final_block_size = 1024;

    unsigned int
    n_blocks(const std::size_t n)
    {
      return static_cast<unsigned int>((n + block_size - 1) / block_size);
    }

    template <typename Number, typename Layout>
    __global__ void
    fill_kernel(Number *v, const Number s, const unsigned int n_cells, const unsigned int dofs_per_cell, const std::size_t n)
    {
      const std::size_t k = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
      if (k >= n)
        return;
      // Which cell entry k belongs to: the padding cells of the last block stay zero.
      constexpr unsigned int B     = Layout::cell_block;
      const std::size_t      block = k / (static_cast<std::size_t>(B) * dofs_per_cell);
      const std::size_t      cell  = block * B + (B == 1 ? 0 : k % B);
      if (cell < n_cells)
        v[k] = s;
    }

    template <typename Number>
    __global__ void
    equ_kernel(Number *v, const Number a, const Number *x, const std::size_t n)
    {
      const std::size_t k = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
      if (k < n)
        v[k] = a * x[k];
    }

    template <typename Number, typename OtherNumber>
    __global__ void
    sadd_kernel(Number *v, const Number s, const Number a, const OtherNumber *x, const std::size_t n)
    {
      const std::size_t k = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
      if (k < n)
        v[k] = s * v[k] + a * static_cast<Number>(x[k]);
    }

    /// v += a x, then x = s x + z: the two kernels add_kernel and sadd_kernel
    /// (with a = 1) in one pass.
    template <typename Number, typename OtherNumber>
    __global__ void
    add_and_sadd_kernel(Number *v, const Number a, Number *x, const Number s, const OtherNumber *z, const std::size_t n)
    {
      const std::size_t k = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
      if (k < n)
        {
          const Number old_x = x[k];
          v[k] += a * old_x;
          x[k] = s * old_x + static_cast<Number>(z[k]);
        }
    }

    /// v += a x, then converted = OtherNumber(v).
    template <typename Number, typename OtherNumber>
    __global__ void
    add_and_convert_kernel(Number *v, const Number a, const Number *x, OtherNumber *converted, const std::size_t n)
    {
      const std::size_t k = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
      if (k < n)
        {
          const Number sum = v[k] + a * x[k];
          v[k]             = sum;
          converted[k]     = static_cast<OtherNumber>(sum);
        }
    }

    template <typename Number>
    __global__ void
    add_kernel(Number *v, const Number a, const Number *x, const std::size_t n)
    {
      const std::size_t k = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
      if (k < n)
        v[k] += a * x[k];
    }

    template <typename Number>
    __global__ void
    scale_kernel(Number *v, const Number s, const std::size_t n)
    {
      const std::size_t k = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
      if (k < n)
        v[k] *= s;
    }

    template <typename Number>
    __global__ void
    scale_vector_kernel(Number *v, const Number *d, const std::size_t n)
    {
      const std::size_t k = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
      if (k < n)
        v[k] *= d[k];
    }

    /// a b rounded on its own: never contracted with a following addition
    /// into an FMA (as nvcc does by default), so that v + a x rounds as on
    /// the host for any a.
    __device__ inline float
    multiply_rn(const float a, const float b)
    {
      return __fmul_rn(a, b);
    }
    __device__ inline double
    multiply_rn(const double a, const double b)
    {
      return __dmul_rn(a, b);
    }

    /// v += a Number(x): the host's rounding of copy_from followed by add.
    template <typename Number, typename OtherNumber>
    __global__ void
    add_converted_kernel(Number *v, const Number a, const OtherNumber *x, const std::size_t n)
    {
      const std::size_t k = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
      if (k < n)
        v[k] = v[k] + multiply_rn(a, static_cast<Number>(x[k]));
    }

    template <typename Number, typename OtherNumber>
    __global__ void
    convert_kernel(Number *v, const OtherNumber *x, const std::size_t n)
    {
      const std::size_t k = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
      if (k < n)
        v[k] = static_cast<Number>(x[k]);
    }

    /// Tile of 32 cells in both layouts: the 32 n3 values starting at
    /// 32 n3 tile, ordered [cell][DoF] (cell-contiguous) or [DoF][cell]
    /// (blocked by 32). relayout_kernel: one block of 256 threads per tile,
    /// rounds of up to 64 DoFs (all of a Q3 cell); a round is read in the
    /// source's order into registers (8 values per thread, all loads in
    /// flight together), put into the shared tile [cell][DoF] (row stride
    /// 65: conflict-free for the cell-fastest and the DoF-fastest accesses)
    /// and written in the destination's order. Reads and writes then touch
    /// 32 runs of 64 consecutive values (or 32 consecutive values per DoF).
    /// Cells past n_cells: not read; written as zero in the blocked padding,
    /// not written in the cell-contiguous layout (no storage there). With
    /// @p accumulate the destination is updated, dst += a tile (as
    /// add_converted_kernel rounds), for the cells below n_cells only: the
    /// blocked padding keeps its zeros; the destination's values of the round
    /// are loaded together before any store.
    constexpr unsigned int relayout_tile   = 32;
    constexpr unsigned int relayout_round  = 64;
    constexpr unsigned int relayout_values = relayout_tile * relayout_round / block_size;

    template <bool blocked>
    __device__ inline std::size_t
    tile_offset(const unsigned int cell, const unsigned int dof, const unsigned int n3)
    {
      return blocked ? static_cast<std::size_t>(dof) * relayout_tile + cell : static_cast<std::size_t>(cell) * n3 + dof;
    }

    template <typename Number, typename OtherNumber, bool dst_blocked, bool src_blocked, bool accumulate = false>
    __global__ void __launch_bounds__(block_size)
    relayout_kernel(Number *dst, const OtherNumber *src, const unsigned int n_cells, const unsigned int n3, const Number a = Number(1))
    {
      __shared__ Number  tile[relayout_tile][relayout_round + 1];
      const unsigned int first_cell = blockIdx.x * relayout_tile;
      const std::size_t  base       = static_cast<std::size_t>(first_cell) * n3;
      for (unsigned int d0 = 0; d0 < n3; d0 += relayout_round)
        {
          const unsigned int width = min(relayout_round, n3 - d0);
          const unsigned int count = relayout_tile * width;
          // value j of this thread in the given order: consecutive k are
          // consecutive addresses of that layout
          auto cell_of = [&](const unsigned int k, const bool blocked) { return blocked ? k % relayout_tile : k / width; };
          auto dof_of  = [&](const unsigned int k, const bool blocked) { return blocked ? k / relayout_tile : k % width; };
          // this thread's values of the round from a vector in the layout
          // @p blocked, all loads issued together (0 outside the round and
          // past n_cells)
          auto load = [&](const auto *from, auto blocked, auto (&values)[relayout_values]) {
            using Value = std::remove_reference_t<decltype(values[0])>;
#pragma unroll
            for (unsigned int j = 0; j < relayout_values; ++j)
              {
                const unsigned int k = threadIdx.x + j * block_size;
                const unsigned int c = cell_of(k, blocked);
                values[j]            = k < count && first_cell + c < n_cells
                                         ? Value(from[base + tile_offset<decltype(blocked)::value>(c, d0 + dof_of(k, blocked), n3)])
                                         : Value(0);
              }
          };
          OtherNumber x[relayout_values];
          load(src, std::bool_constant<src_blocked>{}, x);
#pragma unroll
          for (unsigned int j = 0; j < relayout_values; ++j)
            {
              const unsigned int k = threadIdx.x + j * block_size;
              if (k < count)
                tile[cell_of(k, src_blocked)][dof_of(k, src_blocked)] = static_cast<Number>(x[j]);
            }
          __syncthreads();
          if constexpr (accumulate)
            {
              Number y[relayout_values];
              load(dst, std::bool_constant<dst_blocked>{}, y);
#pragma unroll
              for (unsigned int j = 0; j < relayout_values; ++j)
                {
                  const unsigned int k = threadIdx.x + j * block_size;
                  const unsigned int c = cell_of(k, dst_blocked);
                  const unsigned int d = dof_of(k, dst_blocked);
                  if (k < count && first_cell + c < n_cells)
                    dst[base + tile_offset<dst_blocked>(c, d0 + d, n3)] = y[j] + multiply_rn(a, tile[c][d]);
                }
            }
          else
            {
#pragma unroll
              for (unsigned int j = 0; j < relayout_values; ++j)
                {
                  const unsigned int k = threadIdx.x + j * block_size;
                  const unsigned int c = cell_of(k, dst_blocked);
                  if (k < count && (dst_blocked || first_cell + c < n_cells))
                    dst[base + tile_offset<dst_blocked>(c, d0 + dof_of(k, dst_blocked), n3)] = tile[c][dof_of(k, dst_blocked)];
                }
            }
          __syncthreads(); // the tile is refilled by the next round
        }
    }

    enum class ReductionKind
    {
      dot,
      sum_of_squares,
      max_abs,
      count_nonfinite
    };

    template <ReductionKind kind>
    __device__ inline double
    combine(const double a, const double b)
    {
      if constexpr (kind == ReductionKind::max_abs)
        return fmax(a, b);
      else
        return a + b;
    }

    template <ReductionKind kind, typename Number>
    __device__ inline double
    term(const Number *x, const Number *y, const std::size_t k)
    {
      if constexpr (kind == ReductionKind::dot)
        return double(x[k]) * double(y[k]);
      else if constexpr (kind == ReductionKind::sum_of_squares)
        return double(x[k]) * double(x[k]);
      else if constexpr (kind == ReductionKind::max_abs)
        return fabs(double(x[k]));
      else
        return isfinite(x[k]) ? 0. : 1.;
    }

    /// Fixed tree over the threads of a block; the result lands in s[0].
    template <ReductionKind kind, unsigned int threads>
    __device__ inline void
    block_tree(double *s)
    {
      for (unsigned int half = threads / 2; half > 0; half /= 2)
        {
          __syncthreads();
          if (threadIdx.x < half)
            s[threadIdx.x] = combine<kind>(s[threadIdx.x], s[threadIdx.x + half]);
        }
      __syncthreads();
    }

    /// Which entries a reduction takes: all, or those of the first cells.
    struct AllEntries
    {
      __device__ bool
      operator()(std::size_t) const
      {
        return true;
      }
    };
    template <typename Layout>
    struct EntriesOfFirstCells
    {
      std::size_t  n_first_cells;
      unsigned int dofs_per_cell;
      __device__ bool
      operator()(const std::size_t k) const
      {
        return Layout::cell_of(k, dofs_per_cell) < n_first_cells;
      }
    };

    template <ReductionKind kind, typename Number, typename Filter>
    __global__ void __launch_bounds__(block_size)
    reduce_chunks_kernel(const Number *x, const Number *y, const std::size_t n, double *partials, const Filter taken)
    {
      __shared__ double s[block_size];
      const std::size_t start = static_cast<std::size_t>(blockIdx.x) * chunk + threadIdx.x;
      double            sum   = 0;
#pragma unroll
      for (unsigned int j = 0; j < values_per_thread; ++j)
        {
          const std::size_t k = start + j * block_size;
          if (k < n && taken(k))
            sum = combine<kind>(sum, term<kind>(x, y, k));
        }
      s[threadIdx.x] = sum;
      block_tree<kind, block_size>(s);
      if (threadIdx.x == 0)
        partials[blockIdx.x] = s[0];
    }

    template <ReductionKind kind>
    __global__ void __launch_bounds__(final_block_size)
    reduce_partials_kernel(const double *partials, const unsigned int n, double *result)
    {
      __shared__ double s[final_block_size];
      double            sum = 0;
      for (unsigned int k = threadIdx.x; k < n; k += final_block_size)
        sum = combine<kind>(sum, partials[k]);
      s[threadIdx.x] = sum;
      block_tree<kind, final_block_size>(s);
      if (threadIdx.x == 0)
        *result = s[0];
    }

    template <ReductionKind kind, typename Number, typename Filter = AllEntries>
    double
    reduce(const Number *x, const Number *y, const std::size_t n, double *buffer, const Filter taken = Filter())
    {
      if (n == 0)
        return 0.;
      const unsigned int n_chunks = static_cast<unsigned int>((n + chunk - 1) / chunk);
      reduce_chunks_kernel<kind><<<n_chunks, block_size>>>(x, y, n, buffer, taken);
      CELLWISE_CUDA_CHECK_LAUNCH();
      reduce_partials_kernel<kind><<<1, final_block_size>>>(buffer, n_chunks, buffer + n_chunks);
      CELLWISE_CUDA_CHECK_LAUNCH();
      double result = 0;
      CELLWISE_CUDA_CHECK(cudaMemcpy(&result, buffer + n_chunks, sizeof(double), cudaMemcpyDeviceToHost));
      return result;
    }
  } // namespace

  template <typename Number, typename Layout>
  CellVector<Number, MemorySpace::CUDA, Layout>::CellVector(const unsigned int n_cells, const unsigned int degree)
  {
    reinit(n_cells, degree);
  }

  template <typename Number, typename Layout>
  CellVector<Number, MemorySpace::CUDA, Layout>::CellVector(const CellVector &other)
  {
    reinit(other.n_cells_, other.degree_);
    if (storage_size_ > 0)
      CELLWISE_CUDA_CHECK(cudaMemcpy(values_, other.values_, storage_size_ * sizeof(Number), cudaMemcpyDeviceToDevice));
  }

  template <typename Number, typename Layout>
  CellVector<Number, MemorySpace::CUDA, Layout>::CellVector(CellVector &&other) noexcept
    : Base(other)
    , storage_size_(std::exchange(other.storage_size_, 0))
    , values_(std::exchange(other.values_, nullptr))
    , partials_(std::exchange(other.partials_, nullptr))
    , n_partials_(std::exchange(other.n_partials_, 0))
  {
    other.n_cells_ = 0;
    other.degree_  = 0;
  }

  template <typename Number, typename Layout>
  CellVector<Number, MemorySpace::CUDA, Layout> &
  CellVector<Number, MemorySpace::CUDA, Layout>::operator=(const CellVector &other)
  {
    if (this == &other)
      return *this;
    if (!this->has_shape_of(other))
      reinit(other.n_cells_, other.degree_);
    if (storage_size_ > 0)
      CELLWISE_CUDA_CHECK(cudaMemcpy(values_, other.values_, storage_size_ * sizeof(Number), cudaMemcpyDeviceToDevice));
    return *this;
  }

  template <typename Number, typename Layout>
  CellVector<Number, MemorySpace::CUDA, Layout> &
  CellVector<Number, MemorySpace::CUDA, Layout>::operator=(CellVector &&other) noexcept
  {
    std::swap(n_cells_, other.n_cells_);
    std::swap(degree_, other.degree_);
    std::swap(storage_size_, other.storage_size_);
    std::swap(values_, other.values_);
    std::swap(partials_, other.partials_);
    std::swap(n_partials_, other.n_partials_);
    return *this;
  }

  template <typename Number, typename Layout>
  CellVector<Number, MemorySpace::CUDA, Layout>::~CellVector()
  {
    cuda::free_bytes(values_);
    cuda::free_bytes(partials_);
  }

  template <typename Number, typename Layout>
  void
  CellVector<Number, MemorySpace::CUDA, Layout>::reinit(const unsigned int n_cells, const unsigned int degree)
  {
    CELLWISE_CHECK(degree >= 1, "a cell vector needs degree >= 1, got " << degree);
    const std::size_t new_size = ::cellwise::storage_size<Layout>(n_cells, (degree + 1) * (degree + 1) * (degree + 1));
    if (new_size != storage_size_)
      {
        cuda::free_bytes(values_);
        values_       = nullptr;
        storage_size_ = 0;
        values_       = cuda::allocate<Number>(new_size, "a device cell vector");
        storage_size_ = new_size;
      }
    n_cells_ = n_cells;
    degree_  = degree;
    set_zero();
  }

  template <typename Number, typename Layout>
  void
  CellVector<Number, MemorySpace::CUDA, Layout>::set_zero()
  {
    if (storage_size_ > 0)
      CELLWISE_CUDA_CHECK(cudaMemsetAsync(values_, 0, storage_size_ * sizeof(Number)));
  }

  template <typename Number, typename Layout>
  void
  CellVector<Number, MemorySpace::CUDA, Layout>::fill(const Number s)
  {
    if (storage_size_ == 0)
      return;
    fill_kernel<Number, Layout><<<n_blocks(storage_size_), block_size>>>(values_, s, n_cells_, dofs_per_cell(), storage_size_);
    CELLWISE_CUDA_CHECK_LAUNCH();
  }

  template <typename Number, typename Layout>
  void
  CellVector<Number, MemorySpace::CUDA, Layout>::equ(const Number a, const CellVector &x)
  {
    check_compatible(x);
    if (storage_size_ == 0)
      return;
    equ_kernel<<<n_blocks(storage_size_), block_size>>>(values_, a, x.values_, storage_size_);
    CELLWISE_CUDA_CHECK_LAUNCH();
  }

  template <typename Number, typename Layout>
  void
  CellVector<Number, MemorySpace::CUDA, Layout>::add(const Number a, const CellVector &x)
  {
    check_compatible(x);
    if (storage_size_ == 0)
      return;
    add_kernel<<<n_blocks(storage_size_), block_size>>>(values_, a, x.values_, storage_size_);
    CELLWISE_CUDA_CHECK_LAUNCH();
  }

  template <typename Number, typename Layout>
  template <typename OtherNumber, typename OtherLayout>
  void
  CellVector<Number, MemorySpace::CUDA, Layout>::add(const Number a, const CellVector<OtherNumber, MemorySpace::CUDA, OtherLayout> &x)
  {
    check_compatible(x);
    if (n_cells_ == 0)
      return;
    if constexpr (std::is_same_v<Layout, OtherLayout>)
      add_converted_kernel<<<n_blocks(storage_size_), block_size>>>(values_, a, x.data(), storage_size_);
    else
      {
        static_assert((Layout::cell_block == 1 || Layout::cell_block == relayout_tile) &&
                        (OtherLayout::cell_block == 1 || OtherLayout::cell_block == relayout_tile),
                      "add across layouts: cell-contiguous and blocked by 32 only");
        const unsigned int n_tiles = (n_cells_ + relayout_tile - 1) / relayout_tile;
        relayout_kernel<Number, OtherNumber, (Layout::cell_block > 1), (OtherLayout::cell_block > 1), true>
          <<<n_tiles, block_size>>>(values_, x.data(), n_cells_, dofs_per_cell(), a);
      }
    CELLWISE_CUDA_CHECK_LAUNCH();
  }

  template <typename Number, typename Layout>
  void
  CellVector<Number, MemorySpace::CUDA, Layout>::sadd(const Number s, const Number a, const CellVector &x)
  {
    check_compatible(x);
    if (storage_size_ == 0)
      return;
    sadd_kernel<<<n_blocks(storage_size_), block_size>>>(values_, s, a, x.values_, storage_size_);
    CELLWISE_CUDA_CHECK_LAUNCH();
  }

  template <typename Number, typename Layout>
  template <typename OtherNumber>
  void
  CellVector<Number, MemorySpace::CUDA, Layout>::sadd(const Number s, const Number a, const CellVector<OtherNumber, MemorySpace::CUDA, Layout> &x)
  {
    check_compatible(x);
    if (storage_size_ == 0)
      return;
    sadd_kernel<<<n_blocks(storage_size_), block_size>>>(values_, s, a, x.data(), storage_size_);
    CELLWISE_CUDA_CHECK_LAUNCH();
  }

  template <typename Number, typename Layout>
  template <typename OtherNumber>
  void
  CellVector<Number, MemorySpace::CUDA, Layout>::add_and_sadd(const Number a, CellVector &x, const Number s,
                                                               const CellVector<OtherNumber, MemorySpace::CUDA, Layout> &z)
  {
    check_compatible(x);
    check_compatible(z);
    if (storage_size_ == 0)
      return;
    add_and_sadd_kernel<<<n_blocks(storage_size_), block_size>>>(values_, a, x.values_, s, z.data(), storage_size_);
    CELLWISE_CUDA_CHECK_LAUNCH();
  }

  template <typename Number, typename Layout>
  template <typename OtherNumber>
  void
  CellVector<Number, MemorySpace::CUDA, Layout>::add_and_convert(const Number a, const CellVector &x,
                                                                  CellVector<OtherNumber, MemorySpace::CUDA, Layout> &converted)
  {
    check_compatible(x);
    if (!converted.has_shape_of(*this))
      converted.reinit(n_cells_, degree_);
    if (storage_size_ == 0)
      return;
    add_and_convert_kernel<<<n_blocks(storage_size_), block_size>>>(values_, a, x.values_, converted.data(), storage_size_);
    CELLWISE_CUDA_CHECK_LAUNCH();
  }

  template <typename Number, typename Layout>
  void
  CellVector<Number, MemorySpace::CUDA, Layout>::scale(const Number s)
  {
    if (storage_size_ == 0)
      return;
    scale_kernel<<<n_blocks(storage_size_), block_size>>>(values_, s, storage_size_);
    CELLWISE_CUDA_CHECK_LAUNCH();
  }

  template <typename Number, typename Layout>
  void
  CellVector<Number, MemorySpace::CUDA, Layout>::scale(const CellVector &d)
  {
    check_compatible(d);
    if (storage_size_ == 0)
      return;
    scale_vector_kernel<<<n_blocks(storage_size_), block_size>>>(values_, d.values_, storage_size_);
    CELLWISE_CUDA_CHECK_LAUNCH();
  }

  template <typename Number, typename Layout>
  template <typename OtherNumber>
  void
  CellVector<Number, MemorySpace::CUDA, Layout>::copy_from(const CellVector<OtherNumber, MemorySpace::CUDA, Layout> &other)
  {
    if (!this->has_shape_of(other))
      reinit(other.n_cells(), other.degree());
    if (storage_size_ == 0)
      return;
    convert_kernel<<<n_blocks(storage_size_), block_size>>>(values_, other.data(), storage_size_);
    CELLWISE_CUDA_CHECK_LAUNCH();
  }

  template <typename Number, typename Layout>
  template <typename OtherNumber, typename OtherLayout>
  void
  CellVector<Number, MemorySpace::CUDA, Layout>::copy_from(const CellVector<OtherNumber, MemorySpace::CUDA, OtherLayout> &other)
  {
    static_assert((Layout::cell_block == 1 || Layout::cell_block == relayout_tile) &&
                    (OtherLayout::cell_block == 1 || OtherLayout::cell_block == relayout_tile),
                  "relayout: cell-contiguous and blocked by 32 only");
    if (!this->has_shape_of(other))
      reinit(other.n_cells(), other.degree());
    if (n_cells_ == 0)
      return;
    const unsigned int n_tiles = (n_cells_ + relayout_tile - 1) / relayout_tile;
    relayout_kernel<Number, OtherNumber, (Layout::cell_block > 1), (OtherLayout::cell_block > 1)>
      <<<n_tiles, block_size>>>(values_, other.data(), n_cells_, dofs_per_cell());
    CELLWISE_CUDA_CHECK_LAUNCH();
  }

  template <typename Number, typename Layout>
  double *
  CellVector<Number, MemorySpace::CUDA, Layout>::reduction_buffer() const
  {
    // chunk sums plus one slot for the result
    const std::size_t needed = (storage_size_ + chunk - 1) / chunk + 1;
    if (needed > n_partials_)
      {
        cuda::free_bytes(partials_);
        partials_   = nullptr;
        n_partials_ = 0;
        partials_   = cuda::allocate<double>(needed, "the partial sums of a device reduction");
        n_partials_ = needed;
      }
    return partials_;
  }

  template <typename Number, typename Layout>
  double
  CellVector<Number, MemorySpace::CUDA, Layout>::dot(const CellVector &x) const
  {
    check_compatible(x);
    return reduce<ReductionKind::dot>(values_, x.values_, storage_size_, reduction_buffer());
  }

  template <typename Number, typename Layout>
  double
  CellVector<Number, MemorySpace::CUDA, Layout>::dot(const CellVector &x, const unsigned int n_first_cells) const
  {
    check_compatible(x);
    CELLWISE_CHECK(n_first_cells <= n_cells_, "dot over the first " << n_first_cells << " of " << n_cells_ << " cells");
    // the storage up to the block of the last cell taken; the filter drops
    // the later cells of that block
    return reduce<ReductionKind::dot>(values_, x.values_, ::cellwise::storage_size<Layout>(n_first_cells, this->dofs_per_cell()),
                                      reduction_buffer(),
                                      EntriesOfFirstCells<Layout>{n_first_cells, this->dofs_per_cell()});
  }

  template <typename Number, typename Layout>
  double
  CellVector<Number, MemorySpace::CUDA, Layout>::l2_norm() const
  {
    return std::sqrt(reduce<ReductionKind::sum_of_squares>(values_, values_, storage_size_, reduction_buffer()));
  }

  template <typename Number, typename Layout>
  double
  CellVector<Number, MemorySpace::CUDA, Layout>::linfty_norm() const
  {
    return reduce<ReductionKind::max_abs>(values_, values_, storage_size_, reduction_buffer());
  }

  template <typename Number, typename Layout>
  bool
  CellVector<Number, MemorySpace::CUDA, Layout>::all_finite() const
  {
    return reduce<ReductionKind::count_nonfinite>(values_, values_, storage_size_, reduction_buffer()) == 0.;
  }

  template <typename Number, typename Layout>
  bool
  CellVector<Number, MemorySpace::CUDA, Layout>::all_finite(const unsigned int n_first_cells) const
  {
    CELLWISE_CHECK(n_first_cells <= n_cells_, "all_finite over the first " << n_first_cells << " of " << n_cells_ << " cells");
    return reduce<ReductionKind::count_nonfinite>(values_, values_, ::cellwise::storage_size<Layout>(n_first_cells, this->dofs_per_cell()),
                                                  reduction_buffer(),
                                                  EntriesOfFirstCells<Layout>{n_first_cells, this->dofs_per_cell()}) == 0.;
  }

  template <typename Number, typename Layout>
  void
  CellVector<Number, MemorySpace::CUDA, Layout>::copy_from_host(const HostVector &host)
  {
    if (!this->has_shape_of(host))
      reinit(host.n_cells(), host.degree());
    CELLWISE_CHECK(host.storage_size() == storage_size_,
                   "copy_from_host: host storage " << host.storage_size() << " differs from device storage " << storage_size_);
    if (storage_size_ > 0)
      cuda::copy_host_to_device(values_, host.data(), storage_size_ * sizeof(Number));
  }

  template <typename Number, typename Layout>
  void
  CellVector<Number, MemorySpace::CUDA, Layout>::copy_to_host(HostVector &host) const
  {
    if (!this->has_shape_of(host))
      host.reinit(n_cells_, degree_, true); // every entry, padding included, is copied next
    if (storage_size_ > 0)
      cuda::copy_device_to_host(host.data(), values_, storage_size_ * sizeof(Number));
  }

#define CELLWISE_INSTANTIATE_CUDA_VECTOR(Layout)                                                                           \
  template class CellVector<double, MemorySpace::CUDA, Layout>;                                                          \
  template class CellVector<float, MemorySpace::CUDA, Layout>;                                                           \
  template void CellVector<double, MemorySpace::CUDA, Layout>::copy_from(const CellVector<double, MemorySpace::CUDA, Layout> &); \
  template void CellVector<double, MemorySpace::CUDA, Layout>::copy_from(const CellVector<float, MemorySpace::CUDA, Layout> &);  \
  template void CellVector<float, MemorySpace::CUDA, Layout>::copy_from(const CellVector<double, MemorySpace::CUDA, Layout> &);  \
  template void CellVector<float, MemorySpace::CUDA, Layout>::copy_from(const CellVector<float, MemorySpace::CUDA, Layout> &);

  CELLWISE_INSTANTIATE_CUDA_VECTOR(CellContiguous)
  CELLWISE_INSTANTIATE_CUDA_VECTOR(CellBlocked<32>)
#undef CELLWISE_INSTANTIATE_CUDA_VECTOR

  // add across precisions in one layout (the same number type is the plain add)
#define CELLWISE_INSTANTIATE_MIXED_ADD(Layout)                                                                           \
  template void CellVector<double, MemorySpace::CUDA, Layout>::add(double, const CellVector<float, MemorySpace::CUDA, Layout> &); \
  template void CellVector<float, MemorySpace::CUDA, Layout>::add(float, const CellVector<double, MemorySpace::CUDA, Layout> &);  \
  template void CellVector<double, MemorySpace::CUDA, Layout>::sadd(double, double,                                           \
                                                                    const CellVector<float, MemorySpace::CUDA, Layout> &);    \
  template void CellVector<float, MemorySpace::CUDA, Layout>::sadd(float, float, const CellVector<double, MemorySpace::CUDA, Layout> &);

#define CELLWISE_INSTANTIATE_FUSED_CG(Layout)                                                                                     \
  template void CellVector<double, MemorySpace::CUDA, Layout>::add_and_sadd(double, CellVector &, double,                         \
                                                                            const CellVector<double, MemorySpace::CUDA, Layout> &); \
  template void CellVector<double, MemorySpace::CUDA, Layout>::add_and_sadd(double, CellVector &, double,                         \
                                                                            const CellVector<float, MemorySpace::CUDA, Layout> &);  \
  template void CellVector<float, MemorySpace::CUDA, Layout>::add_and_sadd(float, CellVector &, float,                            \
                                                                           const CellVector<float, MemorySpace::CUDA, Layout> &);   \
  template void CellVector<double, MemorySpace::CUDA, Layout>::add_and_convert(double, const CellVector &,                        \
                                                                               CellVector<float, MemorySpace::CUDA, Layout> &);
  CELLWISE_INSTANTIATE_FUSED_CG(CellContiguous)
  CELLWISE_INSTANTIATE_FUSED_CG(CellBlocked<32>)
#undef CELLWISE_INSTANTIATE_FUSED_CG

  CELLWISE_INSTANTIATE_MIXED_ADD(CellContiguous)
  CELLWISE_INSTANTIATE_MIXED_ADD(CellBlocked<32>)
#undef CELLWISE_INSTANTIATE_MIXED_ADD

#define CELLWISE_INSTANTIATE_RELAYOUT(Layout, OtherLayout)                                                                              \
  template void CellVector<double, MemorySpace::CUDA, Layout>::copy_from(const CellVector<double, MemorySpace::CUDA, OtherLayout> &); \
  template void CellVector<double, MemorySpace::CUDA, Layout>::copy_from(const CellVector<float, MemorySpace::CUDA, OtherLayout> &);  \
  template void CellVector<float, MemorySpace::CUDA, Layout>::copy_from(const CellVector<double, MemorySpace::CUDA, OtherLayout> &);  \
  template void CellVector<float, MemorySpace::CUDA, Layout>::copy_from(const CellVector<float, MemorySpace::CUDA, OtherLayout> &);  \
  template void CellVector<double, MemorySpace::CUDA, Layout>::add(double, const CellVector<double, MemorySpace::CUDA, OtherLayout> &); \
  template void CellVector<double, MemorySpace::CUDA, Layout>::add(double, const CellVector<float, MemorySpace::CUDA, OtherLayout> &);  \
  template void CellVector<float, MemorySpace::CUDA, Layout>::add(float, const CellVector<double, MemorySpace::CUDA, OtherLayout> &);   \
  template void CellVector<float, MemorySpace::CUDA, Layout>::add(float, const CellVector<float, MemorySpace::CUDA, OtherLayout> &);

  CELLWISE_INSTANTIATE_RELAYOUT(CellContiguous, CellBlocked<32>)
  CELLWISE_INSTANTIATE_RELAYOUT(CellBlocked<32>, CellContiguous)
#undef CELLWISE_INSTANTIATE_RELAYOUT
} // namespace cellwise
