#pragma once
/**
 * @file
 * The general cell-wise Laplacian −∇·(c∇u) on any cells (curved, affine,
 * boxes; the coefficient at the quadrature points or averaged), CUDA
 * backend: the device twin of cellwise::LaplaceOperator
 * (operators/laplace_operator.h, its oracle in the tests) on mapped levels
 * and with a coefficient at the points, which cuda::LaplaceOperator (boxes,
 * a coefficient per cell) refuses.
 *
 * The geometry and the coefficient are the host's LaplaceMetric
 * (operators/laplace_metric.h, make_laplace_metric): per cell its form
 * (cartesian, cartesian_coefficient, affine, general), its three factors
 * and, for the last three forms, its values. A general cell with one
 * coefficient per cell (none, a constant or CoefficientEvaluation::
 * cell_average) is by default not uploaded as its 6 (p+1)³ metric values
 * but as its mapping nodes (3 (k+1)³ numbers, relative to its first node,
 * and its coefficient): the kernel recomputes det J J⁻¹ J⁻ᵀ at every point
 * (kernels::metric_from_nodes is the host reference; 003 §6, Nekbone), for
 * mappings of degree k ≤ 3 (by default for k = 1 only, where it is also
 * faster: GeneralCellMetric). At p = 3 on trilinear cells that is 25 numbers
 * per cell instead of 384. In the blocked layout the stored values of
 * general and cartesian_coefficient cells are interleaved in groups of 32
 * cells (entry j of 32 cells side by side), as the vectors' DoFs, and those
 * of general cells with one coefficient are made there on the device from
 * the nodes (kernels::metric_from_nodes in double; the host only checks the
 * cells and sums their diagonals: 0.5 s instead of 2.3 s for the finest
 * ball level at L = 5, p = 3, on two cores). One kernel
 * applies every form, as kernels/general_laplace_cell.h does on the host:
 * the reference gradients interpolated to the (p+1)³ Gauss points by 8
 * one-dimensional contractions, the symmetric metric G(q) of the cell's
 * form applied, and 8 contractions back. Two kernels (GeneralKernel): a
 * thread holds one 1D line of a cell in registers per stage and shared
 * memory turns the lines between the directions (lines: every degree and
 * layout); or a thread holds a z-plane of a cell, only the turn to the
 * z-lines and back goes through shared memory, and the derivatives at the
 * points are collocation derivatives (planes, kernels/
 * general_laplace_planes.h: blocked layouts, degrees 2..4). Source:
 * source/operators/cuda_general_laplace_operator.cu.
 * Cartesian cells go through the same quadrature (exact for them: the same
 * operator as the host's Kronecker kernel up to rounding).
 *
 * Input primal, output dual; no Dirichlet treatment here. Degrees 1..8.
 * Compiles with a plain C++ compiler.
 */

#include <cellwise/base/function.h>
#include <cellwise/base/setup_times.h>
#include <cellwise/fe/face_dofs.h>
#include <cellwise/fe/quadrature.h>
#include <cellwise/mesh/level.h>
#include <cellwise/operators/laplace_metric.h>
#include <cellwise/operators/level_operator.h>
#include <cellwise/operators/smoother_step.h>
#include <cellwise/storage/cuda_cell_vector.h>

#include <array>
#include <cstddef>
#include <vector>

namespace cellwise
{
  namespace cuda
  {
    /// How the device keeps the metric of general cells (curved, with one
    /// coefficient per cell).
    enum class GeneralCellMetric
    {
      /// recomputed for trilinear cells (mapping of degree 1), stored for
      /// higher degrees: the faster of the two on the H200 in the blocked
      /// layout of the solvers (doc/performance-log.md, cellwise-benchmark-geometry)
      automatic,
      /// recomputed at the points from the mapping nodes (mappings of degree
      /// 1..3; stored otherwise): the least memory and traffic
      recomputed,
      /// the 6 (p+1)³ values of G at the points, read at every application:
      /// the host's LaplaceMetric, or in the blocked layout with one
      /// coefficient per cell made on the device from the mapping nodes
      stored
    };

    /// Which kernel applies a cuda::GeneralLaplaceOperator.
    enum class GeneralKernel
    {
      /// lines, until the plane kernel is measured against it on the device
      automatic,
      /// a thread per 1D line of a cell, five stages turned through shared
      /// memory: every degree, both layouts
      lines,
      /// a thread per z-plane of a cell, three phases
      /// (kernels/general_laplace_planes.h): blocked layouts, degrees 2..4
      planes
    };

    template <typename Number, typename Layout = CellContiguous>
    class GeneralLaplaceOperator : public LevelOperator<CellVector<Number, MemorySpace::CUDA, Layout>>
    {
    public:
      using value_type = Number;
      using VectorType = CellVector<Number, MemorySpace::CUDA, Layout>;

      GeneralLaplaceOperator() = default;
      /// The metric of every cell of @p level for FE_Q(@p degree) with the
      /// coefficient @p coefficient (none: c = 1) evaluated as @p evaluation
      /// (make_laplace_metric, which refuses inverted cells and coefficients
      /// that are not positive and finite), computed on the host and
      /// uploaded; general cells as @p general_cells says where they can.
      GeneralLaplaceOperator(const Level           &level,
                             unsigned int           degree,
                             const ScalarFunction  &coefficient   = {},
                             CoefficientEvaluation  evaluation    = CoefficientEvaluation::quadrature_points,
                             GeneralCellMetric      general_cells = GeneralCellMetric::automatic);
      /// The same operator from @p metric, which must be
      /// make_laplace_metric<Number>(level, degree, coefficient, evaluation,
      /// host_values(level, coefficient, evaluation, general_cells)), or in
      /// FP32 without a coefficient rounded_to_float() of the FP64 one, the
      /// same bit for bit: a mixed-precision solver makes the finest level's
      /// metric once for both precisions.
      GeneralLaplaceOperator(const Level                 &level,
                             unsigned int                 degree,
                             const LaplaceMetric<Number> &metric,
                             const ScalarFunction        &coefficient   = {},
                             CoefficientEvaluation        evaluation    = CoefficientEvaluation::quadrature_points,
                             GeneralCellMetric            general_cells = GeneralCellMetric::automatic);
      /// Which values of general cells the operator takes from
      /// make_laplace_metric for these arguments: none where it recomputes
      /// them at every application or makes them on the device from the
      /// nodes.
      static GeneralCellValues
      host_values(const Level &level, const ScalarFunction &coefficient, CoefficientEvaluation evaluation,
                  GeneralCellMetric general_cells);
      GeneralLaplaceOperator(const GeneralLaplaceOperator &) = delete;
      GeneralLaplaceOperator &
      operator=(const GeneralLaplaceOperator &) = delete;
      ~GeneralLaplaceOperator() override;

      unsigned int
      degree() const
      {
        return degree_;
      }
      unsigned int
      n_cells() const
      {
        return n_cells_;
      }
      /// The layer a face shares (FE_Q(p): one; for DSS).
      TraceLayers
      trace_layers() const
      {
        return lagrange_trace_layers(degree_);
      }
      /// The coefficient of the metric (empty: none) and how it is
      /// evaluated: what a host operator of the same level needs to be this
      /// one (the exact coarse solver's cell matrices).
      const ScalarFunction &
      coefficient() const
      {
        return coefficient_;
      }
      CoefficientEvaluation
      coefficient_evaluation() const
      {
        return evaluation_;
      }
      /// Cells per form, in the order of MetricForm.
      const std::array<std::size_t, 4> &
      form_counts() const
      {
        return form_counts_;
      }
      /// Of the general cells, those whose metric the kernel recomputes from
      /// their mapping nodes.
      std::size_t
      recomputed_cells() const
      {
        return n_recomputed_;
      }
      /// Bytes of geometry and coefficient on the device (forms, offsets,
      /// factors, values, nodes), which every application reads.
      std::size_t
      metric_bytes() const
      {
        return metric_bytes_;
      }
      /// The constructor's stages: the metric on the host, its packing and
      /// upload (with the interleaving on the device).
      const SetupTimes &
      setup_times() const
      {
        return setup_times_;
      }

      /// Whether the plane kernel takes this operator (layout and degree).
      bool
      planes_available() const;
      /// Select the kernel (tests, benchmarks); throws for the plane kernel
      /// where it is not available.
      void
      use_kernel(GeneralKernel kernel);
      /// The kernel the applications run.
      GeneralKernel
      kernel() const;

      /// dst = A src
      void
      vmult(VectorType &dst, const VectorType &src) const override;
      /// dst += A src
      void
      vmult_add(VectorType &dst, const VectorType &src) const;
      /// dst = b − A u, in one pass (b may be dst).
      void
      residual(VectorType &dst, const VectorType &b, const VectorType &u) const override;
      /// One point-smoother step (operators/smoother_step.h): with the plane
      /// kernel one pass, the update inside the kernel's loads and the
      /// residual with the new u (as the box operator's kernel); otherwise
      /// the update (cuda::apply_smoother_update), then the residual — two
      /// passes, as the Hermite operator's.
      void
      smoother_step(VectorType                 &u,
                    VectorType                 &r,
                    VectorType                 *update,
                    const VectorType           &b,
                    const VectorType           &inverse_diagonal,
                    const SmootherStep<Number> &step) const;
      /// Cell-wise (unassembled) diagonals of the A_K (the host's six
      /// transposed contractions, kernels::general_laplace_cell_diagonal; a
      /// thread per cell, for the set-up of a smoother).
      void
      compute_cell_diagonals(VectorType &diagonal) const;

    private:
      /// dst = A u (mode 0), dst += A u (1), dst = b − A u (2). With @p step
      /// (the plane kernel, mode 2, dst = r holding z): the smoother step's
      /// update of u (and @p update) from z and @p inverse_diagonal first, in
      /// the same pass; u is then smoother_step's own non-const vector.
      void
      apply(VectorType                 &dst,
            const VectorType           *b,
            const VectorType           &u,
            int                         mode,
            const SmootherStep<Number> *step             = nullptr,
            VectorType                 *update           = nullptr,
            const VectorType           *inverse_diagonal = nullptr) const;
      /// The constructors' work after the host metric: the forms, records
      /// and tables, uploaded.
      void
      build(const Level &level, unsigned int degree, const LaplaceMetric<Number> &metric, const ScalarFunction &coefficient,
            CoefficientEvaluation evaluation, GeneralCellMetric general_cells);
      void
      release() noexcept;
      /// The records of the cells whose values start at @p sources[s] in
      /// @p values (device), R numbers each, interleaved by slot s in groups
      /// of 32 (see metric_records_); nullptr for none.
      static Number *
      interleave_records(const Number *values, const std::vector<std::size_t> &sources, int R, const char *what);
      /// The records of metric_records_ made on the device for the general
      /// @p cells (by slot), each with its coefficient @p coefficients[slot],
      /// from the nodes of @p mapping (uploaded as they lie, made relative to
      /// each cell's first node on the device) at the points of @p gauss.
      static Number *
      metric_records_from_nodes(const CellMapping &mapping, const std::vector<unsigned int> &cells,
                                const std::vector<double> &coefficients, const Quadrature1D &gauss);

      unsigned int               degree_  = 0;
      unsigned int               n_cells_ = 0;
      std::array<std::size_t, 4> form_counts_{};
      std::size_t                metric_bytes_ = 0;
      std::size_t                n_recomputed_ = 0;
      /// The degree k of the mapping of the recomputed cells (0: none).
      unsigned int mapping_degree_ = 0;
      // device arrays
      unsigned char *forms_   = nullptr; ///< MetricForm per cell, or a recomputed or interleaved code
      /// where a cell's values start in values_; a recomputed or interleaved cell's slot in its records
      std::size_t *offsets_ = nullptr;
      Number      *factors_ = nullptr; ///< 3 per cell
      Number      *values_  = nullptr; ///< the metric data of the stored non-Cartesian forms (per cell)
      /// Per recomputed cell its record of 1 + 3 (k+1)³ numbers (c, then the
      /// nodes minus the first), by slot in groups of 32: entry j of slot s
      /// at (s / 32) 32 R + 32 j + s % 32, so that the threads of a warp that
      /// read entry j of consecutive slots read consecutive numbers.
      Number *nodes_ = nullptr;
      /// In a blocked layout, where the threads of a warp take consecutive
      /// cells: the 6 (p+1)³ values of each general cell (metric_records_;
      /// the host's, or made on the device from the nodes where the cell has
      /// one coefficient) and the (p+1)³ of each cartesian_coefficient cell
      /// (coefficient_records_), by slot (the cell's offsets_ entry) in
      /// groups of 32 as nodes_, so that a warp reads consecutive numbers.
      Number *metric_records_      = nullptr;
      Number *coefficient_records_ = nullptr;
      /// The 1D tables at the Gauss points, S(q, i) and D(q, i) (n × n
      /// row-major each), then the (p+1)³ tensor weights w_q, the n 1D
      /// weights, the mapping's tables ψ_i(ξ_q) and ψ_i'(ξ_q) (n × (k+1)
      /// each); the operator's kernel takes them by value from the host copy.
      Number             *tables_ = nullptr;
      std::vector<Number> host_tables_;
      /// Dc(q, k), n × n row-major: the collocation derivative on the Gauss
      /// points (the plane kernel's).
      std::vector<Number> host_collocation_;
      GeneralKernel       kernel_ = GeneralKernel::automatic;
      SetupTimes          setup_times_;
      ScalarFunction        coefficient_;
      CoefficientEvaluation evaluation_ = CoefficientEvaluation::quadrature_points;
    };
  } // namespace cuda
} // namespace cellwise
