# The MPI backend: the library target cellwise::mpi from the mpi_*.cc files
# of the modules (source/base/mpi_check.cc, source/storage/mpi_distributed_dss.cc,
# ...; headers beside their siblings as mpi_*.h), built only where MPI was
# found. It links the core and MPI; the core itself never needs MPI, so a
# user of cellwise::cellwise alone does not link it (the main program does,
# for mpirun, where it is built). Installed in an export set of its own,
# loaded by find_package(cellwise COMPONENTS mpi).
if(NOT CELLWISE_HAVE_MPI)
  return()
endif()

add_library(cellwise_mpi ${CELLWISE_MPI_SOURCES})
add_library(cellwise::mpi ALIAS cellwise_mpi)
target_link_libraries(cellwise_mpi PUBLIC cellwise::cellwise MPI::MPI_CXX)
target_compile_options(cellwise_mpi PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra>)
set_target_properties(cellwise_mpi PROPERTIES POSITION_INDEPENDENT_CODE ON
                                              EXPORT_NAME mpi)

install(TARGETS cellwise_mpi EXPORT cellwiseMpiTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(EXPORT cellwiseMpiTargets NAMESPACE cellwise:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/cellwise)
