#include <cellwise/storage/numbered_vector_transfer.h>

#include <limits>

namespace cellwise
{
  DofCopies
  make_dof_copies(const DofNumbering &numbering, const char *caller)
  {
    const unsigned int n        = numbering.dofs_per_cell();
    const std::size_t  n_copies = numbering.global_index.size();
    CELLWISE_CHECK(n_copies % n == 0, caller << ": the numbering's " << n_copies << " copies are not whole cells of degree "
                                             << numbering.degree);
    constexpr std::uint64_t none = std::numeric_limits<std::uint64_t>::max();
    DofCopies               copies;
    copies.valence.assign(numbering.n_unique, 0);
    copies.first_copy.assign(numbering.n_unique, none);
    for (std::size_t entry = 0; entry < n_copies; ++entry)
      {
        const unsigned int j = numbering.global_index[entry];
        CELLWISE_CHECK(j < numbering.n_unique,
                       caller << ": copy " << entry << " refers to DoF " << j << " of " << numbering.n_unique);
        CELLWISE_CHECK(copies.valence[j] < std::numeric_limits<std::uint16_t>::max(),
                       caller << ": DoF " << j << " has more than 65535 copies");
        ++copies.valence[j];
        if (copies.first_copy[j] == none)
          copies.first_copy[j] = entry;
      }
    for (unsigned int j = 0; j < numbering.n_unique; ++j)
      CELLWISE_CHECK(copies.valence[j] > 0, caller << ": DoF " << j << " of the global vector has no copy in the cells ("
                                                   << numbering.n_unique << " DoFs, " << n_copies / n
                                                   << " cells): the numbering does not cover the vector");
    return copies;
  }
} // namespace cellwise
