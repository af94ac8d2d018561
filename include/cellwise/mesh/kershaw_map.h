#pragma once
/**
 * @file
 * The Kershaw deformation of the unit cube (D. Kershaw, J. Comput. Phys. 39,
 * 1981; the deformed box of the CEED bakeoff benchmarks BPS, whose NekRS
 * figures issue 23 compares with): x stays, and (y, z) are moved by
 * piecewise-linear maps of [0, 1] onto itself that vary along x in six
 * layers. With ε = 1 the cube is undeformed; ε = 0.3 is the benchmarks'
 * setting. The map is piecewise trilinear on a lattice whose x-spacing
 * divides 1/6 and whose y- and z-spacings divide 1/2, so a box hierarchy of
 * the unit cube with 6 k × 2 m × 2 n coarse cells, mapped by a mapping of
 * degree 1 (map_hierarchy), represents it exactly on every level.
 */

#include <cellwise/mesh/cell_mapping.h>

namespace cellwise
{
  /// The map; throws cellwise::Error unless 0 < ε_y, ε_z <= 1.
  PointMap
  kershaw_map(double epsilon_y, double epsilon_z);
} // namespace cellwise
