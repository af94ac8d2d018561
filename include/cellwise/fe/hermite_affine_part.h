#pragma once
/**
 * @file
 * The affine part of a Hermite cell's values, which the FP32 operator
 * applications subtract before the product (host and device; the findings
 * in doc/hermite.md, "Mixed precision").
 *
 * A_K annihilates affine functions (D²u = 0), and on the fine levels the
 * values of a smooth field on one cell are mostly its affine part: A_K u_K
 * is then a cancellation of terms of size |A_K| |u_K| down to a result
 * about (h / wavelength)⁴ smaller, and in FP32 the rounding of those terms
 * outweighs the result on the smoothest modes of a fine level. That is
 * where the FP32 cycle lost its contraction at 16.8 M cells (the finest
 * level's post-smoothing applies A to u plus the prolongated coarse
 * correction). Subtracting the affine function of vertex 0 (its value and
 * gradient) first leaves the same product in exact arithmetic and gives
 * FP32 only the quadratic remainder, (h / wavelength)² of u_K.
 *
 * The subtraction is term by term, value then one offset per axis, so
 * that each step subtracts nearby numbers (exact where they are within a
 * factor 2 of each other).
 */

#include <cellwise/base/host_device.h>
#include <cellwise/fe/hermite_element.h>

#include <type_traits>

namespace cellwise
{
  namespace hermite
  {
    /// Whether the operator applications in @p Number subtract the affine
    /// part: FP32 only (FP64 rounds 2⁻²⁹ times less and keeps its registers).
    template <typename Number>
    constexpr bool subtracts_affine_part = std::is_same_v<Number, float>;

    /// The affine function of a cell in its DoFs: u = value at vertex 0,
    /// ∂_d u = gradient[d] everywhere, the value at a vertex one width away
    /// along axis d larger by offset[d] = width_d · gradient[d].
    template <typename Number>
    struct AffinePart
    {
      Number value;
      Number gradient[3];
      Number offset[3];
    };

    /// The affine function of value @p u and gradient (@p ux, @p uy, @p uz)
    /// at vertex 0 on a cell of widths @p hx, @p hy, @p hz in the scaling of
    /// the DoFs: the widths for physical derivatives, 1 for reference ones.
    template <typename Number>
    CELLWISE_HOST_DEVICE AffinePart<Number>
    make_affine_part(const Number u, const Number ux, const Number uy, const Number uz, const Number hx, const Number hy,
                     const Number hz)
    {
      return {u, {ux, uy, uz}, {hx * ux, hy * uy, hz * uz}};
    }

    /// The same from the cell values @p x (vertex 0's u, ∂x u, ∂y u, ∂z u
    /// are its DoFs 0, 1, 4, 16).
    template <typename Number>
    CELLWISE_HOST_DEVICE AffinePart<Number>
    make_affine_part(const Number *x, const Number hx, const Number hy, const Number hz)
    {
      return make_affine_part(x[0], x[1], x[4], x[16], hx, hy, hz);
    }

    /// x − a_i for the cell value @p x of local DoF @p i: at a vertex the
    /// value minus the affine value there, the first derivatives minus the
    /// gradient, the mixed ones unchanged.
    template <typename Number>
    CELLWISE_HOST_DEVICE Number
    without_affine_part(const unsigned int i, Number x, const AffinePart<Number> &a)
    {
      const unsigned int k = derivative_of(i);
      if (k == 0)
        {
          const unsigned int v = vertex_of(i);
          x -= a.value;
          CELLWISE_UNROLL
          for (unsigned int d = 0; d < 3; ++d)
            if (v & (1u << d))
              x -= a.offset[d];
          return x;
        }
      // (not gradient[k >> 1]: in the even–odd kernel k depends on the warp,
      // and that index cost the FP32 kernel 23 registers and spills)
      if (k == 1 || k == 2 || k == 4)
        return x - a.gradient[k == 1 ? 0 : (k == 2 ? 1 : 2)];
      return x;
    }

    /// make_affine_part of the values @p x where @p Number subtracts the
    /// affine part, else nothing (zeros, which product_input ignores).
    template <typename Number>
    CELLWISE_HOST_DEVICE AffinePart<Number>
    product_affine_part(const Number *x, const Number hx, const Number hy, const Number hz)
    {
      if constexpr (subtracts_affine_part<Number>)
        return make_affine_part(x, hx, hy, hz);
      else
        return {};
    }

    /// The value @p x of local DoF @p i as an operator application in
    /// @p Number takes it: without the affine part @p a where @p Number
    /// subtracts it, else unchanged.
    template <typename Number>
    CELLWISE_HOST_DEVICE Number
    product_input(const unsigned int i, const Number x, const AffinePart<Number> &a)
    {
      if constexpr (subtracts_affine_part<Number>)
        return without_affine_part(i, x, a);
      else
        return x;
    }
  } // namespace hermite
} // namespace cellwise
