#include <cellwise/base/exceptions.h>
#include <cellwise/base/parallel.h>
#include <cellwise/fe/face_dofs.h>
#include <cellwise/storage/dss.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <numeric>
#include <unordered_map>

namespace cellwise
{
  template <typename Number, typename Layout>
  void
  dss_axis_pass(const Level                                   &level,
                CellVector<Number, MemorySpace::Host, Layout> &v,
                const DssMode                                  mode,
                const TraceLayers                             &layers,
                const unsigned int                             d,
                const DssPairs                                &pairs)
  {
    const unsigned int n       = v.degree() + 1;
    const Number       factor  = mode == DssMode::mean ? Number(0.5) : Number(1);
    const long         n_cells = static_cast<long>(level.n_cells());
    // Every face pair is handled by its lower cell and no two pairs touch
    // the same entry (a cell's layers at its lower and upper ends are
    // distinct).
    parallel_for(n_cells, cell_grain, [&](const std::size_t cell) {
      const int other = level.structured_neighbor(static_cast<unsigned int>(cell), 2 * d + 1);
      if (!face_neighbor::is_cell(other) || !pairs.selects(static_cast<unsigned int>(cell), static_cast<unsigned int>(other)))
        return;
      for (unsigned int l = 0; l < layers.n_layers; ++l)
        for (unsigned int b = 0; b < n; ++b)
          for (unsigned int a = 0; a < n; ++a)
            {
              Number      &mine   = v(cell, face_layer_dof(n, d, layers.at_upper_end[l], a, b));
              Number      &theirs = v(other, face_layer_dof(n, d, layers.at_lower_end[l], a, b));
              const Number s      = factor * (mine + theirs);
              mine                = s;
              theirs              = s;
            }
    });
  }

  namespace
  {
    /// The dimension-split cascade over the structured pairs of @p level:
    /// the passes must run in sequence.
    template <typename Number, typename Layout>
    void
    cascade(const Level &level, CellVector<Number, MemorySpace::Host, Layout> &v, const DssMode mode, const TraceLayers &layers)
    {
      for (unsigned int d = 0; d < 3; ++d)
        dss_axis_pass(level, v, mode, layers, d);
    }
  } // namespace

  DssSkeleton::DssSkeleton(const Level &level, const unsigned int degree)
    : degree_(degree)
  {
    if (!level.has_skeleton())
      return;
    // The skeleton nodes are found from the skeleton faces alone, with work
    // in proportion to the skeleton (a surface), not to the level: from each
    // copy on a skeleton face, every copy of its node through the pairs of
    // copies across faces (structured pairs: the same (a, b) on the facing
    // faces; skeleton pairs: through the face's orientation). A node whose
    // copies fall into several parts (classes of the structured pairs alone,
    // i.e. blocks) is a skeleton node. Before 2026-12-04 two DoF numberings
    // of the whole level (union–find over every copy) gave the same groups:
    // at L = 5 of the ball (229 376 cells, Q3) most of a level's set-up.
    const unsigned int n = degree + 1, n3 = n * n * n, p = degree;
    std::unordered_map<std::uint64_t, const SkeletonFace *> skeleton_face_of;
    for (const SkeletonFace &f : level.skeleton_faces)
      skeleton_face_of.emplace(std::uint64_t(f.cell) * 6 + f.face, &f);
    using Copy = std::uint64_t; // cell · n³ + local index
    // calls pair(other, structured) for every copy paired with @p copy
    auto for_each_pair = [&](const Copy copy, const auto &pair) {
      const unsigned int          cell = static_cast<unsigned int>(copy / n3), i = static_cast<unsigned int>(copy % n3);
      const std::array<unsigned, 3> x    = {{i % n, (i / n) % n, i / (n * n)}};
      for (unsigned int d = 0; d < 3; ++d)
        for (unsigned int side = 0; side < 2; ++side)
          {
            if (x[d] != side * p)
              continue;
            const unsigned int face = 2 * d + side;
            // (a, b): the two other axes in increasing order (fe/face_dofs.h)
            const unsigned int a = d == 0 ? x[1] : x[0], b = d == 2 ? x[1] : x[2];
            if (level.is_skeleton_face(cell, face))
              {
                const auto it = skeleton_face_of.find(std::uint64_t(cell) * 6 + face);
                CELLWISE_CHECK(it != skeleton_face_of.end(),
                               "DssSkeleton: face " << face << " of cell " << cell << " is marked as a skeleton face but not listed");
                const SkeletonFace &f     = *it->second;
                const auto          there = oriented_face_point(f.orientation, a, b, p);
                pair(Copy(f.neighbor) * n3 + face_dof(n, f.neighbor_face / 2, f.neighbor_face % 2, there[0], there[1]), false);
              }
            else if (const int other = level.neighbors[cell][face]; face_neighbor::is_cell(other))
              pair(Copy(other) * n3 + face_dof(n, d, 1 - side, a, b), true);
          }
    };

    // The groups as they are found, one after another in flat arrays (a
    // vector per group was most of the time: the ball at L = 6 has 880 000
    // groups of 2 to 8 copies), and the work arrays of one node, reused.
    std::vector<bool>         seen(std::size_t(level.n_cells()) * n3, false);
    std::vector<Copy>         found;
    std::vector<std::uint8_t> found_weights;
    std::vector<std::size_t>  found_start(1, 0);
    std::vector<Copy>         node, stack;
    std::vector<unsigned int> part, count;
    std::vector<char>         taken;
    for (const SkeletonFace &f : level.skeleton_faces)
      for (unsigned int b = 0; b < n; ++b)
        for (unsigned int a = 0; a < n; ++a)
          {
            const Copy start = Copy(f.cell) * n3 + face_dof(n, f.face / 2, f.face % 2, a, b);
            if (seen[start])
              continue;
            // every copy of the node, in increasing order
            node.clear();
            stack.assign(1, start);
            seen[start] = true;
            while (!stack.empty())
              {
                const Copy copy = stack.back();
                stack.pop_back();
                node.push_back(copy);
                for_each_pair(copy, [&](const Copy other, bool) {
                  if (!seen[other])
                    {
                      seen[other] = true;
                      stack.push_back(other);
                    }
                });
              }
            std::sort(node.begin(), node.end());
            // parts: the classes of the structured pairs among these copies,
            // numbered by their first copy
            part.assign(node.size(), ~0u);
            unsigned int n_parts = 0;
            for (std::size_t k = 0; k < node.size(); ++k)
              {
                if (part[k] != ~0u)
                  continue;
                part[k] = n_parts;
                stack.assign(1, node[k]);
                while (!stack.empty())
                  {
                    const Copy copy = stack.back();
                    stack.pop_back();
                    for_each_pair(copy, [&](const Copy other, const bool structured) {
                      if (!structured)
                        return;
                      const std::size_t j = std::size_t(std::lower_bound(node.begin(), node.end(), other) - node.begin());
                      if (part[j] == ~0u)
                        {
                          part[j] = n_parts;
                          stack.push_back(other);
                        }
                    });
                  }
                ++n_parts;
              }
            if (n_parts < 2)
              continue;
            // one representative per part (its first copy), weighted by the
            // part's copies
            count.assign(n_parts, 0);
            for (const unsigned int q : part)
              ++count[q];
            taken.assign(n_parts, 0);
            for (std::size_t k = 0; k < node.size(); ++k)
              {
                found.push_back(node[k]);
                found_weights.push_back(taken[part[k]] ? 0 : static_cast<std::uint8_t>(count[part[k]]));
                taken[part[k]] = 1;
              }
            found_start.push_back(found.size());
          }
    // groups in the order of their first copies (cell by cell, as the DSS
    // has always summed them)
    const std::size_t        n_found = found_start.size() - 1;
    std::vector<std::size_t> order(n_found);
    std::iota(order.begin(), order.end(), std::size_t(0));
    std::sort(order.begin(), order.end(),
              [&](const std::size_t x, const std::size_t y) { return found[found_start[x]] < found[found_start[y]]; });
    copies_.reserve(found.size());
    weight_.reserve(found.size());
    group_start_.reserve(n_found + 1);
    group_start_.push_back(0);
    for (const std::size_t g : order)
      {
        for (std::size_t k = found_start[g]; k < found_start[g + 1]; ++k)
          {
            copies_.emplace_back(static_cast<unsigned int>(found[k] / n3), static_cast<unsigned int>(found[k] % n3));
            weight_.push_back(found_weights[k]);
          }
        group_start_.push_back(copies_.size());
      }
  }

  template <typename Number, typename Layout>
  void
  DssSkeleton::apply(CellVector<Number, MemorySpace::Host, Layout> &v, const DssMode mode) const
  {
    CELLWISE_CHECK(empty() || v.degree() == degree_,
                   "DssSkeleton: built for degree " << degree_ << ", applied to a vector of degree " << v.degree());
    parallel_for(n_groups(), 256, [&](const std::size_t g) {
      // after the cascade every copy of a part holds the part's sum (mean):
      // one representative per part, weighted by its copies for the mean
      double total = 0, count = 0;
      for (std::size_t k = group_start_[g]; k < group_start_[g + 1]; ++k)
        if (weight_[k] > 0)
          {
            const double w = mode == DssMode::mean ? double(weight_[k]) : 1.;
            total += w * double(v(copies_[k].first, copies_[k].second));
            count += weight_[k];
          }
      const Number value = static_cast<Number>(mode == DssMode::mean ? total / count : total);
      for (std::size_t k = group_start_[g]; k < group_start_[g + 1]; ++k)
        v(copies_[k].first, copies_[k].second) = value;
    });
  }

  template <typename Number, typename Layout>
  void
  apply_dss(const Level &level, CellVector<Number, MemorySpace::Host, Layout> &v, const DssMode mode)
  {
    apply_dss(level, v, mode, lagrange_trace_layers(v.degree()));
  }

  template <typename Number, typename Layout>
  void
  apply_dss(const Level &level, const DssSkeleton &skeleton, CellVector<Number, MemorySpace::Host, Layout> &v, const DssMode mode)
  {
    CELLWISE_CHECK(v.n_cells() == level.n_cells(),
                   "apply_dss: vector has " << v.n_cells() << " cells, the level " << level.n_cells());
    CELLWISE_CHECK(!level.has_skeleton() || !skeleton.empty(),
                   "apply_dss: the level has skeleton faces but the skeleton phase given is empty");
    cascade(level, v, mode, lagrange_trace_layers(v.degree()));
    skeleton.apply(v, mode);
  }

  template <typename Number, typename Layout>
  void
  apply_dss(const Level &level, CellVector<Number, MemorySpace::Host, Layout> &v, const DssMode mode, const TraceLayers &layers)
  {
    CELLWISE_CHECK(v.n_cells() == level.n_cells(),
                   "apply_dss: vector has " << v.n_cells() << " cells, the level " << level.n_cells());
    const unsigned int n = v.degree() + 1;
    CELLWISE_CHECK(layers.n_1d == n && layers.n_layers >= 1 && layers.n_layers <= 2,
                   "apply_dss: trace layers of an element with " << layers.n_1d << " functions per axis for a vector with "
                                                                 << n << " values per axis");
    cascade(level, v, mode, layers);
    if (level.has_skeleton())
      {
        CELLWISE_CHECK(layers.n_layers == 1, "apply_dss: the skeleton of an unstructured mesh takes FE_Q (one trace layer); "
                                             "an element with derivative DoFs (the cubic Hermite element) needs box meshes");
        DssSkeleton(level, v.degree()).apply(v, mode);
      }
  }

#define CELLWISE_INSTANTIATE(Number, Layout)                                                                      \
  template void dss_axis_pass(const Level &, CellVector<Number, MemorySpace::Host, Layout> &, DssMode, const TraceLayers &, \
                              unsigned int, const DssPairs &);                                                  \
  template void apply_dss(const Level &, CellVector<Number, MemorySpace::Host, Layout> &, DssMode);                  \
  template void apply_dss(const Level &, CellVector<Number, MemorySpace::Host, Layout> &, DssMode, const TraceLayers &); \
  template void apply_dss(const Level &, const DssSkeleton &, CellVector<Number, MemorySpace::Host, Layout> &, DssMode); \
  template void DssSkeleton::apply(CellVector<Number, MemorySpace::Host, Layout> &, DssMode) const;
  CELLWISE_INSTANTIATE(double, CellContiguous)
  CELLWISE_INSTANTIATE(float, CellContiguous)
  CELLWISE_INSTANTIATE(double, CellBlocked<32>)
  CELLWISE_INSTANTIATE(float, CellBlocked<32>)
#undef CELLWISE_INSTANTIATE
} // namespace cellwise
