// Local smoothing across MPI ranks (doc/mpi.md, "Locally refined meshes"):
// the refinement-edge and free masks of every level equal the serial ones
// on the owned cells, and DistributedMultigridSolver on a locally refined
// hierarchy gives MultigridSolver's iteration counts and solution
// (Chebyshev, Jacobi and vertex-patch smoothing, CG and the stationary
// iteration, Q2–Q4), on partitions that cut the refined region.

#include <cellwise/mesh/adaptive_builder.h>
#include <cellwise/multigrid/mpi_distributed_refinement_edge.h>
#include <cellwise/multigrid/refinement_edge.h>

#include "mpi_test_utilities.h"

using namespace cellwise;
using namespace cellwise::testing;

namespace
{
  /// The locally refined hierarchies of the tests: the octant (a jump of two
  /// levels across its faces) and the ball on the unequal box, and the
  /// octant on the row, whose cuts split families.
  struct Mesh
  {
    const char    *name;
    BoxDescription box;
    const char    *marker;
  };
  std::vector<Mesh>
  meshes()
  {
    return {{"octant", unequal_mpi_box(), "octant"}, {"ball", unequal_mpi_box(), "ball"},
            {"octant on the row", family_cutting_mpi_row(), "octant"}};
  }

  /// The host solve against MultigridSolver's, to 1e-12.
  void
  compare(const Mesh &mesh, const unsigned int degree, const MultigridParameters &parameters, const std::string &what)
  {
    compare_with_serial_adaptive_solver(parameters, degree, 1e-12, what + " (" + mesh.name + ")", mesh.box, mesh.marker);
  }

  MultigridParameters
  parameters(const SmootherType smoother, const OuterIteration outer = OuterIteration::cg)
  {
    MultigridParameters p;
    p.smoother = smoother;
    p.outer    = outer;
    return p;
  }
} // namespace

TEST(DistributedAdaptive, FreeMaskEqualsTheSerialOneOnEveryLevel)
{
  const int rank = mpi_rank(MPI_COMM_WORLD), size = mpi_size(MPI_COMM_WORLD);
  for (const Mesh &mesh : meshes())
    for (const unsigned int degree : {2u, 3u})
      {
        const LevelHierarchy h     = make_adaptive_box_hierarchy(mesh.box, 1, 2, make_marker(mesh.marker, mesh.box));
        const auto           owner = morton_partition(h, size);
        std::size_t          edge_copies = 0;
        for (unsigned int l = 0; l < h.n_levels(); ++l)
          {
            const LocalLevel local = make_local_level(h.level(l), owner[l], rank);
            const auto       level = std::make_shared<const DistributedLevel>(local, MPI_COMM_WORLD, h.level(l).n_cells(),
                                                                        lagrange_trace_layers(degree));
            const auto edge = make_distributed_refinement_edge_mask<double>(level, degree);
            const auto free = make_distributed_free_mask<double>(level, degree);
            const auto serial_edge = make_refinement_edge_mask<double>(h.level(l), degree);
            EXPECT_EQ(owned_mismatches(local, edge.local(), serial_edge), 0u) << mesh.name << ", level " << l << ", Q" << degree;
            EXPECT_EQ(owned_mismatches(local, free.local(), make_free_mask<double>(h.level(l), degree)), 0u)
              << mesh.name << ", level " << l << ", Q" << degree;
            for (unsigned int c = 0; c < serial_edge.n_cells(); ++c)
              for (unsigned int i = 0; i < serial_edge.dofs_per_cell(); ++i)
                edge_copies += serial_edge(c, i) != 0;
          }
        EXPECT_GT(edge_copies, 0u) << "no refinement edge: the test compares nothing";
      }
}

TEST(DistributedAdaptive, ChebyshevSolvesAsTheSerialAdaptiveSolver)
{
  for (const Mesh &mesh : meshes())
    compare(mesh, 2, parameters(SmootherType::chebyshev), "Chebyshev CG");
  compare(meshes()[0], 3, parameters(SmootherType::chebyshev), "Chebyshev CG");
  compare(meshes()[0], 4, parameters(SmootherType::chebyshev), "Chebyshev CG");
}

TEST(DistributedAdaptive, JacobiSolvesAsTheSerialAdaptiveSolver)
{
  compare(meshes()[1], 2, parameters(SmootherType::jacobi), "Jacobi CG");
  compare(meshes()[2], 3, parameters(SmootherType::jacobi, OuterIteration::stationary), "Jacobi stationary");
}

TEST(DistributedAdaptive, VertexPatchSmootherSolvesAsTheSerialAdaptiveSolver)
{
  compare(meshes()[0], 2, parameters(SmootherType::patch, OuterIteration::stationary), "patch stationary");
  compare(meshes()[2], 3, parameters(SmootherType::patch), "patch CG");
  compare(meshes()[1], 4, parameters(SmootherType::patch), "patch CG");
}

TEST(DistributedAdaptive, MixedPrecisionSolvesAsTheSerialAdaptiveSolver)
{
  // FP32 levels in the FP64 routing and rebuilding of the refinement-edge
  // copies (mixed_local_smoothing.h), on every rank's part
  MultigridParameters mixed = parameters(SmootherType::chebyshev);
  mixed.precision           = Precision::mixed;
  for (const Mesh &mesh : meshes())
    compare(mesh, 2, mixed, "mixed Chebyshev CG");
  MultigridParameters patch = parameters(SmootherType::patch, OuterIteration::stationary);
  patch.precision           = Precision::mixed;
  compare(meshes()[2], 3, patch, "mixed patch stationary");
}
