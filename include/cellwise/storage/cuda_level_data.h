#pragma once
/**
 * @file
 * The device copy of what the kernels of one level need from a Level: the six
 * structured face neighbours per cell (encoded as in face_neighbor; a
 * skeleton face of an unstructured mesh reads as none, as
 * Level::structured_neighbor says), the cell sizes, whether the cells fill a
 * box of the lattice, and on a level with skeleton faces the groups of the
 * DSS's second phase (storage/dss.h: DssSkeleton), uploaded as they are
 * built on the host. Uploaded once at construction; compiles with a plain
 * C++ compiler (implemented in source/storage/cuda_level_data.cu).
 *
 * It lives in storage and not in mesh because the skeleton phase is built
 * from the level's DoF numbering (storage/dof_numbering.h).
 */

#include <cellwise/mesh/level.h>

#include <cstddef>
#include <cstdint>

namespace cellwise
{
  namespace cuda
  {
    /// The device arrays of a level's skeleton phase: group g's copies are
    /// entries group_start[g] .. group_start[g + 1] − 1 of cells, dofs and
    /// weights (DssSkeleton's groups, in its order).
    struct DeviceDssSkeleton
    {
      unsigned int        degree      = 0;
      std::size_t         n_groups    = 0;
      const std::size_t  *group_start = nullptr;
      const unsigned int *cells       = nullptr;
      const unsigned int *dofs        = nullptr;
      /// 0, or the number of copies of the block this copy represents.
      const std::uint8_t *weights = nullptr;
    };

    class LevelData
    {
    public:
      LevelData() = default;
      /// Upload what the device kernels need of @p level. On a level with
      /// skeleton faces (an unstructured coarse mesh) the DSS's second phase
      /// depends on the degree of FE_Q's nodes: @p fe_degree (≥ 1) is then
      /// required, and the DSS takes vectors of that degree only. Elsewhere
      /// it is not used.
      explicit LevelData(const Level &level, unsigned int fe_degree = 0);
      LevelData(const LevelData &) = delete;
      LevelData &
      operator=(const LevelData &) = delete;
      LevelData(LevelData &&other) noexcept;
      LevelData &
      operator=(LevelData &&other) noexcept;
      ~LevelData();

      /// Upload the neighbour table, cell sizes and skeleton phase of @p level.
      void
      reinit(const Level &level, unsigned int fe_degree = 0);

      unsigned int
      n_cells() const
      {
        return n_cells_;
      }
      /// Device array of 6 n_cells() entries: neighbors[6 cell + face], the
      /// structured neighbours.
      const int *
      neighbors() const
      {
        return neighbors_;
      }
      /// On a level that fills a box, device array of 8 n_cells() entries:
      /// the 2 × 2 × 2 sub-box of cells above each cell, entry 8 cell + s the
      /// cell in slot s = s_x + 2 s_y + 4 s_z (-1: none) for s ≥ 1, and
      /// entry 8 cell + 0 the bits of its neighbours below (bit d: one along
      /// d). One 32-byte read instead of the neighbour table's three
      /// dependent ones (row, then the cells above along x and y of the
      /// cells above, then the corner): the one-pass vertex kernels of the
      /// Hermite element then wait for one memory latency before their loads
      /// instead of three. Made on the device from the face table at the
      /// first call (kept until the level data goes), so that levels whose
      /// kernels do not read it (FE_Q) pay neither its 32 bytes a cell nor
      /// its set-up. Throws on a level that does not fill a box. (The first
      /// call allocates: not from two host threads at once.)
      const int *
      sub_boxes() const;
      /// Device array of 3 n_cells() entries: sizes[3 cell + d] = h_d.
      const double *
      cell_sizes() const
      {
        return sizes_;
      }
      /// Level::fills_box() of the level (the device DSS then runs as one pass).
      bool
      fills_box() const
      {
        return fills_box_;
      }
      /// Whether the level has skeleton faces, whose nodes the DSS completes
      /// in a second phase.
      bool
      has_skeleton() const
      {
        return skeleton_.n_groups > 0;
      }
      /// The skeleton phase's device arrays (n_groups 0 without skeleton).
      const DeviceDssSkeleton &
      skeleton() const
      {
        return skeleton_;
      }

    private:
      void
      release() noexcept;
      /// Build the host DssSkeleton of @p level for FE_Q of @p fe_degree and
      /// upload its groups.
      void
      upload_skeleton(const Level &level, unsigned int fe_degree);

      unsigned int      n_cells_   = 0;
      int              *neighbors_ = nullptr;
      mutable int      *sub_boxes_ = nullptr;
      double           *sizes_     = nullptr;
      bool              fills_box_ = false;
      DeviceDssSkeleton skeleton_;
    };
  } // namespace cuda
} // namespace cellwise
