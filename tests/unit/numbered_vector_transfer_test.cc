// The conversions between a global numbering and cell vectors
// (storage/numbered_vector_transfer.h) against their definitions: the
// balanced scatter is a right inverse of G^T with equal copies, the gather
// puts the value in every copy, the first copies of a gathered vector are the
// global vector again, bit for bit; the copies' valence and first entries
// against a count over the numbering. The numbering is a level's, its unique
// DoFs permuted at random (as deal.II numbers them, not in cell order), on
// 105 cells (the blocked layout's last block partly padding).

#include <cellwise/mesh/box_builder.h>
#include <cellwise/storage/dof_numbering.h>
#include <cellwise/storage/numbered_vector_transfer.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

#include "test_utilities.h"

using namespace cellwise;
using namespace cellwise::testing;

namespace
{
  LevelHierarchy
  box()
  {
    BoxDescription description;
    description.upper        = {{1., 0.6, 2.1}};
    description.subdivisions = {{5, 3, 7}};
    return make_box_hierarchy(description, 0);
  }

} // namespace

template <typename Layout>
class NumberedVectorTransfer : public ::testing::Test
{};
using Layouts = ::testing::Types<CellContiguous, CellBlocked<32>>;
TYPED_TEST_SUITE(NumberedVectorTransfer, Layouts);

TYPED_TEST(NumberedVectorTransfer, copies_count_and_first_entries)
{
  const LevelHierarchy h = box();
  for (const unsigned int degree : {1u, 2u, 3u})
    {
      const DofNumbering numbering = permuted_dof_numbering(h.levels.back(), degree, 7 + degree);
      const DofCopies    copies    = make_dof_copies(numbering, "test");
      ASSERT_EQ(copies.valence.size(), numbering.n_unique);
      std::vector<unsigned int> count(numbering.n_unique, 0);
      std::vector<bool>         seen(numbering.n_unique, false);
      for (std::size_t entry = 0; entry < numbering.global_index.size(); ++entry)
        {
          const unsigned int j = numbering.global_index[entry];
          ++count[j];
          if (!seen[j])
            EXPECT_EQ(copies.first_copy[j], entry) << "DoF " << j;
          seen[j] = true;
        }
      for (unsigned int j = 0; j < numbering.n_unique; ++j)
        EXPECT_EQ(copies.valence[j], count[j]);
      // a hex mesh's vertex DoFs have up to 8 copies, interior ones 1
      EXPECT_EQ(*std::max_element(copies.valence.begin(), copies.valence.end()), 8);
    }
}

TYPED_TEST(NumberedVectorTransfer, scatter_balanced_is_a_right_inverse_of_the_assembly)
{
  using Layout         = TypeParam;
  const LevelHierarchy h = box();
  for (const unsigned int degree : {1u, 3u})
    {
      const DofNumbering        numbering = permuted_dof_numbering(h.levels.back(), degree, degree);
      const DofCopies           copies    = make_dof_copies(numbering, "test");
      const std::vector<double> r         = random_vector(numbering.n_unique, 11 + degree);
      CellVector<double, MemorySpace::Host, Layout> cells(3, 1);
      scatter_balanced(numbering, copies, r.data(), cells);
      ASSERT_EQ(cells.n_cells(), h.levels.back().n_cells());
      // G^T of it is r
      const std::vector<double> assembled = gather_transpose(numbering, cells);
      for (unsigned int j = 0; j < numbering.n_unique; ++j)
        EXPECT_NEAR(assembled[j], r[j], 1e-15 * copies.valence[j]) << "DoF " << j;
      // all copies equal r_j / valence_j
      for (unsigned int cell = 0; cell < cells.n_cells(); ++cell)
        for (unsigned int i = 0; i < cells.dofs_per_cell(); ++i)
          {
            const unsigned int j = numbering(cell, i);
            EXPECT_EQ(cells(cell, i), r[j] / copies.valence[j]);
          }
    }
}

TYPED_TEST(NumberedVectorTransfer, gather_then_first_copies_is_the_identity)
{
  using Layout         = TypeParam;
  const LevelHierarchy h = box();
  for (const unsigned int degree : {2u, 4u})
    {
      const DofNumbering        numbering = permuted_dof_numbering(h.levels.back(), degree, 3 * degree);
      const DofCopies           copies    = make_dof_copies(numbering, "test");
      const std::vector<double> u         = random_vector(numbering.n_unique, degree);
      CellVector<double, MemorySpace::Host, Layout> cells;
      gather(numbering, u.data(), cells);
      // the pointer and the std::vector gather agree
      CellVector<double, MemorySpace::Host, Layout> reference;
      gather(numbering, u, reference);
      for (unsigned int cell = 0; cell < cells.n_cells(); ++cell)
        for (unsigned int i = 0; i < cells.dofs_per_cell(); ++i)
          ASSERT_EQ(cells(cell, i), reference(cell, i));
      std::vector<double> back(numbering.n_unique, std::nan(""));
      gather_first_copies(copies, cells, back.data());
      EXPECT_EQ(back, u);
      // a copy other than the first changed: not read
      const std::size_t last = numbering.global_index.size() - 1;
      const unsigned int j   = numbering.global_index[last];
      if (copies.first_copy[j] != last)
        {
          cells(static_cast<unsigned int>(last / cells.dofs_per_cell()), static_cast<unsigned int>(last % cells.dofs_per_cell())) = 1e9;
          gather_first_copies(copies, cells, back.data());
          EXPECT_EQ(back[j], u[j]);
        }
    }
}

TEST(NumberedVectorTransferRefusal, a_dof_without_copy_or_out_of_range)
{
  const LevelHierarchy h         = box();
  DofNumbering         numbering = make_dof_numbering(h.levels.back(), 2);
  ++numbering.n_unique; // the last DoF has no copy
  try
    {
      make_dof_copies(numbering, "my_caller");
      FAIL() << "a DoF without a copy was accepted";
    }
  catch (const Error &e)
    {
      EXPECT_NE(std::string(e.what()).find("my_caller"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("has no copy"), std::string::npos) << e.what();
    }
  numbering.n_unique -= 2; // the largest index is out of range
  EXPECT_THROW(make_dof_copies(numbering, "my_caller"), Error);
}
