#!/usr/bin/env bash
# Runs the deal.II-style tests of tests/dealii on a machine without deal.II
# (the GPU node, doc/gpu-node.md), from a tree that unbundle-runtime.sh
# unpacked:
#   bash scripts/run-bundled-dealii-tests.sh [options] TREE [NAME...]
# TREE/bin holds the test programs as the build names them (dealii_NAME,
# bundled with scripts/bundle-runtime.sh) and, where the node has none,
# numdiff. For every NAME (default: every tests/dealii/NAME.cc whose program
# is in TREE/bin) and every stored NAME.output and NAME.mpirun=N.output, the
# program runs in a fresh directory (under mpiexec -n N for the latter), and
# the file `output` it writes is compared with the stored one by numdiff with
# the tolerances of tests/dealii/CMakeLists.txt (-a 1e-6 -r 1e-8). A line per
# test says PASS or FAIL (with the reason and the log), then the count.
#
# Options:
#   --backend host|cuda  the tests' front-door solves on the host or on the
#                        device (exported as CELLWISE_TEST_BACKEND, which
#                        tests/dealii/test_backend.h reads; default host)
#   --mpiexec CMD        the MPI launcher for the mpirun=N variants (default:
#                        mpiexec from PATH; without one they are listed as
#                        not run)
#   --work DIR           where the tests run and their logs stay (default
#                        ./dealii-tests)
#   --timeout S          seconds a test may take (default 600)
# Exit status: 0 all passed, 1 a test failed or did not run, 2 usage.
set -uo pipefail

usage() {
  sed -n '2,/^# Exit status/p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}
backend=host mpiexec=$(command -v mpiexec || true) work=$PWD/dealii-tests timeout=600
while [[ $# -gt 0 ]]; do
  case $1 in
    --backend) [[ $# -ge 2 ]] || usage; backend=$2; shift 2 ;;
    --mpiexec) [[ $# -ge 2 ]] || usage; mpiexec=$2; shift 2 ;;
    --work) [[ $# -ge 2 ]] || usage; work=$2; shift 2 ;;
    --timeout) [[ $# -ge 2 ]] || usage; timeout=$2; shift 2 ;;
    -h | --help) usage ;;
    -*) echo "run-bundled-dealii-tests: unknown option $1" >&2; usage ;;
    *) break ;;
  esac
done
[[ $# -ge 1 ]] || usage
tree=$1
shift
[[ $backend == host || $backend == cuda ]] || { echo "run-bundled-dealii-tests: --backend takes host or cuda, not '$backend'" >&2; exit 2; }
[[ -x $tree/bin/run ]] || { echo "run-bundled-dealii-tests: $tree/bin/run missing: unpack a bundle with scripts/unbundle-runtime.sh first" >&2; exit 1; }
tests_dir=$(cd "$(dirname "$0")/../tests/dealii" && pwd)

# numdiff: the node's, else the bundle's
if command -v numdiff > /dev/null; then
  numdiff=(numdiff)
elif [[ -x $tree/bin/numdiff ]]; then
  numdiff=("$tree/bin/run" numdiff)
else
  echo "run-bundled-dealii-tests: no numdiff on this node or in $tree/bin: bundle /usr/bin/numdiff with the tests" >&2
  exit 1
fi

names=("$@")
if [[ ${#names[@]} -eq 0 ]]; then
  for source in "$tests_dir"/*.cc; do
    name=$(basename "$source" .cc)
    [[ -x $tree/bin/dealii_$name ]] && names+=("$name")
  done
fi
[[ ${#names[@]} -gt 0 ]] || { echo "run-bundled-dealii-tests: no dealii_NAME program in $tree/bin" >&2; exit 1; }

# the first line of a log that says why a program stopped, else its last lines
reason() {
  local line
  line=$(grep -m1 -E 'what\(\):|[Ee]rror:|[Ee]xception|refused' "$1")
  [[ -n $line ]] || line=$(grep -v '^\s*$' "$1" | tail -n 3 | tr '\n' ' ')
  echo "${line:0:400}"
}

export CELLWISE_TEST_BACKEND=$backend OMP_NUM_THREADS=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mkdir -p "$work"
n_run=0 n_passed=0 failed=()
for name in "${names[@]}"; do
  [[ -x $tree/bin/dealii_$name ]] || { echo "FAIL $name: dealii_$name is not in $tree/bin"; failed+=("$name"); continue; }
  for expected in "$tests_dir/$name.output" "$tests_dir/$name".mpirun=*.output; do
    [[ -f $expected ]] || continue
    variant=$(basename "$expected" .output)
    command=("$tree/bin/run" "dealii_$name")
    if [[ $variant =~ mpirun=([0-9]+) ]]; then
      if [[ -z $mpiexec ]]; then
        echo "FAIL $variant: not run (no mpiexec; --mpiexec CMD)"
        failed+=("$variant")
        continue
      fi
      command=("$mpiexec" -n "${BASH_REMATCH[1]}" --oversubscribe "${command[@]}")
    fi
    dir=$work/$variant
    rm -rf "$dir" && mkdir -p "$dir"
    n_run=$((n_run + 1))
    start=$(date +%s)
    (cd "$dir" && timeout "$timeout" "${command[@]}" > log 2>&1)
    status=$?
    seconds=$(($(date +%s) - start))
    if [[ $status -ne 0 ]]; then
      echo "FAIL $variant: exit status $status after ${seconds} s ($dir/log: $(reason "$dir/log"))"
      failed+=("$variant")
    elif ! "${numdiff[@]}" -a 1e-6 -r 1e-8 -s ' \t\n:<>=,;' "$dir/output" "$expected" > "$dir/numdiff" 2>&1; then
      echo "FAIL $variant: output differs from tests/dealii/$variant.output (${seconds} s; $dir/numdiff):"
      grep -E '^\s*[0-9]+:' "$dir/numdiff" | head -n 6 | sed 's/^/    /'
      failed+=("$variant")
    else
      echo "PASS $variant (${seconds} s)"
      n_passed=$((n_passed + 1))
    fi
  done
done
echo "run-bundled-dealii-tests: backend $backend, $n_passed of $n_run passed${failed:+; failed: ${failed[*]}}"
[[ ${#failed[@]} -eq 0 ]]
