#pragma once
// What the one-pass DSS kernels of a level that fills a box share with the
// kernels that consume a DSS on the fly (the Hermite DSS-Jacobi step of
// source/multigrid/cuda_hermite_dss_jacobi_step.cu): the 2 × 2 × 2 sub-box of
// cells above a cell, the combination of a node's copies in the order of the
// axis passes, and, for the cubic Hermite element, the vertices whose lowest
// copy is a cell's. Private to the library (not installed); compiled by nvcc
// only. The schedule itself is described in cuda_dss.cu.

#include <cellwise/fe/hermite_element.h>

#include <cstddef>

namespace cellwise
{
  namespace cuda
  {
    namespace box_gather
    {
      /// The cells of the sub-box above @p cell, slot s = s_x + 2 s_y + 4 s_z
      /// (-1: none), and whether it has a neighbour below along x, y, z.
      __device__ __forceinline__ void
      sub_box_above(const int *__restrict__ neighbors, const unsigned int cell, int (&c)[8], bool (&below)[3])
      {
        int row[6];
#pragma unroll
        for (int f = 0; f < 6; ++f)
          row[f] = neighbors[6 * static_cast<std::size_t>(cell) + f];
        c[0] = static_cast<int>(cell);
        c[1] = row[1] >= 0 ? row[1] : -1;
        c[2] = row[3] >= 0 ? row[3] : -1;
        c[4] = row[5] >= 0 ? row[5] : -1;
        c[3] = c[1] >= 0 && c[2] >= 0 ? neighbors[6 * static_cast<std::size_t>(c[1]) + 3] : -1;
        c[5] = c[1] >= 0 && c[4] >= 0 ? neighbors[6 * static_cast<std::size_t>(c[1]) + 5] : -1;
        c[6] = c[2] >= 0 && c[4] >= 0 ? neighbors[6 * static_cast<std::size_t>(c[2]) + 5] : -1;
        c[7] = c[3] >= 0 && c[4] >= 0 ? neighbors[6 * static_cast<std::size_t>(c[3]) + 5] : -1;
#pragma unroll
        for (int d = 0; d < 3; ++d)
          below[d] = row[2 * d] >= 0;
      }

      /// The same from LevelData::sub_boxes() (two 16-byte loads, no
      /// dependent ones).
      __device__ __forceinline__ void
      sub_box_from_table(const int *__restrict__ sub_boxes, const unsigned int cell, int (&c)[8], bool (&below)[3])
      {
        const int4 *const slots = reinterpret_cast<const int4 *>(sub_boxes + 8 * static_cast<std::size_t>(cell));
        const int4        low = slots[0], high = slots[1];
        c[0] = static_cast<int>(cell);
        c[1] = low.y;
        c[2] = low.z;
        c[3] = low.w;
        c[4] = high.x;
        c[5] = high.y;
        c[6] = high.z;
        c[7] = high.w;
#pragma unroll
        for (int d = 0; d < 3; ++d)
          below[d] = (low.x >> d) & 1;
      }
      /// The copies @p w of a node in sub-box slots s = s_x + 2 s_y + 4 s_z
      /// combined in the order of the axis passes, factor · (lower + upper)
      /// once per pair: x, then y, then z (an axis without a pair keeps the
      /// lower copy) — the host cascade's arithmetic, so the one-pass
      /// schedules equal it bit for bit.
      template <typename Number>
      __device__ __forceinline__ Number
      combine_copies(const Number *w, const bool pair_x, const bool pair_y, const bool pair_z, const Number factor)
      {
        Number a[4];
#pragma unroll
        for (int g = 0; g < 4; ++g)
          a[g] = pair_x ? factor * (w[2 * g] + w[2 * g + 1]) : w[2 * g];
        const Number b0 = pair_y ? factor * (a[0] + a[1]) : a[0];
        const Number b1 = pair_y ? factor * (a[2] + a[3]) : a[2];
        return pair_z ? factor * (b0 + b1) : b0;
      }

      /// Thread item -> (cell, derivative j) of the Hermite vertex kernels,
      /// in the order of the layout: j fastest in the cell-contiguous layout,
      /// 32 cells side by side at one j in the blocked one. A kernel whose
      /// threads take several derivatives each passes their number
      /// @p n_j of first ones (j < n_j).
      template <typename Layout, unsigned int n_j = hermite::dofs_per_vertex>
      __device__ __forceinline__ void
      hermite_vertex_item(const std::size_t item, std::size_t &cell, unsigned int &j)
      {
        constexpr unsigned int B    = Layout::cell_block;
        const unsigned int     rest = static_cast<unsigned int>(item % (n_j * B));
        cell                        = (item / (n_j * B)) * B + rest % B;
        j                           = rest / B;
      }

      /// Calls visit(vertex, pair_x, pair_y, pair_z) for every vertex of the
      /// cell whose sub-box is @p c (below: its neighbours below) that the
      /// cell owns, i.e. whose lowest copy is the cell's: the vertex is at the
      /// upper end along every axis with a cell below. pair_d: the vertex has
      /// a copy in the cell above along d. The copy of the vertex in slot s
      /// (s a subset of the vertex's upper ends, c[s] ≥ 0) is derivative j at
      /// vertex (vertex & ~s) of cell c[s]; slot 0 is the cell itself.
      template <typename Visit>
      __device__ __forceinline__ void
      for_each_owned_hermite_vertex(const int (&c)[8], const bool (&below)[3], Visit &&visit)
      {
#pragma unroll
        for (unsigned int vertex = 0; vertex < 8; ++vertex)
          {
            const bool upper[3] = {(vertex & 1) != 0, (vertex & 2) != 0, (vertex & 4) != 0};
            const bool owned    = (upper[0] || !below[0]) && (upper[1] || !below[1]) && (upper[2] || !below[2]);
            if (owned)
              visit(vertex, upper[0] && c[1] >= 0, upper[1] && c[2] >= 0, upper[2] && c[4] >= 0);
          }
      }

      /// Whether sub-box slot @p s holds a copy of @p vertex of the lowest cell.
      __device__ __forceinline__ bool
      holds_copy(const int (&c)[8], const unsigned int s, const unsigned int vertex)
      {
        return (s & ~vertex) == 0 && c[s] >= 0;
      }

      /// The one-pass DSS of the Hermite DoFs thread (cell K, derivative j)
      /// owns (K's sub-box @p c, @p below): for every vertex K owns, the
      /// copies' values load(index) (index: the copy's storage index in
      /// @p Layout) combined as the axis passes would, and store(index,
      /// combined) for every copy. A vertex without a copy in a cell above
      /// (a corner of the box) is its own DSS: with @p visit_unpaired it is
      /// loaded and stored as well (a kernel that writes another vector
      /// than it reads), else left alone.
      template <typename Number, typename Layout, bool visit_unpaired, typename Load, typename Store>
      __device__ __forceinline__ void
      dss_owned_hermite_vertices(const int (&c)[8], const bool (&below)[3], const unsigned int j, const Number factor, Load &&load, Store &&store)
      {
        constexpr unsigned int dofs = hermite::dofs_per_cell;
        for_each_owned_hermite_vertex(c, below, [&](const unsigned int vertex, const bool pair_x, const bool pair_y, const bool pair_z) {
          if (!visit_unpaired && !(pair_x || pair_y || pair_z))
            return;
          std::size_t index[8];
          Number      w[8];
#pragma unroll
          for (unsigned int s = 0; s < 8; ++s)
            {
              w[s] = Number(0);
              if (holds_copy(c, s, vertex))
                {
                  index[s] = Layout::index(static_cast<unsigned int>(c[s]), hermite::local_index(vertex & ~s, j), dofs);
                  w[s]     = load(index[s]);
                }
            }
          const Number result = combine_copies(w, pair_x, pair_y, pair_z, factor);
#pragma unroll
          for (unsigned int s = 0; s < 8; ++s)
            if (holds_copy(c, s, vertex))
              store(index[s], result);
        });
      }
    } // namespace box_gather
  } // namespace cuda
} // namespace cellwise
