#pragma once
// What the MPI tests share: a rank's part of a serial vector (ghosts NaN, so
// that a value an exchange fails to deliver shows) and the exact comparison
// of the owned cells with the serial vector.

#include <cellwise/mesh/box_builder.h>
#include <cellwise/mesh/partition.h>
#include <cellwise/storage/cell_vector.h>

#include <cstddef>
#include <limits>

namespace cellwise::testing
{
  /// A box of 3 × 2 × 2 coarse cells of unequal sizes, whose Morton cuts
  /// put rank boundaries along every axis.
  inline BoxDescription
  unequal_mpi_box()
  {
    BoxDescription box;
    box.upper        = {{3., 2., 1.5}};
    box.subdivisions = {{3, 2, 2}};
    return box;
  }

  /// The owned cells of @p serial on @p local; ghost cells NaN.
  template <typename Number, typename Layout>
  CellVector<Number, MemorySpace::Host, Layout>
  local_part(const LocalLevel &local, const CellVector<Number, MemorySpace::Host, Layout> &serial)
  {
    CellVector<Number, MemorySpace::Host, Layout> v(local.level.n_cells(), serial.degree());
    for (unsigned int k = 0; k < local.level.n_cells(); ++k)
      for (unsigned int i = 0; i < serial.dofs_per_cell(); ++i)
        v(k, i) = k < local.n_owned_cells() ? serial(local.serial_index[k], i) : std::numeric_limits<Number>::quiet_NaN();
    return v;
  }

  /// Entries of the owned cells of @p local that differ from the serial
  /// vector's (exact comparison).
  template <typename Number, typename Layout>
  std::size_t
  owned_mismatches(const LocalLevel                                    &local,
                   const CellVector<Number, MemorySpace::Host, Layout> &distributed,
                   const CellVector<Number, MemorySpace::Host, Layout> &serial)
  {
    std::size_t wrong = 0;
    for (unsigned int k = 0; k < local.n_owned_cells(); ++k)
      for (unsigned int i = 0; i < serial.dofs_per_cell(); ++i)
        wrong += !(distributed(k, i) == serial(local.serial_index[k], i));
    return wrong;
  }
} // namespace cellwise::testing
