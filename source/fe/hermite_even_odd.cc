#include <cellwise/base/exceptions.h>
#include <cellwise/fe/hermite_even_odd.h>

#include <algorithm>
#include <cmath>

namespace cellwise
{
  namespace hermite
  {
    namespace
    {
      constexpr unsigned int dofs_per_cell = n_sectors * dofs_per_sector;

      /// T (64 × 64): row s·16 + l, column the cell index of the group member.
      DenseMatrix
      even_odd_transform()
      {
        DenseMatrix T(dofs_per_cell, dofs_per_cell);
        for (unsigned int iz = 0; iz < 4; ++iz)
          for (unsigned int jy = 0; jy < 2; ++jy)
            for (unsigned int jx = 0; jx < 2; ++jx)
              for (unsigned int py = 0; py < 2; ++py)
                for (unsigned int px = 0; px < 2; ++px)
                  for (unsigned int ay = 0; ay < 2; ++ay)
                    for (unsigned int ax = 0; ax < 2; ++ax)
                      T((px + 2 * py) * dofs_per_sector + jx + 2 * jy + 4 * iz, group_member(jx, jy, iz, ax, ay)) =
                        sector_sign(px, jx, ax) * sector_sign(py, jy, ay);
        return T;
      }
    } // namespace

    std::array<DenseMatrix, n_sectors>
    even_odd_sectors(const DenseMatrix &A)
    {
      CELLWISE_CHECK(A.m() == dofs_per_cell && A.n() == dofs_per_cell,
                     "even_odd_sectors: needs a 64 x 64 cell matrix, got " << A.m() << " x " << A.n());
      const DenseMatrix T = even_odd_transform();
      const DenseMatrix E = T * A * T.transpose();
      double            largest = 0;
      for (unsigned int i = 0; i < dofs_per_cell; ++i)
        for (unsigned int j = 0; j < dofs_per_cell; ++j)
          largest = std::max(largest, std::abs(A(i, j)));
      std::array<DenseMatrix, n_sectors> sectors;
      for (unsigned int s = 0; s < n_sectors; ++s)
        sectors[s] = DenseMatrix(dofs_per_sector, dofs_per_sector);
      for (unsigned int i = 0; i < dofs_per_cell; ++i)
        for (unsigned int j = 0; j < dofs_per_cell; ++j)
          {
            const double e = E(i, j) / 16;
            if (i / dofs_per_sector == j / dofs_per_sector)
              sectors[i / dofs_per_sector](i % dofs_per_sector, j % dofs_per_sector) = e;
            else
              CELLWISE_CHECK(std::abs(e) <= 1e-12 * largest,
                             "even_odd_sectors: the matrix couples sectors " << i / dofs_per_sector << " and "
                                                                             << j / dofs_per_sector << " by " << e
                                                                             << " (largest entry " << largest
                                                                             << "); it does not commute with the "
                                                                                "signed reflections of a box cell");
          }
      return sectors;
    }

    void
    apply_even_odd(const std::array<DenseMatrix, n_sectors> &sectors, const double *x, double *y)
    {
      double x_hat[n_sectors][dofs_per_sector], y_hat[n_sectors][dofs_per_sector];
      for (unsigned int iz = 0; iz < 4; ++iz)
        for (unsigned int jy = 0; jy < 2; ++jy)
          for (unsigned int jx = 0; jx < 2; ++jx)
            {
              const double q[4] = {x[group_member(jx, jy, iz, 0, 0)], x[group_member(jx, jy, iz, 1, 0)],
                                   x[group_member(jx, jy, iz, 0, 1)], x[group_member(jx, jy, iz, 1, 1)]};
              double       s[4];
              forward_quad(q, jx, jy, s);
              for (unsigned int k = 0; k < n_sectors; ++k)
                x_hat[k][jx + 2 * jy + 4 * iz] = s[k];
            }
      for (unsigned int k = 0; k < n_sectors; ++k)
        for (unsigned int i = 0; i < dofs_per_sector; ++i)
          {
            double sum = 0;
            for (unsigned int j = 0; j < dofs_per_sector; ++j)
              sum += sectors[k](i, j) * x_hat[k][j];
            y_hat[k][i] = sum;
          }
      for (unsigned int iz = 0; iz < 4; ++iz)
        for (unsigned int jy = 0; jy < 2; ++jy)
          for (unsigned int jx = 0; jx < 2; ++jx)
            {
              const unsigned int l    = jx + 2 * jy + 4 * iz;
              const double       s[4] = {y_hat[0][l], y_hat[1][l], y_hat[2][l], y_hat[3][l]};
              double             q[4];
              backward_quad(s, jx, jy, q);
              y[group_member(jx, jy, iz, 0, 0)] = q[0];
              y[group_member(jx, jy, iz, 1, 0)] = q[1];
              y[group_member(jx, jy, iz, 0, 1)] = q[2];
              y[group_member(jx, jy, iz, 1, 1)] = q[3];
            }
    }
  } // namespace hermite
} // namespace cellwise
