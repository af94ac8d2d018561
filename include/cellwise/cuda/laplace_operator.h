#pragma once
/**
 * @file
 * The cell-wise Laplace operator on axis-aligned box cells, CUDA backend; the
 * device twin of cellwise::LaplaceOperator (operators/laplace_operator.h) with
 * the same arithmetic (kernels/laplace_cell.h, up to the order of the
 * contractions). Input primal, output dual; no Dirichlet treatment here.
 *
 * Compiles with a plain C++ compiler; the kernels live in
 * source/cuda/laplace_operator.cu, compiled for degrees 1..8.
 */

#include <cellwise/fe/matrices_1d.h>
#include <cellwise/mesh/level.h>
#include <cellwise/multigrid/interfaces.h>
#include <cellwise/storage/cuda_cell_vector.h>

#include <vector>

namespace cellwise
{
  namespace cuda
  {
    template <typename Number, typename Layout = CellContiguous>
    class LaplaceOperator : public LevelOperator<CellVector<Number, MemorySpace::CUDA, Layout>>
    {
    public:
      using value_type = Number;
      using VectorType = CellVector<Number, MemorySpace::CUDA, Layout>;

      LaplaceOperator() = default;
      /// Set up for all cells of @p level with FE_Q(@p degree); uploads the
      /// metric factors (c_x, c_y, c_z) of every cell.
      LaplaceOperator(const Level &level, unsigned int degree);
      LaplaceOperator(const LaplaceOperator &) = delete;
      LaplaceOperator &
      operator=(const LaplaceOperator &) = delete;
      LaplaceOperator(LaplaceOperator &&other) noexcept;
      LaplaceOperator &
      operator=(LaplaceOperator &&other) noexcept;
      ~LaplaceOperator() override;

      void
      reinit(const Level &level, unsigned int degree);

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

      /// dst = A src
      void
      vmult(VectorType &dst, const VectorType &src) const override;
      /// dst += A src
      void
      vmult_add(VectorType &dst, const VectorType &src) const;
      /// dst = b - A u, in one pass (b may be dst).
      void
      residual(VectorType &dst, const VectorType &b, const VectorType &u) const override;
      /// Cell-wise (unassembled) diagonals of the A_K.
      void
      compute_cell_diagonals(VectorType &diagonal) const;

    private:
      void
      apply(VectorType &dst, const VectorType *b, const VectorType &u, int mode) const;

      unsigned int        degree_  = 0;
      unsigned int        n_cells_ = 0;
      /// Reference 1D mass and stiffness, row-major, in double (rounded to
      /// Number when passed to the kernels).
      std::vector<double> mass_;
      std::vector<double> stiffness_;
      /// Device array of 3 n_cells entries (c_x, c_y, c_z) per cell.
      Number             *factors_ = nullptr;
    };
  } // namespace cuda
} // namespace cellwise
