#!/bin/sh
# Runs PROGRAM on this MPI rank with the arguments of rank 0 ($2) or of the
# other ranks ($3): a job whose ranks were given different command lines,
# which the program must refuse on every rank, not hang on.
#   mpiexec -n 2 sh per_rank_arguments.sh PROGRAM "ARGS OF RANK 0" "ARGS OF THE OTHERS"
program="$1"
if [ "${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-0}}" = 0 ]; then arguments="$2"; else arguments="$3"; fi
# (word splitting of the arguments is intended)
# shellcheck disable=SC2086
exec "$program" $arguments
