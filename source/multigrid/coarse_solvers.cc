#include <cellwise/multigrid/coarse_solvers.h>

namespace cellwise
{
  template <typename Number, typename Layout>
  CholeskyCoarseSolver<Number, Layout>::CholeskyCoarseSolver(const Level                           &level,
                                                             const LaplaceOperator<Number, Layout> &op,
                                                             const VectorType                      &mask,
                                                             const bool constant_null_space)
    : CholeskyCoarseSolver(level, op.degree(), op.trace_layers(), [&op](const unsigned int cell) { return op.cell_matrix(cell); },
                           mask, constant_null_space)
  {}

  template <typename Number, typename Layout>
  CholeskyCoarseSolver<Number, Layout>::CholeskyCoarseSolver(const Level                                       &level,
                                                             const unsigned int                                 degree,
                                                             const TraceLayers                                 &layers,
                                                             const std::function<DenseMatrix(unsigned int)> &cell_matrix_of,
                                                             const VectorType                                  &mask,
                                                             const bool constant_null_space)
    : numbering_(make_dof_numbering(level, degree, layers))
  {
    CELLWISE_CHECK(mask.n_cells() == level.n_cells() && mask.degree() == degree,
                   "coarse solver: mask does not match the level");
    // A DoF is free if its copies are free (all copies agree on a mask).
    free_index_.assign(numbering_.n_unique, -1);
    std::vector<bool> constrained(numbering_.n_unique, false);
    for (unsigned int cell = 0; cell < level.n_cells(); ++cell)
      for (unsigned int i = 0; i < mask.dofs_per_cell(); ++i)
        if (mask(cell, i) == Number(0))
          constrained[numbering_(cell, i)] = true;
    for (unsigned int g = 0; g < numbering_.n_unique; ++g)
      if (!constrained[g])
        {
          free_index_[g] = static_cast<int>(free_dofs_.size());
          free_dofs_.push_back(g);
        }
    const unsigned int n_free = n_free_dofs();
    CELLWISE_CHECK(n_free <= max_free_dofs,
                   "the coarse level has " << n_free << " free DoFs, more than the " << max_free_dofs
                                           << " of the dense coarse solver: use a coarser mesh or the smoother as coarse solver");
    if (n_free == 0)
      return;

    DenseMatrix        A(n_free, n_free);
    const unsigned int n3 = mask.dofs_per_cell();
    for (unsigned int cell = 0; cell < level.n_cells(); ++cell)
      {
        const DenseMatrix cell_matrix = cell_matrix_of(cell);
        for (unsigned int i = 0; i < n3; ++i)
          {
            const int row = free_index_[numbering_(cell, i)];
            if (row < 0)
              continue;
            for (unsigned int j = 0; j < n3; ++j)
              {
                const int col = free_index_[numbering_(cell, j)];
                if (col >= 0)
                  A(row, col) += cell_matrix(i, j);
              }
          }
      }
    if (constant_null_space)
      {
        CELLWISE_CHECK(n_free == numbering_.n_unique, "coarse solver: the constant null space needs every DoF free ("
                                                          << n_free << " of " << numbering_.n_unique << " are)");
        double trace = 0;
        for (unsigned int i = 0; i < n_free; ++i)
          trace += A(i, i);
        const double s = trace / n_free / n_free;
        for (unsigned int i = 0; i < n_free; ++i)
          for (unsigned int j = 0; j < n_free; ++j)
            A(i, j) += s;
      }
    factorization_ = std::make_unique<CholeskyFactorization>(A);
  }

  template <typename Number, typename Layout>
  void
  CholeskyCoarseSolver<Number, Layout>::solve(VectorType &u, const VectorType &b) const
  {
    const std::vector<double> assembled = gather_transpose(numbering_, b);
    std::vector<double>       x(n_free_dofs());
    for (unsigned int k = 0; k < x.size(); ++k)
      x[k] = assembled[free_dofs_[k]];
    if (factorization_)
      factorization_->solve(x);
    std::vector<double> global(numbering_.n_unique, 0.);
    for (unsigned int k = 0; k < x.size(); ++k)
      global[free_dofs_[k]] = x[k];
    gather(numbering_, global, u);
  }

  CELLWISE_INSTANTIATE_NUMBERS_AND_LAYOUTS(CholeskyCoarseSolver)
} // namespace cellwise
