# The README's first command (scripts/quickstart-run.sh) runs the main program
# at a path relative to the build folder: check that it is where CMake puts it.
file(RELATIVE_PATH relative "${BUILD_DIR}" "${PROGRAM}")
file(READ "${SCRIPT}" script)
string(FIND "${script}" "\$BUILD_DIR/${relative}\"" position)
if(position EQUAL -1)
  message(FATAL_ERROR "${SCRIPT} does not run \$BUILD_DIR/${relative}, where the build puts cellwise-poisson")
endif()
message(STATUS "ok: quickstart-run.sh runs \$BUILD_DIR/${relative}")
