#include <cellwise/base/config.h>
#include <cellwise/fe/face_dofs.h>
#include <cellwise/storage/dof_numbering.h>

#include <algorithm>
#include <numeric>

namespace cellwise
{
  namespace
  {
    unsigned int
    find_root(std::vector<unsigned int> &parent, unsigned int x)
    {
      while (parent[x] != x)
        {
          parent[x] = parent[parent[x]];
          x         = parent[x];
        }
      return x;
    }
  } // namespace

  DofNumbering
  make_dof_numbering(const Level &level, const unsigned int degree)
  {
    check_degree(degree);
    return make_dof_numbering(level, degree, lagrange_trace_layers(degree));
  }

  DofNumbering
  make_dof_numbering(const Level &level, const unsigned int degree, const TraceLayers &layers, const bool across_skeleton)
  {
    const unsigned int n     = degree + 1;
    CELLWISE_CHECK(layers.n_1d == n, "make_dof_numbering: trace layers of an element with "
                                       << layers.n_1d << " basis functions per axis for storage of degree " << degree);
    const unsigned int n3    = n * n * n;
    const std::size_t  total = static_cast<std::size_t>(level.n_cells()) * n3;
    CELLWISE_CHECK(total < (std::size_t(1) << 32), "level too large for a 32-bit DoF numbering: " << total << " copies");

    std::vector<unsigned int> parent(total);
    std::iota(parent.begin(), parent.end(), 0u);
    for (unsigned int cell = 0; cell < level.n_cells(); ++cell)
      for (unsigned int d = 0; d < 3; ++d)
        {
          const int other = level.structured_neighbor(cell, 2 * d + 1);
          if (!face_neighbor::is_cell(other))
            continue;
          for (unsigned int l = 0; l < layers.n_layers; ++l)
            for (unsigned int b = 0; b < n; ++b)
              for (unsigned int a = 0; a < n; ++a)
                {
                  const unsigned int x = cell * n3 + face_layer_dof(n, d, layers.at_upper_end[l], a, b);
                  const unsigned int y =
                    static_cast<unsigned int>(other) * n3 + face_layer_dof(n, d, layers.at_lower_end[l], a, b);
                  const unsigned int rx = find_root(parent, x), ry = find_root(parent, y);
                  if (rx != ry)
                    parent[std::max(rx, ry)] = std::min(rx, ry);
                }
        }

    auto join = [&](const unsigned int x, const unsigned int y) {
      const unsigned int rx = find_root(parent, x), ry = find_root(parent, y);
      if (rx != ry)
        parent[std::max(rx, ry)] = std::min(rx, ry);
    };
    if (across_skeleton && level.has_skeleton())
      {
        CELLWISE_CHECK(layers.n_layers == 1, "make_dof_numbering: skeleton faces (an unstructured mesh) take FE_Q, one trace layer");
        const unsigned int p = degree;
        for (const SkeletonFace &f : level.skeleton_faces)
          for (unsigned int b = 0; b < n; ++b)
            for (unsigned int a = 0; a < n; ++a)
              {
                const auto there = oriented_face_point(f.orientation, a, b, p);
                join(f.cell * n3 + face_dof(n, f.face / 2, f.face % 2, a, b),
                     static_cast<unsigned int>(f.neighbor) * n3 + face_dof(n, f.neighbor_face / 2, f.neighbor_face % 2, there[0], there[1]));
              }
      }

    DofNumbering numbering;
    numbering.degree = degree;
    numbering.global_index.assign(total, 0);
    std::vector<unsigned int> number_of_root(total, ~0u);
    for (std::size_t k = 0; k < total; ++k)
      {
        const unsigned int r = find_root(parent, static_cast<unsigned int>(k));
        if (number_of_root[r] == ~0u)
          number_of_root[r] = numbering.n_unique++;
        numbering.global_index[k] = number_of_root[r];
      }
    return numbering;
  }
} // namespace cellwise
