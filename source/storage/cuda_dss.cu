// Device DSS, two schedules with the result of the host apply_dss bit for bit.
// (A first one-pass version had one thread per node: its chain of dependent
// neighbour loads and two to eight copies per thread left too few bytes in
// flight; it ran at 0.43 of a copy, slower than the axis passes.)
//
// Axis passes (any level): three launches, one per axis d = 0, 1, 2 (the
// order of the host apply_dss). Inside a pass, every face pair (cell K, upper
// face 2d+1) <-> (neighbour K', lower face 2d) is handled face DoF by face
// DoF, owned by the lower cell K; no two items touch the same entry (for
// p >= 1 the lower and upper face DoFs of a cell differ), so no atomics and no
// ordering between items.
//
// Item e (one face DoF (a, b) of one layer of one cell), m = n^2 face DoFs
// per layer, M = m × layers (1 for FE_Q, 2 for the cubic Hermite element:
// values and normal derivatives, fe/face_dofs.h), e' = layer m + ab:
//
//   layout           | item e                        | cell K              | e' = layer m + ab
//   -----------------+-------------------------------+---------------------+------------------
//   CellContiguous   | e = M K + e'                  | e / M               | e % M
//   CellBlocked<B>   | e = B M (K / B) + B e' + K%B  | B (e / (B M)) + e%B | (e / B) % M
//
// Block b, thread t handles the U items e = U T b + T u + t, u = 0..U−1, T
// threads per block: for every u, consecutive threads hold consecutive items,
// i.e. consecutive face DoFs of one cell (contiguous: the z face is n^2
// consecutive entries, a y face n runs of n, an x face a stride-n comb) or one
// face DoF of consecutive cells (blocked: one 32-cell run). The old kernel
// had one item per thread: a neighbour load, then a load depending on it,
// i.e. two memory latencies for two 8-byte loads per thread. Now a thread
// issues its U neighbour loads together (the m items of a face read the same
// entry: one transaction per face and warp), then its 2U entry loads, then
// its 2U stores: U times the loads in flight per thread. The degree is a
// template parameter so that the item decode divides by constants.
//
// One pass (blocked layout, levels that fill a box, Level::fills_box): each
// pass above reads and writes the two face layers of its axis, half of a Q3
// cell, so the three move 3/2 of the vector each way, although only the
// n^3 − (n−2)^3 entries on the cell boundary (7/8 for Q3) have copies. In a
// box the copies of a node lie in the cells of a 2×2×2 sub-box: c(s_x, s_y,
// s_z) is reached from the node's lowest copy's cell K by s_x, s_y, s_z steps
// up along x, y, z. The copies are gathered, combined in the order of the
// passes
//
//   a(s_y, s_z) = f (v(0, s_y, s_z) + v(1, s_y, s_z))   (x pass; v(0, ..) alone
//   b(s_z)      = f (a(0, s_z) + a(1, s_z))              if there is no copy
//   result      = f (b(0) + b(1))                        above, and so on)
//
// with f = 1 (sum) or 1/2 (mean), and the result is written to every copy:
// each boundary entry is read and written once.
//
// One thread per cell K handles the nodes whose lowest copy is K's: local
// DoFs (i, j, k) with an index p along an axis with a cell above (else no
// copy above), and with no index 0 along an axis with a cell below (else the
// cell below handles it). The thread reads K's neighbour row once and the
// rows of its neighbours above for the sub-box cells (two steps for the edge
// sub-boxes, three for the far corner), then works through its nodes in
// batches of rows of a z-plane: all copies of a batch (at most 32 values)
// loaded, then combined and stored, so that many loads are in flight per
// thread (Q3 FP64: 97 registers, no spills). A warp holds 32 consecutive
// cells: in the blocked layout every load and store is one DoF of 32 cells
// side by side. In the cell-contiguous layout the same accesses are 32
// separate cells apart; that schedule is slower there than the axis passes
// and runs only when asked for (DssSchedule::one_pass).
//
// Skeleton phase (levels with skeleton faces, after the axis passes, which
// pair structured faces only): one thread per skeleton node adds the
// representative copy of each block, weighted by the block's copies for the
// mean, in double in the order of the host DssSkeleton::apply, and writes
// the total to every copy. Few entries (the skeleton's nodes); the loads are
// scattered, and the phase is a small share of a DSS.

#include <cellwise/base/cuda_check.h>
#include <cellwise/base/degree_dispatch.h>
#include <cellwise/storage/cuda_dss.h>
#include <cellwise/fe/face_dofs.h>
#include <cellwise/fe/hermite_element.h>

#include <limits>
#include <utility>

#include "cuda_box_vertex_gather.h"

namespace cellwise
{
  namespace cuda
  {
    namespace
    {
      using namespace box_gather;

      constexpr unsigned int dss_threads = 256;
      constexpr unsigned int dss_items   = 4; // U, items per thread

      /// Whether @p layers are the two trace layers of the cubic Hermite
      /// element, which the one-pass vertex kernel gathers.
      bool
      is_hermite_trace(const TraceLayers &layers)
      {
        return layers == hermite_trace_layers();
      }

      /// The layers of a face pair as kernel arguments: layer l of the lower
      /// cell's upper face with layer l of the upper cell's lower face.
      struct PassLayers
      {
        unsigned int at_upper_end[2] = {0, 0};
        unsigned int at_lower_end[2] = {0, 0};
      };

      template <int p, int n_layers, typename Number, typename Layout>
      __global__ void __launch_bounds__(dss_threads)
      dss_pass_kernel(Number            *v,
                      const int *__restrict__ neighbors,
                      const unsigned int n_cells,
                      const unsigned int n_items,
                      const unsigned int d,
                      const Number       factor,
                      const DssPairs     pairs,
                      const PassLayers   layers)
      {
        constexpr unsigned int B             = Layout::cell_block;
        constexpr unsigned int n             = p + 1;
        constexpr unsigned int m             = n * n;
        constexpr unsigned int M             = n_layers * m; // items per cell and pass
        constexpr unsigned int dofs_per_cell = m * n;
        constexpr unsigned int U             = dss_items;
        const unsigned int     first         = blockIdx.x * (U * dss_threads) + threadIdx.x;

        unsigned int cell[U], ab[U], upper[U], lower[U];
        int          other[U];
#pragma unroll
        for (unsigned int u = 0; u < U; ++u)
          {
            const unsigned int item = first + u * dss_threads;
            const unsigned int rest = item % (B * M);
            cell[u]                 = (item / (B * M)) * B + rest % B;
            ab[u]                   = (rest / B) % m;
            // one layer (FE_Q): the compile-time indices p and 0
            const unsigned int l = n_layers == 1 ? 0 : (rest / B) / m;
            upper[u]             = n_layers == 1 ? p : layers.at_upper_end[l];
            lower[u]             = n_layers == 1 ? 0 : layers.at_lower_end[l];
            // padding cells of the blocked layout (cell >= n_cells) have no pair
            other[u] = item < n_items && cell[u] < n_cells ? neighbors[6 * static_cast<std::size_t>(cell[u]) + 2 * d + 1] : -1;
            if (other[u] >= 0 && !pairs.selects(cell[u], static_cast<unsigned int>(other[u])))
              other[u] = -1;
          }
        std::size_t mine[U], theirs[U];
        Number      a[U], b[U];
#pragma unroll
        for (unsigned int u = 0; u < U; ++u)
          if (other[u] >= 0)
            {
              mine[u]   = Layout::index(cell[u], face_layer_dof(n, d, upper[u], ab[u] % n, ab[u] / n), dofs_per_cell);
              theirs[u] = Layout::index(other[u], face_layer_dof(n, d, lower[u], ab[u] % n, ab[u] / n), dofs_per_cell);
              a[u]      = v[mine[u]];
              b[u]      = v[theirs[u]];
            }
#pragma unroll
        for (unsigned int u = 0; u < U; ++u)
          if (other[u] >= 0)
            {
              // Same expression as the host: factor * (mine + theirs), rounded once in Number.
              const Number s = factor * (a[u] + b[u]);
              v[mine[u]]     = s;
              v[theirs[u]]   = s;
            }
      }
      /// Local DoF, in the cell of sub-box slot s, of the copy of node (i, j, k)
      /// of the lowest cell: on the lower face along the axes where s steps up.
      template <int p>
      __device__ constexpr int
      copy_dof(const int s, const int i, const int j, const int k)
      {
        return (s & 1 ? 0 : i) + (p + 1) * ((s & 2 ? 0 : j) + (p + 1) * (s & 4 ? 0 : k));
      }

      /// Whether the node (i, j, k) of the lowest cell can have a copy in slot s
      /// (it steps up only along axes where the node is on the upper face).
      template <int p>
      __device__ constexpr bool
      slot_possible(const int s, const int i, const int j, const int k)
      {
        return (!(s & 1) || i == p) && (!(s & 2) || j == p) && (!(s & 4) || k == p);
      }

      /// The nodes of rows j_begin..j_end of plane k that this cell owns (see
      /// the header): all their copies loaded first, then combined in the order
      /// of the axis passes and stored. @p copy[s]: entry 0 of the cell in
      /// sub-box slot s (null: no cell there); entries are @p stride apart.
      template <int p, int k, int j_begin, int j_end, unsigned int stride, typename Number>
      __device__ __forceinline__ void
      dss_box_rows(Number *const (&copy)[8], const bool below_x, const bool below_y, const Number factor)
      {
        constexpr int n = p + 1;
        Number        value[j_end - j_begin + 1][n][8];
#pragma unroll
        for (int j = j_begin; j <= j_end; ++j)
#pragma unroll
          for (int i = 0; i < n; ++i)
            if (i == p || j == p || k == p) // other nodes have no copy above
              {
                const bool owned = (i > 0 || !below_x) && (j > 0 || !below_y);
#pragma unroll
                for (int s = 0; s < 8; ++s)
                  {
                    value[j - j_begin][i][s] = Number(0);
                    if (slot_possible<p>(s, i, j, k) && owned && copy[s])
                      value[j - j_begin][i][s] = copy[s][stride * copy_dof<p>(s, i, j, k)];
                  }
              }
#pragma unroll
        for (int j = j_begin; j <= j_end; ++j)
#pragma unroll
          for (int i = 0; i < n; ++i)
            if (i == p || j == p || k == p)
              {
                const bool owned  = (i > 0 || !below_x) && (j > 0 || !below_y);
                const bool pair_x = i == p && copy[1], pair_y = j == p && copy[2], pair_z = k == p && copy[4];
                if (!owned || !(pair_x || pair_y || pair_z))
                  continue;
                const Number result = combine_copies(value[j - j_begin][i], pair_x, pair_y, pair_z, factor);
#pragma unroll
                for (int s = 0; s < 8; ++s)
                  if (slot_possible<p>(s, i, j, k) && copy[s])
                    copy[s][stride * copy_dof<p>(s, i, j, k)] = result;
              }
      }

      /// Copies that row j of plane k may load (its nodes with a copy above).
      template <int p>
      constexpr int
      row_loads(const int k, const int j)
      {
        int loads = 0;
        for (int i = 0; i <= p; ++i)
          if (i == p || j == p || k == p)
            loads += 1 << ((i == p) + (j == p) + (k == p));
        return loads;
      }

      /// Last row of the batch that starts at row @p j_begin of plane @p k: rows
      /// are added while the batch loads at most 32 copies (Q3: a plane below
      /// the top one in one batch of 16, the top plane in batches of 30 and 20),
      /// so that the values fit in registers at any degree.
      template <int p>
      constexpr int
      batch_end(const int k, const int j_begin)
      {
        int j = j_begin, loads = row_loads<p>(k, j_begin);
        while (j < p && loads + row_loads<p>(k, j + 1) <= 32)
          loads += row_loads<p>(k, ++j);
        return j;
      }

      template <int p, int k, int j_begin, unsigned int stride, typename Number>
      __device__ __forceinline__ void
      dss_box_plane(Number *const (&copy)[8], const bool below_x, const bool below_y, const Number factor)
      {
        constexpr int j_end = batch_end<p>(k, j_begin);
        dss_box_rows<p, k, j_begin, j_end, stride>(copy, below_x, below_y, factor);
        if constexpr (j_end < p)
          dss_box_plane<p, k, j_end + 1, stride>(copy, below_x, below_y, factor);
      }

      template <int p, unsigned int stride, typename Number, int... k>
      __device__ __forceinline__ void
      dss_box_planes(Number *const (&copy)[8], const bool below_x, const bool below_y, const bool below_z, const Number factor,
                     std::integer_sequence<int, k...>)
      {
        // plane 0 belongs to the cell below when there is one
        ((k > 0 || !below_z ? dss_box_plane<p, k, 0, stride>(copy, below_x, below_y, factor) : void()), ...);
      }

      /// (A thread per cell: its sub-box comes from the face table, whose
      /// three dependent reads the many loads of the cell's planes follow; the
      /// Hermite kernel below, a thread per vertex DoF with eight loads, reads
      /// the level's sub-box table instead. Not timed with the table.)
      template <int p, typename Number, typename Layout>
      __global__ void __launch_bounds__(dss_threads)
      dss_box_kernel(Number *v, const int *__restrict__ neighbors, const unsigned int n_cells, const Number factor)
      {
        constexpr unsigned int B             = Layout::cell_block;
        constexpr unsigned int dofs_per_cell = (p + 1) * (p + 1) * (p + 1);
        const unsigned int     cell          = blockIdx.x * dss_threads + threadIdx.x;
        if (cell >= n_cells)
          return;
        int  c[8];
        bool below[3];
        sub_box_above(neighbors, cell, c, below);
        Number *copy[8];
#pragma unroll
        for (int s = 0; s < 8; ++s)
          copy[s] = c[s] >= 0 ? v + Layout::index(static_cast<unsigned int>(c[s]), 0, dofs_per_cell) : nullptr;
        dss_box_planes<p, B>(copy, below[0], below[1], below[2], factor, std::make_integer_sequence<int, p + 1>());
      }

      /// One pass over both trace layers of the cubic Hermite element on a
      /// level that fills a box (the twin of dss_box_kernel): every DoF is
      /// derivative j of a vertex (fe/hermite_element.h), and the copies of a
      /// vertex lie in the 2 × 2 × 2 sub-box of cells around it, the vertex
      /// being the one of slot s's cell with the ends flipped to the lower one
      /// along the axes where s steps up. Thread (cell K, derivative j) takes
      /// the vertices whose lowest copy is K's (upper end along every axis
      /// with a cell below), gathers their copies, combines them in the order
      /// of the axis passes (bit for bit the host's cascade) and writes the
      /// result to every copy: each value read and written once. Items in
      /// the order of the layout: j fastest in the cell-contiguous layout,
      /// 32 cells side by side at one j in the blocked one.
      template <typename Number, typename Layout>
      __global__ void __launch_bounds__(dss_threads)
      dss_hermite_vertex_kernel(Number *v, const int *__restrict__ sub_boxes, const unsigned int n_cells, const Number factor)
      {
        std::size_t  cell;
        unsigned int j;
        hermite_vertex_item<Layout>(static_cast<std::size_t>(blockIdx.x) * dss_threads + threadIdx.x, cell, j);
        if (cell >= n_cells)
          return;
        int  c[8];
        bool below[3];
        sub_box_from_table(sub_boxes, static_cast<unsigned int>(cell), c, below);
        dss_owned_hermite_vertices<Number, Layout, false>(
          c, below, j, factor, [&](const std::size_t k) { return v[k]; }, [&](const std::size_t k, const Number x) { v[k] = x; });
      }

      /// The skeleton phase (see the header): the host's arithmetic, with
      /// rounded products and sums so that no contraction to FMA changes a
      /// bit.
      template <typename Number, typename Layout>
      __global__ void __launch_bounds__(dss_threads)
      dss_skeleton_kernel(Number *v, const DeviceDssSkeleton skeleton, const unsigned int dofs_per_cell, const bool mean)
      {
        const std::size_t g = static_cast<std::size_t>(blockIdx.x) * dss_threads + threadIdx.x;
        if (g >= skeleton.n_groups)
          return;
        const std::size_t begin = skeleton.group_start[g], end = skeleton.group_start[g + 1];
        double            total = 0, count = 0;
        for (std::size_t k = begin; k < end; ++k)
          if (skeleton.weights[k] > 0)
            {
              const double w     = mean ? double(skeleton.weights[k]) : 1.;
              const double value = v[Layout::index(skeleton.cells[k], skeleton.dofs[k], dofs_per_cell)];
              total              = __dadd_rn(total, __dmul_rn(w, value));
              count              = __dadd_rn(count, double(skeleton.weights[k]));
            }
        const Number result = static_cast<Number>(mean ? __ddiv_rn(total, count) : total);
        for (std::size_t k = begin; k < end; ++k)
          v[Layout::index(skeleton.cells[k], skeleton.dofs[k], dofs_per_cell)] = result;
      }
    } // namespace

    namespace
    {
      /// The launches of the DSS: the one pass, or the axis passes @p axes.
      template <typename Number, typename Layout>
      void
      launch_dss(const LevelData                                &level_data,
                 CellVector<Number, MemorySpace::CUDA, Layout> &v,
                 const DssMode                                   mode,
                 const TraceLayers                              &layers,
                 const bool                                      one_pass,
                 const unsigned int                              first_axis,
                 const unsigned int                              end_axis,
                 const DssPairs                                 &pairs = {})
      {
        CELLWISE_CHECK(v.n_cells() == level_data.n_cells(),
                       "cuda::apply_dss: vector has " << v.n_cells() << " cells, the level " << level_data.n_cells());
        const unsigned int n = v.degree() + 1;
        CELLWISE_CHECK(layers.n_1d == n && (layers.n_layers == 1 || layers.n_layers == 2),
                       "cuda::apply_dss: trace layers of " << layers.n_layers << " layers with " << layers.n_1d
                                                           << " functions per axis for a vector of degree " << v.degree());
        const bool lagrange = layers.n_layers == 1 && layers.at_upper_end[0] == n - 1 && layers.at_lower_end[0] == 0;
        CELLWISE_CHECK(lagrange || layers.n_layers == 2,
                       "cuda::apply_dss: a single trace layer must be FE_Q's (index p with index 0)");
        CELLWISE_CHECK(!one_pass || lagrange || is_hermite_trace(layers),
                       "cuda::apply_dss: the one-pass schedule is for FE_Q's single trace layer or the two layers of the "
                       "cubic Hermite element (values 2 <-> 0, normal derivatives 3 <-> 1)");
        if (v.n_cells() == 0)
          return;
        const Number           factor = mode == DssMode::mean ? Number(0.5) : Number(1);
        constexpr unsigned int B      = Layout::cell_block;
        const std::size_t      items =
          ((static_cast<std::size_t>(v.n_cells()) + B - 1) / B) * B * n * n * layers.n_layers; // axis passes
        PassLayers pass_layers;
        for (unsigned int l = 0; l < layers.n_layers; ++l)
          {
            CELLWISE_CHECK(layers.at_upper_end[l] < n && layers.at_lower_end[l] < n && layers.at_upper_end[l] != layers.at_lower_end[l],
                           "cuda::apply_dss: trace layer " << l << " pairs index " << layers.at_upper_end[l] << " with "
                                                           << layers.at_lower_end[l]);
            pass_layers.at_upper_end[l] = layers.at_upper_end[l];
            pass_layers.at_lower_end[l] = layers.at_lower_end[l];
          }
        CELLWISE_CHECK(items + dss_items * dss_threads < std::numeric_limits<unsigned int>::max(),
                       "cuda::apply_dss: " << v.n_cells() << " cells of degree " << v.degree()
                                           << " have too many face DoFs for 32-bit item indices");
        const unsigned int per_block = dss_items * dss_threads;
        const unsigned int blocks    = static_cast<unsigned int>((items + per_block - 1) / per_block);
        dispatch_degree(v.degree(), [&](auto degree) {
          constexpr int p = decltype(degree)::value;
          if (one_pass && !lagrange)
            {
              const std::size_t threads = ((static_cast<std::size_t>(v.n_cells()) + B - 1) / B) * B * hermite::dofs_per_vertex;
              dss_hermite_vertex_kernel<Number, Layout><<<static_cast<unsigned int>((threads + dss_threads - 1) / dss_threads),
                                                          dss_threads>>>(v.data(), level_data.sub_boxes(), v.n_cells(), factor);
              CELLWISE_CUDA_CHECK_LAUNCH();
              return;
            }
          if (one_pass)
            {
              dss_box_kernel<p, Number, Layout><<<(v.n_cells() + dss_threads - 1) / dss_threads, dss_threads>>>(
                v.data(), level_data.neighbors(), v.n_cells(), factor);
              CELLWISE_CUDA_CHECK_LAUNCH();
              return;
            }
          for (unsigned int d = first_axis; d < end_axis; ++d)
            {
              if (lagrange)
                dss_pass_kernel<p, 1, Number, Layout><<<blocks, dss_threads>>>(
                  v.data(), level_data.neighbors(), v.n_cells(), static_cast<unsigned int>(items), d, factor, pairs, pass_layers);
              else if constexpr (p == 3)
                dss_pass_kernel<p, 2, Number, Layout><<<blocks, dss_threads>>>(
                  v.data(), level_data.neighbors(), v.n_cells(), static_cast<unsigned int>(items), d, factor, pairs, pass_layers);
              else
                CELLWISE_CHECK(false, "cuda::apply_dss: two trace layers only for the cubic Hermite element (degree 3)");
              CELLWISE_CUDA_CHECK_LAUNCH();
            }
        });
      }
    } // namespace

    template <typename Number, typename Layout>
    void
    apply_dss(const LevelData &level_data, CellVector<Number, MemorySpace::CUDA, Layout> &v, const DssMode mode, const DssSchedule schedule)
    {
      apply_dss(level_data, v, mode, lagrange_trace_layers(v.degree()), schedule);
    }

    template <typename Number, typename Layout>
    void
    apply_dss(const LevelData                               &level_data,
              CellVector<Number, MemorySpace::CUDA, Layout> &v,
              const DssMode                                  mode,
              const TraceLayers                             &layers,
              const DssSchedule                              schedule)
    {
      CELLWISE_CHECK(schedule != DssSchedule::one_pass || level_data.fills_box(),
                     "cuda::apply_dss: the one-pass schedule needs a level that fills a box");
      // FE_Q: one pass in the blocked layout (its gathers do not coalesce in
      // the cell-contiguous one); the Hermite element: one pass in both (the
      // axis passes read and write the whole vector three times)
      const bool one_pass = schedule == DssSchedule::one_pass ||
                            (schedule == DssSchedule::automatic && level_data.fills_box() &&
                             (Layout::cell_block > 1 || is_hermite_trace(layers)));
      const DeviceDssSkeleton &skeleton = level_data.skeleton();
      CELLWISE_CHECK(!level_data.has_skeleton() || layers.n_layers == 1,
                     "cuda::apply_dss: the skeleton of an unstructured mesh takes FE_Q (one trace layer); "
                     "an element with derivative DoFs (the cubic Hermite element) needs box meshes");
      CELLWISE_CHECK(!level_data.has_skeleton() || v.degree() == skeleton.degree,
                     "cuda::apply_dss: the level's skeleton phase was built for degree " << skeleton.degree
                                                                                         << ", the vector has degree " << v.degree());
      launch_dss(level_data, v, mode, layers, one_pass, 0, 3);
      if (!level_data.has_skeleton())
        return;
      const std::size_t blocks = (skeleton.n_groups + dss_threads - 1) / dss_threads;
      dss_skeleton_kernel<Number, Layout><<<static_cast<unsigned int>(blocks), dss_threads>>>(
        v.data(), skeleton, v.dofs_per_cell(), mode == DssMode::mean);
      CELLWISE_CUDA_CHECK_LAUNCH();
    }

    template <typename Number, typename Layout>
    void
    dss_axis_pass(const LevelData                               &level_data,
                  CellVector<Number, MemorySpace::CUDA, Layout> &v,
                  const DssMode                                  mode,
                  const unsigned int                             d,
                  const DssPairs                                &pairs)
    {
      CELLWISE_CHECK(d < 3, "cuda::dss_axis_pass: axis " << d);
      launch_dss(level_data, v, mode, lagrange_trace_layers(v.degree()), false, d, d + 1, pairs);
    }

    template void apply_dss(const LevelData &, CellVector<double, MemorySpace::CUDA, CellContiguous> &, DssMode, DssSchedule);
    template void apply_dss(const LevelData &, CellVector<float, MemorySpace::CUDA, CellContiguous> &, DssMode, DssSchedule);
    template void apply_dss(const LevelData &, CellVector<double, MemorySpace::CUDA, CellBlocked<32>> &, DssMode, DssSchedule);
    template void apply_dss(const LevelData &, CellVector<float, MemorySpace::CUDA, CellBlocked<32>> &, DssMode, DssSchedule);
    template void apply_dss(const LevelData &, CellVector<double, MemorySpace::CUDA, CellContiguous> &, DssMode, const TraceLayers &, DssSchedule);
    template void apply_dss(const LevelData &, CellVector<float, MemorySpace::CUDA, CellContiguous> &, DssMode, const TraceLayers &, DssSchedule);
    template void apply_dss(const LevelData &, CellVector<double, MemorySpace::CUDA, CellBlocked<32>> &, DssMode, const TraceLayers &, DssSchedule);
    template void apply_dss(const LevelData &, CellVector<float, MemorySpace::CUDA, CellBlocked<32>> &, DssMode, const TraceLayers &, DssSchedule);
    template void dss_axis_pass(const LevelData &, CellVector<double, MemorySpace::CUDA, CellContiguous> &, DssMode, unsigned int, const DssPairs &);
    template void dss_axis_pass(const LevelData &, CellVector<float, MemorySpace::CUDA, CellContiguous> &, DssMode, unsigned int, const DssPairs &);
    template void dss_axis_pass(const LevelData &, CellVector<double, MemorySpace::CUDA, CellBlocked<32>> &, DssMode, unsigned int, const DssPairs &);
    template void dss_axis_pass(const LevelData &, CellVector<float, MemorySpace::CUDA, CellBlocked<32>> &, DssMode, unsigned int, const DssPairs &);
  } // namespace cuda
} // namespace cellwise
