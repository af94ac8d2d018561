#pragma once
// The import's path for coarse meshes that are not lattices (private to
// source/dealii): import_unstructured.cc.

#include <cellwise/dealii/import.h>

namespace dealii
{
  template <int dim, int spacedim>
  class Mapping;
  template <int dim, int spacedim>
  class Triangulation;
} // namespace dealii

namespace cellwise::dealii::internal
{
  /// The levels of @p tria as blocks (one per coarse cell, in its own frame)
  /// with skeleton faces between them, every cell mapped by @p mapping
  /// (MappingQ(k): its support points are the cell's mapping nodes).
  void
  import_unstructured_levels(const ::dealii::Mapping<3, 3> &mapping, const ::dealii::Triangulation<3, 3> &tria,
                             ImportedHierarchy &result);
} // namespace cellwise::dealii::internal
