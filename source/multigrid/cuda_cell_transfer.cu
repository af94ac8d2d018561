// Cell-wise prolongation and fused restriction on the device: sum
// factorization over the 2^3 children of a parent with one thread per 1D line
// of a cell (the pattern of laplace_operator.cu), the line in registers, the
// 1D matrices P_0, P_1 as a kernel parameter indexed with compile-time loop
// indices only (every thread reads the same entry: constant-bank broadcast),
// and shared memory only to turn the lines between directions.
//
// The children share partial results: child slot s = c_x + 2 c_y + 4 c_z
// needs P_{c_z} ⊗ P_{c_y} ⊗ P_{c_x}, so the x pass is done once per c_x (2
// results), the y pass once per (c_y, c_x) (4) and the z pass per child (8):
// 14 n^3 line outputs per parent instead of 24 n^3 for 8 separate children,
// and no slot-dependent matrix selection at all (both P_0 and P_1 are used by
// every thread with compile-time indices). Restriction is the transpose: z
// first (summing c_z), then y (summing c_y), then x (summing c_x).
//
//   prolongate_add (x, y, z):
//   stage | thread owns line q | registers                  | reads            | writes
//   ------+--------------------+----------------------------+------------------+------------------------
//   X     | (j, k), along x    | coarse x-line u            | coarse (global;  | A_cx (shared 0, 1)
//         |                    |                            |  contiguous: via |
//         |                    |                            |  shared 3)       |
//   Y     | (i, k), along y    | A_0, A_1 y-lines           | A                | B_{cy,cx} (shared
//         |                    |                            |                  |  cx + 2 cy, aliasing A)
//   Z     | (i, j), along z    | B_g z-line, fine z-lines   | B, fine (global, | fine (global) of the
//         |                    |  of all 8 children, loaded |  loaded first)   |  children g, g + 4
//         |                    |  at kernel start           |                  |
//
//   restrict_residual_add (z, y, x):
//   Z     | (i, j), along z    | b − Au z-lines of the two  | fine b, Au       | C_g (shared g),
//         |                    |  children g, g + 4         |  (global)        |  g = cx + 2 cy
//   Y     | (i, k), along y    | C_0..C_3 y-lines           | C                | D_cx (shared cx, aliasing C)
//   X     | (j, k), along x    | D_0, D_1 x-lines; old      | D, coarse        | coarse (global;
//         |                    |  coarse loaded at start    |  (global)        |  contiguous: via shared 2)
//
// All global accesses of the fine vectors are z-lines: thread (i, j) of a cell
// touches entries i + n j + n^2 k, so consecutive threads touch consecutive
// entries (contiguous) or consecutive cells (blocked). n = p + 1, L = n^2
// lines per cell, C parents per block, C L threads:
//
//   layout          | C                        | thread tid -> (c, q) | shared entry (c, i, j, k)
//   ----------------+--------------------------+----------------------+-----------------------------------
//   CellContiguous  | max(1, 128 / L)          | c = tid / L,         | c S + n^2 k + n ((j + k) % n)
//                   |                          | q = tid % L          |   + (i + k) % n   (n = 2, 4, 8)
//                   |                          |                      | c S + i + n j + n^2 k (other n)
//   CellBlocked<B>  | 128 bytes / sizeof(Num), | c = tid % C,         | c + C (i' + n j + n^2 k),
//                   | halved while C L > 1024  | q = tid / C          | i' = (i + j + k) % n for n = 8,
//                   | or 4 n^3 C > 48 KB       |                      | i' = i otherwise
//
// Why these maps: a blocked warp holds one line of C cells per 128 bytes, so
// the cell-fastest map serves each (half-)warp in one wavefront for x-, y- and
// z-line accesses alike. The contiguous warp holds 32 lines of one or two
// cells; the skew (rotating the x and y indices by k) makes the three access
// patterns (fixed i, fixed j, fixed k) hit distinct banks for n = 2, 4, 8; the
// cell stride S = n^3 + 4 (n = 2), n^3 + 16 (n = 4), n^3 + 1 (n = 6), n^3
// (other n) separates the cells of one warp. Checked by enumerating the
// shared-memory wavefronts of the x-, y- and z-line accesses (FP64: two
// half-warps of 8-byte words; FP32: 32 words): conflict-free for the blocked
// layout at n = 2..5, 8, 9 and the contiguous layout at n = 2, 4; the other
// cases (odd n contiguous, n = 6, 7 blocked) keep some conflicts, which were
// the fewest among the padded and skewed maps tried.
//
// Parent K = C blockIdx.x + c; child of slot s: children[8 K + s] (slot 0
// also flags refinement). With the child-major ordering the children of slot
// s of the C parents of a block are C consecutive cells: each of the 8 slot
// streams of a block is one contiguous range. The fine loads are issued at the
// start (prolongation: the 2n old values of up to 4 child pairs, as many as
// fit in 64 registers, the others one pair ahead in stage Z; restriction:
// the 16n values of b and Au, scheduled by the compiler), so that many loads are in flight per
// SM while the block waits. Every parent is owned by one block, every child by
// its parent: no atomics. Parents beyond n_parents and parents without
// children compute on zeros (they take part in the barriers) and store nothing.

#include <cellwise/base/config.h>
#include <cellwise/base/cuda_check.h>
#include <cellwise/base/degree_dispatch.h>
#include <cellwise/multigrid/cuda_cell_transfer.h>
#include <cellwise/multigrid/cell_transfer.h>
#include <cellwise/fe/matrices_1d.h>

#include "cuda_cell_transfer_kernels.h"

namespace cellwise
{
  namespace cuda
  {
    using namespace transfer_kernels;

    template <typename Number, typename Layout>
    CellTransfer<Number, Layout>::CellTransfer(const LevelHierarchy &hierarchy, const unsigned int degree)
    {
      reinit(hierarchy, degree);
    }

    template <typename Number, typename Layout>
    CellTransfer<Number, Layout>::~CellTransfer()
    {
      release();
    }

    template <typename Number, typename Layout>
    void
    CellTransfer<Number, Layout>::release() noexcept
    {
      for (int *pointer : children_)
        free_bytes(pointer);
      children_.clear();
    }

    template <typename Number, typename Layout>
    void
    CellTransfer<Number, Layout>::reinit(const LevelHierarchy &hierarchy, const unsigned int degree)
    {
      check_degree(degree);
      release();
      hierarchy_ = &hierarchy;
      degree_    = degree;
      prolongation_ = packed_prolongation_matrices<double>(degree);

      for (unsigned int l = 0; l + 1 < hierarchy.n_levels(); ++l)
        {
          children_.push_back(nullptr);
          children_.back() = upload(children_table(hierarchy, l, "cuda::CellTransfer"), "the children table of a level");
        }
    }

    template <typename Number, typename Layout>
    void
    CellTransfer<Number, Layout>::check_level(const unsigned int fine_level, const VectorType &fine, const VectorType &coarse) const
    {
      check_transfer_levels(hierarchy_, degree_, fine_level, fine.n_cells(), fine.degree(), coarse.n_cells(), coarse.degree());
    }

    template <typename Number, typename Layout>
    void
    CellTransfer<Number, Layout>::prolongate_add(const unsigned int to_level, VectorType &fine, const VectorType &coarse) const
    {
      check_level(to_level, fine, coarse);
      CELLWISE_CHECK(&fine != &coarse, "cuda::CellTransfer::prolongate_add: fine and coarse are the same vector");
      const unsigned int n_parents = coarse.n_cells();
      if (n_parents == 0)
        return;
      dispatch_degree(degree_, [&](auto degree) {
        constexpr int p = decltype(degree)::value;
        using Shape     = ShapeOf<p, Number, Layout>;
        prolongate_kernel<p, Number, Layout><<<n_blocks(n_parents, Shape::cells), Shape::threads>>>(
          make_matrices<p, Number>(prolongation_), children_[to_level - 1], coarse.data(), fine.data(), n_parents);
        CELLWISE_CUDA_CHECK_LAUNCH();
      });
    }

    template <typename Number, typename Layout>
    void
    CellTransfer<Number, Layout>::restrict_residual_add(const unsigned int from_level,
                                                        VectorType        &coarse,
                                                        const VectorType  &fine_b,
                                                        const VectorType  &fine_Au) const
    {
      check_level(from_level, fine_b, coarse);
      fine_b.check_compatible(fine_Au);
      CELLWISE_CHECK(&coarse != &fine_b && &coarse != &fine_Au,
                     "cuda::CellTransfer::restrict_residual_add: the coarse vector is also a fine input");
      const unsigned int n_parents = coarse.n_cells();
      if (n_parents == 0)
        return;
      dispatch_degree(degree_, [&](auto degree) {
        constexpr int p = decltype(degree)::value;
        using Shape     = ShapeOf<p, Number, Layout>;
        restrict_kernel<p, Number, Layout><<<n_blocks(n_parents, Shape::cells), Shape::threads>>>(
          make_matrices<p, Number>(prolongation_), children_[from_level - 1], fine_b.data(), fine_Au.data(),
          coarse.data(), n_parents);
        CELLWISE_CUDA_CHECK_LAUNCH();
      });
    }

    template <typename Number, typename Layout>
    void
    CellTransfer<Number, Layout>::restrict_add(const unsigned int from_level, VectorType &coarse, const VectorType &fine) const
    {
      VectorType zero;
      zero.reinit(fine);
      restrict_residual_add(from_level, coarse, fine, zero);
    }

    template <typename Number, typename Layout>
    const int *
    CellTransfer<Number, Layout>::device_children(const unsigned int fine_level) const
    {
      CELLWISE_CHECK(fine_level >= 1 && fine_level <= children_.size(),
                     "cuda::CellTransfer: no children table for fine level " << fine_level << " (" << children_.size() + 1
                                                                             << " levels)");
      return children_[fine_level - 1];
    }

    CELLWISE_INSTANTIATE_NUMBERS_AND_LAYOUTS(CellTransfer)
  } // namespace cuda
} // namespace cellwise
