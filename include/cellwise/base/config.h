#pragma once
/**
 * @file
 * Compile-time configuration shared by all modules.
 */

#include <cellwise/base/exceptions.h>

namespace cellwise
{
  /// Polynomial degrees for which the cell kernels are instantiated.
  constexpr unsigned int min_degree = 1;
  constexpr unsigned int max_degree = 8;

  /// Throws unless @p degree lies in the compiled range.
  inline void
  check_degree(const unsigned int degree)
  {
    CELLWISE_CHECK(degree >= min_degree && degree <= max_degree,
                   "polynomial degree " << degree << " is not supported: the cell kernels are compiled for degrees "
                                        << min_degree << ".." << max_degree);
  }

  /// Number of spatial dimensions: cellwise is a 3D library.
  constexpr unsigned int dim = 3;
} // namespace cellwise
