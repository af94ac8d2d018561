#include <cellwise/base/dense_matrix.h>
#include <cellwise/base/parallel.h>
#include <cellwise/fe/hermite_element.h>
#include <cellwise/multigrid/hermite_vertex_patch_smoother.h>
#include <cellwise/multigrid/vertex_patch_smoother.h>

#include <cmath>
#include <map>

namespace cellwise
{
  namespace
  {
    using hermite::dofs_per_cell;
    using hermite::dofs_per_vertex;

    /// The vertex of the patch centre in the cell of lane @p c: the cell sits
    /// at v − (1,1,1) + c_bits, so v is its corner with e_d = 1 − c_d.
    constexpr unsigned int
    centre_vertex(const unsigned int lane)
    {
      return 7 - lane;
    }
  } // namespace

  std::array<double, 64>
  hermite_vertex_block_inverse(const Level &level, const std::array<unsigned int, 8> &patch)
  {
    DenseMatrix block(dofs_per_vertex, dofs_per_vertex);
    for (unsigned int lane = 0; lane < 8; ++lane)
      {
        const unsigned int cell = patch[lane];
        CELLWISE_CHECK(cell < level.n_cells(), "hermite_vertex_block_inverse: cell " << cell << " of " << level.n_cells());
        const DenseMatrix  A = hermite_biharmonic_cell_matrix(level.boxes[cell].size, cell);
        for (unsigned int a = 0; a < dofs_per_vertex; ++a)
          for (unsigned int b = 0; b < dofs_per_vertex; ++b)
            block(a, b) += A(hermite::local_index(centre_vertex(lane), a), hermite::local_index(centre_vertex(lane), b));
      }
    const CholeskyFactorization factorization(block);
    std::array<double, 64>      inverse{};
    std::vector<double>         column(dofs_per_vertex);
    for (unsigned int b = 0; b < dofs_per_vertex; ++b)
      {
        std::fill(column.begin(), column.end(), 0.);
        column[b] = 1;
        factorization.solve(column);
        for (unsigned int a = 0; a < dofs_per_vertex; ++a)
          inverse[8 * a + b] = column[a];
      }
    return inverse;
  }

  template <typename Number, typename Layout>
  HermiteVertexPatchSmoother<Number, Layout>::HermiteVertexPatchSmoother(const Level                                     &level,
                                                                         const HermiteBiharmonicOperator<Number, Layout> &op,
                                                                         const unsigned int                               n_sweeps)
    : op_(&op)
    , n_sweeps_(n_sweeps)
    , patches_(make_vertex_patches(level))
  {
    CELLWISE_CHECK(n_sweeps >= 1, "HermiteVertexPatchSmoother needs at least one sweep, got " << n_sweeps);
    CELLWISE_CHECK(op.n_cells() == level.n_cells(),
                   "HermiteVertexPatchSmoother: operator of " << op.n_cells() << " cells on a level of " << level.n_cells());
    // one block inverse per distinct set of the eight cells' sizes (rounded
    // to 1e-12 relative): one on a uniform level
    std::map<std::array<long long, 24>, unsigned int> known;
    for (unsigned int colour = 0; colour < VertexPatches::n_colours; ++colour)
      {
        inverse_index_[colour].resize(patches_.n_patches(colour));
        for (unsigned int k = 0; k < patches_.n_patches(colour); ++k)
          {
            const auto               &patch = patches_.cells[colour][k];
            std::array<long long, 24> key;
            for (unsigned int lane = 0; lane < 8; ++lane)
              for (unsigned int d = 0; d < 3; ++d)
                {
                  const double h = level.boxes[patch[lane]].size[d];
                  key[3 * lane + d] = std::llround(std::log2(h) * 1e12);
                }
            const auto it = known.emplace(key, static_cast<unsigned int>(inverses_.size() / 64));
            if (it.second)
              {
                const std::array<double, 64> inverse = hermite_vertex_block_inverse(level, patch);
                for (const double value : inverse)
                  inverses_.push_back(static_cast<Number>(value));
              }
            inverse_index_[colour][k] = it.first->second;
          }
      }
  }

  template <typename Number, typename Layout>
  void
  HermiteVertexPatchSmoother<Number, Layout>::apply_colour(VectorType &u, const VectorType &b, const unsigned int colour) const
  {
    const auto &list = patches_.cells[colour];
    parallel_for(list.size(), cell_grain, [&](const std::size_t k) {
      const auto &patch = list[k];
      Number      residual[dofs_per_vertex] = {};
      Number      x[dofs_per_cell], y[dofs_per_cell], rhs[dofs_per_cell];
      for (unsigned int lane = 0; lane < 8; ++lane)
        {
          const unsigned int cell = patch[lane];
          u.read_cell(cell, x);
          b.read_cell(cell, rhs);
          op_->apply_cell(cell, x, y);
          for (unsigned int a = 0; a < dofs_per_vertex; ++a)
            {
              const unsigned int i = hermite::local_index(centre_vertex(lane), a);
              residual[a] += rhs[i] - y[i];
            }
        }
      const Number *inverse = inverses_.data() + 64 * std::size_t(inverse_index_[colour][k]);
      Number        delta[dofs_per_vertex];
      for (unsigned int a = 0; a < dofs_per_vertex; ++a)
        {
          Number sum = 0;
          for (unsigned int c = 0; c < dofs_per_vertex; ++c)
            sum += inverse[8 * a + c] * residual[c];
          delta[a] = sum;
        }
      for (unsigned int lane = 0; lane < 8; ++lane)
        for (unsigned int a = 0; a < dofs_per_vertex; ++a)
          u(patch[lane], hermite::local_index(centre_vertex(lane), a)) += delta[a];
    });
  }

  template <typename Number, typename Layout>
  void
  HermiteVertexPatchSmoother<Number, Layout>::smooth(VectorType &u, const VectorType &b, const bool zero_initial_guess,
                                                     const SweepDirection direction) const
  {
    if (zero_initial_guess && !u.has_shape_of(b))
      u.reinit(b);
    CELLWISE_CHECK(u.n_cells() == op_->n_cells() && b.n_cells() == op_->n_cells() && &u != &b,
                   "HermiteVertexPatchSmoother: vectors of " << u.n_cells() << " and " << b.n_cells() << " cells for "
                                                             << op_->n_cells() << " cells (and u, b distinct)");
    if (zero_initial_guess)
      u.set_zero();
    for (unsigned int sweep = 0; sweep < n_sweeps_; ++sweep)
      for (unsigned int step = 0; step < VertexPatches::n_colours; ++step)
        apply_colour(u, b, sweep_colour(step, direction));
  }

  CELLWISE_INSTANTIATE_NUMBERS_AND_LAYOUTS(HermiteVertexPatchSmoother)
} // namespace cellwise
