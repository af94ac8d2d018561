#pragma once
/**
 * @file
 * Layouts of a cell-wise vector: where the value of local DoF i of cell K is
 * stored. A layout is a type parameter of CellVector so that no index
 * arithmetic is spread through the kernels.
 *
 * Local DoFs are the (p+1)^3 nodal values at the tensor-product Gauss–Lobatto
 * points in lexicographic order, i = i_x + (p+1) i_y + (p+1)^2 i_z (FE_Q(p)
 * after lexicographic renumbering).
 */

#include <cellwise/base/host_device.h>

#include <cstddef>

namespace cellwise
{
  /// All values of a cell contiguous: index = K n + i.
  struct CellContiguous
  {
    static constexpr unsigned int cell_block = 1;

    CELLWISE_HOST_DEVICE static constexpr std::size_t
    index(const std::size_t cell, const unsigned int i, const unsigned int dofs_per_cell)
    {
      return cell * dofs_per_cell + i;
    }
    /// The cell whose value lies at storage index @p k.
    CELLWISE_HOST_DEVICE static constexpr std::size_t
    cell_of(const std::size_t k, const unsigned int dofs_per_cell)
    {
      return k / dofs_per_cell;
    }
    /// The local index i of the value at storage index @p k.
    CELLWISE_HOST_DEVICE static constexpr unsigned int
    dof_of(const std::size_t k, const unsigned int dofs_per_cell)
    {
      return static_cast<unsigned int>(k % dofs_per_cell);
    }
  };

  /// Cells in blocks of B with the cell index fastest inside a block:
  /// index = (K / B) B n + i B + K % B, so that the threads of a warp, one per
  /// cell, read one local DoF of B consecutive cells in one transaction.
  template <unsigned int B = 32>
  struct CellBlocked
  {
    static constexpr unsigned int cell_block = B;

    CELLWISE_HOST_DEVICE static constexpr std::size_t
    index(const std::size_t cell, const unsigned int i, const unsigned int dofs_per_cell)
    {
      return (cell / B) * B * dofs_per_cell + static_cast<std::size_t>(i) * B + cell % B;
    }
    /// The cell whose value (or padding) lies at storage index @p k.
    CELLWISE_HOST_DEVICE static constexpr std::size_t
    cell_of(const std::size_t k, const unsigned int dofs_per_cell)
    {
      return (k / (std::size_t(B) * dofs_per_cell)) * B + k % B;
    }
    /// The local index i of the value (or padding) at storage index @p k.
    CELLWISE_HOST_DEVICE static constexpr unsigned int
    dof_of(const std::size_t k, const unsigned int dofs_per_cell)
    {
      return static_cast<unsigned int>((k % (std::size_t(B) * dofs_per_cell)) / B);
    }
  };

  /// Storage size of n_cells cells: padded to whole blocks.
  template <typename Layout>
  constexpr std::size_t
  storage_size(const std::size_t n_cells, const unsigned int dofs_per_cell)
  {
    const std::size_t B = Layout::cell_block;
    return ((n_cells + B - 1) / B) * B * dofs_per_cell;
  }
} // namespace cellwise

/**
 * Explicit instantiation of a class template of the library over what it is
 * compiled for, written once: each macro stands for the `template class`
 * lines of its set, in namespace scope of the template.
 *
 * - CELLWISE_INSTANTIATE_NUMBERS_AND_LAYOUTS(T): T<Number, Layout> for
 *   Number double and float, Layout CellContiguous and CellBlocked<32>;
 * - CELLWISE_INSTANTIATE_NUMBERS_AND_LAYOUTS_OF_OPERATOR(T, Op): the same
 *   four with a third argument Op<Number, Layout> (a smoother of an operator
 *   other than its default);
 * - CELLWISE_INSTANTIATE_NUMBERS(T, Layout): T<double, Layout>, T<float, Layout>;
 * - CELLWISE_INSTANTIATE_LAYOUTS(T): T<CellContiguous>, T<CellBlocked<32>>.
 */
#define CELLWISE_INSTANTIATE_NUMBERS(Template, Layout) \
  template class Template<double, Layout>;             \
  template class Template<float, Layout>;
#define CELLWISE_INSTANTIATE_NUMBERS_AND_LAYOUTS(Template)                \
  CELLWISE_INSTANTIATE_NUMBERS(Template, ::cellwise::CellContiguous)      \
  CELLWISE_INSTANTIATE_NUMBERS(Template, ::cellwise::CellBlocked<32>)
#define CELLWISE_INSTANTIATE_NUMBERS_AND_LAYOUTS_OF_OPERATOR(Template, Operator)                                     \
  template class Template<double, ::cellwise::CellContiguous, Operator<double, ::cellwise::CellContiguous>>;       \
  template class Template<float, ::cellwise::CellContiguous, Operator<float, ::cellwise::CellContiguous>>;          \
  template class Template<double, ::cellwise::CellBlocked<32>, Operator<double, ::cellwise::CellBlocked<32>>>;     \
  template class Template<float, ::cellwise::CellBlocked<32>, Operator<float, ::cellwise::CellBlocked<32>>>;
#define CELLWISE_INSTANTIATE_LAYOUTS(Template)           \
  template class Template<::cellwise::CellContiguous>; \
  template class Template<::cellwise::CellBlocked<32>>;
