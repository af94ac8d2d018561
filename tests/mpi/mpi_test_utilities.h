#pragma once
// What the MPI tests share: a rank's part of a serial vector (ghosts NaN, so
// that a value an exchange fails to deliver shows), the exact comparison
// of the owned cells with the serial vector, and the distributed solver
// against the serial one (uniform and locally refined, from the replicated
// hierarchy and from a BoxPartition).

#include <cellwise/base/mpi_check.h>
#include <cellwise/mesh/adaptive_builder.h>
#include <cellwise/mesh/box_builder.h>
#include <cellwise/mesh/box_partition.h>
#include <cellwise/mesh/cell_mapping.h>
#include <cellwise/mesh/mapped_partitioned_hierarchy.h>
#include <cellwise/mesh/partition.h>
#include <cellwise/multigrid/host_vector_solvers.h>
#include <cellwise/multigrid/mpi_distributed_multigrid_solver.h>
#include <cellwise/multigrid/solver_control.h>
#include <cellwise/operators/function_tools.h>
#include <cellwise/storage/cell_vector.h>
#include <cellwise/storage/dirichlet_mask.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <iostream>
#include <limits>
#include <memory>
#include <string>

#include "test_utilities.h"

namespace cellwise::testing
{
  /// A box of 3 × 2 × 2 coarse cells of unequal sizes, whose Morton cuts
  /// put rank boundaries along every axis.
  inline BoxDescription
  unequal_mpi_box()
  {
    BoxDescription box;
    box.upper        = {{3., 2., 1.5}};
    box.subdivisions = {{3, 2, 2}};
    return box;
  }

  /// Five coarse cells in a row: refined twice, the Morton cuts of 2, 3 and
  /// 4 ranks fall inside coarse cells, so families are split across ranks
  /// (the transfers then exchange cells; on unequal_mpi_box they do not).
  inline BoxDescription
  family_cutting_mpi_row()
  {
    BoxDescription box;
    box.upper        = {{5., 1.2, 0.9}};
    box.subdivisions = {{5, 1, 1}};
    return box;
  }

  /// Finest-level cuts of family_cutting_mpi_row() refined twice (5 · 64
  /// cells) over @p size >= 2 ranks that leave ranks without cells, as
  /// p4est does where a mesh has fewer families of leaves than ranks: the
  /// first rank, and with 3 ranks or more the last, own no cell; the others
  /// split the row unevenly.
  inline std::vector<std::uint64_t>
  row_cuts_with_empty_ranks(const int size)
  {
    const std::uint64_t        n = 5 * 64;
    std::vector<std::uint64_t> cuts{0, 0};
    const int                  owning = size >= 3 ? size - 2 : 1;
    for (int r = 1; r <= owning; ++r)
      cuts.push_back(r == owning ? n : std::uint64_t(r) * n / std::uint64_t(owning) + 3);
    if (size >= 3)
      cuts.push_back(n);
    return cuts;
  }

  /// The owned cells of @p serial on @p local; ghost cells NaN.
  template <typename Number, typename Layout>
  CellVector<Number, MemorySpace::Host, Layout>
  local_part(const LocalLevel &local, const CellVector<Number, MemorySpace::Host, Layout> &serial)
  {
    CellVector<Number, MemorySpace::Host, Layout> v(local.level.n_cells(), serial.degree());
    for (unsigned int k = 0; k < local.level.n_cells(); ++k)
      for (unsigned int i = 0; i < serial.dofs_per_cell(); ++i)
        v(k, i) = k < local.n_owned_cells() ? serial(local.serial_index[k], i) : std::numeric_limits<Number>::quiet_NaN();
    return v;
  }

  /// Entries of the owned cells of @p local that differ from the serial
  /// vector's (exact comparison).
  template <typename Number, typename Layout>
  std::size_t
  owned_mismatches(const LocalLevel                                    &local,
                   const CellVector<Number, MemorySpace::Host, Layout> &distributed,
                   const CellVector<Number, MemorySpace::Host, Layout> &serial)
  {
    std::size_t wrong = 0;
    for (unsigned int k = 0; k < local.n_owned_cells(); ++k)
      for (unsigned int i = 0; i < serial.dofs_per_cell(); ++i)
        wrong += !(distributed(k, i) == serial(local.serial_index[k], i));
    return wrong;
  }

  /// The largest |u − reference| and the largest |reference| over the
  /// first @p n_cells cells of @p u, cell c against the reference's cell
  /// @p serial(c); a NaN difference counts as infinite (a failure).
  struct SolutionDifference
  {
    double difference = 0, largest = 0;
  };
  template <typename SerialIndex>
  SolutionDifference
  solution_difference(const CellVector<double> &u, const CellVector<double> &reference, const unsigned int n_cells,
                      const SerialIndex &serial)
  {
    SolutionDifference result;
    for (unsigned int c = 0; c < n_cells; ++c)
      for (unsigned int i = 0; i < u.dofs_per_cell(); ++i)
        {
          const double e    = std::abs(u(c, i) - reference(serial(c), i));
          result.difference = std::isnan(e) ? std::numeric_limits<double>::infinity() : std::max(result.difference, e);
          result.largest    = std::max(result.largest, std::abs(reference(serial(c), i)));
        }
    return result;
  }

  /// The serial reference of the solver comparisons: a random right-hand
  /// side on the finest level of @p h (zero on the Dirichlet DoFs) and
  /// make_host_vector_solver's solution of it, CG or the stationary
  /// iteration to 1e-10.
  struct SerialSolve
  {
    CellVector<double> b, u;
    SolveStatistics    statistics;
  };
  inline SerialSolve
  solve_serially(const LevelHierarchy &h, const unsigned int degree, const MultigridParameters &parameters, const unsigned int seed)
  {
    SerialSolve result;
    result.b = CellVector<double>(h.levels.back().n_cells(), degree);
    fill_random(result.b, seed);
    result.b.scale(make_dirichlet_mask<double>(h.levels.back(), degree));
    MonitorControl control(100, 1e-10);
    result.statistics = make_host_vector_solver(h, degree, parameters)->solve(result.u, result.b, control);
    return result;
  }

  /// The serial solver (make_host_vector_solver) and DistributedMultigridSolver
  /// with @p parameters (either backend) on @p box refined twice, CG or the
  /// stationary iteration to 1e-10: equal iteration counts, solutions within
  /// @p tolerance of the serial maximum. Collective.
  inline void
  compare_with_serial_solver(const MultigridParameters &parameters,
                             const unsigned int         degree,
                             const double               tolerance,
                             const std::string         &what,
                             const BoxDescription      &box = unequal_mpi_box())
  {
    const MPI_Comm       comm = MPI_COMM_WORLD;
    const int            rank = mpi_rank(comm), size = mpi_size(comm);
    const LevelHierarchy      h      = make_box_hierarchy(box, 2);
    const SerialSolve         serial = solve_serially(h, degree, parameters, 7);
    const CellVector<double> &b = serial.b, &u_serial = serial.u;
    const SolveStatistics    &serial_statistics = serial.statistics;

    const DistributedMultigridSolver distributed(h, degree, parameters, comm);
    CellVector<double>               u;
    MonitorControl                   control(100, 1e-10);
    const auto                       statistics = distributed.solve(u, b, control);

    const auto [difference, largest] = solution_difference(u, u_serial, u.n_cells(), [](const unsigned int c) { return c; });
    EXPECT_EQ(distributed.backend(), parameters.backend) << what;
    EXPECT_EQ(statistics.iterations(), serial_statistics.iterations()) << what << ", Q" << degree;
    EXPECT_GE(serial_statistics.iterations(), 2u) << "a solve that tests nothing";
    EXPECT_LE(difference, tolerance * largest) << what << ", Q" << degree;
    if (rank == 0)
      std::cout << "  " << what << ", Q" << degree << ", " << size << " ranks: " << statistics.iterations()
                << " iterations (serial " << serial_statistics.iterations() << "), solution difference "
                << difference / largest << std::endl;
  }

  /// The serial adaptive solver (make_adaptive_host_vector_solver) and
  /// DistributedMultigridSolver with @p parameters (either backend) on
  /// @p box refined once and then twice locally by @p marker: the sine
  /// problem's right-hand side, CG or the stationary iteration to 1e-10,
  /// equal iteration counts, solutions within @p tolerance of the serial
  /// maximum. Collective.
  inline void
  compare_with_serial_adaptive_solver(const MultigridParameters &parameters,
                                      const unsigned int         degree,
                                      const double               tolerance,
                                      const std::string         &what,
                                      const BoxDescription      &box,
                                      const std::string         &marker)
  {
    const int            rank = mpi_rank(MPI_COMM_WORLD), size = mpi_size(MPI_COMM_WORLD);
    const LevelHierarchy h    = make_adaptive_box_hierarchy(box, 1, 2, make_marker(marker, box));
    const auto           serial = make_adaptive_host_vector_solver(h, degree, parameters);
    CellVector<double>   b, u_serial(serial->active_mesh().n_active_cells(), degree);
    assemble_right_hand_side(serial->active_mesh().level, degree, sine_load, b);
    MonitorControl serial_control(100, 1e-10);
    const auto     serial_statistics = serial->solve(u_serial, b, serial_control);

    const DistributedMultigridSolver distributed(h, degree, parameters, MPI_COMM_WORLD);
    ASSERT_NE(distributed.active_mesh(), nullptr);
    EXPECT_EQ(distributed.active_mesh()->n_active_cells(), serial->active_mesh().n_active_cells());
    CellVector<double> u;
    MonitorControl     control(100, 1e-10);
    const auto         statistics = distributed.solve(u, b, control);

    ASSERT_EQ(u.n_cells(), u_serial.n_cells());
    const auto [difference, largest] = solution_difference(u, u_serial, u.n_cells(), [](const unsigned int c) { return c; });
    const std::string label = what + " on the " + marker + " refinement, Q" + std::to_string(degree);
    EXPECT_EQ(distributed.backend(), parameters.backend) << label;
    EXPECT_EQ(statistics.iterations(), serial_statistics.iterations()) << label;
    EXPECT_GE(serial_statistics.iterations(), 3u) << "a solve that tests nothing";
    EXPECT_LE(difference, tolerance * largest) << label;
    if (rank == 0)
      std::cout << "  " << label << ", " << size << " ranks: " << statistics.iterations() << " iterations (serial "
                << serial_statistics.iterations() << "), solution difference " << difference / largest << std::endl;
  }

  /// DistributedMultigridSolver with @p parameters (either backend) on
  /// @p box refined twice, built from a BoxPartition (no rank holds the
  /// serial hierarchy), against the same solver on the replicated hierarchy
  /// and against the serial solver: a random right-hand side, CG or the
  /// stationary iteration to 1e-10. The partitioned solve must equal the
  /// replicated one bit for bit (the same local levels, start vectors and
  /// order of operations) and give the serial iteration count, its solution
  /// within @p tolerance of the serial maximum. With @p map, the box
  /// deformed by it (a mapping of degree 1 on every level; the partition
  /// through MappedPartitionedHierarchy). With @p cuts, the finest level
  /// cut there (BoxPartition's second constructor; ranks may own no cell),
  /// and the replicated solver takes the same owners. Collective.
  inline void
  compare_box_partition_solver(const MultigridParameters        &parameters,
                               const unsigned int                degree,
                               const double                      tolerance,
                               const std::string                &what,
                               const BoxDescription             &box,
                               const PointMap                   &map  = {},
                               const std::vector<std::uint64_t> &cuts = {})
  {
    const MPI_Comm comm = MPI_COMM_WORLD;
    const int      rank = mpi_rank(comm), size = mpi_size(comm);
    LevelHierarchy h    = make_box_hierarchy(box, 2);
    const auto     cut  = cuts.empty() ? std::make_shared<const BoxPartition>(box, 2, size)
                                       : std::make_shared<const BoxPartition>(box, 2, cuts);
    std::vector<std::vector<int>> owners; // empty: morton_partition's, the same as cut's
    if (!cuts.empty())
      for (unsigned int l = 0; l < h.n_levels(); ++l)
        {
          owners.emplace_back();
          for (unsigned int c = 0; c < h.level(l).n_cells(); ++c)
            owners.back().push_back(cut->owner(l, c));
        }
    std::shared_ptr<const PartitionedHierarchy> partition = cut;
    if (map)
      {
        map_hierarchy(h, 1, map);
        partition = std::make_shared<const MappedPartitionedHierarchy>(partition, 1, map);
      }
    const SerialSolve         serial = solve_serially(h, degree, parameters, 11);
    const CellVector<double> &b = serial.b, &u_serial = serial.u;
    const SolveStatistics    &serial_statistics = serial.statistics;

    const DistributedMultigridSolver replicated(h, degree, parameters, comm, nullptr, owners);
    CellVector<double>               u_replicated;
    MonitorControl                   replicated_control(100, 1e-10);
    const auto                       replicated_statistics = replicated.solve(u_replicated, b, replicated_control);

    const DistributedMultigridSolver partitioned(partition, degree, parameters, comm);
    const LocalLevel                &fine = *partitioned.outer_level()->local;
    for (unsigned int l = 0; l < 3; ++l)
      EXPECT_EQ(partitioned.local_level(l).serial_index, replicated.local_level(l).serial_index) << what << ", level " << l;
    auto distributed_b    = partitioned.vector();
    distributed_b.local() = local_part(fine, b);
    DistributedMultigridSolver::VectorType u; // the zero guess
    MonitorControl                         control(100, 1e-10);
    const auto                             statistics = partitioned.solve(u, distributed_b, control);

    EXPECT_EQ(statistics.iterations(), replicated_statistics.iterations()) << what << ", Q" << degree;
    EXPECT_EQ(statistics.iterations(), serial_statistics.iterations()) << what << ", Q" << degree;
    EXPECT_GE(serial_statistics.iterations(), 2u) << "a solve that tests nothing";
    EXPECT_EQ(owned_mismatches(fine, u.local(), u_replicated), 0u) << what << ", Q" << degree << ": not the replicated solve";
    const auto [owned_difference, owned_largest] =
      solution_difference(u.local(), u_serial, fine.n_owned_cells(), [&](const unsigned int k) { return fine.serial_index[k]; });
    // over all ranks (a rank may own no cell)
    double difference = 0, largest = 0;
    CELLWISE_MPI_CHECK(MPI_Allreduce(&owned_difference, &difference, 1, MPI_DOUBLE, MPI_MAX, comm));
    CELLWISE_MPI_CHECK(MPI_Allreduce(&owned_largest, &largest, 1, MPI_DOUBLE, MPI_MAX, comm));
    EXPECT_GT(largest, 0.) << what << ": a zero solution";
    EXPECT_LE(difference, tolerance * largest) << what << ", Q" << degree;
    if (rank == 0)
      std::cout << "  " << what << ", Q" << degree << ", " << size << " ranks, from a BoxPartition: "
                << statistics.iterations() << " iterations (serial " << serial_statistics.iterations()
                << "), equal to the replicated solve bit for bit, difference to the serial solution " << difference / largest
                << std::endl;
  }
} // namespace cellwise::testing
