#pragma once
// Checks on active-mesh vectors shared by the tests of local smoothing:
// whether a primal vector is continuous across the hanging faces (the fine
// side's nodal values against the coarse active neighbour's polynomial).

#include <cellwise/fe/face_dofs.h>
#include <cellwise/fe/lagrange_basis_1d.h>
#include <cellwise/multigrid/adaptive_v_cycle.h>
#include <cellwise/storage/cell_vector.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace cellwise::testing
{
  /// Nodal values of the Q_p polynomial of cell @p values on @p box at @p x.
  inline double
  evaluate(const LagrangeBasis1D &basis, const CellBox &box, const std::vector<double> &values, const Point &x)
  {
    const unsigned int n = basis.size();
    double             phi[3][16];
    for (unsigned int d = 0; d < 3; ++d)
      for (unsigned int i = 0; i < n; ++i)
        phi[d][i] = basis.value(i, (x[d] - box.lower[d]) / box.size[d]);
    double s = 0;
    for (unsigned int k = 0; k < n; ++k)
      for (unsigned int j = 0; j < n; ++j)
        for (unsigned int i = 0; i < n; ++i)
          s += values[i + n * (j + n * k)] * phi[0][i] * phi[1][j] * phi[2][k];
    return s;
  }

  inline Point
  node(const LagrangeBasis1D &basis, const CellBox &box, const unsigned int i)
  {
    const unsigned int n = basis.size();
    const unsigned int c[3] = {i % n, (i / n) % n, i / (n * n)};
    Point              x;
    for (unsigned int d = 0; d < 3; ++d)
      x[d] = box.lower[d] + basis.nodes()[c[d]] * box.size[d];
    return x;
  }

  /// Largest difference, over the fine-side nodes of every hanging face,
  /// between the fine cell's value and the coarse active neighbour's
  /// polynomial there.
  inline double
  max_hanging_jump(const LevelHierarchy &h, const ActiveMesh &mesh, const CellVector<double> &u, unsigned int *n_faces = nullptr)
  {
    const unsigned int    degree = u.degree(), n = degree + 1;
    const LagrangeBasis1D basis(degree);
    std::vector<double>   fine(u.dofs_per_cell()), coarse(u.dofs_per_cell());
    double                jump  = 0;
    unsigned int          faces = 0;
    for (unsigned int a = 0; a < mesh.n_active_cells(); ++a)
      {
        const unsigned int l = mesh.level_of[a], c = mesh.cell_of[a];
        for (unsigned int face = 0; face < 6; ++face)
          {
            if (h.level(l).neighbors[c][face] != face_neighbor::none)
              continue;
            // walk up to the ancestor whose neighbour across this face exists
            unsigned int al = l, ac = c;
            int          other = face_neighbor::none;
            while (other == face_neighbor::none)
              {
                EXPECT_GT(al, 0u);
                ac    = h.level(al).parent[ac];
                al    = al - 1;
                other = h.level(al).neighbors[ac][face];
              }
            EXPECT_TRUE(face_neighbor::is_cell(other));
            EXPECT_TRUE(h.level(al).is_active(other)) << "the coarse side of a hanging face must be active";
            const int b = mesh.active_index[al][other];
            u.read_cell(a, fine.data());
            u.read_cell(b, coarse.data());
            ++faces;
            const unsigned int d = face / 2, s = face % 2;
            for (unsigned int q = 0; q < n; ++q)
              for (unsigned int p = 0; p < n; ++p)
                {
                  const unsigned int i = face_dof(n, d, s, p, q);
                  const Point        x = node(basis, mesh.level.boxes[a], i);
                  jump = std::max(jump, std::abs(fine[i] - evaluate(basis, mesh.level.boxes[b], coarse, x)));
                }
          }
      }
    if (n_faces)
      *n_faces = faces;
    return jump;
  }
} // namespace cellwise::testing
