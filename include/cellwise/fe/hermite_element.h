#pragma once
/**
 * @file
 * The 3D tensor-product cubic Hermite element (001 §2.2, doc/hermite.md):
 * 64 DoFs per cell, local index i = i_x + 4 i_y + 16 i_z of the 1D indices of
 * fe/hermite_basis_1d.h. Every DoF belongs to one of the cell's eight
 * vertices, v = end(i_x) + 2 end(i_y) + 4 end(i_z), and is the derivative
 * with multi-index k = (kind(i_x), kind(i_y), kind(i_z)) there, numbered
 * j = k_x + 2 k_y + 4 k_z:
 *
 *   j = 0: u   1: ∂x u   2: ∂y u   3: ∂xy u   4: ∂z u   5: ∂xz u   6: ∂yz u   7: ∂xyz u
 *
 * The stored derivatives are physical (d/dx, not d/dt); hermite_scaling()
 * turns them into reference ones on a cell of given widths.
 */

#include <cellwise/base/host_device.h>

#include <array>

namespace cellwise
{
  namespace hermite
  {
    /// DoFs per cell: 4³, the storage of a CellVector of degree 3.
    constexpr unsigned int dofs_per_cell = 64;
    /// The CellVector degree whose storage holds the element.
    constexpr unsigned int storage_degree = 3;
    /// DoFs per vertex.
    constexpr unsigned int dofs_per_vertex = 8;

    /// Local index of derivative @p j (0..7) at vertex @p v (0..7).
    CELLWISE_HOST_DEVICE constexpr unsigned int
    local_index(const unsigned int v, const unsigned int j)
    {
      return (2 * (v & 1) + (j & 1)) + 4 * (2 * ((v >> 1) & 1) + ((j >> 1) & 1)) +
             16 * (2 * ((v >> 2) & 1) + ((j >> 2) & 1));
    }
    /// The vertex (0..7) of local DoF @p i.
    CELLWISE_HOST_DEVICE constexpr unsigned int
    vertex_of(const unsigned int i)
    {
      return ((i % 4) / 2) + 2 * (((i / 4) % 4) / 2) + 4 * ((i / 16) / 2);
    }
    /// The derivative (0..7) of local DoF @p i.
    CELLWISE_HOST_DEVICE constexpr unsigned int
    derivative_of(const unsigned int i)
    {
      return (i % 2) + 2 * ((i / 4) % 2) + 4 * ((i / 16) % 2);
    }

    /// s_i = h_x^{k_x} h_y^{k_y} h_z^{k_z} of local DoF @p i on a cell of
    /// widths (hx, hy, hz), without a table: the kernels' form.
    template <typename Number>
    CELLWISE_HOST_DEVICE constexpr Number
    derivative_scaling(const unsigned int i, const Number hx, const Number hy, const Number hz)
    {
      return ((i & 1) ? hx : Number(1)) * ((i & 4) ? hy : Number(1)) * ((i & 16) ? hz : Number(1));
    }

    /// s_i = h_x^{k_x} h_y^{k_y} h_z^{k_z} for every local DoF i of a cell of
    /// widths @p h: reference DoF = s_i · physical DoF.
    inline std::array<double, dofs_per_cell>
    hermite_scaling(const std::array<double, 3> &h)
    {
      std::array<double, dofs_per_cell> s{};
      for (unsigned int i = 0; i < dofs_per_cell; ++i)
        {
          const unsigned int k = derivative_of(i);
          s[i] = ((k & 1) ? h[0] : 1.) * ((k & 2) ? h[1] : 1.) * ((k & 4) ? h[2] : 1.);
        }
      return s;
    }
  } // namespace hermite
} // namespace cellwise
