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
    CELLWISE_CHECK(v.n_cells() == level.n_cells(),
                   "apply_dss: vector has " << v.n_cells() << " cells, the level " << level.n_cells());
    const unsigned int n       = v.degree() + 1;
    const Number       factor  = mode == DssMode::mean ? Number(0.5) : Number(1);
    const long         n_cells = static_cast<long>(level.n_cells());

    // The passes must run in sequence; inside a pass every face pair is handled
    // by its lower cell and no two pairs touch the same entry (for p >= 1 the
    // lower and upper face DoFs of a cell are distinct).
    for (unsigned int d = 0; d < 3; ++d)
      {
        parallel_for(n_cells, cell_grain, [&](const std::size_t cell) {
          const int other = level.neighbors[cell][2 * d + 1];
          if (!face_neighbor::is_cell(other))
            return;
          for (unsigned int b = 0; b < n; ++b)
            for (unsigned int a = 0; a < n; ++a)
              {
                Number      &mine   = v(cell, face_dof(n, d, 1, a, b));
                Number      &theirs = v(other, face_dof(n, d, 0, a, b));
                const Number s      = factor * (mine + theirs);
                mine                = s;
                theirs              = s;
              }
        });
      }
  }

  template void apply_dss(const Level &, CellVector<double, MemorySpace::Host, CellContiguous> &, DssMode);
  template void apply_dss(const Level &, CellVector<float, MemorySpace::Host, CellContiguous> &, DssMode);
  template void apply_dss(const Level &, CellVector<double, MemorySpace::Host, CellBlocked<32>> &, DssMode);
  template void apply_dss(const Level &, CellVector<float, MemorySpace::Host, CellBlocked<32>> &, DssMode);
} // namespace cellwise
