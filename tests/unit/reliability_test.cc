// Inputs that used to give a silent wrong answer or touch freed memory are
// refused with a clear error: Dirichlet ids that no face carries (a singular,
// pure-Neumann problem), a temporary hierarchy given to a solver that keeps a
// reference to it, the solution and the right-hand side being one vector, an
// initial guess of another shape, and boxes whose cell counts overflow the
// index types of a level.

#include <cellwise/mesh/adaptive_builder.h>
#include <cellwise/mesh/box_builder.h>
#include <cellwise/multigrid/multigrid_solver.h>
#include <cellwise/multigrid/memory_estimate.h>
#include <cellwise/operators/function_tools.h>
#include <cellwise/operators/laplace_operator.h>
#include <cellwise/storage/dirichlet_mask.h>
#ifdef CELLWISE_WITH_CUDA
#  include <cellwise/multigrid/cuda_multigrid_solver.h>
#endif

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <type_traits>

using namespace cellwise;

namespace
{
  /// The message of the cellwise::Error that @p f throws ("" if none).
  template <typename F>
  std::string
  error_of(F &&f)
  {
    try
      {
        f();
      }
    catch (const Error &e)
      {
        return e.what();
      }
    return "";
  }

  bool
  contains(const std::string &text, const std::string &phrase)
  {
    return text.find(phrase) != std::string::npos;
  }

  double
  one(const Point &)
  {
    return 1.;
  }
} // namespace

TEST(Reliability, DirichletIdsThatNoFaceCarriesAreRefused)
{
  const LevelHierarchy h = make_box_hierarchy(BoxDescription{}, 1); // faces carry ids 0..5
  EXPECT_EQ(boundary_ids(h.level(0)), (std::vector<unsigned int>{0, 1, 2, 3, 4, 5}));

  MultigridParameters parameters;
  parameters.dirichlet_ids = {42};
  const std::string uniform = error_of([&] { MultigridSolver solver(h, 2, parameters); });
  EXPECT_TRUE(contains(uniform, "Dirichlet boundary id 42") && contains(uniform, "0, 1, 2, 3, 4, 5")) << uniform;
  // the same on a locally refined hierarchy (the solve on its active cells)
  const LevelHierarchy a        = make_adaptive_box_hierarchy(BoxDescription{}, 1, 2, make_octant_marker(BoxDescription{}));
  const std::string    adaptive = error_of([&] { MultigridSolver solver(a, 2, parameters); });
  EXPECT_TRUE(contains(adaptive, "Dirichlet boundary id 42")) << adaptive;

  // one bad id among good ones is still refused; good ids are accepted
  parameters.dirichlet_ids = {0, 7};
  EXPECT_TRUE(contains(error_of([&] { MultigridSolver solver(h, 2, parameters); }), "id 7"));
  parameters.dirichlet_ids = {0, 3};
  EXPECT_EQ(error_of([&] { MultigridSolver solver(h, 2, parameters); }), "");
}

TEST(Reliability, ThePatchSmootherRefusesNeumannFaces)
{
  // the patches never write boundary DoFs: on Neumann faces they are
  // unknowns that no level would smooth
  const LevelHierarchy h = make_box_hierarchy(BoxDescription{}, 2);
  MultigridParameters  parameters;
  parameters.smoother      = SmootherType::patch;
  parameters.outer         = OuterIteration::stationary;
  parameters.dirichlet_ids = {0, 3};
  const std::string uniform = error_of([&] { MultigridSolver solver(h, 2, parameters); });
  EXPECT_TRUE(contains(uniform, "vertex-patch smoother") && contains(uniform, "boundary id 1 2 4 5")) << uniform;
  const LevelHierarchy a = make_adaptive_box_hierarchy(BoxDescription{}, 1, 2, make_octant_marker(BoxDescription{}));
  EXPECT_TRUE(contains(error_of([&] { MultigridSolver solver(a, 2, parameters); }), "Neumann faces"));
  parameters.dirichlet_ids = {0, 1, 2, 3, 4, 5}; // all faces named: taken
  EXPECT_EQ(error_of([&] { MultigridSolver solver(h, 2, parameters); }), "");
  parameters.dirichlet_ids = {0, 3}; // the point smoothers take Neumann faces
  parameters.smoother      = SmootherType::chebyshev;
  parameters.outer         = OuterIteration::cg;
  EXPECT_EQ(error_of([&] { MultigridSolver solver(h, 2, parameters); }), "");
}

TEST(Reliability, SolversRefuseTemporaryHierarchies)
{
  // They keep a reference to the hierarchy: the rvalue overloads are deleted,
  // so MultigridSolver s(make_box_hierarchy(box, 2), ...) does not compile.
  EXPECT_TRUE((std::is_constructible_v<MultigridSolver, const LevelHierarchy &, unsigned int, const MultigridParameters &>));
  EXPECT_FALSE((std::is_constructible_v<MultigridSolver, LevelHierarchy &&, unsigned int, const MultigridParameters &>));
  EXPECT_TRUE((std::is_constructible_v<MultigridSolver, LevelHierarchy &, unsigned int, const MultigridParameters &>));
#ifdef CELLWISE_WITH_CUDA
  EXPECT_FALSE((std::is_constructible_v<cuda::MultigridSolver<>, LevelHierarchy &&, unsigned int, const MultigridParameters &>));
#endif
}

TEST(Reliability, SolveRefusesAliasedVectorsAndGuessesOfAnotherShape)
{
  const LevelHierarchy h    = make_box_hierarchy(BoxDescription{}, 2);
  const Level         &fine = h.levels.back();
  for (const OuterIteration outer : {OuterIteration::cg, OuterIteration::stationary})
    {
      MultigridParameters parameters;
      parameters.outer = outer;
      const MultigridSolver solver(h, 2, parameters);
      CellVector<double>    b;
      assemble_right_hand_side(fine, 2, one, b);
      MonitorControl control(20, 1e-10);

      EXPECT_TRUE(contains(error_of([&] { solver.solve(b, b, control); }), "different vectors"));
      CellVector<double> wrong_degree(fine.n_cells(), 3), wrong_level(h.level(1).n_cells(), 2);
      EXPECT_TRUE(contains(error_of([&] { solver.solve(wrong_degree, b, control); }), "initial guess of"));
      EXPECT_TRUE(contains(error_of([&] { solver.solve(wrong_level, b, control); }), "initial guess of"));
      EXPECT_EQ(wrong_degree.degree(), 3u) << "a refused guess is left as it was";

      CellVector<double> empty; // documented: the zero guess
      EXPECT_EQ(error_of([&] { solver.solve(empty, b, control); }), "");
      EXPECT_EQ(empty.n_cells(), fine.n_cells());
    }

  // the solve on the active cells of a locally refined hierarchy goes
  // through the same checks
  const LevelHierarchy  a = make_adaptive_box_hierarchy(BoxDescription{}, 1, 2, make_octant_marker(BoxDescription{}));
  const MultigridSolver adaptive(a, 2, MultigridParameters{});
  ASSERT_TRUE(adaptive.locally_refined());
  CellVector<double> b;
  adaptive.assemble_right_hand_side(one, b);
  MonitorControl control(20, 1e-10);
  EXPECT_TRUE(contains(error_of([&] { adaptive.solve(b, b, control); }), "different vectors"));
  CellVector<double> wrong(b.n_cells(), 3);
  EXPECT_TRUE(contains(error_of([&] { adaptive.solve(wrong, b, control); }), "initial guess of"));
}

TEST(Reliability, BoxesBeyondTheIndexTypesAreRefusedBeforeAllocation)
{
  // --subdivisions 1024,1024,512 --refinements 1: 2^32 fine cells, which
  // wrapped the 32-bit counts; refused at once (no coarse level is built:
  // it alone would take tens of GB).
  BoxDescription box;
  box.subdivisions    = {{1024, 1024, 512}};
  const std::string m = error_of([&] { make_box_hierarchy(box, 1); });
  EXPECT_TRUE(contains(m, "4294967296 cells") && contains(m, "2147483647")) << m;

  // too many cells along one axis for the coordinate keys
  box.subdivisions    = {{1u << 20, 1, 1}};
  const std::string a = error_of([&] { make_box_hierarchy(box, 2); });
  EXPECT_TRUE(contains(a, "along axis 0") && contains(a, "4194304")) << a;

  // a coarse box over the cell limit by itself
  box.subdivisions = {{1u << 20, 1u << 20, 4}};
  EXPECT_TRUE(contains(error_of([&] { make_coarse_box(box); }), "a level can hold"));
}

TEST(Reliability, BoxesOutOfTheNumberRangeGetTheRealCause)
{
  auto box_of_width = [](const double width) {
    BoxDescription box;
    box.upper = {{width, width, width}};
    return make_box_hierarchy(box, 1);
  };
  // 1e-300: the cell volume underflows (it showed as a NaN in the right-hand
  // side); 1e308: it overflows (an infinite Cholesky pivot)
  for (const double width : {1e-300, 1e308})
    {
      const LevelHierarchy h = box_of_width(width);
      const std::string    m = error_of([&] { MultigridSolver solver(h, 2, MultigridParameters{}); });
      EXPECT_TRUE(contains(m, "out of the range of the FP64 operator") && contains(m, "scale the problem")) << width << ": " << m;
    }
  // 1e40: fine in FP64, but the metric factors overflow FP32 (it showed as
  // "not SPD" in mixed precision)
  const LevelHierarchy h = box_of_width(1e40);
  EXPECT_EQ(error_of([&] { MultigridSolver solver(h, 2, MultigridParameters{}); }), "");
  MultigridParameters mixed;
  mixed.precision     = Precision::mixed;
  const std::string m = error_of([&] { MultigridSolver solver(h, 2, mixed); });
  EXPECT_TRUE(contains(m, "FP32 operator") && contains(m, "double precision")) << m;
}

// A coefficient whose cell values span more than FP64 resolves (a problem
// file with one cell's coefficient at 1e-300 was solved with exit 0 and
// errors of 1e297): refused by name, on the host and through the averages
// the device operators take; a contrast of 1e6 (and a constant 1e-30)
// still solves.
TEST(Reliability, CoefficientContrastBeyondFp64IsRefused)
{
  const LevelHierarchy h = make_box_hierarchy(BoxDescription{}, 2);
  MultigridParameters  parameters;
  parameters.coefficient = [](const Point &x) { return x[0] < 0.25 && x[1] < 0.25 && x[2] < 0.25 ? 1e-300 : 1.; };
  try
    {
      const MultigridSolver solver(h, 2, parameters);
      FAIL() << "a coefficient contrast of 1e300 was accepted";
    }
  catch (const Error &e)
    {
      const std::string what = e.what();
      EXPECT_NE(what.find("the coefficient ranges from 1e-300"), std::string::npos) << what;
      EXPECT_NE(what.find("beyond the 1e+12 an FP64 solve resolves"), std::string::npos) << what;
    }
  EXPECT_THROW(cell_coefficient_averages(h.levels.back(), 2, parameters.coefficient), Error);
  for (const double low : {1e-6, 1e-30})
    {
      SCOPED_TRACE(low);
      parameters.coefficient = [low](const Point &x) { return x[0] < 0.5 || low < 1e-20 ? low : 1.; };
      const MultigridSolver solver(h, 2, parameters);
      CellVector<double>    b, u;
      assemble_right_hand_side(h.levels.back(), 2, [](const Point &) { return 1.; }, b);
      u.reinit(b);
      MonitorControl control(100, 1e-8);
      EXPECT_NO_THROW(solver.solve(u, b, control));
    }
}

TEST(MemoryEstimate, HostEstimateCoversTheMeasuredPeaksWithLittleToSpare)
{
  // Peak resident memory of cellwise-poisson on the 2-core development
  // machine (2026-12-05, /usr/bin/time's maximum resident set), in bytes per
  // value of the finest level less 160 bytes per cell (the estimate's mesh
  // tables): the unit cube at Q3, L = 6, with the smoother that needs the
  // most; the ball (mapping degree 3) at L = 5 and the Kershaw box
  // (trilinear) at L = 4, Q3, Chebyshev. The estimate must cover each (a
  // problem it lets through must fit) without being far above it (one that
  // fits must not be refused); mapped levels may be a little further above,
  // as every mapped cell is counted as general.
  struct Measured
  {
    const char    *mesh;
    unsigned int   mapping_degree;
    double         cells;
    Precision      precision;
    OuterIteration outer;
    double         bytes_per_value;
  };
  for (const Measured &m : {Measured{"cube", 0, 262144, Precision::fp64, OuterIteration::cg, 105.5},
                            Measured{"cube", 0, 262144, Precision::mixed, OuterIteration::cg, 81.9},
                            Measured{"cube", 0, 262144, Precision::mixed, OuterIteration::stationary, 65.9},
                            Measured{"ball", 3, 229376, Precision::fp64, OuterIteration::cg, 191.0},
                            Measured{"ball", 3, 229376, Precision::mixed, OuterIteration::cg, 189.6},
                            Measured{"Kershaw", 1, 98304, Precision::fp64, OuterIteration::cg, 147.4},
                            Measured{"Kershaw", 1, 98304, Precision::mixed, OuterIteration::cg, 138.4}})
    {
      MultigridParameters parameters;
      parameters.precision   = m.precision;
      parameters.outer       = m.outer;
      const double measured  = m.cells * (160. + m.bytes_per_value * 64.);
      const double estimated = estimate_host_solve_bytes(m.cells, 3, parameters, m.mapping_degree);
      const double above     = m.mapping_degree == 0 ? 1.2 : 1.25;
      EXPECT_GE(estimated, measured) << m.mesh << " " << to_string(m.precision) << " " << to_string(m.outer);
      EXPECT_LE(estimated, above * measured) << m.mesh << " " << to_string(m.precision) << " " << to_string(m.outer);
    }
}

TEST(MemoryEstimate, MappedLevelsAddTheirGeometry)
{
  // what the stored metric and the nodes take is added on both machines;
  // trilinear cells keep only their nodes on the device (the metric is
  // recomputed there), so they add little
  MultigridParameters parameters;
  const double        cells = 1e6;
  const double        box_host   = estimate_host_solve_bytes(cells, 3, parameters);
  const double        box_device = estimate_device_solve_bytes(cells, 3, parameters);
  // the ball's Q3 metric: 6 values at 64 points in FP64 on every level
  const double metric = cells * 6. * 64. * 8. * 8. / 7.;
  EXPECT_GT(estimate_host_solve_bytes(cells, 3, parameters, 3), box_host + metric);
  EXPECT_GT(estimate_device_solve_bytes(cells, 3, parameters, 3), box_device + metric);
  EXPECT_GT(estimate_host_solve_bytes(cells, 3, parameters, 1), box_host + metric);
  EXPECT_LT(estimate_device_solve_bytes(cells, 3, parameters, 1), box_device + 0.1 * metric);
  // a coefficient at the points: the device stores the trilinear cells'
  // metric too, and box cells keep its values at the points
  parameters.coefficient = [](const Point &) { return 2.; };
  EXPECT_GT(estimate_device_solve_bytes(cells, 3, parameters, 1), box_device + metric);
  EXPECT_DOUBLE_EQ(estimate_device_solve_bytes(cells, 3, parameters), box_device + metric / 6.);
  EXPECT_DOUBLE_EQ(estimate_host_solve_bytes(cells, 3, parameters), box_host + metric / 6.);
  parameters.coefficient_evaluation = CoefficientEvaluation::cell_average;
  EXPECT_EQ(estimate_device_solve_bytes(cells, 3, parameters), box_device);
  EXPECT_LT(estimate_device_solve_bytes(cells, 3, parameters, 1), box_device + 0.1 * metric);
}

TEST(MemoryEstimate, DeviceEstimateCoversTheMeasuredPeaksWithLittleToSpare)
{
  // Peaks of cellwise-poisson --backend cuda at L = 8 on the H200
  // (2026-12-01), in bytes per FP64 value of the finest level: the estimate
  // must not be below them (a refused problem would have fitted, an accepted
  // one might not) nor far above (a problem that fits would be refused).
  struct Measured
  {
    unsigned int   degree;
    Precision      precision;
    OuterIteration outer;
    double         bytes_per_value;
  };
  const double cells = std::ldexp(1., 24);
  for (const Measured &m : {Measured{3, Precision::fp64, OuterIteration::cg, 114.62},
                            Measured{2, Precision::fp64, OuterIteration::cg, 118.21},
                            Measured{3, Precision::mixed, OuterIteration::cg, 98.41},
                            Measured{3, Precision::mixed, OuterIteration::stationary, 60.69}})
    {
      MultigridParameters parameters;
      parameters.precision   = m.precision;
      parameters.outer       = m.outer;
      const double values    = cells * (m.degree + 1) * (m.degree + 1) * (m.degree + 1);
      const double measured  = m.bytes_per_value * values;
      const double estimated = estimate_device_solve_bytes(cells, m.degree, parameters);
      EXPECT_GE(estimated, measured) << "Q" << m.degree << " " << to_string(m.precision) << " " << to_string(m.outer);
      EXPECT_LE(estimated, 1.2 * measured) << "Q" << m.degree << " " << to_string(m.precision) << " " << to_string(m.outer);
    }
}
