#!/usr/bin/env bash
# Builds the host code with AddressSanitizer and UndefinedBehaviorSanitizer
# (CELLWISE_SANITIZE=ON, no CUDA) in build-sanitize/ and runs the whole test
# suite under them: any invalid access, leak (Open MPI's own, from MPI_Init,
# suppressed by tests/sanitizers/lsan.supp) or undefined behaviour fails its
# test. Not part of CI (it takes longer than the plain build); run it before a
# release or after touching memory handling.
#   CELLWISE_JOBS  parallel build jobs (default: nproc)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
jobs="${CELLWISE_JOBS:-$(nproc 2> /dev/null || echo 2)}"
stamp() { echo "[sanitizers] $(date -u +%H:%M:%S) $*"; }

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
stamp "done: no sanitizer reports"
