#include <cellwise/multigrid/adaptive_v_cycle.h>

#include <algorithm>

namespace cellwise
{
  bool
  is_locally_refined(const LevelHierarchy &hierarchy)
  {
    for (unsigned int l = 0; l + 1 < hierarchy.n_levels(); ++l)
      if (hierarchy.level(l).n_refined_cells() != hierarchy.level(l).n_cells())
        return true;
    return false;
  }

  ActiveMesh
  make_active_mesh(const LevelHierarchy &hierarchy)
  {
    CELLWISE_CHECK(hierarchy.n_levels() > 0, "make_active_mesh: empty hierarchy");
    ActiveMesh         mesh;
    const unsigned int n_levels = hierarchy.n_levels();
    mesh.level_offset.assign(n_levels + 1, 0);
    mesh.active_cells.resize(n_levels);
    mesh.active_index.resize(n_levels);
    unsigned int count = 0;
    for (unsigned int l = 0; l < n_levels; ++l)
      {
        const Level &level = hierarchy.level(l);
        mesh.level_offset[l] = count;
        mesh.active_index[l].assign(level.n_cells(), -1);
        for (unsigned int c = 0; c < level.n_cells(); ++c)
          if (level.is_active(c))
            {
              CELLWISE_CHECK(!level.is_refined(c), "cell " << c << " of level " << l << " is flagged both active and refined");
              mesh.active_index[l][c] = static_cast<int>(count++);
              mesh.active_cells[l].push_back(c);
              mesh.level_of.push_back(l);
              mesh.cell_of.push_back(c);
            }
      }
    mesh.level_offset[n_levels] = count;

    Level &active = mesh.level;
    active.boxes.resize(count);
    active.coordinates.resize(count);
    active.parent.assign(count, -1);
    active.child_slot.assign(count, 0);
    active.children.assign(count, {{-1, -1, -1, -1, -1, -1, -1, -1}});
    active.neighbors.resize(count);
    active.flags.assign(count, cell_flags::active);
    active.n_owned_cells = count;
    for (unsigned int a = 0; a < count; ++a)
      {
        const Level       &level = hierarchy.level(mesh.level_of[a]);
        const unsigned int c     = mesh.cell_of[a];
        active.boxes[a]          = level.boxes[c];
        active.coordinates[a]    = level.coordinates[c];
        for (unsigned int face = 0; face < 6; ++face)
          {
            const int neighbor = level.neighbors[c][face];
            if (face_neighbor::is_cell(neighbor))
              {
                const int index = mesh.active_index[mesh.level_of[a]][neighbor];
                // a refined neighbour: the face is hanging, seen from the coarse side
                active.neighbors[a][face] = index >= 0 ? index : face_neighbor::none;
              }
            else
              active.neighbors[a][face] = neighbor;
          }
      }

    // Curved or deformed cells: each active cell keeps its level cell's
    // mapping nodes (all levels of a hierarchy share one mapping degree).
    const CellMapping &coarse_mapping = hierarchy.level(0).mapping;
    for (unsigned int l = 1; l < n_levels; ++l)
      CELLWISE_CHECK(hierarchy.level(l).mapping.degree == coarse_mapping.degree,
                     "make_active_mesh: level " << l << " is mapped with degree " << hierarchy.level(l).mapping.degree
                                                << ", level 0 with " << coarse_mapping.degree << " (0: box cells)");
    if (!coarse_mapping.empty())
      {
        active.mapping.degree = coarse_mapping.degree;
        const unsigned int n  = coarse_mapping.nodes_per_cell();
        active.mapping.nodes.resize(std::size_t(count) * n);
        for (unsigned int a = 0; a < count; ++a)
          {
            const Point *nodes = hierarchy.level(mesh.level_of[a]).mapping.cell_nodes(mesh.cell_of[a]);
            std::copy(nodes, nodes + n, active.mapping.nodes.data() + std::size_t(a) * n);
          }
      }

    // Unstructured meshes: the skeleton faces between active cells of the
    // same level (a refined neighbour makes the face hanging: none, as above).
    bool any_skeleton = false;
    for (const Level &level : hierarchy.levels)
      any_skeleton = any_skeleton || level.has_skeleton();
    if (any_skeleton)
      {
        active.skeleton_mask.resize(count);
        for (unsigned int a = 0; a < count; ++a)
          active.skeleton_mask[a] = 0;
        for (unsigned int l = 0; l < n_levels; ++l)
          for (const SkeletonFace &face : hierarchy.level(l).skeleton_faces)
            {
              const int a = mesh.active_index[l][face.cell];
              const int b = mesh.active_index[l][face.neighbor];
              if (a < 0 || b < 0)
                continue;
              SkeletonFace active_face = face;
              active_face.cell         = static_cast<unsigned int>(a);
              active_face.neighbor     = b;
              active.skeleton_faces.push_back(active_face);
              active.skeleton_mask[a] |= std::uint8_t(1u << face.face);
            }
      }
    return mesh;
  }
} // namespace cellwise
