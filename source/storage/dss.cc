#include <cellwise/base/exceptions.h>
#include <cellwise/base/parallel.h>
#include <cellwise/fe/face_dofs.h>
#include <cellwise/storage/dof_numbering.h>
#include <cellwise/storage/dss.h>

#include <algorithm>

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
    const unsigned int n = degree + 1, n3 = n * n * n;
    // the nodes (all pairs) and the blocks' parts (structured pairs only)
    const DofNumbering numbering  = make_dof_numbering(level, degree);
    const DofNumbering structured = make_dof_numbering(level, degree, lagrange_trace_layers(degree), false);
    std::vector<unsigned int> n_parts(numbering.n_unique, 0), first_part(numbering.n_unique, ~0u);
    {
      // a node is on the skeleton if its copies fall into several parts
      std::vector<unsigned int> part_seen(numbering.n_unique, ~0u);
      std::vector<bool>         several(numbering.n_unique, false);
      for (unsigned int cell = 0; cell < level.n_cells(); ++cell)
        for (unsigned int i = 0; i < n3; ++i)
          {
            const unsigned int g = numbering(cell, i), part = structured(cell, i);
            if (part_seen[g] == ~0u)
              part_seen[g] = part;
            else if (part_seen[g] != part)
              several[g] = true;
          }
      std::vector<std::vector<std::pair<unsigned int, unsigned int>>> copies_of;
      std::vector<unsigned int>                                      group_of(numbering.n_unique, ~0u);
      for (unsigned int cell = 0; cell < level.n_cells(); ++cell)
        for (unsigned int i = 0; i < n3; ++i)
          {
            const unsigned int g = numbering(cell, i);
            if (!several[g])
              continue;
            if (group_of[g] == ~0u)
              {
                group_of[g] = static_cast<unsigned int>(copies_of.size());
                copies_of.emplace_back();
              }
            copies_of[group_of[g]].emplace_back(cell, i);
          }
      group_start_.push_back(0);
      for (const auto &group : copies_of)
        {
          // one representative per part, weighted by the part's copies
          std::vector<std::pair<unsigned int, unsigned int>> count; // (part, copies)
          for (const auto &c : group)
            {
              const unsigned int part = structured(c.first, c.second);
              auto               it   = std::find_if(count.begin(), count.end(), [&](const auto &e) { return e.first == part; });
              if (it == count.end())
                count.emplace_back(part, 1);
              else
                ++it->second;
            }
          std::vector<unsigned int> taken;
          for (const auto &c : group)
            {
              const unsigned int part = structured(c.first, c.second);
              std::uint8_t       w    = 0;
              if (std::find(taken.begin(), taken.end(), part) == taken.end())
                {
                  taken.push_back(part);
                  w = static_cast<std::uint8_t>(std::find_if(count.begin(), count.end(), [&](const auto &e) { return e.first == part; })->second);
                }
              copies_.push_back(c);
              weight_.push_back(w);
            }
          group_start_.push_back(copies_.size());
        }
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
