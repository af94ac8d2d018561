#!/usr/bin/env bash
# Builds the core with the CUDA backend (no deal.II) and runs, on a machine
# with an NVIDIA GPU, the device tests, the kernel, solver and patch-smoother
# benchmarks and the device solves behind the tables of doc/performance.md and
# doc/results.md. Every step writes its log into OUTDIR; a step that fails or
# runs out of its time limit does not stop the later ones.
#
# With PROBLEM_DIR (the problem files that the deal.II test problem_file writes
# into build/tests/dealii/problem_file on a machine with deal.II, copied over)
# it also solves each on the device in FP64 and mixed precision and checks
# the difference to deal.II's stored solution (1e-9 and 1e-7).
#
# usage: benchmarks/run_gpu_suite.sh OUTDIR [CUDA_ARCHITECTURES (default 90)] [PROBLEM_DIR]
set -uo pipefail
out=${1:?usage: benchmarks/run_gpu_suite.sh OUTDIR [CUDA_ARCHITECTURES] [PROBLEM_DIR]}
arch=${2:-90}
problems=${3:-}
mkdir -p "$out"
stamp() { echo "[suite] $(date -u +%FT%TZ) $*"; }

stamp "configure and build (sm_${arch})"
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="$arch" -DCELLWISE_WITH_DEALII=OFF \
  > "$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
cmake --build build-gpu -j"$(nproc)" --target cellwise_cuda_tests cellwise-poisson cellwise-benchmark-kernels \
  cellwise-benchmark-solver cellwise-benchmark-patch cellwise-benchmark-mixed-solve cellwise-benchmark-adaptive > "$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 1; }
nvidia-smi > "$out/nvidia-smi.log" 2>&1

run() { # run NAME SECONDS COMMAND...
  local name=$1 limit=$2
  shift 2
  stamp "$name"
  timeout "$limit" "$@" > "$out/$name.log" 2>&1
  echo "[suite] $name exited with $?" | tee -a "$out/$name.log"
}

run cuda-tests 240 build-gpu/tests/cellwise_cuda_tests
tail -3 "$out/cuda-tests.log"
# the sanitizers on small meshes (CELLWISE_CUDA_TEST_MAX_LEVEL): every kernel
# family once; racecheck on the kernels that share memory between threads
sanitized="*Transfer*:*Dss*:*DSS*:*Laplace*:*CudaCellVector*:*Smoother*:*Adaptive*:*ActiveMesh*:*EventTimer*:*PatchSmootherFp32*:*PatchSmootherRegisterQ3*"
run memcheck 180 env CELLWISE_CUDA_TEST_MAX_LEVEL=3 compute-sanitizer --tool memcheck \
  build-gpu/tests/cellwise_cuda_tests --gtest_filter="$sanitized"
run racecheck 120 env CELLWISE_CUDA_TEST_MAX_LEVEL=3 compute-sanitizer --tool racecheck \
  build-gpu/tests/cellwise_cuda_tests --gtest_filter='*Transfer*:*relayout*:*PatchSmootherFp32*:*PatchSmootherRegisterQ3*:*Laplace*.smoother_step*'
run bench-kernels 90 build-gpu/benchmarks/cellwise-benchmark-kernels 30
run bench-solver 180 build-gpu/benchmarks/cellwise-benchmark-solver 30 7
run bench-patch 90 build-gpu/benchmarks/cellwise-benchmark-patch
run bench-mixed-solve 240 build-gpu/benchmarks/cellwise-benchmark-mixed-solve 10 8 6
run bench-adaptive 150 build-gpu/benchmarks/cellwise-benchmark-adaptive 20

poisson=build-gpu/examples/poisson/cellwise-poisson
export OMP_NUM_THREADS=$(nproc)
run solve-cg-chebyshev-fp64 120 $poisson --backend cuda --refinements 2-7 --tolerance 1e-14
run solve-patch-forward-fp64 120 $poisson --backend cuda --smoother patch --solver stationary --refinements 2-7
run solve-patch-forward-mixed 240 $poisson --backend cuda --smoother patch --solver stationary --precision mixed --refinements 4-8
run solve-adaptive-octant-cuda 120 $poisson --backend cuda --refinements 2-4 --adaptive-steps 3 --marker octant --tolerance 1e-12

# deal.II-born problems on the device: both difference columns (relative max
# and l2 to deal.II's solution) below 1e-9 in FP64, 1e-7 in mixed precision
if [[ -n "$problems" ]]; then
  for file in "$problems"/*.cwp; do
    name=$(basename "$file" .cwp)
    for precision in fp64 mixed; do
      log="problem-$name-$precision"
      run "$log" 60 $poisson --problem-file "$file" --backend cuda --precision "$precision" --tolerance 1e-12
      bound='(1[0-9]|[2-9][0-9])'
      [[ $precision == mixed ]] && bound='(0[89]|1[0-9]|[2-9][0-9])'
      if grep -Eq " [0-9]\.[0-9]+e-$bound +[0-9]\.[0-9]+e-$bound\$" "$out/$log.log"; then
        echo "[suite] $log: equals deal.II's solution"
      else
        echo "[suite] $log: DIFFERS from deal.II's solution (see $log.log)"
      fi
    done
  done
fi
stamp done
