#pragma once
/**
 * @file
 * The point smoothers of the CUDA backend: the masked DSS-Jacobi
 * preconditioner P = D^{-1} S on the device (device DSS, then the entrywise
 * scaling by the stored inverse diagonal), the twin of
 * multigrid/dss_jacobi_preconditioner.h, and the Jacobi and Chebyshev
 * smoothers on it: the algorithms host and device share
 * (multigrid/point_smoothers.h), whose steps fuse each update with the next
 * residual in cuda::LaplaceOperator::smoother_step (003 §5) and take the
 * Chebyshev scalars from ChebyshevRecurrence.
 *
 * The inverse diagonal is computed on the device: cell diagonals of the A_K,
 * DSS sum, inversion with the mask folded in (zero on masked copies). The
 * Chebyshev eigenvalue estimate starts from the host's pseudo-random vector
 * (lanczos_start_vector: a counter hash of each entry's position, uniform on
 * [0.5, 1.5), times the mask; made on the device, cuda_lanczos_start.h), so
 * host and device estimates agree to rounding.
 *
 * Compiles with a plain C++ compiler (implemented in
 * source/multigrid/cuda_point_smoothers.cu).
 */

#include <cellwise/operators/cuda_laplace_operator.h>
#include <cellwise/storage/cuda_level_data.h>
#include <cellwise/multigrid/interfaces.h>
#include <cellwise/multigrid/point_smoothers.h>
#include <cellwise/storage/cuda_cell_vector.h>

#include <memory>

namespace cellwise
{
  namespace cuda
  {
    /// Operator is the device level operator whose diagonal D is
    /// (cuda::LaplaceOperator, cuda::GeneralLaplaceOperator on mapped
    /// levels, or cuda::HermiteBiharmonicOperator for the C¹ element); S
    /// runs over the trace layers it names (trace_layers()).
    template <typename Number, typename Layout = CellContiguous, typename Operator = LaplaceOperator<Number, Layout>>
    class DssJacobiPreconditioner : public InPlacePreconditioner<CellVector<Number, MemorySpace::CUDA, Layout>>
    {
    public:
      using VectorType   = CellVector<Number, MemorySpace::CUDA, Layout>;
      using OperatorType = Operator;

      DssJacobiPreconditioner() = default;
      /// @p mask is 1 on free and 0 on masked copies. Throws cellwise::Error if
      /// an assembled diagonal entry is not positive.
      DssJacobiPreconditioner(const Level &level, const Operator &op, const VectorType &mask);
      /// The same with the level's device data built by the caller, who
      /// shares it with the Dirichlet mask and the other precisions' levels:
      /// on an unstructured level its skeleton groups cost a DoF numbering
      /// of the level twice (doc/geometry.md).
      DssJacobiPreconditioner(const Level &level, const Operator &op, const VectorType &mask,
                              std::shared_ptr<const LevelData> level_data);

      /// dst = D^{-1} S src
      void
      vmult(VectorType &dst, const VectorType &src) const;
      /// r ← S r in place: the DSS half of apply_in_place, for the fused step
      /// loops, which apply D^{-1} inside LaplaceOperator::smoother_step.
      void
      assemble(VectorType &r) const;
      /// r ← D^{-1} S r in place
      void
      apply_in_place(VectorType &r) const override;

      /// Whether assemble_and_update() takes this level: the cubic Hermite
      /// element on a level that fills a box, where the DSS runs inside the
      /// step's update (multigrid/cuda_hermite_dss_jacobi_step.h). The step
      /// loops of point_smoother_steps.h then take every step of a smooth()
      /// through it.
      bool
      fuses_update() const;
      /// The update half of a smoother step with S applied on the fly:
      /// d ← α d + β D^{-1} S r, u ← u + d per copy, as assemble(r) followed
      /// by the operator's update, but @p r is read and not written, and the
      /// update vector holds d at the lowest copy of each DoF only. Throws
      /// cellwise::Error where fuses_update() is false.
      void
      assemble_and_update(VectorType &u, const VectorType &r, VectorType *update, const SmootherStep<Number> &step) const;

      const VectorType &
      inverse_diagonal() const
      {
        return inverse_diagonal_;
      }

    private:
      /// The level's device data; throws cellwise::Error on a preconditioner
      /// that was default-constructed.
      const LevelData &
      level_data() const;

      std::shared_ptr<const LevelData> level_data_;
      TraceLayers                      layers_;
      VectorType                       inverse_diagonal_;
    };

    /// The device Jacobi and Chebyshev smoothers: the shared algorithms of
    /// multigrid/point_smoothers.h on the device preconditioner.
    template <typename Number, typename Layout = CellContiguous>
    using JacobiSmoother = PointJacobiSmoother<DssJacobiPreconditioner<Number, Layout>>;
    template <typename Number, typename Layout = CellContiguous>
    using ChebyshevSmoother = PointChebyshevSmoother<DssJacobiPreconditioner<Number, Layout>>;
  } // namespace cuda
} // namespace cellwise
