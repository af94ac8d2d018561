#include <cellwise/base/exceptions.h>
#include <cellwise/mesh/kershaw_map.h>

#include <algorithm>
#include <cmath>

namespace cellwise
{
  namespace
  {
    /// The map of [0, 1] that squeezes the upper half: slope 2 − ε below 1/2,
    /// ε above (continuous at 1/2, fixing 0 and 1).
    double
    squeeze_upper(const double epsilon, const double t)
    {
      return t <= 0.5 ? (2. - epsilon) * t : 1. + epsilon * (t - 1.);
    }

    /// Its mirror image, squeezing the lower half.
    double
    squeeze_lower(const double epsilon, const double t)
    {
      return 1. - squeeze_upper(epsilon, 1. - t);
    }

    /// (1 − λ) a + λ b for λ clamped to [0, 1].
    double
    blend(const double a, const double b, const double lambda)
    {
      const double l = std::clamp(lambda, 0., 1.);
      return a + (b - a) * l;
    }

    /// One coordinate (y or z) at position x: squeezed at the bottom in the
    /// first sixth, blended to squeezed at the top over the second, back to
    /// the bottom over the third and fourth, to the top over the fifth, and
    /// at the top in the last sixth.
    double
    deform(const double epsilon, const double x, const double t)
    {
      const double lower = squeeze_lower(epsilon, t), upper = squeeze_upper(epsilon, t);
      const int    layer = std::clamp(static_cast<int>(std::floor(6. * x)), 0, 5);
      const double local = 6. * x - layer; // position inside the layer, [0, 1]
      switch (layer)
        {
          case 0:
            return lower;
          case 1:
          case 4:
            return blend(lower, upper, local);
          case 2:
            return blend(upper, lower, 0.5 * local);
          case 3:
            return blend(upper, lower, 0.5 * (1. + local));
          default:
            return upper;
        }
    }
  } // namespace

  PointMap
  kershaw_map(const double epsilon_y, const double epsilon_z)
  {
    CELLWISE_CHECK(epsilon_y > 0 && epsilon_y <= 1 && epsilon_z > 0 && epsilon_z <= 1,
                   "the Kershaw parameters must lie in (0, 1], got " << epsilon_y << " and " << epsilon_z);
    return [epsilon_y, epsilon_z](const Point &p) -> Point {
      return {{p[0], deform(epsilon_y, p[0], p[1]), deform(epsilon_z, p[0], p[2])}};
    };
  }
} // namespace cellwise
