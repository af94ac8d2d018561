# The deal.II adapters: the library target cellwise::dealii (source/dealii/*.cc,
# headers include/cellwise/dealii/), built only where deal.II was found, and
# cellwise_dealii_setup_target() for the programs and tests that use it.
#
# deal.II's compile flags are applied PRIVATE, per target, in its Release
# flavour (libdeal.ii.so, not the debug libdeal.ii.g.so), with -g0 appended:
# debug info costs about 25 s per deal.II translation unit on 2 cores.
# cellwise::dealii links deal.II's own imported release target (deal.ii on
# Debian), not its list of absolute library paths: it is installed in an
# export set of its own, which the installed cellwiseConfig.cmake loads only
# for find_package(cellwise COMPONENTS dealii), after find_dependency(deal.II),
# so that a user of cellwise::cellwise alone never needs deal.II.
if(NOT CELLWISE_HAVE_DEALII)
  return()
endif()

# deal.II's config names its imported targets but leaves loading them to the
# user (deal_ii_setup_target does it): load them, so that deal.ii carries its
# own dependencies (TBB, Trilinos, MPI, ...) to every target that links it.
if(NOT TARGET ${DEAL_II_TARGET_RELEASE})
  include(${DEAL_II_TARGET_CONFIG})
endif()

set(CELLWISE_DEALII_CXX_FLAGS "${DEAL_II_CXX_FLAGS} ${DEAL_II_CXX_FLAGS_RELEASE}")
separate_arguments(CELLWISE_DEALII_CXX_FLAGS UNIX_COMMAND "${CELLWISE_DEALII_CXX_FLAGS}")
list(APPEND CELLWISE_DEALII_CXX_FLAGS -g0)

file(GLOB CELLWISE_DEALII_SOURCES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/source/dealii/*.cc)
# mpi_*.cc: the entry points on several ranks, which need cellwise::mpi
if(NOT TARGET cellwise::mpi)
  list(FILTER CELLWISE_DEALII_SOURCES EXCLUDE REGEX "/mpi_[^/]*\\.cc$")
endif()
add_library(cellwise_dealii ${CELLWISE_DEALII_SOURCES})
add_library(cellwise::dealii ALIAS cellwise_dealii)
target_link_libraries(cellwise_dealii PUBLIC cellwise::cellwise ${DEAL_II_TARGET_RELEASE})
if(TARGET cellwise::mpi)
  target_link_libraries(cellwise_dealii PUBLIC cellwise::mpi)
  # the front door's distributed implementation (mpi_multigrid_preconditioner.cc)
  target_compile_definitions(cellwise_dealii PRIVATE CELLWISE_DEALII_WITH_MPI)
endif()
# the installed config adds deal.II's include directories of the user's deal.II
target_include_directories(cellwise_dealii SYSTEM PUBLIC "$<BUILD_INTERFACE:${DEAL_II_INCLUDE_DIRS}>")
# BOOST_NO_AUTO_PTR is part of deal.II's interface; NDEBUG (no DEBUG) matches
# the release library but stays private so a user's own asserts are untouched.
target_compile_definitions(cellwise_dealii PUBLIC ${DEAL_II_USER_DEFINITIONS}
                                           PRIVATE ${DEAL_II_USER_DEFINITIONS_RELEASE})
target_compile_options(cellwise_dealii PRIVATE $<$<COMPILE_LANGUAGE:CXX>:${CELLWISE_DEALII_CXX_FLAGS}>)
set_target_properties(cellwise_dealii PROPERTIES POSITION_INDEPENDENT_CODE ON
                                                 EXPORT_NAME dealii)

install(TARGETS cellwise_dealii EXPORT cellwiseDealiiTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(EXPORT cellwiseDealiiTargets NAMESPACE cellwise:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/cellwise)
# where the installed config looks for deal.II first: the one built against
set(CELLWISE_DEALII_CONFIG_DIR "${deal.II_DIR}")

# A program or test that includes deal.II headers: deal.II's release flags,
# -g0, the release definitions, and cellwise::dealii.
function(cellwise_dealii_setup_target target)
  target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:${CELLWISE_DEALII_CXX_FLAGS}>)
  target_compile_definitions(${target} PRIVATE ${DEAL_II_USER_DEFINITIONS_RELEASE})
  target_link_libraries(${target} PRIVATE cellwise::dealii)
endfunction()
