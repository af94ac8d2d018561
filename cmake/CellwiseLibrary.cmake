# The library target cellwise::cellwise: the host backend always, the CUDA
# backend where nvcc was found. source/<module>/ mirrors include/cellwise/<module>/
# (doc/architecture.md); a module's CUDA files sit beside their host twins and
# are named cuda_*: the .cu kernels and any cuda_*.cc host code of the device
# backend are built only with CUDA. The mpi_*.cc files of the MPI backend make
# the separate target cellwise::mpi (CellwiseMpi.cmake), its mpi_cuda_*.cc
# (the distributed components on device vectors) only with CUDA. Sources are globbed
# per module so that adding a file needs no edit here; source/dealii/ is the
# separate target cellwise::dealii (CellwiseDealii.cmake).
include(GNUInstallDirs)

set(CELLWISE_CORE_MODULES base fe mesh storage kernels operators multigrid)
set(CELLWISE_HOST_SOURCES)
set(CELLWISE_CUDA_SOURCES)
set(CELLWISE_MPI_SOURCES)
foreach(module IN LISTS CELLWISE_CORE_MODULES)
  file(GLOB module_cc CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/source/${module}/*.cc)
  file(GLOB module_cuda CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/source/${module}/*.cu
                                         ${PROJECT_SOURCE_DIR}/source/${module}/cuda_*.cc)
  list(FILTER module_cc EXCLUDE REGEX "/cuda_[^/]*\\.cc$")
  # mpi_*.cc: the MPI backend, library cellwise::mpi (CellwiseMpi.cmake)
  set(module_mpi ${module_cc})
  list(FILTER module_mpi INCLUDE REGEX "/mpi_[^/]*\\.cc$")
  # mpi_cuda_*.cc: host code of the MPI backend over device vectors, only
  # with the CUDA backend
  if(NOT CELLWISE_HAVE_CUDA)
    list(FILTER module_mpi EXCLUDE REGEX "/mpi_cuda_[^/]*\\.cc$")
  endif()
  list(FILTER module_cc EXCLUDE REGEX "/mpi_[^/]*\\.cc$")
  list(APPEND CELLWISE_HOST_SOURCES ${module_cc})
  list(APPEND CELLWISE_MPI_SOURCES ${module_mpi})
  list(APPEND CELLWISE_CUDA_SOURCES ${module_cuda})
endforeach()
add_library(cellwise ${CELLWISE_HOST_SOURCES})
add_library(cellwise::cellwise ALIAS cellwise)

if(CELLWISE_HAVE_CUDA)
  target_sources(cellwise PRIVATE ${CELLWISE_CUDA_SOURCES})
  target_compile_definitions(cellwise PUBLIC CELLWISE_WITH_CUDA)
  target_link_libraries(cellwise PUBLIC CUDA::cudart)
  target_compile_options(cellwise PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:--expt-relaxed-constexpr>)
  set_target_properties(cellwise PROPERTIES CUDA_SEPARABLE_COMPILATION OFF)
endif()

target_include_directories(cellwise PUBLIC
  $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
target_compile_features(cellwise PUBLIC cxx_std_17)
target_link_libraries(cellwise PUBLIC OpenMP::OpenMP_CXX)
target_compile_options(cellwise PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra>)
set_target_properties(cellwise PROPERTIES POSITION_INDEPENDENT_CODE ON
                                          EXPORT_NAME cellwise)
