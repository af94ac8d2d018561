#include <cellwise/base/exceptions.h>
#include <cellwise/dealii/amg_coarse_solver.h>
#include <cellwise/storage/dof_numbering.h>

#include <deal.II/base/config.h>
#include <deal.II/base/index_set.h>
#include <deal.II/lac/dynamic_sparsity_pattern.h>
#include <deal.II/lac/solver_cg.h>
#include <deal.II/lac/solver_control.h>
#ifdef DEAL_II_WITH_TRILINOS
#  include <mpi.h>

#  include <deal.II/lac/trilinos_precondition.h>
#  include <deal.II/lac/trilinos_sparse_matrix.h>
#  include <deal.II/lac/trilinos_vector.h>
#endif

#include <cmath>
#include <vector>

namespace cellwise::dealii
{
  bool
  amg_coarse_solver_available()
  {
#ifdef DEAL_II_WITH_TRILINOS
    return true;
#else
    return false;
#endif
  }

  CoarseSolverType
  dealii_coarse_solver_for(const MultigridParameters &parameters, const Level &coarse_level, const unsigned int degree)
  {
    const CoarseSolverType type = coarse_solver_for(parameters, coarse_level, degree);
    if (parameters.coarse_solver == CoarseSolverType::automatic && type == CoarseSolverType::cg && degree == 1 &&
        amg_coarse_solver_available())
      return CoarseSolverType::amg;
    return type;
  }

  std::string
  describe_dealii_coarse_solver(const MultigridParameters &parameters, const Level &coarse_level, const unsigned int degree)
  {
    std::string text = describe_coarse_solver(parameters, coarse_level, degree);
    if (dealii_coarse_solver_for(parameters, coarse_level, degree) != coarse_solver_for(parameters, coarse_level, degree))
      {
        // "coarse solver cg (automatic: ...)" -> "coarse solver amg (automatic: ..., AMG above on Q1)"
        const std::string cg = "coarse solver cg";
        text.replace(0, cg.size(), "coarse solver amg");
        text.insert(text.size() - 1, ", AMG above on Q1");
      }
    return text;
  }

  template <typename Number>
  struct AmgCoarseSolver<Number>::Data
  {
    DofNumbering              numbering;
    std::vector<int>          free_index; // per unique DoF: its row, or -1 (Dirichlet)
    unsigned int              n_free = 0;
    double                    reduction = 1e-3;
    mutable unsigned int      last_iterations = 0;
#ifdef DEAL_II_WITH_TRILINOS
    ::dealii::TrilinosWrappers::SparseMatrix     matrix;
    ::dealii::TrilinosWrappers::PreconditionAMG amg;
    mutable ::dealii::TrilinosWrappers::MPI::Vector rhs, x;
#endif
  };

  template <typename Number>
  AmgCoarseSolver<Number>::AmgCoarseSolver(const Level &level, const LaplaceOperator<Number> &op, const CellVector<Number> &mask,
                                           const double reduction)
    : data_(std::make_unique<Data>())
  {
    CELLWISE_CHECK(amg_coarse_solver_available(), "the AMG coarse solver needs deal.II with Trilinos; use the cg coarse solver");
    CELLWISE_CHECK(reduction > 0 && reduction < 1, "AMG coarse solver: reduction " << reduction << " is not in (0, 1)");
    CELLWISE_CHECK(op.n_cells() == level.n_cells() && mask.n_cells() == level.n_cells(),
                   "AMG coarse solver: operator, mask and level of different sizes");
    data_->reduction = reduction;
#ifdef DEAL_II_WITH_TRILINOS
    // Trilinos' vectors and matrices live on an MPI communicator; without
    // MPI_Init, Open MPI aborts the program instead of throwing.
    int mpi_initialized = 0;
    CELLWISE_CHECK(MPI_Initialized(&mpi_initialized) == MPI_SUCCESS && mpi_initialized,
                   "the AMG coarse solver works through Trilinos, which needs MPI: create "
                   "dealii::Utilities::MPI::MPI_InitFinalize at the start of main()");
    const unsigned int degree = op.degree();
    data_->numbering          = make_dof_numbering(level, degree);
    const DofNumbering &numbering = data_->numbering;
    data_->free_index.assign(numbering.n_unique, 0);
    for (unsigned int c = 0; c < level.n_cells(); ++c)
      for (unsigned int i = 0; i < mask.dofs_per_cell(); ++i)
        if (mask(c, i) == Number(0))
          data_->free_index[numbering(c, i)] = -1;
    for (int &index : data_->free_index)
      if (index == 0)
        index = static_cast<int>(data_->n_free++);
    CELLWISE_CHECK(data_->n_free > 0, "AMG coarse solver: the coarse level has no free DoFs");

    // the assembled matrix on the free DoFs, from the cell matrices
    const unsigned int               n = mask.dofs_per_cell();
    ::dealii::DynamicSparsityPattern dsp(data_->n_free);
    std::vector<::dealii::types::global_dof_index> rows;
    for (unsigned int c = 0; c < level.n_cells(); ++c)
      {
        rows.clear();
        for (unsigned int i = 0; i < n; ++i)
          if (data_->free_index[numbering(c, i)] >= 0)
            rows.push_back(static_cast<unsigned int>(data_->free_index[numbering(c, i)]));
        for (const auto r : rows)
          for (const auto s : rows)
            dsp.add(r, s);
      }
    data_->matrix.reinit(dsp);
    for (unsigned int c = 0; c < level.n_cells(); ++c)
      {
        const DenseMatrix A = op.cell_matrix(c);
        for (unsigned int i = 0; i < n; ++i)
          {
            const int r = data_->free_index[numbering(c, i)];
            if (r < 0)
              continue;
            for (unsigned int j = 0; j < n; ++j)
              {
                const int s = data_->free_index[numbering(c, j)];
                if (s >= 0)
                  data_->matrix.add(r, s, A(i, j));
              }
          }
      }
    data_->matrix.compress(::dealii::VectorOperation::add);

    ::dealii::TrilinosWrappers::PreconditionAMG::AdditionalData amg_data;
    amg_data.elliptic              = true;
    amg_data.higher_order_elements = degree > 1;
    amg_data.smoother_sweeps       = 2;
    amg_data.aggregation_threshold = 0.02;
    data_->amg.initialize(data_->matrix, amg_data);
    const ::dealii::IndexSet all = ::dealii::complete_index_set(data_->n_free);
    data_->rhs.reinit(all, MPI_COMM_SELF);
    data_->x.reinit(all, MPI_COMM_SELF);
#endif
  }

  template <typename Number>
  AmgCoarseSolver<Number>::~AmgCoarseSolver() = default;

  template <typename Number>
  void
  AmgCoarseSolver<Number>::solve(CellVector<Number> &u, const CellVector<Number> &b) const
  {
    const auto lock = work_space_lock_.lock("cellwise::dealii::AmgCoarseSolver::solve");
#ifdef DEAL_II_WITH_TRILINOS
    const DofNumbering &numbering = data_->numbering;
    CELLWISE_CHECK(b.n_cells() * std::size_t(b.dofs_per_cell()) == numbering.global_index.size(),
                   "AMG coarse solver: right-hand side of " << b.n_cells() << " cells, the coarse level has "
                                                            << numbering.global_index.size() / numbering.dofs_per_cell());
    // G^T b on the free DoFs
    data_->rhs = 0;
    for (unsigned int c = 0; c < b.n_cells(); ++c)
      for (unsigned int i = 0; i < b.dofs_per_cell(); ++i)
        {
          const int r = data_->free_index[numbering(c, i)];
          if (r >= 0)
            data_->rhs(r) += double(b(c, i));
        }
    data_->x = 0;
    data_->last_iterations = 0;
    const double norm = data_->rhs.l2_norm();
    CELLWISE_CHECK(std::isfinite(norm), "AMG coarse solver: the right-hand side is not finite");
    if (norm > 0)
      {
        ::dealii::ReductionControl control(1000, 1e-300, data_->reduction, false, false);
        ::dealii::SolverCG<::dealii::TrilinosWrappers::MPI::Vector> cg(control);
        try
          {
            cg.solve(data_->matrix, data_->x, data_->rhs, data_->amg);
          }
        catch (const ::dealii::SolverControl::NoConvergence &e)
          {
            CELLWISE_CHECK(false, "AMG coarse solver: CG did not reach the reduction " << data_->reduction << " in "
                                                                                       << e.last_step << " steps");
          }
        data_->last_iterations = control.last_step();
      }
    // G x: the same value into every copy, zero on Dirichlet copies
    if (!u.has_shape_of(b))
      u.reinit(b.n_cells(), b.degree(), true);
    for (unsigned int c = 0; c < u.n_cells(); ++c)
      for (unsigned int i = 0; i < u.dofs_per_cell(); ++i)
        {
          const int r = data_->free_index[numbering(c, i)];
          u(c, i)     = r >= 0 ? static_cast<Number>(data_->x(r)) : Number(0);
        }
#else
    (void)u;
    (void)b;
#endif
  }

  template <typename Number>
  unsigned int
  AmgCoarseSolver<Number>::n_free_dofs() const
  {
    return data_->n_free;
  }

  template <typename Number>
  unsigned int
  AmgCoarseSolver<Number>::last_iterations() const
  {
    return data_->last_iterations;
  }

  template class AmgCoarseSolver<double>;
  template class AmgCoarseSolver<float>;
} // namespace cellwise::dealii
