#pragma once
/**
 * @file
 * Direct stiffness summation S = G G^T on a level, and the rebalancing
 * Pi = G D^{-1} G^T, by the dimension-split cascade: three axis passes; each
 * pass replaces the two copies a, b of every DoF on a same-level face pair by
 * a + b (sum) or (a + b)/2 (mean). Edge and vertex DoFs are complete after two
 * and three passes. The mean leaves the represented dual G^T r unchanged and
 * makes all copies equal (000 §4.4).
 *
 * An element with two trace layers per face (the cubic Hermite element: values
 * and normal derivatives) runs the same passes over both layers.
 *
 * Faces without a same-level neighbour (boundary, refinement edge) are left
 * alone; on the refinement edge the result is then not a full sum, which the
 * masked smoothers make harmless (003 §4.3.1).
 *
 * On an unstructured mesh (Level::has_skeleton) the cascade runs over the
 * structured pairs only: inside every coarse cell's block it completes each
 * node's copies there, so that after it the copies of a node on the
 * skeleton hold one partial sum per block. The second phase (003 §4.3,
 * Algorithm 8) adds one representative copy per block and writes the total
 * to every copy, the orientations of the faces reconciled once, when the
 * groups of copies are built (DssSkeleton, from the level's numbering).
 */

#include <cellwise/base/host_device.h>
#include <cellwise/fe/face_dofs.h>
#include <cellwise/mesh/level.h>
#include <cellwise/storage/cell_vector.h>

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace cellwise
{
  enum class DssMode
  {
    sum, ///< S: every copy becomes the sum of all copies
    mean ///< Pi: every copy becomes the mean of all copies
  };

  /**
   * The second phase of DSS on a level with skeleton faces (FE_Q): per node
   * whose copies lie in several blocks, all its copies and one
   * representative per block with the number of the block's copies. Built
   * once per level and degree (a numbering of the level's DoFs; set-up
   * cost); empty on a level without skeleton.
   */
  class DssSkeleton
  {
  public:
    DssSkeleton() = default;
    DssSkeleton(const Level &level, unsigned int degree);

    bool
    empty() const
    {
      return group_start_.size() <= 1;
    }
    /// Number of nodes on the skeleton.
    std::size_t
    n_groups() const
    {
      return group_start_.empty() ? 0 : group_start_.size() - 1;
    }

    /// The second phase on @p v after the cascade.
    template <typename Number, typename Layout>
    void
    apply(CellVector<Number, MemorySpace::Host, Layout> &v, DssMode mode) const;

    /// What the device twin uploads (storage/cuda_level_data.h): the degree,
    /// the first copy of each group (n_groups() + 1 entries), the copies as
    /// (cell, local DoF) and their weights.
    unsigned int
    degree() const
    {
      return degree_;
    }
    const std::vector<std::size_t> &
    group_starts() const
    {
      return group_start_;
    }
    const std::vector<std::pair<unsigned int, unsigned int>> &
    copies() const
    {
      return copies_;
    }
    const std::vector<std::uint8_t> &
    weights() const
    {
      return weight_;
    }

  private:
    unsigned int               degree_ = 0;
    std::vector<std::size_t>   group_start_;
    /// (cell, local DoF) of every copy of the groups' nodes.
    std::vector<std::pair<unsigned int, unsigned int>> copies_;
    /// Per copy: 0, or the number of copies of its block if it is the
    /// block's representative.
    std::vector<std::uint8_t> weight_;
  };

  /// In-place DSS of @p v over the faces of @p level (host backend), for
  /// FE_Q of v's degree. On a level with skeleton faces this builds the
  /// DssSkeleton each call (a set-up path); solvers keep one and call the
  /// overload that takes it.
  template <typename Number, typename Layout>
  void
  apply_dss(const Level &level, CellVector<Number, MemorySpace::Host, Layout> &v, DssMode mode = DssMode::sum);

  /// The same over the trace layers @p layers of the element (e.g. both
  /// layers of the cubic Hermite element, fe/face_dofs.h).
  template <typename Number, typename Layout>
  void
  apply_dss(const Level &level, CellVector<Number, MemorySpace::Host, Layout> &v, DssMode mode, const TraceLayers &layers);

  /**
   * Which face pairs an axis pass sums: all of them, or, on a rank's local
   * level (whose owned cells come first, mesh/partition.h), those between
   * two of its first @p n_owned cells (owned) or the others (touching a
   * ghost). The distributed DSS sums the owned pairs while the ghosts'
   * face layers travel, and the others once they have arrived: each pair
   * is summed once, from the same two values, whatever the split.
   */
  struct DssPairs
  {
    enum class Kind : unsigned char
    {
      all,
      owned,
      touching_ghosts
    };
    Kind         kind    = Kind::all;
    unsigned int n_owned = 0;

    /// Whether the pair (cell, other) is summed.
    CELLWISE_HOST_DEVICE bool
    selects(const unsigned int cell, const unsigned int other) const
    {
      return kind == Kind::all || ((cell < n_owned && other < n_owned) == (kind == Kind::owned));
    }
  };

  /// One axis pass (axis @p d) of the cascade over the structured pairs
  /// that @p pairs selects (all by default): the copies on every face pair
  /// normal to d replaced by their sum (mean). The distributed DSS
  /// exchanges the face layers on rank boundaries between the passes
  /// (storage/mpi_distributed_dss.h).
  template <typename Number, typename Layout>
  void
  dss_axis_pass(const Level                                   &level,
                CellVector<Number, MemorySpace::Host, Layout> &v,
                DssMode                                        mode,
                const TraceLayers                             &layers,
                unsigned int                                   d,
                const DssPairs                                &pairs = {});

  /// FE_Q's DSS with the level's skeleton phase kept by the caller (empty on
  /// a level without skeleton).
  template <typename Number, typename Layout>
  void
  apply_dss(const Level &level, const DssSkeleton &skeleton, CellVector<Number, MemorySpace::Host, Layout> &v, DssMode mode);
} // namespace cellwise
