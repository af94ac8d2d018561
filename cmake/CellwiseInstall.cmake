# cmake --install: headers, the library and a package config, so that a user's
# project writes find_package(cellwise) and links cellwise::cellwise.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS cellwise EXPORT cellwiseTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/cellwise
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

set(CELLWISE_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/cellwise)
install(EXPORT cellwiseTargets NAMESPACE cellwise:: DESTINATION ${CELLWISE_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/cellwiseConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cellwiseConfig.cmake INSTALL_DESTINATION ${CELLWISE_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/cellwiseConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/cellwiseConfig.cmake
              ${PROJECT_BINARY_DIR}/cellwiseConfigVersion.cmake
        DESTINATION ${CELLWISE_CMAKE_DIR})
