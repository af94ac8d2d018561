#include "manufactured_solutions.h"

#include <cellwise/base/exceptions.h>

#include <cmath>

ManufacturedSolution
make_manufactured_solution(const std::string &name, const std::array<double, 3> &lower, const std::array<double, 3> &upper)
{
  const std::array<double, 3> length = {{upper[0] - lower[0], upper[1] - lower[1], upper[2] - lower[2]}};
  auto xi = [lower, length](const cellwise::Point &x, const unsigned int d) { return (x[d] - lower[d]) / length[d]; };

  if (name == "sine" || name == "oscillatory")
    {
      const double k      = name == "sine" ? 1. : 3.;
      double       factor = 0;
      for (unsigned int d = 0; d < 3; ++d)
        factor += k * k * M_PI * M_PI / (length[d] * length[d]);
      auto u = [k, xi](const cellwise::Point &x) {
        return std::sin(k * M_PI * xi(x, 0)) * std::sin(k * M_PI * xi(x, 1)) * std::sin(k * M_PI * xi(x, 2));
      };
      cellwise::SeparableTerm term;
      term.coefficient = factor;
      for (unsigned int d = 0; d < 3; ++d)
        term.factors[d] = [k, a = lower[d], L = length[d]](const double x) { return std::sin(k * M_PI * (x - a) / L); };
      return {name, u, [u, factor](const cellwise::Point &x) { return factor * u(x); }, {term}};
    }
  if (name == "polynomial")
    {
      // u = Π (x_d − a_d)(b_d − x_d); −Δu = 2 Σ_d Π_{e≠d} (x_e − a_e)(b_e − x_e)
      auto bubble = [lower, upper](const cellwise::Point &x, const unsigned int d) { return (x[d] - lower[d]) * (upper[d] - x[d]); };
      auto u      = [bubble](const cellwise::Point &x) { return bubble(x, 0) * bubble(x, 1) * bubble(x, 2); };
      auto f      = [bubble](const cellwise::Point &x) {
        return 2. * (bubble(x, 1) * bubble(x, 2) + bubble(x, 0) * bubble(x, 2) + bubble(x, 0) * bubble(x, 1));
      };
      cellwise::SeparableFunction terms(3);
      for (unsigned int d = 0; d < 3; ++d)
        {
          terms[d].coefficient = 2.;
          for (unsigned int e = 0; e < 3; ++e)
            terms[d].factors[e] = e == d ? std::function<double(double)>([](double) { return 1.; })
                                         : [a = lower[e], b = upper[e]](const double x) { return (x - a) * (b - x); };
        }
      return {name, u, f, terms};
    }
  CELLWISE_CHECK(false, "unknown manufactured solution '" << name << "': use sine, oscillatory or polynomial");
}

ManufacturedSolution
make_ball_solution()
{
  cellwise::SeparableTerm constant;
  constant.coefficient = 6.;
  for (unsigned int d = 0; d < 3; ++d)
    constant.factors[d] = [](const double) { return 1.; };
  return {"ball",
          [](const cellwise::Point &x) { return 1. - (x[0] * x[0] + x[1] * x[1] + x[2] * x[2]); },
          [](const cellwise::Point &) { return 6.; },
          {constant}};
}
