#pragma once
/**
 * @file
 * Direct stiffness summation S = G G^T and rebalancing Pi on the device: the
 * same pairing of face DoFs (fe/face_dofs.h) and the same arithmetic as
 * the three axis passes of the host apply_dss in cellwise/storage/dss.h, so
 * that the results agree bit for bit. For the blocked layout on a level that
 * fills a box (Level::fills_box) one launch gathers the copies of every node
 * and writes the combined value once (Q3: 7/8 of the vector read and written,
 * against 3/2 for three passes); otherwise three launches, one per axis. On
 * a level with skeleton faces (LevelData::has_skeleton: an unstructured
 * coarse mesh) the axis passes pair the structured faces only, and a fourth
 * launch, the skeleton phase, completes the skeleton's nodes as the host's
 * DssSkeleton does, bit for bit.
 */

#include <cellwise/storage/cuda_level_data.h>
#include <cellwise/storage/cuda_cell_vector.h>
#include <cellwise/storage/dss.h>

namespace cellwise
{
  namespace cuda
  {
    enum class DssSchedule
    {
      /// one pass for the blocked layout on a level that fills a box, else
      /// the axis passes
      automatic,
      /// the three axis passes
      axis_passes,
      /// one pass (the level must fill a box); in the cell-contiguous layout
      /// its accesses do not coalesce and it is slower than the axis passes
      one_pass
    };

    /// In-place DSS of @p v over the faces of the level of @p level_data.
    template <typename Number, typename Layout>
    void
    apply_dss(const LevelData                                &level_data,
              CellVector<Number, MemorySpace::CUDA, Layout> &v,
              DssMode                                         mode     = DssMode::sum,
              DssSchedule                                     schedule = DssSchedule::automatic);

    /// The same over the trace layers @p layers of the element (both layers
    /// of the cubic Hermite element, fe/face_dofs.h; the twin of the host
    /// apply_dss with layers). Two layers take the axis passes: the one-pass
    /// schedule gathers the copies of FE_Q's nodes and is refused for them.
    template <typename Number, typename Layout>
    void
    apply_dss(const LevelData                               &level_data,
              CellVector<Number, MemorySpace::CUDA, Layout> &v,
              DssMode                                        mode,
              const TraceLayers                             &layers,
              DssSchedule                                    schedule = DssSchedule::automatic);

    /// Axis pass @p d (0, 1, 2) of the cascade alone over the pairs that
    /// @p pairs selects, the twin of the host dss_axis_pass: the DSS across
    /// MPI ranks sums the owned pairs while the face layers of axis d
    /// travel and the others after (storage/mpi_distributed_dss.h).
    template <typename Number, typename Layout>
    void
    dss_axis_pass(const LevelData                               &level_data,
                  CellVector<Number, MemorySpace::CUDA, Layout> &v,
                  DssMode                                        mode,
                  unsigned int                                   d,
                  const DssPairs                                &pairs = {});
  } // namespace cuda
} // namespace cellwise
