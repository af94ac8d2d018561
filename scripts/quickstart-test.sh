#!/usr/bin/env bash
# Quick start: install what is missing (Debian 12), build cellwise in build/
# (Release) and run the whole test suite.
#   CELLWISE_TEST_JOBS  parallel ctest jobs (default: nproc)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

echo "[quickstart-test] $(date -u +%H:%M:%S) step 1/3: dependencies"
bash "$ROOT/scripts/install-dependencies.sh"

echo "[quickstart-test] $(date -u +%H:%M:%S) step 2/3: configure and build"
# shellcheck source=build.sh
source "$ROOT/scripts/build.sh"
cellwise_build

BUILD_DIR="${CELLWISE_BUILD_DIR:-build}"
JOBS="${CELLWISE_TEST_JOBS:-$(nproc 2> /dev/null || echo 2)}"
echo "[quickstart-test] $(date -u +%H:%M:%S) step 3/3: ctest --test-dir ${BUILD_DIR} --output-on-failure -j${JOBS}"
ctest --test-dir "$BUILD_DIR" --output-on-failure -j"$JOBS"
