#pragma once
/**
 * @file
 * The multiplicative vertex-patch smoother of 000 §3 on the device: the twin
 * of cellwise::VertexPatchSmoother (multigrid/vertex_patch_smoother.h, the
 * oracle; derivation in doc/vertex_patch_smoother.md).
 *
 * Set-up runs on the host: the colour lists are make_vertex_patches() and the
 * patch inverses (Q_d, 1/(λ_x + λ_y + λ_z)) make_vertex_patch_inverses(), the
 * host smoother's functions, both uploaded. Same semantics as the
 * host class: colours 0..7 forward and 7..0 reverse, zero_initial_guess skips
 * the operator in the first colour, u and b distinct, rim and Dirichlet DoFs
 * never written.
 *
 * Two kernels for one colour step (set-up and dispatch in
 * source/multigrid/cuda_vertex_patch_smoother.cu, the kernels in
 * cuda_vertex_patch_generic_kernel.cu and cuda_vertex_patch_register_kernels.cu
 * beside it):
 *  - generic: one thread block per patch, the eight cells in shared memory,
 *    residual and fast-diagonalization solve by sum factorization staged in
 *    shared memory; all degrees, FP64 and FP32, both layouts.
 *  - register (000 §5): FP32, p = 3, CellContiguous, one patch size with equal
 *    cells along each axis (a uniform Cartesian level). One cell per thread,
 *    the eight cells of a patch in a hypercube of lanes, the (3+3)^3 cell-wise
 *    fast diagonalization with butterfly shuffles, all intermediates in
 *    registers, shared memory only to coalesce loads and stores; two
 *    variants of the staging (register-staged loads with a second read of u;
 *    cp.async with u kept in shared memory, the default), and the cp.async
 *    variant with the reflection symmetry of the patch (000 §6.4: even and odd
 *    modes, the partner's blocks signed copies of the own ones; about 30 %
 *    fewer instructions; the default where the patches are mirror
 *    symmetric). Each lane computes
 *    its own cell's copy of the patch correction; a copy cascade over the
 *    three axes (the lower lane's value overwrites the upper lane's copy)
 *    then writes one value into every copy of a patch DoF, so that a
 *    continuous iterate stays continuous. Chosen automatically where it
 *    applies (register_kernel_available()); use_kernel() selects one
 *    explicitly (tests, benchmarks).
 *
 * Compiles with a plain C++ compiler.
 */

#include <cellwise/mesh/level.h>
#include <cellwise/mesh/vertex_patches.h>
#include <cellwise/multigrid/interfaces.h>
#include <cellwise/storage/cuda_cell_vector.h>

#include <array>
#include <functional>
#include <vector>

namespace cellwise
{
  namespace cuda
  {
    /// Which colour-step kernel a cuda::VertexPatchSmoother runs.
    enum class PatchKernel
    {
      automatic, ///< register_q3_symmetric, else register_q3_async, where available; generic otherwise
      generic,   ///< one thread block per patch, shared memory
      register_q3, ///< one cell per thread, registers and shuffles (FP32, Q3, uniform, CellContiguous)
      register_q3_async, ///< register_q3 with u and b~ staged by cp.async, u kept in shared memory
      /// register_q3_async with the arithmetic reduced by the mirror symmetry
      /// of a patch of equal cells (000 §6.4); only where selected explicitly
      register_q3_symmetric
    };

    template <typename Number, typename Layout = CellContiguous>
    class VertexPatchSmoother : public LevelSmoother<CellVector<Number, MemorySpace::CUDA, Layout>>
    {
    public:
      using value_type = Number;
      using VectorType = CellVector<Number, MemorySpace::CUDA, Layout>;

      VertexPatchSmoother() = default;
      /// Patches, metric factors and patch inverses of @p level for
      /// FE_Q(@p degree) (computed on the host, uploaded); @p n_sweeps sweeps
      /// per smooth() call.
      VertexPatchSmoother(const Level &level, unsigned int degree, unsigned int n_sweeps = 1);
      VertexPatchSmoother(const VertexPatchSmoother &) = delete;
      VertexPatchSmoother &
      operator=(const VertexPatchSmoother &) = delete;
      ~VertexPatchSmoother() override;

      void
      reinit(const Level &level, unsigned int degree, unsigned int n_sweeps = 1);

      /// u ← S(u, b): n_sweeps sweeps over the colours in @p direction; with
      /// @p zero_initial_guess u is zeroed first and the first colour uses b~ as
      /// its residual.
      void
      smooth(VectorType &u, const VectorType &b, bool zero_initial_guess, SweepDirection direction) const override;
      /// smooth() calling @p after_colour(colour, last) after each colour
      /// step, last = whether it was the call's final one: the distributed
      /// smoother updates its ghost cells there (multigrid/
      /// mpi_distributed_vertex_patch_smoother.h), as on the host.
      void
      smooth(VectorType                                                &u,
             const VectorType                                          &b,
             bool                                                       zero_initial_guess,
             SweepDirection                                             direction,
             const std::function<void(unsigned int colour, bool last)> &after_colour) const;

      /// One colour step: all patches of @p colour.
      void
      apply_colour(VectorType &u, const VectorType &b, unsigned int colour, bool u_is_zero = false) const;

      /// For benchmarks: the loads and stores of one register colour step
      /// (b, u, second read of u, store of u) without its arithmetic;
      /// u ends up unchanged. Needs register_kernel_available().
      void
      apply_traffic_stub(VectorType &u, const VectorType &b, unsigned int colour, bool u_is_zero = false) const;

      /// Select the colour-step kernel; throws if @p kernel is a register
      /// kernel and register_kernel_available() (for register_q3_symmetric:
      /// symmetric_kernel_available()) is false.
      void
      use_kernel(PatchKernel kernel);
      /// True for FP32, p = 3, CellContiguous and a single patch inverse whose
      /// two cells have equal size along every axis.
      bool
      register_kernel_available() const
      {
        return register_available_;
      }
      /// True where register_kernel_available() and the mirror symmetry of the
      /// patch that register_q3_symmetric relies on was confirmed on its
      /// tables (equal cells are already part of the condition above).
      bool
      symmetric_kernel_available() const
      {
        return symmetric_available_;
      }
      /// The kernel apply_colour runs (generic, register_q3, register_q3_async or
      /// register_q3_symmetric).
      PatchKernel
      active_kernel() const;

      /// At most @p max_blocks blocks for the cp.async register kernels
      /// (0, the default: one wave of resident blocks). Their warps loop over
      /// the groups of patches, so a small grid makes each warp take many
      /// groups: tests use it to run the pipelined loop on small meshes.
      void
      limit_register_grid(const unsigned int max_blocks)
      {
        register_grid_limit_ = max_blocks;
      }

      /// Number of patches of @p colour (the vertex patches of the level,
      /// make_vertex_patches()).
      unsigned int
      n_patches(const unsigned int colour) const
      {
        return n_patches_[colour];
      }
      unsigned int
      degree() const
      {
        return degree_;
      }
      unsigned int
      n_sweeps() const
      {
        return n_sweeps_;
      }
      unsigned int
      n_cells() const
      {
        return n_cells_;
      }
      unsigned int
      n_patch_inverses() const
      {
        return n_inverses_;
      }

    private:
      void
      check_vectors(const VectorType &u, const VectorType &b) const;
      void
      release();
      /// Device tables of the register kernel @p kernel.
      const float *
      device_tables(PatchKernel kernel) const;
      /// S^-1, S^T (16 each) and D (64) of the register kernel @p kernel, for
      /// its kernel parameters (the symmetric variant's are scaled).
      const float *
      host_matrices(PatchKernel kernel) const;

      unsigned int degree_     = 0;
      unsigned int n_sweeps_   = 1;
      unsigned int n_cells_    = 0;
      unsigned int n_inverses_ = 0;
      std::array<unsigned int, 8> n_patches_{}; ///< per colour
      /// Reference 1D mass and stiffness, row-major (n x n), double.
      std::vector<double> mass_, stiffness_;

      // device arrays
      Number       *factors_ = nullptr; ///< 3 per cell: (c_x, c_y, c_z)
      /// Per inverse: Q_x, Q_y, Q_z (m x m row-major each), then the m^3
      /// inverse eigenvalue sums.
      Number       *inverses_ = nullptr;
      std::array<unsigned int *, 8> patch_cells_{};   ///< per colour: 8 cell indices per patch
      std::array<unsigned int *, 8> inverse_index_{}; ///< per colour: inverse per patch

      // register kernel (FP32 Q3) data: per axis and lane side the 3x4 blocks
      // of the forward (merged with the cell eigenbasis) and backward maps,
      // per modal octant the 27 inverse eigenvalue sums (uploaded), then the
      // cell eigenbasis S^-1, S^T and diagonal D (kernel parameters), then
      // the tables of register_q3_symmetric (blocks of the modes split by
      // parity); layout in the .cu
      bool               register_available_ = false;
      bool               symmetric_available_ = false;
      PatchKernel        kernel_             = PatchKernel::automatic;
      unsigned int       register_grid_limit_ = 0;
      std::vector<float> register_tables_;
      float             *register_tables_device_ = nullptr;
    };
  } // namespace cuda
} // namespace cellwise
