#pragma once
/**
 * @file
 * The point-smoother step fused with the residual of the next (003 §5), as
 * the Laplace operators of both backends offer it (smoother_step()): its
 * scalars and switches, and the checks of its vectors, written once.
 *
 * On entry r holds z = S r_old, the assembled residual of the current
 * iterate. Per copy
 *   d ← α d + β D^{-1} z,   u ← u + d   (u ← d with zero_initial_guess),
 * then, with the updated u, r ← b − A u. The arithmetic per copy is that of the
 * composition r.scale(D^{-1}); d.sadd(α, β, r) (d.equ(β, r) if α = 0);
 * u.add(1, d) (u = d from zero); residual(r, b, u). A copy with D^{-1} = 0
 * (masked: Dirichlet or refinement edge) gets the update α d only, none when
 * d is zero there (as in the smoothers).
 */

#include <cellwise/base/exceptions.h>
#include <cellwise/base/host_device.h>
#include <cellwise/base/parallel.h>

#include <string>

namespace cellwise
{
  /// Scalars and switches of smoother_step().
  template <typename Number>
  struct SmootherStep
  {
    /// Weight of the previous update d; 0: d is not read (Jacobi, first
    /// Chebyshev step).
    Number alpha = 0;
    /// Weight of D^{-1} z.
    Number beta = 1;
    /// u is not read (its content is ignored): u ← d.
    bool zero_initial_guess = false;
    /// Write d (the next Chebyshev step reads it).
    bool store_update = false;
    /// r ← b − A u with the updated u; false (the last step of a smooth):
    /// r and b are not touched, and the step is a plain vector update.
    bool compute_residual = true;

    /// Whether the step reads or writes the update vector d.
    bool
    uses_update() const
    {
      return alpha != Number(0) || store_update;
    }
  };

  /// The correction d_new = α d + β D^{-1} z of one copy (d not read when
  /// α = 0), in the order of the composition: first s = D^{-1} z
  /// (r.scale(D^{-1})), then d.sadd(α, β, s) or d.equ(β, s). Every step of
  /// both backends forms it here, so that the update-only last step of a
  /// smooth rounds as the fused ones.
  template <typename Number>
  CELLWISE_HOST_DEVICE inline Number
  smoother_correction(const Number alpha, const Number beta, const bool read_update, const Number z, const Number inverse_diagonal,
                      const Number d)
  {
    const Number s = z * inverse_diagonal;
    return read_update ? alpha * d + beta * s : beta * s;
  }

  /**
   * The checks of the update half of a point-smoother step (the operators'
   * smoother_step, the device update with the DSS inside), named @p who in
   * the messages: u sized like r when it is not read (step.zero_initial_guess),
   * D^{-1} and the update vector (present where the step uses it) of r's
   * shape, and u, r, the update and D^{-1} distinct (any aliasing would mix
   * old and new values).
   */
  template <typename VectorType, typename Number>
  void
  check_update_vectors(VectorType                 &u,
                       const VectorType           &r,
                       const VectorType           *update,
                       const VectorType           &inverse_diagonal,
                       const SmootherStep<Number> &step,
                       const std::string          &who)
  {
    if (step.zero_initial_guess && (u.n_cells() != r.n_cells() || u.degree() != r.degree()))
      u.reinit(r); // its content is ignored, only its shape matters
    u.check_compatible(r);
    inverse_diagonal.check_compatible(r);
    const bool uses_update = step.uses_update();
    CELLWISE_CHECK(!uses_update || update != nullptr,
                   who << ": a step with alpha = " << step.alpha << " or a stored update needs the update vector");
    if (uses_update)
      update->check_compatible(r);
    CELLWISE_CHECK(&u != &r && &u != &inverse_diagonal && &r != &inverse_diagonal &&
                     (!uses_update || (update != &u && update != &r && update != &inverse_diagonal)),
                   who << ": u, r, the update and the inverse diagonal must be distinct vectors");
  }

  /**
   * The checks of smoother_step(u, r, update, b, D^{-1}, step) of an operator
   * of @p n_cells cells of degree @p degree, named @p who in the messages:
   * r of the operator's shape, those of check_update_vectors, and b of r's
   * shape (where a residual follows) and distinct from u, r and the update
   * (r holds z and is overwritten by the residual).
   */
  template <typename VectorType, typename Number>
  void
  check_smoother_step(VectorType                 &u,
                      const VectorType           &r,
                      const VectorType           *update,
                      const VectorType           &b,
                      const VectorType           &inverse_diagonal,
                      const SmootherStep<Number> &step,
                      const unsigned int          n_cells,
                      const unsigned int          degree,
                      const char                 *who)
  {
    CELLWISE_CHECK(r.n_cells() == n_cells && r.degree() == degree,
                   who << "::smoother_step: residual has " << r.n_cells() << " cells of degree " << r.degree()
                       << ", the operator " << n_cells << " cells of degree " << degree);
    check_update_vectors(u, r, update, inverse_diagonal, step, std::string(who) + "::smoother_step");
    if (step.compute_residual)
      b.check_compatible(r);
    CELLWISE_CHECK(&u != &b && &r != &b && (!step.uses_update() || update != &b),
                   who << "::smoother_step: b must differ from u, r and the update");
  }

  /**
   * The update half of smoother_step() on host vectors: per stored entry
   * d ← α d + β D^{-1} z, u ← u + d (u ← d from zero), z read from @p r. One
   * loop over the stored entries (the padding stays zero: z and D^{-1} are
   * zero there), in the order of the composition above; the caller forms the
   * residual with the new u. Shared by the host operators of every element.
   */
  template <typename VectorType, typename Number>
  void
  apply_smoother_update(VectorType &u, const VectorType &r, VectorType *update, const VectorType &inverse_diagonal,
                        const SmootherStep<Number> &step)
  {
    const bool    read_update = step.alpha != Number(0);
    const bool    read_u      = !step.zero_initial_guess;
    Number       *d           = step.uses_update() ? update->data() : nullptr;
    Number       *x           = u.data();
    const Number *z           = r.data();
    const Number *w           = inverse_diagonal.data();
    parallel_for_ranges(r.storage_size(), value_grain, [&](const std::size_t begin, const std::size_t end) {
      for (std::size_t k = begin; k < end; ++k)
        {
          const Number correction = smoother_correction(step.alpha, step.beta, read_update, z[k], w[k], read_update ? d[k] : Number(0));
          if (step.store_update)
            d[k] = correction;
          x[k] = read_u ? x[k] + correction : correction;
        }
    });
  }
} // namespace cellwise
