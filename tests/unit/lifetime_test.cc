// Classes that keep a reference or a pointer to an object passed to their
// constructor (or reinit) refuse a temporary at compile time: the overloads
// taking an rvalue reference are deleted, as MultigridSolver's always were,
// so that e.g. DssJacobiPreconditioner p(make_level(...), op, mask) no longer
// compiles instead of reading freed memory at the first vmult. One line per
// class: the lvalue form is constructible, the temporary (a prvalue, and a
// const rvalue) is not. Arguments that are only read during the set-up stay
// open to temporaries.

#include <cellwise/mesh/cell_mapping.h>
#include <cellwise/mesh/partitioned_hierarchy.h>
#include <cellwise/multigrid/multigrid_solver.h>
#include <cellwise/multigrid/adaptive_v_cycle.h>
#include <cellwise/multigrid/cell_transfer.h>
#include <cellwise/multigrid/chebyshev_smoother.h>
#include <cellwise/multigrid/dss_jacobi_preconditioner.h>
#include <cellwise/multigrid/hermite_cell_transfer.h>
#include <cellwise/multigrid/hermite_multigrid_solver.h>
#include <cellwise/multigrid/hermite_vertex_patch_smoother.h>
#include <cellwise/multigrid/jacobi_smoother.h>
#include <cellwise/multigrid/vertex_patch_smoother.h>
#include <cellwise/operators/hermite_biharmonic_operator.h>
#include <cellwise/operators/laplace_operator.h>
#ifdef CELLWISE_WITH_CUDA
#  include <cellwise/multigrid/cuda_multigrid_solver.h>
#  include <cellwise/multigrid/cuda_cell_transfer.h>
#  include <cellwise/multigrid/cuda_hermite_cell_transfer.h>
#  include <cellwise/multigrid/cuda_hermite_multigrid_solver.h>
#  include <cellwise/multigrid/cuda_point_smoothers.h>
#  include <cellwise/operators/cuda_hermite_biharmonic_operator.h>
#  include <cellwise/operators/cuda_laplace_operator.h>
#endif

#include <gtest/gtest.h>

#include <ostream>
#include <type_traits>
#include <utility>
#include <vector>

using namespace cellwise;

namespace
{
  template <typename Class, typename... Args>
  constexpr bool constructible = std::is_constructible_v<Class, Args...>;

  /// Whether object.reinit(args...) is well-formed (false where overload
  /// resolution picks a deleted overload).
  template <typename Object, typename... Args>
  struct reinit_takes
  {
    template <typename O, typename = decltype(std::declval<O &>().reinit(std::declval<Args>()...))>
    static std::true_type
    test(int);
    template <typename>
    static std::false_type
    test(...);
    static constexpr bool value = decltype(test<Object>(0))::value;
  };

  /// The same for object.use_dirichlet_mask(mask).
  template <typename Object, typename Mask>
  struct mask_taken
  {
    template <typename O, typename = decltype(std::declval<O &>().use_dirichlet_mask(std::declval<Mask>()))>
    static std::true_type
    test(int);
    template <typename>
    static std::false_type
    test(...);
    static constexpr bool value = decltype(test<Object>(0))::value;
  };

  using L   = Level;
  using H   = LevelHierarchy;
  using Op  = LaplaceOperator<double>;
  using HOp = HermiteBiharmonicOperator<double>;
  using V   = CellVector<double>;
  using MP  = MultigridParameters;
  using Owner = std::vector<std::vector<int>>;
} // namespace

TEST(Lifetime, HostClassesRefuseTemporariesTheyWouldKeep)
{
  // kept: the mapping (the points are read once)
  EXPECT_TRUE((constructible<MappingEvaluator, const CellMapping &, std::vector<double> &&>));
  EXPECT_FALSE((constructible<MappingEvaluator, CellMapping &&, const std::vector<double> &>));
  EXPECT_FALSE((constructible<MappingEvaluator, const CellMapping &&, const std::vector<double> &>));

  // kept: the serial hierarchy and the owners
  EXPECT_TRUE((constructible<ReplicatedHierarchy, const H &, const Owner &, int>));
  EXPECT_FALSE((constructible<ReplicatedHierarchy, H &&, const Owner &, int>));
  EXPECT_FALSE((constructible<ReplicatedHierarchy, const H &, Owner &&, int>));
  EXPECT_FALSE((constructible<ReplicatedHierarchy, H &&, Owner &&, int>));

  // kept: the level (the operator and the mask are read once)
  EXPECT_TRUE((constructible<DssJacobiPreconditioner<double>, const L &, const Op &, const V &>));
  EXPECT_TRUE((constructible<DssJacobiPreconditioner<double>, const L &, Op &&, V &&>));
  EXPECT_FALSE((constructible<DssJacobiPreconditioner<double>, L &&, const Op &, const V &>));
  EXPECT_FALSE((constructible<DssJacobiPreconditioner<double>, const L &&, const Op &, const V &>));
  EXPECT_FALSE((constructible<DssJacobiPreconditioner<float>, L &&, const LaplaceOperator<float> &, const CellVector<float> &>));
  EXPECT_FALSE((constructible<DssJacobiPreconditioner<double, CellContiguous, HOp>, L &&, const HOp &, const V &>));

  // kept: the operator and (through the preconditioner) the level
  EXPECT_TRUE((constructible<JacobiSmoother<double>, const L &, const Op &, const V &, const JacobiParameters &>));
  EXPECT_FALSE((constructible<JacobiSmoother<double>, L &&, const Op &, const V &, const JacobiParameters &>));
  EXPECT_FALSE((constructible<JacobiSmoother<double>, const L &, Op &&, const V &, const JacobiParameters &>));
  EXPECT_TRUE((constructible<ChebyshevSmoother<double>, const L &, const Op &, const V &, const ChebyshevParameters &>));
  EXPECT_FALSE((constructible<ChebyshevSmoother<double>, L &&, const Op &, const V &, const ChebyshevParameters &>));
  EXPECT_FALSE((constructible<ChebyshevSmoother<double>, const L &, Op &&, const V &, const ChebyshevParameters &>));

  // kept: the operator, and on an unstructured mesh the level; the form
  // with a degree builds and owns its operator
  EXPECT_TRUE((constructible<VertexPatchSmoother<double>, const L &, const Op &, unsigned int, const V *>));
  EXPECT_FALSE((constructible<VertexPatchSmoother<double>, L &&, const Op &, unsigned int, const V *>));
  EXPECT_FALSE((constructible<VertexPatchSmoother<double>, const L &, Op &&, unsigned int, const V *>));
  EXPECT_FALSE((constructible<VertexPatchSmoother<double>, const L &, Op &&>));
  EXPECT_TRUE((constructible<VertexPatchSmoother<double>, L &&, unsigned int>));
  EXPECT_TRUE((reinit_takes<VertexPatchSmoother<double>, const L &, const Op &>::value));
  EXPECT_FALSE((reinit_takes<VertexPatchSmoother<double>, L &&, const Op &>::value));
  EXPECT_FALSE((reinit_takes<VertexPatchSmoother<double>, const L &, Op &&>::value));

  // kept: the operator (the patches are made from the level)
  EXPECT_TRUE((constructible<HermiteVertexPatchSmoother<double>, const L &, const HOp &>));
  EXPECT_TRUE((constructible<HermiteVertexPatchSmoother<double>, L &&, const HOp &>));
  EXPECT_FALSE((constructible<HermiteVertexPatchSmoother<double>, const L &, HOp &&>));

  // kept: the hierarchy
  EXPECT_TRUE((constructible<CellTransfer<double>, const H &, unsigned int>));
  EXPECT_FALSE((constructible<CellTransfer<double>, H &&, unsigned int>));
  EXPECT_FALSE((constructible<CellTransfer<double>, const H &&, unsigned int>));
  EXPECT_TRUE((reinit_takes<CellTransfer<double>, const H &, unsigned int>::value));
  EXPECT_FALSE((reinit_takes<CellTransfer<double>, H &&, unsigned int>::value));
  EXPECT_TRUE((constructible<HermiteCellTransfer<double>, const H &>));
  EXPECT_FALSE((constructible<HermiteCellTransfer<double>, H &&>));
  EXPECT_TRUE((reinit_takes<HermiteCellTransfer<double>, const H &>::value));
  EXPECT_FALSE((reinit_takes<HermiteCellTransfer<double>, H &&>::value));

  // kept: the active mesh
  using Components = AdaptiveVCycle<double>::Components;
  using Parameters = AdaptiveVCycle<double>::Parameters;
  EXPECT_TRUE((constructible<HostActiveLevelTransfer<double>, const ActiveMesh &>));
  EXPECT_FALSE((constructible<HostActiveLevelTransfer<double>, ActiveMesh &&>));
  EXPECT_TRUE((constructible<AdaptiveVCycle<double>, const ActiveMesh &, Components, const Parameters &>));
  EXPECT_FALSE((constructible<AdaptiveVCycle<double>, ActiveMesh &&, Components, const Parameters &>));

  // kept: the hierarchy (the solvers; a const rvalue is refused too)
  EXPECT_TRUE((constructible<MultigridSolver, const H &, unsigned int, const MP &>));
  EXPECT_FALSE((constructible<MultigridSolver, H &&, unsigned int, const MP &>));
  EXPECT_FALSE((constructible<MultigridSolver, const H &&, unsigned int, const MP &>));
  EXPECT_TRUE((constructible<MultigridSolver, const H &, unsigned int, const MP &>));
  EXPECT_TRUE((constructible<HermiteMultigridSolver, const H &, const HermiteMultigridParameters &>));
  EXPECT_FALSE((constructible<HermiteMultigridSolver, const H &&, const HermiteMultigridParameters &>));
}

#ifdef CELLWISE_WITH_CUDA
// The host-side declarations of the device classes: checked at compile time
// here, where no GPU is needed.
TEST(Lifetime, CudaClassesRefuseTemporariesTheyWouldKeep)
{
  using CudaV = CellVector<double, MemorySpace::CUDA>;

  EXPECT_TRUE((constructible<cuda::CellTransfer<double>, const H &, unsigned int>));
  EXPECT_FALSE((constructible<cuda::CellTransfer<double>, H &&, unsigned int>));
  EXPECT_FALSE((reinit_takes<cuda::CellTransfer<double>, H &&, unsigned int>::value));
  EXPECT_TRUE((reinit_takes<cuda::CellTransfer<double>, const H &, unsigned int>::value));
  EXPECT_TRUE((constructible<cuda::HermiteCellTransfer<double>, const H &>));
  EXPECT_FALSE((constructible<cuda::HermiteCellTransfer<double>, H &&>));
  EXPECT_FALSE((reinit_takes<cuda::HermiteCellTransfer<double>, H &&>::value));

  // the registered Dirichlet mask (compared by address at every apply)
  EXPECT_TRUE((mask_taken<cuda::LaplaceOperator<double>, const CudaV &>::value));
  EXPECT_FALSE((mask_taken<cuda::LaplaceOperator<double>, CudaV &&>::value));
  EXPECT_TRUE((mask_taken<cuda::HermiteBiharmonicOperator<double>, const CudaV &>::value));
  EXPECT_FALSE((mask_taken<cuda::HermiteBiharmonicOperator<double>, CudaV &&>::value));

  // the device point smoothers keep the operator (the device preconditioner
  // copies the level into its shared device data)
  using CudaOp = cuda::LaplaceOperator<double>;
  EXPECT_FALSE((constructible<cuda::JacobiSmoother<double>, const L &, CudaOp &&, const CudaV &, const JacobiParameters &>));
  EXPECT_FALSE((constructible<cuda::ChebyshevSmoother<double>, const L &, CudaOp &&, const CudaV &, const ChebyshevParameters &>));
  EXPECT_TRUE((constructible<cuda::DssJacobiPreconditioner<double>, L &&, const CudaOp &, const CudaV &>));

  EXPECT_TRUE((constructible<cuda::MultigridSolver<>, const H &, unsigned int, const MP &>));
  EXPECT_FALSE((constructible<cuda::MultigridSolver<>, const H &&, unsigned int, const MP &>));
  EXPECT_FALSE((constructible<cuda::HermiteMultigridSolver<>, const H &&, const HermiteMultigridParameters &>));
  EXPECT_TRUE((constructible<cuda::HermiteMultigridSolver<>, const H &, const HermiteMultigridParameters &>));
}
#endif
