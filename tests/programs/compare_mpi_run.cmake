# Runs PROGRAM with ARGS (a space-separated string) once serially and once
# under MPIEXEC with N_RANKS ranks, and checks that the distributed run says
# it is one and that its convergence table equals the serial one in every
# column but the times (level, cells, DoFs, iterations, fractional
# iterations, reduction, contraction, L2 error, rate).
separate_arguments(arguments UNIX_COMMAND "${ARGS}")
# Open MPI refuses root without these; more ranks than cores need
# --oversubscribe; one OpenMP thread per rank
set(ENV{OMPI_ALLOW_RUN_AS_ROOT} 1)
set(ENV{OMPI_ALLOW_RUN_AS_ROOT_CONFIRM} 1)
set(ENV{OMP_NUM_THREADS} 1)
execute_process(COMMAND ${PROGRAM} ${arguments} RESULT_VARIABLE rc OUTPUT_VARIABLE serial ERROR_VARIABLE serial_err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the serial run failed (${rc}):\n${serial}\n${serial_err}")
endif()
execute_process(COMMAND ${MPIEXEC} -n ${N_RANKS} --oversubscribe ${PROGRAM} ${arguments}
                RESULT_VARIABLE rc OUTPUT_VARIABLE distributed ERROR_VARIABLE distributed_err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the run on ${N_RANKS} ranks failed (${rc}):\n${distributed}\n${distributed_err}")
endif()
if(NOT distributed MATCHES "distributed over ${N_RANKS} MPI ranks")
  message(FATAL_ERROR "the run on ${N_RANKS} ranks does not say it is distributed:\n${distributed}")
endif()

function(table_rows text result)
  string(REPLACE "\n" ";" lines "${text}")
  set(rows)
  foreach(line IN LISTS lines)
    if(line MATCHES "^ *[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+\\.[0-9][0-9] ")
      string(REGEX REPLACE "^( *[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+).*$" "\\1" row "${line}")
      list(APPEND rows "${row}")
    endif()
  endforeach()
  set(${result} "${rows}" PARENT_SCOPE)
endfunction()
table_rows("${serial}" serial_rows)
table_rows("${distributed}" distributed_rows)
list(LENGTH serial_rows n)
if(n EQUAL 0)
  message(FATAL_ERROR "no table rows in the serial run:\n${serial}")
endif()
if(NOT serial_rows STREQUAL distributed_rows)
  string(REPLACE ";" "\n" a "${serial_rows}")
  string(REPLACE ";" "\n" b "${distributed_rows}")
  message(FATAL_ERROR "the tables differ:\nserial:\n${a}\non ${N_RANKS} ranks:\n${b}")
endif()
string(REPLACE ";" "\n" a "${serial_rows}")
message(STATUS "equal tables on 1 and ${N_RANKS} ranks:\n${a}")
