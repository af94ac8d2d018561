#include <cellwise/base/exceptions.h>
#include <cellwise/mesh/level.h>
#include <cellwise/multigrid/adaptive_v_cycle.h>
#include <cellwise/multigrid/capabilities.h>

namespace cellwise
{
  std::string
  unsupported_reason(const Configuration &c)
  {
    const bool curved_or_mapped = c.geometry == MeshGeometry::mapped || c.geometry == MeshGeometry::unstructured;
    const bool device           = c.backend == Backend::cuda;
    const bool local            = c.refinement == MeshRefinement::local;
    // One rule per hole, most general first: a configuration with several
    // holes is told of the first, and the option that fills it.
    if (local && c.precision == Precision::mixed && c.equation == Equation::biharmonic)
      return "mixed precision with local smoothing is not built for the Hermite element yet (use precision fp64)";
    if (local && c.precision == Precision::mixed && device && c.distributed)
      return "mixed precision with local smoothing runs on the device on one rank so far (use precision fp64, the host "
             "backend on ranks, or one rank)";
    if (c.equation == Equation::biharmonic)
      {
        if (c.geometry != MeshGeometry::box)
          return "the Hermite element takes the cells of one box only so far (use a box mesh)";
        if (c.smoother == SmootherType::jacobi)
          return "damped Jacobi is not a smoother of the Hermite element (use chebyshev, 001 §5.1, or patch, the vertex "
                 "blocks of 001 §5.2)";
        if (c.distributed)
          return "the biharmonic problem does not run on MPI ranks yet (run it on one rank)";
        return {};
      }
    if (c.distributed && c.geometry == MeshGeometry::unstructured)
      return "unstructured meshes do not run on MPI ranks yet (run them on one rank)";
    if (local && curved_or_mapped && (device || c.distributed))
      return "locally refined mapped or unstructured meshes run on the host backend on one rank only so far (use "
             "backend host on one rank, or a box mesh)";
    if (device && curved_or_mapped && c.smoother == SmootherType::patch)
      return "the vertex-patch smoother of mapped cells is not built on the device (use smoother chebyshev or jacobi, "
             "or the host backend)";
    if (device && c.distributed && curved_or_mapped)
      return "mapped cells on MPI ranks are not built on the device (use the host backend, or one rank)";
    return {};
  }

  void
  check_supported(const Configuration &configuration, const std::string &caller)
  {
    const std::string reason = unsupported_reason(configuration);
    if (!reason.empty())
      throw Error(caller + ": " + reason);
  }

  Configuration
  configuration_of(const LevelHierarchy &hierarchy, const MultigridParameters &parameters, const bool distributed)
  {
    Configuration c;
    c.equation    = Equation::poisson;
    c.refinement = hierarchy.n_levels() > 0 && is_locally_refined(hierarchy) ? MeshRefinement::local : MeshRefinement::uniform;
    c.geometry   = MeshGeometry::box; // a lattice is box cells to every solver
    for (const Level &level : hierarchy.levels)
      if (level.has_skeleton())
        c.geometry = MeshGeometry::unstructured;
      else if (!level.mapping.empty() && c.geometry != MeshGeometry::unstructured)
        c.geometry = MeshGeometry::mapped;
    c.precision   = parameters.precision;
    c.smoother    = parameters.smoother;
    c.distributed = distributed;
    c.backend     = parameters.backend;
    return c;
  }

  std::vector<Configuration>
  meaningful_configurations(const Backend backend)
  {
    std::vector<Configuration> all;
    for (const Equation equation : {Equation::poisson, Equation::biharmonic})
      for (const MeshGeometry geometry :
           {MeshGeometry::box, MeshGeometry::lattice, MeshGeometry::mapped, MeshGeometry::unstructured})
        for (const MeshRefinement refinement : {MeshRefinement::uniform, MeshRefinement::local})
          for (const Precision precision : {Precision::fp64, Precision::mixed})
            for (const SmootherType smoother : {SmootherType::jacobi, SmootherType::chebyshev, SmootherType::patch})
              for (const bool distributed : {false, true})
                {
                  if (equation == Equation::biharmonic && (geometry != MeshGeometry::box || smoother == SmootherType::jacobi))
                    continue;
                  all.push_back({equation, geometry, refinement, precision, smoother, distributed, backend});
                }
    return all;
  }

  std::string
  to_string(const Equation equation)
  {
    return equation == Equation::poisson ? "poisson" : "biharmonic";
  }

  std::string
  to_string(const MeshGeometry geometry)
  {
    switch (geometry)
      {
        case MeshGeometry::box:
          return "box";
        case MeshGeometry::lattice:
          return "lattice";
        case MeshGeometry::mapped:
          return "mapped";
        default:
          return "unstructured";
      }
  }

  std::string
  to_string(const MeshRefinement refinement)
  {
    return refinement == MeshRefinement::uniform ? "uniform" : "local";
  }
} // namespace cellwise
