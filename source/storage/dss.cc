#include <cellwise/base/exceptions.h>
#include <cellwise/base/parallel.h>
#include <cellwise/fe/face_dofs.h>
#include <cellwise/storage/dss.h>

namespace cellwise
{
  template <typename Number, typename Layout>
  void
  apply_dss(const Level &level, CellVector<Number, MemorySpace::Host, Layout> &v, const DssMode mode)
  {
    apply_dss(level, v, mode, lagrange_trace_layers(v.degree()));
  }

  template <typename Number, typename Layout>
  void
  apply_dss(const Level &level, CellVector<Number, MemorySpace::Host, Layout> &v, const DssMode mode, const TraceLayers &layers)
  {
    CELLWISE_CHECK(v.n_cells() == level.n_cells(),
                   "apply_dss: vector has " << v.n_cells() << " cells, the level " << level.n_cells());
    const unsigned int n = v.degree() + 1;
    CELLWISE_CHECK(layers.n_1d == n && layers.n_layers >= 1 && layers.n_layers <= 2,
                   "apply_dss: trace layers of an element with " << layers.n_1d << " functions per axis for a vector with "
                                                                 << n << " values per axis");
    const Number factor  = mode == DssMode::mean ? Number(0.5) : Number(1);
    const long   n_cells = static_cast<long>(level.n_cells());

    // The passes must run in sequence; inside a pass every face pair is handled
    // by its lower cell and no two pairs touch the same entry (a cell's
    // layers at its lower and upper ends are distinct).
    for (unsigned int d = 0; d < 3; ++d)
      {
        parallel_for(n_cells, cell_grain, [&](const std::size_t cell) {
          const int other = level.neighbors[cell][2 * d + 1];
          if (!face_neighbor::is_cell(other))
            return;
          for (unsigned int l = 0; l < layers.n_layers; ++l)
            for (unsigned int b = 0; b < n; ++b)
              for (unsigned int a = 0; a < n; ++a)
                {
                  Number      &mine   = v(cell, face_layer_dof(n, d, layers.at_upper_end[l], a, b));
                  Number      &theirs = v(other, face_layer_dof(n, d, layers.at_lower_end[l], a, b));
                  const Number s      = factor * (mine + theirs);
                  mine                = s;
                  theirs              = s;
                }
        });
      }
  }

#define CELLWISE_INSTANTIATE(Number, Layout)                                                                      \
  template void apply_dss(const Level &, CellVector<Number, MemorySpace::Host, Layout> &, DssMode);                  \
  template void apply_dss(const Level &, CellVector<Number, MemorySpace::Host, Layout> &, DssMode, const TraceLayers &);
  CELLWISE_INSTANTIATE(double, CellContiguous)
  CELLWISE_INSTANTIATE(float, CellContiguous)
  CELLWISE_INSTANTIATE(double, CellBlocked<32>)
  CELLWISE_INSTANTIATE(float, CellBlocked<32>)
#undef CELLWISE_INSTANTIATE
} // namespace cellwise
