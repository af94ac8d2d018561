#pragma once
/**
 * @file
 * The distribution (17) and reassembly (18) of the adaptive V-cycle on the
 * device (003 Algorithm 4, doc/adaptive.md): the device twin of
 * cellwise::HostActiveLevelTransfer (distribute_to_levels and
 * gather_from_levels in multigrid/adaptive_v_cycle.h), plain copies, so
 * host and device results agree exactly.
 *
 * Per level ℓ two device tables, uploaded once from the ActiveMesh, that
 * together hold the (active index, level cell) pairs of the level:
 *  - active_index[ℓ][c]: the active index of level cell c, −1 where c is
 *    refined (drives the distribution, which writes every level entry once:
 *    the value on active cells, zero on refined ones — no separate zeroing);
 *  - active_cells[ℓ][j]: the level cell of active index level_offset[ℓ] + j
 *    (drives the reassembly, which writes every active entry of ℓ once).
 * Both maps are increasing, so the gathered side of each copy is read in
 * (nearly) contiguous runs as well.
 *
 * Compiles with a plain C++ compiler; the kernels live in
 * source/multigrid/cuda_active_mesh_transfer.cu.
 */

#include <cellwise/multigrid/adaptive_v_cycle.h>
#include <cellwise/storage/cuda_cell_vector.h>

#include <vector>

namespace cellwise
{
  namespace cuda
  {
    template <typename Number, typename Layout = CellContiguous>
    class ActiveMeshTransfer : public ActiveLevelTransfer<CellVector<Number, MemorySpace::CUDA, Layout>>
    {
    public:
      using VectorType = CellVector<Number, MemorySpace::CUDA, Layout>;

      ActiveMeshTransfer() = default;
      /// Upload the tables of all levels of @p mesh.
      explicit ActiveMeshTransfer(const ActiveMesh &mesh);
      ActiveMeshTransfer(const ActiveMeshTransfer &) = delete;
      ActiveMeshTransfer &
      operator=(const ActiveMeshTransfer &) = delete;
      ~ActiveMeshTransfer() override;

      void
      reinit(const ActiveMesh &mesh);

      unsigned int
      n_levels() const override
      {
        return static_cast<unsigned int>(level_n_cells_.size());
      }
      std::size_t
      n_level_cells(const unsigned int level) const override
      {
        return level_n_cells_.at(level);
      }
      std::size_t
      n_active_cells() const override
      {
        return level_offset_.empty() ? 0 : level_offset_.back();
      }

      /// (17) for all levels: level_vectors[ℓ] = active on the active cells
      /// of ℓ, zero on the refined ones (shapes checked).
      void
      distribute(const VectorType &active, std::vector<VectorType> &level_vectors) const override;
      /// (18) for all levels: active|_K = level_vectors[ℓ]|_K on the active
      /// cells K of ℓ; @p active is resized if its shape differs.
      void
      reassemble(const std::vector<VectorType> &level_vectors, VectorType &active) const override;

      /// (17) for one level (one kernel launch).
      void
      distribute_level(unsigned int level, const VectorType &active, VectorType &level_vector) const;
      /// (18) for one level (one kernel launch): only the active entries of
      /// @p level are written.
      void
      reassemble_level(unsigned int level, const VectorType &level_vector, VectorType &active) const;

    private:
      void
      check_shapes(unsigned int level, const VectorType &active, const VectorType &level_vector, const char *what) const;
      void
      release() noexcept;

      /// As ActiveMesh::level_offset (n_levels + 1 entries).
      std::vector<unsigned int> level_offset_;
      std::vector<unsigned int> level_n_cells_;
      /// Device arrays per level, see the file comment.
      std::vector<int *>          active_index_;
      std::vector<unsigned int *> active_cells_;
    };
  } // namespace cuda
} // namespace cellwise
