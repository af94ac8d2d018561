#!/usr/bin/env bash
# Builds the host code with AddressSanitizer and UndefinedBehaviorSanitizer
# (CELLWISE_SANITIZE=ON, no CUDA) in build-sanitize/ and runs the whole test
# suite under them: any invalid access, leak (Open MPI's own, from MPI_Init,
# suppressed by tests/sanitizers/lsan.supp) or undefined behaviour fails its
# test. Then the concurrency tests under ThreadSanitizer
# (CELLWISE_SANITIZE_THREAD=ON, build-tsan/): any data race fails. Not part
# of CI (it takes longer than the plain build); run it before a release or
# after touching memory handling or shared state.
#   bash scripts/run-sanitizers.sh          both
#   bash scripts/run-sanitizers.sh thread   ThreadSanitizer only
#   CELLWISE_JOBS  parallel build jobs (default: nproc)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
jobs="${CELLWISE_JOBS:-$(nproc 2> /dev/null || echo 2)}"
stamp() { echo "[sanitizers] $(date -u +%H:%M:%S) $*"; }

if [[ "${1:-}" != thread ]]; then
stamp "configure build-sanitize (ASan + UBSan, host only)"
cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCELLWISE_SANITIZE=ON -DCELLWISE_WITH_CUDA=OFF \
  -DCELLWISE_BUILD_BENCHMARKS=OFF > /dev/null
stamp "build with ${jobs} jobs"
cmake --build build-sanitize -j"${jobs}"
# full stacks on every allocation, so that the suppressions see the library
# frames under the uninstrumented code (a slower run, but a readable one)
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:halt_on_error=1:fast_unwind_on_malloc=0"
export LSAN_OPTIONS="suppressions=${root}/tests/sanitizers/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
stamp "ctest under the sanitizers"
ctest --test-dir build-sanitize --output-on-failure -j"${jobs}"
fi

# ThreadSanitizer on the tests of concurrent use (threads sharing one solver,
# tests/unit/concurrent_solve_test.cc) in build-tsan/: the unit tests alone,
# without deal.II and MPI (their libraries are not instrumented). One OpenMP
# thread per solve: libgomp is not instrumented either, and its barriers
# would be reported; the threads under test are the program's own.
stamp "configure build-tsan (ThreadSanitizer, host only)"
cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCELLWISE_SANITIZE_THREAD=ON -DCELLWISE_WITH_CUDA=OFF \
  -DCELLWISE_WITH_DEALII=OFF -DCELLWISE_WITH_MPI=OFF -DCELLWISE_BUILD_BENCHMARKS=OFF -DCELLWISE_BUILD_EXAMPLES=OFF > /dev/null
stamp "build the unit tests with ${jobs} jobs"
cmake --build build-tsan -j"${jobs}" --target cellwise_unit_tests
stamp "the concurrency tests under ThreadSanitizer"
TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1" OMP_NUM_THREADS=1 \
  build-tsan/tests/cellwise_unit_tests --gtest_filter='*Concurrent*:WorkSpaceLock*'
stamp "done: no sanitizer reports"
