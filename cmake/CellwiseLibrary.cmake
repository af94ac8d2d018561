# The library target cellwise::cellwise: the host backend always, the CUDA
# backend where nvcc was found. Sources are globbed per backend folder so that
# adding a kernel file needs no edit here.
include(GNUInstallDirs)

file(GLOB CELLWISE_HOST_SOURCES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/source/host/*.cc)
add_library(cellwise ${CELLWISE_HOST_SOURCES})
add_library(cellwise::cellwise ALIAS cellwise)

if(CELLWISE_HAVE_CUDA)
  file(GLOB CELLWISE_CUDA_SOURCES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/source/cuda/*.cu)
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
