#!/usr/bin/env bash
# Configure and build cellwise (Release) in build/ of the repository root.
# Sourced by quickstart-run.sh and quickstart-test.sh; can also be run alone.
#   CELLWISE_CMAKE_ARGS  extra arguments for the configure step, e.g.
#                        "-DCELLWISE_WITH_CUDA=OFF -DCMAKE_CUDA_ARCHITECTURES=80"
#   CELLWISE_BUILD_DIR   build directory (default: build)
#   CELLWISE_JOBS        parallel build jobs (default: nproc)
set -euo pipefail

cellwise_build() {
  local root build_dir jobs
  root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
  build_dir="${CELLWISE_BUILD_DIR:-build}"
  jobs="${CELLWISE_JOBS:-$(nproc 2> /dev/null || echo 2)}"
  local -a extra=()
  if [[ -n "${CELLWISE_CMAKE_ARGS:-}" ]]; then
    # word splitting on purpose: a space-separated list of -D... arguments
    read -r -a extra <<< "${CELLWISE_CMAKE_ARGS}"
  fi

  cd "$root"
  echo "[build] configuring: cmake -S . -B ${build_dir} -DCMAKE_BUILD_TYPE=Release ${extra[*]:-}"
  cmake -S . -B "${build_dir}" -DCMAKE_BUILD_TYPE=Release "${extra[@]}"
  echo "[build] building: cmake --build ${build_dir} -j${jobs}"
  cmake --build "${build_dir}" -j"${jobs}"
  echo "[build] build finished in ${root}/${build_dir}"
}

# Run when executed, not when sourced.
if [[ "${BASH_SOURCE[0]}" == "${0}" ]]; then
  cellwise_build "$@"
fi
