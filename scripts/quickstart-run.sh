#!/usr/bin/env bash
# Quick start: install what is missing (Debian 12), build cellwise in build/
# (Release) and run the main program on its default problem.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

echo "[quickstart-run] $(date -u +%H:%M:%S) step 1/3: dependencies"
bash "$ROOT/scripts/install-dependencies.sh"

echo "[quickstart-run] $(date -u +%H:%M:%S) step 2/3: configure and build"
# shellcheck source=build.sh
source "$ROOT/scripts/build.sh"
cellwise_build

BUILD_DIR="${CELLWISE_BUILD_DIR:-build}"
[[ "$BUILD_DIR" == /* ]] || BUILD_DIR="$ROOT/$BUILD_DIR"
PROGRAM="$BUILD_DIR/examples/poisson/cellwise-poisson"
echo "[quickstart-run] $(date -u +%H:%M:%S) step 3/3: running ${PROGRAM}"
if [[ ! -x "$PROGRAM" ]]; then
  echo "[quickstart-run] error: ${PROGRAM} was not built." >&2
  echo "[quickstart-run] The build did not produce the main program; see the build output above." >&2
  exit 1
fi
exec "$PROGRAM" "$@"
