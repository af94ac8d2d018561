#include <cellwise/base/mpi_check.h>
#include <cellwise/dealii/import.h>
#include <cellwise/dealii/mpi_box_partition.h>

#include <deal.II/grid/manifold.h>
#include <deal.II/grid/tria.h>
#include <deal.II/grid/tria_accessor.h>
#include <deal.II/grid/tria_iterator.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <unordered_set>

namespace cellwise::dealii
{
  namespace
  {
    using DistributedTria = ::dealii::parallel::distributed::Triangulation<3, 3>;

    std::vector<unsigned int>
    sorted_unique(std::vector<unsigned int> ids)
    {
      std::sort(ids.begin(), ids.end());
      ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
      return ids;
    }

    /// Collective: empty on every rank if @p reason is empty on every rank,
    /// else the lowest rank's non-empty reason on every rank.
    std::string
    first_reason(const MPI_Comm comm, const std::string &reason)
    {
      const int size = mpi_size(comm);
      int       mine = reason.empty() ? size : mpi_rank(comm), first = size;
      CELLWISE_MPI_CHECK(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm));
      if (first == size)
        return {};
      int length = static_cast<int>(reason.size());
      CELLWISE_MPI_CHECK(MPI_Bcast(&length, 1, MPI_INT, first, comm));
      std::string text = first == mpi_rank(comm) ? reason : std::string(length, ' ');
      CELLWISE_MPI_CHECK(MPI_Bcast(text.data(), length, MPI_CHAR, first, comm));
      return first == 0 ? text : "on rank " + std::to_string(first) + ": " + text;
    }
  } // namespace

  DealiiBoxPartition::DealiiBoxPartition(const DistributedTria &tria)
  {
    const MPI_Comm comm = tria.get_communicator();
    // the same on every rank: from the coarse mesh alone
    why_not_ = read_coarse_mesh(tria);
    if (!why_not_.empty())
      return;
    const unsigned int finest = tria.n_global_levels() - 1;
    if (double(tria.n_global_active_cells()) != double(tria.n_cells(0)) * std::pow(8., finest))
      {
        why_not_ = first_reason(comm, replicate_refined_mesh(tria));
        if (why_not_.empty())
          hierarchy_ = std::make_shared<const ReplicatedHierarchy>(*serial_, owners_, mpi_size(comm));
        else
          serial_.reset();
        return;
      }
    std::vector<std::uint64_t> cuts;
    why_not_ = first_reason(comm, finest_cuts(tria, cuts));
    if (!why_not_.empty())
      return;
    partition_ = std::make_shared<const BoxPartition>(box_, tria.n_global_levels() - 1, cuts);
    why_not_   = first_reason(comm, check_level_subdomains(tria));
    if (!why_not_.empty())
      partition_.reset();
    hierarchy_ = partition_;
  }

  namespace
  {
    /// Every rank's @p mine, concatenated in rank order, and where each
    /// rank's part starts (size + 1 offsets). Collective.
    std::vector<std::uint64_t>
    gather_all(const MPI_Comm comm, const std::vector<std::uint64_t> &mine, std::vector<std::size_t> &offsets)
    {
      const int        size  = mpi_size(comm);
      const int        count = static_cast<int>(mine.size());
      std::vector<int> counts(size), displacements(size + 1, 0);
      CELLWISE_MPI_CHECK(MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, comm));
      for (int r = 0; r < size; ++r)
        displacements[r + 1] = displacements[r] + counts[r];
      std::vector<std::uint64_t> all(displacements[size]);
      CELLWISE_MPI_CHECK(MPI_Allgatherv(mine.data(), count, MPI_UINT64_T, all.data(), counts.data(), displacements.data(),
                                        MPI_UINT64_T, comm));
      offsets.assign(displacements.begin(), displacements.end());
      return all;
    }
  } // namespace

  std::uint64_t
  DealiiBoxPartition::lattice_key(const unsigned int l, const std::array<int, 3> &x) const
  {
    const std::uint64_t nx = std::uint64_t(box_.subdivisions[0]) << l, ny = std::uint64_t(box_.subdivisions[1]) << l;
    return std::uint64_t(x[0]) + nx * (std::uint64_t(x[1]) + ny * std::uint64_t(x[2]));
  }

  std::string
  DealiiBoxPartition::replicate_refined_mesh(const DistributedTria &tria)
  {
    // The serial hierarchy from the coarse lattice, refined level by level
    // where some rank's level subdomain has a refined cell, and the owners
    // from the level subdomains; both gathered (every rank holds the whole
    // mesh). Collective: every rank takes every gather, whatever it found.
    const MPI_Comm     comm     = tria.get_communicator();
    const int          rank     = mpi_rank(comm);
    const unsigned int n_levels = tria.n_global_levels();
    std::string        reason;
    const long double places = (long double)(box_.subdivisions[0]) * box_.subdivisions[1] * box_.subdivisions[2] *
                               std::pow(8.L, (long double)(n_levels - 1));
    if (n_levels > 21 || places >= 9.2e18L)
      reason = std::to_string(n_levels - 1) + " refinements: more lattice places than 64-bit keys";
    serial_ = std::make_unique<LevelHierarchy>(make_box_hierarchy(box_, 0));
    owners_.assign(n_levels, {});
    index_of_key_.assign(n_levels, {});
    for (unsigned int l = 0; l < n_levels; ++l)
      {
        std::vector<std::uint64_t> owned, refined;
        if (reason.empty())
          for (const auto &cell : tria.cell_iterators_on_level(l))
            if (cell->level_subdomain_id() == static_cast<::dealii::types::subdomain_id>(rank))
              {
                std::array<int, 3> x;
                if (!lattice_coordinates(*cell, x))
                  {
                    reason = "cell " + std::to_string(l) + "." + std::to_string(cell->index()) + " is not at a lattice place";
                    break;
                  }
                if (cell->is_active() && !boundary_ids_match(*cell, x))
                  {
                    reason = "the boundary ids of the refined faces are not those of the coarse faces";
                    break;
                  }
                owned.push_back(lattice_key(l, x));
                if (cell->has_children())
                  refined.push_back(lattice_key(l, x));
              }
        std::vector<std::size_t> by_rank, unused;
        const std::vector<std::uint64_t> all_owned   = gather_all(comm, owned, by_rank);
        const std::vector<std::uint64_t> all_refined = gather_all(comm, refined, unused);
        if (!reason.empty())
          continue; // (the gathers above are every rank's, whatever it found)
        Level &level = serial_->levels[l];
        std::unordered_map<std::uint64_t, unsigned> &index_of = index_of_key_[l];
        index_of.reserve(level.n_cells());
        for (unsigned int c = 0; c < level.n_cells(); ++c)
          index_of.emplace(lattice_key(l, level.coordinates[c]), c);
        owners_[l].assign(level.n_cells(), -1);
        for (int r = 0; r + 1 < int(by_rank.size()); ++r)
          for (std::size_t i = by_rank[r]; i < by_rank[r + 1]; ++i)
            {
              const auto found = index_of.find(all_owned[i]);
              if (found == index_of.end() || owners_[l][found->second] != -1)
                reason = "deal.II's level " + std::to_string(l) + " is not the lattice's children of the refined cells";
              else
                owners_[l][found->second] = r;
            }
        if (reason.empty() && all_owned.size() != level.n_cells())
          reason = "deal.II's level subdomains of level " + std::to_string(l) + " hold " + std::to_string(all_owned.size()) +
                   " cells, the level has " + std::to_string(level.n_cells());
        if (reason.empty() && l + 1 < n_levels)
          {
            // (flags first: refine_finest_level appends a level, which may
            // move this one)
            const std::unordered_set<std::uint64_t> refine(all_refined.begin(), all_refined.end());
            std::vector<bool>                       flag(level.n_cells());
            for (unsigned int c = 0; c < level.n_cells(); ++c)
              flag[c] = refine.count(lattice_key(l, level.coordinates[c])) > 0;
            refine_finest_level(*serial_, CellOrdering::child_major, [&flag](const unsigned int c) { return bool(flag[c]); });
          }
      }
    return reason;
  }

  bool
  DealiiBoxPartition::boundary_ids_match(const ::dealii::CellAccessor<3, 3> &cell, const std::array<int, 3> &x) const
  {
    // a face at the boundary lies on the box face its lattice place gives
    const unsigned int l = cell.level();
    for (unsigned int f = 0; f < 6; ++f)
      if (cell.face(f)->at_boundary())
        {
          const unsigned int d = f / 2, n = box_.subdivisions[d] << l;
          // the box face f, or toward a left-out coarse cell (hyper_L)
          const bool         on_box = f % 2 == 0 ? x[d] == 0 : x[d] + 1 == int(n);
          const int          expected = face_ids_[on_box ? f : removed_boundary_id];
          if (expected != int(cell.face(f)->boundary_id()))
            return false;
        }
    return true;
  }

  std::string
  DealiiBoxPartition::read_coarse_mesh(const DistributedTria &tria)
  {
    // every rank holds every coarse cell (p4est replicates the coarse mesh)
    const auto coarse_cells = tria.cell_iterators_on_level(0);
    double     extent       = 0.;
    for (const auto &cell : coarse_cells)
      for (unsigned int d = 0; d < 3; ++d)
        extent = std::max(extent, std::abs(cell->vertex(7)[d] - cell->vertex(0)[d]));
    const std::optional<CoarseLattice> lattice = coarse_lattice(tria, 1e-10 * extent);
    if (!lattice)
      return "the coarse mesh is not a lattice of equal boxes in deal.II's standard orientation";
    // flat manifolds only: new vertices at the midpoints, as the box's
    const auto flat = [&](const ::dealii::types::manifold_id id) {
      return id == ::dealii::numbers::flat_manifold_id ||
             dynamic_cast<const ::dealii::FlatManifold<3, 3> *>(&tria.get_manifold(id)) != nullptr;
    };
    for (const auto &cell : coarse_cells)
      {
        bool all_flat = flat(cell->manifold_id());
        for (unsigned int f = 0; f < 6; ++f)
          all_flat = all_flat && flat(cell->face(f)->manifold_id());
        for (unsigned int e = 0; e < 12; ++e)
          all_flat = all_flat && flat(cell->line(e)->manifold_id());
        if (!all_flat)
          return "coarse cell " + std::to_string(cell->index()) + ", one of its faces or one of its edges is on a curved manifold";
      }
    box_         = lattice->box;
    coarse_size_ = lattice->cell_size;
    const std::vector<std::array<unsigned int, 3>> &position = lattice->position;
    // p4est's trees in deal.II's order
    for (const auto c : tria.get_p4est_tree_to_coarse_cell_permutation())
      box_.tree_order.push_back(position[c]);
    // deal.II's boundary id of each face of the box (and toward the
    // left-out cells): one per face
    for (const auto &cell : coarse_cells)
      for (unsigned int f = 0; f < 6; ++f)
        if (cell->face(f)->at_boundary())
          {
            const std::array<unsigned int, 3> &x = position[cell->index()];
            const unsigned int                 d = f / 2;
            const bool         outside = f % 2 ? x[d] + 1 == box_.subdivisions[d] : x[d] == 0; // else a left-out cell
            const unsigned int face    = outside ? f : removed_boundary_id;
            const int          id      = cell->face(f)->boundary_id();
            if (face_ids_[face] >= 0 && face_ids_[face] != id)
              return "the boundary ids differ along one face of the box (" + std::to_string(face_ids_[face]) + " and " +
                     std::to_string(id) + ")";
            face_ids_[face] = id;
          }
    return {};
  }

  std::string
  DealiiBoxPartition::finest_cuts(const DistributedTria &tria, std::vector<std::uint64_t> &cuts) const
  {
    // The first active cell of each rank in the forest order (the ranks'
    // ranges follow their order in p4est). A partition over one rank maps
    // cells to forest indices (it refuses only a mesh beyond 64-bit
    // indices). Collective.
    const MPI_Comm      comm = tria.get_communicator();
    const unsigned int  finest = tria.n_global_levels() - 1;
    std::string         reason;
    std::uint64_t       first = std::numeric_limits<std::uint64_t>::max();
    std::unique_ptr<const BoxPartition> probe;
    try
      {
        probe = std::make_unique<const BoxPartition>(box_, finest, 1);
      }
    catch (const Error &e)
      {
        reason = e.what();
      }
    for (const auto &cell : tria.active_cell_iterators())
      if (probe && cell->is_locally_owned())
        {
          std::array<int, 3> x;
          const std::int64_t forest = lattice_coordinates(*cell, x) ? probe->forest_at(cell->level(), x) : -1;
          if (forest < 0 || cell->level() != int(finest))
            {
              reason = "an active cell is outside the lattice or not on the finest level (a locally refined mesh)";
              break;
            }
          first = std::min(first, std::uint64_t(forest));
          if (!boundary_ids_match(*cell, x)) // (ids set on refined faces)
            reason = "the boundary ids of the refined faces are not those of the coarse faces";
        }
    const int size = mpi_size(comm);
    cuts.assign(size + 1, 0);
    CELLWISE_MPI_CHECK(MPI_Allgather(&first, 1, MPI_UINT64_T, cuts.data(), 1, MPI_UINT64_T, comm));
    cuts[size] = probe ? probe->n_cells(finest) : 0;
    // a rank without active cells (p4est leaves ranks empty where the mesh
    // has fewer families of leaves than ranks): an empty range at the next
    // rank's cut
    for (int r = size - 1; r >= 0; --r)
      cuts[r] = std::min(cuts[r], cuts[r + 1]);
    std::vector<std::uint64_t> owned(size, 0); // whether the ranks' counts fill their ranges
    const std::uint64_t        mine = std::uint64_t(tria.n_locally_owned_active_cells());
    CELLWISE_MPI_CHECK(MPI_Allgather(&mine, 1, MPI_UINT64_T, owned.data(), 1, MPI_UINT64_T, comm));
    bool consecutive = cuts[0] == 0 && std::is_sorted(cuts.begin(), cuts.end());
    for (int r = 0; r < size && consecutive; ++r)
      consecutive = cuts[r + 1] - cuts[r] == owned[r];
    if (reason.empty() && !consecutive)
      reason = "the ranks' active cells are not consecutive ranges of the forest order";
    return reason;
  }

  std::string
  DealiiBoxPartition::check_level_subdomains(const DistributedTria &tria) const
  {
    // every level cell deal.II gives this rank is the partition's, and as
    // many
    const int rank = mpi_rank(tria.get_communicator());
    for (unsigned int l = 0; l < tria.n_global_levels(); ++l)
      {
        const std::array<std::uint64_t, 2> range = partition_->forest_range(l, rank);
        std::uint64_t                      mine  = 0;
        for (const auto &cell : tria.cell_iterators_on_level(l))
          if (cell->level_subdomain_id() == static_cast<::dealii::types::subdomain_id>(rank))
            {
              std::array<int, 3> x;
              const std::int64_t forest = lattice_coordinates(*cell, x) ? partition_->forest_at(l, x) : -1;
              if (forest < 0 || std::uint64_t(forest) < range[0] || std::uint64_t(forest) >= range[1])
                return "deal.II's level subdomain of level " + std::to_string(l) +
                       " differs from the partition by the first descendants";
              ++mine;
            }
        if (mine != range[1] - range[0])
          return "deal.II's level subdomain of level " + std::to_string(l) + " holds " + std::to_string(mine) +
                 " cells, the partition " + std::to_string(range[1] - range[0]);
      }
    return {};
  }

  std::int64_t
  DealiiBoxPartition::serial_index(const ::dealii::CellAccessor<3, 3> &cell) const
  {
    CELLWISE_CHECK(hierarchy_, "DealiiBoxPartition::serial_index: the partition was not taken (" << why_not_ << ")");
    std::array<int, 3> x;
    if (!lattice_coordinates(cell, x))
      return -1;
    if (partition_)
      return partition_->index_of(cell.level(), x);
    const auto found = index_of_key_.at(cell.level()).find(lattice_key(cell.level(), x));
    return found == index_of_key_[cell.level()].end() ? -1 : std::int64_t(found->second);
  }

  bool
  DealiiBoxPartition::lattice_coordinates(const ::dealii::CellAccessor<3, 3> &cell, std::array<int, 3> &x) const
  {
    // the centre of the lattice cell x of level l is lower + (x + 1/2) h_l
    for (unsigned int d = 0; d < 3; ++d)
      {
        const double at = (cell.center()[d] - box_.lower[d]) / coarse_size_[d] * double(1u << cell.level()) - 0.5;
        if (!(std::abs(at - std::round(at)) < 1e-6))
          return false;
        x[d] = static_cast<int>(std::lround(at));
      }
    return true;
  }

  std::vector<unsigned int>
  DealiiBoxPartition::box_dirichlet_ids(const std::vector<unsigned int> &dirichlet_ids) const
  {
    if (dirichlet_ids.empty())
      return {};
    std::vector<unsigned int> ids;
    for (const unsigned int id : dirichlet_ids)
      {
        bool carried = false;
        for (unsigned int face = 0; face < face_ids_.size(); ++face)
          if (face_ids_[face] == int(id))
            {
              ids.push_back(face);
              carried = true;
            }
        CELLWISE_CHECK(carried, "Dirichlet boundary id " << id << " is not carried by any boundary face of the mesh; without "
                                                       << "Dirichlet faces the problem is pure Neumann, singular, and not "
                                                       << "supported on several ranks");
      }
    return sorted_unique(std::move(ids));
  }

  std::vector<unsigned int>
  DealiiBoxPartition::neumann_ids(const std::vector<unsigned int> &dirichlet_ids) const
  {
    if (dirichlet_ids.empty())
      return {};
    std::vector<unsigned int> ids;
    for (const int id : face_ids_)
      if (id >= 0 && std::find(dirichlet_ids.begin(), dirichlet_ids.end(), unsigned(id)) == dirichlet_ids.end())
        ids.push_back(unsigned(id));
    return sorted_unique(std::move(ids));
  }
} // namespace cellwise::dealii
