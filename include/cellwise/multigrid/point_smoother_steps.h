#pragma once
/**
 * @file
 * The algorithms of the point smoothers over any vector type, so that the
 * host and CUDA smoothers (multigrid/point_smoothers.h) share them: damped
 * Jacobi steps and the Chebyshev recurrence, each built on the fused
 * smoother step of a Laplace operator and the DSS-Jacobi preconditioner
 * P = D^{-1} S, and the Lanczos estimate of λ_max(P A) on a LevelOperator and
 * an InPlacePreconditioner.
 */

#include <cellwise/base/dense_matrix.h>
#include <cellwise/base/exceptions.h>
#include <cellwise/base/host_device.h>
#include <cellwise/base/parallel.h>
#include <cellwise/fe/generalized_eigenproblem.h>
#include <cellwise/multigrid/cuda_lanczos_start.h>
#include <cellwise/multigrid/interfaces.h>
#include <cellwise/operators/smoother_step.h>
#include <cellwise/storage/cell_vector.h>

#include <cmath>
#include <limits>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

namespace cellwise
{
  /// Parameters of the damped DSS-Jacobi smoother (host and CUDA).
  struct JacobiParameters
  {
    double       omega   = 0.7; ///< damping (003 uses 0.7 on the cube)
    unsigned int n_steps = 1;   ///< Jacobi steps per smooth() call

    /// Throws cellwise::Error naming a bad value.
    void
    check() const
    {
      CELLWISE_CHECK(omega > 0 && omega < 2, "Jacobi damping " << omega << " is not in (0, 2)");
      CELLWISE_CHECK(n_steps >= 1, "Jacobi smoother needs at least one step, got " << n_steps);
    }
  };

  /// Parameters of the Chebyshev–Jacobi smoother (host and CUDA).
  struct ChebyshevParameters
  {
    unsigned int degree                = 5;   ///< operator applications per smooth()
    double       smoothing_range       = 15.; ///< λ_min = λ_max / range
    unsigned int eigenvalue_iterations = 12;  ///< Lanczos steps of the estimate
    double       safety_factor         = 1.2; ///< λ_max = safety * estimate

    /// Throws cellwise::Error naming a bad value.
    void
    check() const
    {
      CELLWISE_CHECK(degree >= 1, "Chebyshev degree must be at least 1, got " << degree);
      CELLWISE_CHECK(smoothing_range > 1, "Chebyshev smoothing range " << smoothing_range << " must exceed 1");
      CELLWISE_CHECK(eigenvalue_iterations >= 1, "Chebyshev eigenvalue estimate needs at least one iteration, got " << eigenvalue_iterations);
      CELLWISE_CHECK(safety_factor >= 1, "Chebyshev safety factor " << safety_factor << " is below 1");
    }

    /// The interval [λ_min, λ_max] the polynomial damps, from the estimate of
    /// λ_max(P A); a level without free DoFs (estimate 0) gets a harmless one.
    std::pair<double, double>
    eigenvalue_interval(double estimate) const
    {
      if (!(estimate > 0))
        estimate = 1.;
      const double max = safety_factor * estimate;
      return {max / smoothing_range, max};
    }
  };

  /// The residual of the first step: r = b − A u, or r = b from zero (no
  /// operator application).
  template <typename Operator, typename VectorType>
  void
  initial_residual(const Operator &A, const VectorType &u, const VectorType &b, const bool zero_initial_guess, VectorType &residual)
  {
    if (zero_initial_guess)
      residual = b;
    else
      A.residual(residual, b, u);
  }

  /// Whether Preconditioner offers the DSS inside the update
  /// (fuses_update(), assemble_and_update(): the device DSS-Jacobi
  /// preconditioner, multigrid/cuda_point_smoothers.h).
  template <typename Preconditioner, typename = void>
  struct offers_fused_update : std::false_type
  {};
  template <typename Preconditioner>
  struct offers_fused_update<Preconditioner, std::void_t<decltype(std::declval<const Preconditioner &>().fuses_update())>>
    : std::true_type
  {};

  /// Whether the steps of a smooth() on @p P take the DSS inside the update.
  template <typename Preconditioner>
  bool
  fuses_update(const Preconditioner &P)
  {
    if constexpr (offers_fused_update<Preconditioner>::value)
      return P.fuses_update();
    else
      return false;
  }

  /**
   * One smoother step from the unassembled residual @p source: z = S source,
   * the update of @p step, then (step.compute_residual) @p residual ← b − A u.
   * With @p fused (fuses_update(P)) the preconditioner forms z inside the
   * update and @p source is only read, so it may be b (the first step from
   * zero); otherwise @p source must be @p residual, which P.assemble
   * overwrites with z before the operator's fused step.
   */
  template <typename Operator, typename Preconditioner, typename VectorType, typename Number>
  void
  point_smoother_step(const Operator             &A,
                      const Preconditioner       &P,
                      VectorType                 &u,
                      const VectorType           &source,
                      VectorType                 &residual,
                      VectorType                 *update,
                      const VectorType           &b,
                      const SmootherStep<Number> &step,
                      const bool                  fused)
  {
    if constexpr (offers_fused_update<Preconditioner>::value)
      if (fused)
        {
          P.assemble_and_update(u, source, update, step);
          if (step.compute_residual)
            A.residual(residual, b, u);
          return;
        }
    CELLWISE_CHECK(&source == &residual, "point_smoother_step: an unfused step assembles the residual in place");
    P.assemble(residual);
    A.smoother_step(u, residual, update, b, P.inverse_diagonal(), step);
  }

  /**
   * n_steps of u ← u + ω P (b − A u), P = D^{-1} S, with each update fused
   * with the residual of the next step (Operator::smoother_step, 003 §5):
   * @p residual holds r_k, then S r_k (in place, P.assemble), then r_{k+1}.
   * Operator is a Laplace operator of either backend, Preconditioner its
   * DSS-Jacobi preconditioner (assemble() and inverse_diagonal()).
   */
  template <typename Operator, typename Preconditioner, typename VectorType>
  void
  jacobi_steps(const Operator       &A,
               const Preconditioner &P,
               VectorType           &u,
               const VectorType     &b,
               const bool            zero_initial_guess,
               const double          omega,
               const unsigned int    n_steps,
               VectorType           &residual)
  {
    using Number = typename VectorType::value_type;
    const bool fused = fuses_update(P);
    // from zero the first residual is b: a fused step reads it in place
    if (!(fused && zero_initial_guess))
      initial_residual(A, u, b, zero_initial_guess, residual);
    SmootherStep<Number> step;
    step.alpha = Number(0);
    step.beta  = Number(omega);
    for (unsigned int k = 0; k < n_steps; ++k)
      {
        step.zero_initial_guess = k == 0 && zero_initial_guess;
        step.compute_residual   = k + 1 < n_steps;
        point_smoother_step(A, P, u, fused && step.zero_initial_guess ? b : residual, residual, static_cast<VectorType *>(nullptr), b,
                            step, fused);
      }
  }

  /**
   * The scalars of the Chebyshev recurrence (Saad, Alg. 12.1; deal.II's
   * PreconditionChebyshev) for P A on [λ_min, λ_max], step by step: step k
   * forms d_k = α_k d_{k−1} + β_k P r_k and u ← u + d_k, with
   *   θ = (λ_max + λ_min) / 2,  δ = (λ_max − λ_min) / 2,  σ = θ / δ,  ρ_0 = 1 / σ,
   *   α_0 = 0, β_0 = 1 / θ;  ρ_k = 1 / (2 σ − ρ_{k−1}), α_k = ρ_k ρ_{k−1}, β_k = 2 ρ_k / δ.
   * chebyshev_steps takes its scalars from here on both backends, so host and
   * device use the same doubles.
   */
  class ChebyshevRecurrence
  {
  public:
    ChebyshevRecurrence(const double min_eigenvalue, const double max_eigenvalue)
      : theta_(0.5 * (max_eigenvalue + min_eigenvalue))
      , delta_(0.5 * (max_eigenvalue - min_eigenvalue))
      , sigma_(theta_ / delta_)
      , rho_(1. / sigma_)
      , alpha_(0.)
      , beta_(1. / theta_)
    {}

    /// Weight α_k of the previous update d_{k−1} in the current step (0 in step 0).
    double
    alpha() const
    {
      return alpha_;
    }
    /// Weight β_k of P r_k in the current step.
    double
    beta() const
    {
      return beta_;
    }
    /// Moves on to the scalars of the next step.
    void
    advance()
    {
      const double rho_new = 1. / (2. * sigma_ - rho_);
      alpha_               = rho_new * rho_;
      beta_                = 2. * rho_new / delta_;
      rho_                 = rho_new;
    }

  private:
    double theta_, delta_, sigma_, rho_;
    double alpha_, beta_;
  };

  /**
   * Chebyshev iteration of degree @p degree for P A on [λ_min, λ_max]
   * (scalars of ChebyshevRecurrence):
   *   d_0 = P r_0 / θ,  d_k = α_k d_{k−1} + β_k P r_k,  u ← u + d_k,
   * each update fused with the next residual as in jacobi_steps; the first
   * step (α = 0) writes d without reading it, the last one updates u only
   * (d is not needed after it).
   */
  template <typename Operator, typename Preconditioner, typename VectorType>
  void
  chebyshev_steps(const Operator       &A,
                  const Preconditioner &P,
                  VectorType           &u,
                  const VectorType     &b,
                  const bool            zero_initial_guess,
                  const unsigned int    degree,
                  const double          min_eigenvalue,
                  const double          max_eigenvalue,
                  VectorType           &residual,
                  VectorType           &update)
  {
    using Number = typename VectorType::value_type;
    const bool fused = fuses_update(P);
    // from zero the first residual is b: a fused step reads it in place
    if (!(fused && zero_initial_guess))
      initial_residual(A, u, b, zero_initial_guess, residual);
    if (update.n_cells() != b.n_cells() || update.degree() != b.degree())
      update.reinit(b);
    ChebyshevRecurrence  coefficients(min_eigenvalue, max_eigenvalue);
    SmootherStep<Number> step;
    for (unsigned int k = 0; k < degree; ++k)
      {
        if (k > 0)
          coefficients.advance();
        const bool last         = k + 1 == degree;
        step.alpha              = Number(coefficients.alpha());
        step.beta               = Number(coefficients.beta());
        step.zero_initial_guess = k == 0 && zero_initial_guess;
        step.store_update       = !last;
        step.compute_residual   = !last;
        point_smoother_step(A, P, u, fused && step.zero_initial_guess ? b : residual, residual, &update, b, step, fused);
      }
  }

  /// The value of the Lanczos start vector at DoF @p i of the cell with
  /// serial index @p cell (@p dofs_per_cell per cell): uniform in [0.5, 1.5)
  /// from a counter hash (splitmix64) of the entry's serial position, so
  /// that a rank draws the values of its own cells without the sequence of
  /// all the others (mpi_distributed_point_smoothers.h) and equals the
  /// serial vector there.
  CELLWISE_HOST_DEVICE inline double
  lanczos_start_value(const std::uint64_t cell, const unsigned int i, const unsigned int dofs_per_cell)
  {
    std::uint64_t z = cell * dofs_per_cell + i + 0x9e3779b97f4a7c15ULL;
    z               = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z               = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z               = z ^ (z >> 31);
    return 0.5 + double(z >> 11) * 0x1.0p-53;
  }

  /// The start vector of the Lanczos estimate: pseudo-random values in
  /// [0.5, 1.5) (lanczos_start_value) times the mask. A smooth start vector
  /// would have little weight on the high-frequency eigenvectors that set
  /// λ_max. Host and device estimates start from the same vector.
  template <typename Number, typename Layout>
  CellVector<Number, MemorySpace::Host, Layout>
  lanczos_start_vector(const CellVector<Number, MemorySpace::Host, Layout> &mask)
  {
    CellVector<Number, MemorySpace::Host, Layout> r;
    r.reinit(mask);
    // in parallel, and first touched by the threads that write it (the
    // finest level at L = 6 of the ball has 1.2·10⁸ entries)
    parallel_for(r.n_cells(), cell_grain, [&](const std::size_t cell) {
      for (unsigned int i = 0; i < r.dofs_per_cell(); ++i)
        r(cell, i) = Number(lanczos_start_value(cell, i, r.dofs_per_cell())) * mask(cell, i);
    });
    return r;
  }

  /// Largest eigenvalue of P A estimated by @p n_iterations steps of
  /// preconditioned CG on A x = r from x = 0 (the CG coefficients give the
  /// Lanczos tridiagonal matrix), starting from the dual @p r (taken by value;
  /// zero on masked DoFs). Returns 0 if no step is possible (no free DoFs).
  template <typename VectorType>
  double
  estimate_max_eigenvalue(const LevelOperator<VectorType>         &A,
                          const InPlacePreconditioner<VectorType> &P,
                          VectorType                               r,
                          const VectorType                        &mask,
                          const unsigned int                       n_iterations)
  {
    using Number = typename VectorType::value_type;
    VectorType z = r, p, q;
    P.apply_in_place(z);
    p         = z;
    double rz = r.dot(z);
    if (!(rz > 0))
      return 0.;
    // Once the Krylov space is exhausted (a level with fewer free DoFs than
    // steps, e.g. a coarse level or one that the refinement edge masks
    // nearly whole), r is rounding noise: a step taken then adds a spurious
    // huge eigenvalue (seen: λ ≈ 5000 for a spectrum within [0, 1.3]).
    const double exhausted = rz * std::pow(100. * std::numeric_limits<Number>::epsilon(), 2);
    q.reinit(r);
    std::vector<double> alpha, beta;
    for (unsigned int k = 0; k < n_iterations; ++k)
      {
        A.vmult(q, p);
        q.scale(mask);
        const double pq = p.dot(q);
        if (!(pq > 0))
          break;
        alpha.push_back(rz / pq);
        r.add(Number(-alpha.back()), q);
        z = r;
        P.apply_in_place(z);
        const double rz_new = r.dot(z);
        if (!(rz_new > exhausted))
          break;
        beta.push_back(rz_new / rz);
        rz = rz_new;
        p.sadd(Number(beta.back()), Number(1), z);
      }
    const unsigned int m = static_cast<unsigned int>(alpha.size());
    if (m == 0)
      return 0.;
    DenseMatrix T(m, m), identity(m, m);
    for (unsigned int k = 0; k < m; ++k)
      {
        identity(k, k) = 1.;
        T(k, k)        = 1. / alpha[k] + (k > 0 ? beta[k - 1] / alpha[k - 1] : 0.);
        if (k + 1 < m)
          T(k, k + 1) = T(k + 1, k) = std::sqrt(beta[k]) / alpha[k];
      }
    return solve_generalized_eigenproblem(T, identity).eigenvalues.back();
  }

  /// The start vector of lanczos_start_vector where @p mask lies: made on
  /// the host from the mask's host copy and moved (the distributed vectors,
  /// whose host type has a lanczos_start_vector of its own).
  template <typename VectorType>
  VectorType
  lanczos_start_like(const VectorType &mask)
  {
    typename VectorType::HostVector host_mask;
    mask.copy_to_host(host_mask);
    VectorType r;
    r.copy_from_host(lanczos_start_vector(host_mask));
    return r;
  }
  /// The same for a host cell vector: no copies.
  template <typename Number, typename Layout>
  CellVector<Number, MemorySpace::Host, Layout>
  lanczos_start_like(const CellVector<Number, MemorySpace::Host, Layout> &mask)
  {
    return lanczos_start_vector(mask);
  }
  /// The same for a device cell vector: made on the device, the same values
  /// (multigrid/cuda_lanczos_start.h).
  template <typename Number, typename Layout>
  CellVector<Number, MemorySpace::CUDA, Layout>
  lanczos_start_like(const CellVector<Number, MemorySpace::CUDA, Layout> &mask)
  {
    return cuda::lanczos_start_vector(mask);
  }

  /// λ_max of P A by @p n_iterations Lanczos steps from the seeded random
  /// masked start vector of lanczos_start_vector, made where the vectors lie
  /// (lanczos_start_like), so that host and device estimates start from the
  /// same values.
  template <typename VectorType>
  double
  estimate_max_eigenvalue(const LevelOperator<VectorType>         &A,
                          const InPlacePreconditioner<VectorType> &P,
                          const VectorType                        &mask,
                          const unsigned int                       n_iterations)
  {
    return estimate_max_eigenvalue(A, P, lanczos_start_like(mask), mask, n_iterations);
  }
} // namespace cellwise
