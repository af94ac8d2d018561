// The box Laplace operator fused into the residual restriction: one pass over
// the parents of a level, the thread mapping and shared-memory map of the
// restriction kernel (cuda_cell_transfer_kernels.h, whose header comment
// gives them), with the operator of each child computed where the unfused
// restriction would load it.
//
// Per parent group of C parents, children in the order t = 0..7, slot
// s = g + 4 c_z with g = t / 2, c_z = t % 2 (the two children a z pass of the
// restriction combines come one after the other):
//
//   stage         | thread owns      | reads                     | writes
//   --------------+------------------+---------------------------+---------------------------
//   operator X    | x-line (:, j, k) | u of the child (global)   | a = M_x u, b = K_x u (E, F)
//   operator Y    | y-line (i, :, k) | E, F                      | w = c_x M_y b + c_y K_y a,
//                 |                  |                           | v = c_z M_y a (E, F)
//   operator Z    | z-line (i, j, :) | E, F; b of the child      | r = b − (M_z w + K_z v),
//                 |                  |  (global, z-line)         |  registers
//   restriction Z | z-line (i, j, :) | r of children g, g + 4    | C_g (shared g)
//   (after t odd) |                  |                           |
//   restriction Y, X: restrict_stages_y_x, as restrict_kernel (D_cx in shared
//                 0, 1; the parent)
//
// E and F are shared buffers 4 and 5 beside the restriction's four, with the
// same map (Shape::at), which is conflict-free for the x-, y- and z-line
// accesses the operator makes too. The loads of the next child (its u x-line,
// b z-line and factors) are issued when the current child's stage X has
// consumed its u, so they are in flight during stages Y and Z. Each child
// takes four barriers: after its X stores, after its Y loads (Y overwrites E
// and F), after its Y stores, after its Z loads (the next X overwrites them).
//
// Bytes per fine cell: u and b read once (2 n^3 values) and 3 factors, the
// parent read and written (n^3 / 4 values per child); the unfused pair reads
// u, writes and reads A u, reads b: 4 n^3 values.

#include <cellwise/base/config.h>
#include <cellwise/base/cuda_check.h>
#include <cellwise/base/degree_dispatch.h>
#include <cellwise/multigrid/cell_transfer.h>
#include <cellwise/multigrid/cuda_laplace_residual_restriction.h>

#include "cuda_cell_transfer_kernels.h"

#include <type_traits>

namespace cellwise
{
  namespace cuda
  {
    namespace
    {
      using namespace transfer_kernels;

      template <int p, typename Number>
      struct OperatorMatrices
      {
        Number mass[(p + 1) * (p + 1)];
        Number stiffness[(p + 1) * (p + 1)];
      };

      /// Six buffers of the restriction's shape: C_0..C_3, then E, F.
      template <int p, typename Number, typename Layout>
      constexpr bool
      fits()
      {
        using Shape = ShapeOf<p, Number, Layout>;
        return 6 * Shape::buffer * int(sizeof(Number)) <= 48 * 1024;
      }

      /// The x-line (:, j, k) of cell @p cell, entries i + n q, q = j + n k:
      /// for the cell-contiguous layout n consecutive values (one 16-byte load
      /// for four floats or two doubles at a time where they are aligned).
      template <int n, typename Number, typename Layout>
      __device__ inline void
      load_x_line(const Number *__restrict__ u, const int cell, const int q, Number line[n])
      {
        constexpr int n3 = n * n * n;
        if constexpr (Layout::cell_block == 1 && (n * sizeof(Number)) % 16 == 0)
          {
            using Vector            = std::conditional_t<sizeof(Number) == 4, float4, double2>;
            constexpr int per_load  = 16 / int(sizeof(Number));
            const Vector *vectors   = reinterpret_cast<const Vector *>(u + Layout::index(cell, n * q, n3));
#pragma unroll
            for (int v = 0; v < n / per_load; ++v)
              {
                const Vector value = vectors[v];
                if constexpr (per_load == 4)
                  {
                    line[4 * v + 0] = value.x, line[4 * v + 1] = value.y;
                    line[4 * v + 2] = value.z, line[4 * v + 3] = value.w;
                  }
                else
                  line[2 * v + 0] = value.x, line[2 * v + 1] = value.y;
              }
          }
        else
          {
#pragma unroll
            for (int i = 0; i < n; ++i)
              line[i] = u[Layout::index(cell, i + n * q, n3)];
          }
      }

      template <int p, typename Number, typename Layout>
      __global__ void __launch_bounds__(ShapeOf<p, Number, Layout>::threads)
      laplace_residual_restrict_kernel(const TransferMatrices<p, Number> transfer,
                                       const OperatorMatrices<p, Number> matrices,
                                       const int *__restrict__ children,
                                       const Number *__restrict__ factors,
                                       const Number *__restrict__ fine_b,
                                       const Number *__restrict__ fine_u,
                                       Number            *coarse,
                                       const unsigned int n_parents)
      {
        constexpr bool cell_fastest = Layout::cell_block > 1;
        using Shape                 = ShapeOf<p, Number, Layout>;
        constexpr int n             = Shape::n;
        constexpr int L             = Shape::L;
        constexpr int n3            = Shape::n3;
        const Number *P             = transfer.axis(0); // P_c(r, l) = P[c n^2 + r n + l]
        const Number *M             = matrices.mass;
        const Number *K             = matrices.stiffness;
        __shared__ Number buffer[6 * Shape::buffer];
        Number           *E = buffer + 4 * Shape::buffer;
        Number           *F = buffer + 5 * Shape::buffer;

        int c, q;
        thread_position<Shape, cell_fastest>(c, q);
        const unsigned int parent = blockIdx.x * Shape::cells + c;
        int                child[8];
        load_children(children, parent, parent < n_parents, child);
        const bool refined = child[0] >= 0;

        Number old[n];
        load_restriction_parent<p, Number, Layout>(coarse, parent, q, refined, old);

        // the inputs of child t: its u x-line (j, k) = (q % n, q / n), its b
        // z-line (i, j) = (q % n, q / n), its three factors
        Number u_line[n], b_line[n], f[3];
        auto   load_child = [&](const int t) {
          const int s = t / 2 + 4 * (t % 2);
          if (refined)
            {
              load_x_line<n, Number, Layout>(fine_u, child[s], q, u_line);
#pragma unroll
              for (int k = 0; k < n; ++k)
                b_line[k] = fine_b[Layout::index(child[s], q + L * k, n3)];
#pragma unroll
              for (int d = 0; d < 3; ++d)
                f[d] = factors[3 * static_cast<std::size_t>(child[s]) + d];
            }
          else
            {
#pragma unroll
              for (int k = 0; k < n; ++k)
                u_line[k] = b_line[k] = Number(0);
              f[0] = f[1] = f[2] = Number(0);
            }
        };
        load_child(0);

        Number r[2][n]; // the residual z-lines of children g and g + 4
#pragma unroll
        for (int t = 0; t < 8; ++t)
          {
            // ---- operator X: thread q = j + n k owns the x-line (:, j, k)
            {
              const int j = q % n, k = q / n;
#pragma unroll
              for (int i = 0; i < n; ++i)
                {
                  Number a = 0, bb = 0;
#pragma unroll
                  for (int l = 0; l < n; ++l)
                    {
                      a += M[i * n + l] * u_line[l];
                      bb += K[i * n + l] * u_line[l];
                    }
                  E[Shape::at(c, i, j, k)] = a;
                  F[Shape::at(c, i, j, k)] = bb;
                }
            }
            const Number cx = f[0], cy = f[1], cz = f[2];
            Number       b_now[n];
#pragma unroll
            for (int k = 0; k < n; ++k)
              b_now[k] = b_line[k];
            __syncthreads();
            if (t + 1 < 8)
              load_child(t + 1); // in flight during stages Y and Z

            // ---- operator Y: thread q = i + n k owns the y-line (i, :, k)
            {
              const int i = q % n, k = q / n;
              Number    ya[n], yb[n];
#pragma unroll
              for (int m = 0; m < n; ++m)
                {
                  ya[m] = E[Shape::at(c, i, m, k)];
                  yb[m] = F[Shape::at(c, i, m, k)];
                }
              __syncthreads(); // w, v overwrite a, b
#pragma unroll
              for (int j = 0; j < n; ++j)
                {
                  Number ka = 0, mb = 0, ma = 0;
#pragma unroll
                  for (int m = 0; m < n; ++m)
                    {
                      ka += K[j * n + m] * ya[m];
                      mb += M[j * n + m] * yb[m];
                      ma += M[j * n + m] * ya[m];
                    }
                  E[Shape::at(c, i, j, k)] = cx * mb + cy * ka;
                  F[Shape::at(c, i, j, k)] = cz * ma;
                }
            }
            __syncthreads();

            // ---- operator Z: thread q = i + n j owns the z-line (i, j, :);
            // the residual of the child stays in registers
            {
              const int i = q % n, j = q / n;
              Number    zw[n], zv[n];
#pragma unroll
              for (int m = 0; m < n; ++m)
                {
                  zw[m] = E[Shape::at(c, i, j, m)];
                  zv[m] = F[Shape::at(c, i, j, m)];
                }
#pragma unroll
              for (int k = 0; k < n; ++k)
                {
                  Number Au = 0;
#pragma unroll
                  for (int m = 0; m < n; ++m)
                    Au += M[k * n + m] * zw[m] + K[k * n + m] * zv[m];
                  r[t % 2][k] = b_now[k] - Au;
                }
            }
            if (t + 1 < 8)
              __syncthreads(); // the next stage X overwrites E, F

            // ---- restriction Z after each pair: C_g = Σ_cz P_cz^T r_{g + 4 cz}
            if (t % 2 == 1)
              restrict_pair_z<p, Number, Layout>(P, r, buffer, t / 2, c, q % n, q / n);
          }
        __syncthreads();

        // ---- restriction Y and X (as restrict_kernel): parent += R of the
        // children's residuals
        restrict_stages_y_x<p, Number, Layout>(P, P, buffer, c, q, parent, refined, old, coarse);
      }

      template <int p, typename Number>
      OperatorMatrices<p, Number>
      make_operator_matrices(const std::vector<double> &mass, const std::vector<double> &stiffness)
      {
        OperatorMatrices<p, Number> m;
        CELLWISE_CHECK(mass.size() == (p + 1) * (p + 1) && stiffness.size() == (p + 1) * (p + 1),
                       "cuda::LaplaceResidualRestriction: 1D matrices of " << mass.size() << " and " << stiffness.size()
                                                                           << " entries for degree " << p);
        for (int k = 0; k < (p + 1) * (p + 1); ++k)
          {
            m.mass[k]      = static_cast<Number>(mass[k]);
            m.stiffness[k] = static_cast<Number>(stiffness[k]);
          }
        return m;
      }
    } // namespace

    template <typename Number, typename Layout>
    bool
    LaplaceResidualRestriction<Number, Layout>::supports(const unsigned int degree)
    {
      if (degree < 1 || degree > max_degree)
        return false;
      bool result = false;
      dispatch_degree(degree, [&](auto d) { result = fits<decltype(d)::value, Number, Layout>(); });
      return result;
    }

    template <typename Number, typename Layout>
    LaplaceResidualRestriction<Number, Layout>::LaplaceResidualRestriction(
      std::shared_ptr<const CellTransfer<Number, Layout>>    transfer,
      const unsigned int                                     fine_level,
      std::shared_ptr<const LaplaceOperator<Number, Layout>> fine_operator)
      : transfer_(std::move(transfer))
      , fine_level_(fine_level)
      , operator_(std::move(fine_operator))
    {
      CELLWISE_CHECK(transfer_ && operator_, "cuda::LaplaceResidualRestriction needs a transfer and an operator");
      CELLWISE_CHECK(transfer_->hierarchy() != nullptr && fine_level_ >= 1 && fine_level_ < transfer_->hierarchy()->n_levels(),
                     "cuda::LaplaceResidualRestriction: no level " << fine_level_ << " to restrict from");
      CELLWISE_CHECK(operator_->degree() == transfer_->degree(),
                     "cuda::LaplaceResidualRestriction: operator of degree " << operator_->degree() << ", transfer of degree "
                                                                             << transfer_->degree());
      CELLWISE_CHECK(operator_->n_cells() == transfer_->hierarchy()->level(fine_level_).n_cells(),
                     "cuda::LaplaceResidualRestriction: operator of " << operator_->n_cells() << " cells on level " << fine_level_
                                                                      << " of " << transfer_->hierarchy()->level(fine_level_).n_cells());
      CELLWISE_CHECK(supports(operator_->degree()),
                     "cuda::LaplaceResidualRestriction: no fused kernel for degree " << operator_->degree()
                                                                                     << " in this precision and layout");
    }

    template <typename Number, typename Layout>
    void
    LaplaceResidualRestriction<Number, Layout>::restrict_residual_add(VectorType       &coarse,
                                                                      const VectorType &fine_b,
                                                                      const VectorType &fine_u) const
    {
      const unsigned int degree = transfer_->degree();
      check_transfer_levels(transfer_->hierarchy(), degree, fine_level_, fine_b.n_cells(), fine_b.degree(), coarse.n_cells(),
                            coarse.degree());
      fine_b.check_compatible(fine_u);
      CELLWISE_CHECK(&coarse != &fine_b && &coarse != &fine_u,
                     "cuda::LaplaceResidualRestriction: the coarse vector is also a fine input");
      const unsigned int n_parents = coarse.n_cells();
      if (n_parents == 0)
        return;
      dispatch_degree(degree, [&](auto d) {
        constexpr int p = decltype(d)::value;
        if constexpr (fits<p, Number, Layout>())
          {
            using Shape = ShapeOf<p, Number, Layout>;
            laplace_residual_restrict_kernel<p, Number, Layout><<<n_blocks(n_parents, Shape::cells), Shape::threads>>>(
              make_matrices<p, Number>(transfer_->prolongation_matrices()),
              make_operator_matrices<p, Number>(operator_->mass_1d(), operator_->stiffness_1d()),
              transfer_->device_children(fine_level_), operator_->device_factors(), fine_b.data(), fine_u.data(), coarse.data(),
              n_parents);
            CELLWISE_CUDA_CHECK_LAUNCH();
          }
        else
          CELLWISE_CHECK(false, "cuda::LaplaceResidualRestriction: no fused kernel for degree " << p);
      });
    }

    CELLWISE_INSTANTIATE_NUMBERS_AND_LAYOUTS(LaplaceResidualRestriction)
  } // namespace cuda
} // namespace cellwise
