#include <cellwise/dealii/vector_transfer.h>

#include <limits>

namespace cellwise::dealii
{
  DofNumbering
  to_dof_numbering(const DofMap &map, const char *caller)
  {
    CELLWISE_CHECK(map.n_dofs < std::numeric_limits<unsigned int>::max(),
                   caller << ": " << map.n_dofs << " DoFs on one rank are more than the solver's 32-bit numbering takes");
    DofNumbering numbering;
    numbering.degree   = map.degree;
    numbering.n_unique = static_cast<unsigned int>(map.n_dofs);
    numbering.global_index.resize(map.indices.size());
    for (std::size_t entry = 0; entry < map.indices.size(); ++entry)
      {
        const dof_index j = map.indices[entry];
        CELLWISE_CHECK(j < map.n_dofs, caller << ": cell " << entry / map.dofs_per_cell()
                                              << " is not covered by the DoF map (not an active cell of its level)");
        numbering.global_index[entry] = static_cast<unsigned int>(j);
      }
    return numbering;
  }

  void
  check_whole_vector(const ::dealii::LinearAlgebra::distributed::Vector<double> &vector,
                     const std::size_t                                           n_dofs,
                     const char                                                 *caller)
  {
    CELLWISE_CHECK(vector.size() == n_dofs && vector.locally_owned_size() == n_dofs,
                   caller << ": the vector has " << vector.size() << " entries (" << vector.locally_owned_size()
                          << " on this rank), the DoFHandler " << n_dofs
                          << " (initialize it with the DoFHandler's locally owned DoFs, as DoFHandler::n_dofs() gives)");
  }
} // namespace cellwise::dealii
