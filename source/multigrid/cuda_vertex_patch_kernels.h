#pragma once
// The contract between the device vertex-patch smoother's set-up and dispatch
// (cuda_vertex_patch_smoother.cu) and its two kernel families, each in its own
// file: the generic kernel for any degree (cuda_vertex_patch_generic_kernel.cu)
// and the register-resident FP32 Q3 kernels
// (cuda_vertex_patch_register_kernels.cu). It holds their launchers and the
// layout of the register kernels' tables, which the set-up fills and the
// kernels read. Private to source/multigrid/.

#include <cellwise/multigrid/cuda_vertex_patch_smoother.h>

#include <vector>

namespace cellwise
{
  namespace cuda
  {
    namespace internal
    {
      // ---- layout of the register kernels' tables (header comment of
      //      cuda_vertex_patch_register_kernels.cu) ------------------------
      constexpr int          q3_axis_stride = 49;  // words per (axis, side): Fo S^-T, Fp S^-T, Fo, Gp (48) + 1
      constexpr int          q3_inverse_at  = 296; // first word of the 8 x 27 inverse eigenvalue sums
      constexpr int          q3_table_size  = q3_inverse_at + 8 * 27;

      /// The entry of row i (patch mode i of the lane's side) of the forward
      /// block B_aa that the tables divide out: a column where the row of
      /// side 0 and that of side 1 (patch modes 0|1, 2|3, 4|zero row of F)
      /// are both well away from zero; column 0, the constant cell mode, is
      /// 0 for mode 3, so no single column does. Checked at set-up (the
      /// variant is unavailable otherwise).
      __host__ __device__ constexpr int
      q3_forward_pivot(const int i)
      {
        return i == 0 ? 0 : (i == 1 ? 1 : 3);
      }
      constexpr int q3_sym_axis_stride = 29; // words per (axis, side): B_aa, F_aa (12 each), σ_a τ (4), σ_ā
      constexpr int q3_sym_inverse_at  = 6 * q3_sym_axis_stride; // 8 x 27 inverse eigenvalue sums (parity order)
      constexpr int q3_sym_table_size  = q3_sym_inverse_at + 8 * 27;
      /// Offset of the symmetric tables in the smoother's register_tables_
      /// (after the tables of the other register kernels and the 96 words of
      /// S^-1, S^T, D kept on the host).
      constexpr int q3_symmetric_tables_at = q3_table_size + 96;
      /// Then the kernel parameters of register_q3_symmetric (96 words, used
      /// on the host): S^-1 and S^T with row k divided by its first entry
      /// (s_k, t_k), and D~ = D (s ⊗ s ⊗ s) / (t ⊗ t ⊗ t). With v' = v / s³
      /// and r^' = r^ / t³ from the scaled transforms, r = r^ - D v =
      /// t³ (r^' - D~ v'); the factor t³ is separable and each forward block
      /// takes its axis's share, B_aa diag(t) (column k times t_k).
      constexpr int q3_symmetric_matrices_at = q3_symmetric_tables_at + q3_sym_table_size;

      /// One colour step of the generic kernel (any degree, number type and
      /// layout): one thread block per patch, @p mass and @p stiffness the
      /// reference 1D matrices, @p factors the metric factors of the cells,
      /// @p inverses the distinct patch inverses indexed by @p inverse_index.
      template <int p, typename Number, typename Layout>
      void
      launch_generic(const std::vector<double> &mass,
                     const std::vector<double> &stiffness,
                     const Number              *factors,
                     const Number              *inverses,
                     const unsigned int        *patch_cells,
                     const unsigned int        *inverse_index,
                     unsigned int               n_patches,
                     const Number              *b,
                     Number                    *u,
                     bool                       u_is_zero);

      /// Launch the register colour step (or its traffic stub) of @p kernel
      /// (register_q3, register_q3_async or register_q3_symmetric) on raw
      /// device arrays. @p tables as built by the smoother for that kernel
      /// (the symmetric variant has its own). @p max_blocks > 0 caps the grid
      /// of the cp.async kernels (limit_register_grid).
      void
      launch_register_q3(const float        *s_inverse,
                         const float        *s_transpose,
                         const float        *diagonal,
                         const float        *tables,
                         const unsigned int *patch_cells,
                         unsigned int        n_patches,
                         const float        *b,
                         float              *u,
                         bool                u_is_zero,
                         bool                stub,
                         PatchKernel         kernel,
                         unsigned int        max_blocks);
    } // namespace internal
  } // namespace cuda
} // namespace cellwise
