#pragma once
// Helpers of the device tests: skip without a device, tolerances per
// precision, host copies and relative differences of cell vectors.

#include <cellwise/base/cuda_check.h>
#include <cellwise/mesh/box_builder.h>
#include <cellwise/storage/cuda_cell_vector.h>

#include <gtest/gtest.h>

#include "test_utilities.h" // (relayout)

#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>
#include <utility>

#define CELLWISE_SKIP_WITHOUT_CUDA_DEVICE()                                                   \
  do                                                                                          \
    {                                                                                         \
      if (!::cellwise::cuda::device_available())                                              \
        GTEST_SKIP() << "no CUDA device: " << ::cellwise::cuda::device_description();         \
    }                                                                                         \
  while (false)

namespace cellwise::testing
{
  /// (number type, layout) pairs every device test runs for.
  using NumberLayoutPairs = ::testing::Types<std::pair<double, CellContiguous>,
                                             std::pair<float, CellContiguous>,
                                             std::pair<double, CellBlocked<32>>,
                                             std::pair<float, CellBlocked<32>>>;

  /// Relative tolerance of a device result against the host reference.
  template <typename Number>
  constexpr double
  device_tolerance()
  {
    return std::is_same_v<Number, double> ? 1e-13 : 1e-5;
  }

  template <typename Number, typename Layout>
  CellVector<Number, MemorySpace::Host, Layout>
  to_host(const CellVector<Number, MemorySpace::CUDA, Layout> &device)
  {
    CellVector<Number, MemorySpace::Host, Layout> host;
    device.copy_to_host(host);
    return host;
  }

  template <typename Number, typename Layout>
  CellVector<Number, MemorySpace::CUDA, Layout>
  to_device(const CellVector<Number, MemorySpace::Host, Layout> &host)
  {
    CellVector<Number, MemorySpace::CUDA, Layout> device;
    device.copy_from_host(host);
    return device;
  }

  /// max |a - b| / max |b| over all values (not the padding); infinite if a
  /// holds a NaN (an entry the kernel did not write, when poisoned) or the
  /// shapes differ.
  template <typename Number, typename Layout>
  double
  relative_difference(const CellVector<Number, MemorySpace::Host, Layout> &a,
                      const CellVector<Number, MemorySpace::Host, Layout> &b)
  {
    if (a.n_cells() != b.n_cells() || a.degree() != b.degree())
      return std::numeric_limits<double>::infinity();
    double diff = 0, scale = 0;
    for (unsigned int cell = 0; cell < a.n_cells(); ++cell)
      for (unsigned int i = 0; i < a.dofs_per_cell(); ++i)
        {
          if (!std::isfinite(a(cell, i)))
            return std::numeric_limits<double>::infinity();
          diff  = std::max(diff, std::abs(double(a(cell, i)) - double(b(cell, i))));
          scale = std::max(scale, std::abs(double(b(cell, i))));
        }
    return scale > 0 ? diff / scale : diff;
  }

  /// Whether a and b hold the same values bit for bit (the padding not
  /// compared): a kernel that must equal a composition exactly.
  template <typename Number, typename Layout>
  bool
  values_bitwise_equal(const CellVector<Number, MemorySpace::Host, Layout> &a, const CellVector<Number, MemorySpace::Host, Layout> &b)
  {
    if (a.n_cells() != b.n_cells() || a.degree() != b.degree())
      return false;
    for (unsigned int cell = 0; cell < a.n_cells(); ++cell)
      for (unsigned int i = 0; i < a.dofs_per_cell(); ++i)
        {
          const Number x = a(cell, i), y = b(cell, i);
          if (std::memcmp(&x, &y, sizeof(Number)) != 0)
            return false;
        }
    return true;
  }

  /// Box [0,3]x[0,2]x[0,1] in 3x2x4 coarse cells refined once: 192 cells.
  inline LevelHierarchy
  refined_box(const CellOrdering ordering = CellOrdering::child_major)
  {
    BoxDescription box;
    box.upper        = {{3., 2., 1.}};
    box.subdivisions = {{3, 2, 4}};
    return make_box_hierarchy(box, 1, ordering);
  }

  /// Box [0,1]x[0,0.6]x[0,2.1] in 5x3x7 coarse cells: 105 cells of aspect ratio != 1.
  inline LevelHierarchy
  coarse_box()
  {
    BoxDescription box;
    box.upper        = {{1., 0.6, 2.1}};
    box.subdivisions = {{5, 3, 7}};
    return make_box_hierarchy(box, 0);
  }
} // namespace cellwise::testing
