# Runs PROGRAM with ARGS (a ;-list) and checks the contract for bad input:
# exit code EXIT_CODE (default 2, a usage error; 1 for input the parser
# accepts but the library refuses), exactly one line on stderr matching
# EXPECT, no stack trace. With STDOUT_FILE, standard output goes there
# (/dev/full: a write that fails).
if(NOT DEFINED EXIT_CODE)
  set(EXIT_CODE 2)
endif()
separate_arguments(arguments UNIX_COMMAND "${ARGS}")
if(DEFINED STDOUT_FILE)
  execute_process(COMMAND ${PROGRAM} ${arguments} RESULT_VARIABLE rc OUTPUT_FILE ${STDOUT_FILE} ERROR_VARIABLE err)
  set(out "(in ${STDOUT_FILE})")
else()
  execute_process(COMMAND ${PROGRAM} ${arguments} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
endif()
if(NOT rc EQUAL EXIT_CODE)
  message(FATAL_ERROR "expected exit code ${EXIT_CODE}, got '${rc}'\nstdout: ${out}\nstderr: ${err}")
endif()
string(REGEX REPLACE "\n$" "" err_trimmed "${err}")
if(err_trimmed MATCHES "\n")
  message(FATAL_ERROR "expected one line on stderr, got:\n${err}")
endif()
if(NOT err MATCHES "${EXPECT}")
  message(FATAL_ERROR "stderr does not match '${EXPECT}':\n${err}")
endif()
message(STATUS "ok: ${err_trimmed}")
