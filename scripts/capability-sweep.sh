#!/usr/bin/env bash
# Checks that the capability table tells the truth: runs cellwise-poisson on
# a small mesh for every row of one column of `cellwise-poisson
# --capabilities` and compares. A "yes" must solve (exit 0); a "no (x)" must
# be refused at once (exit 2) with reason x on stderr.
#   capability-sweep.sh PROGRAM BACKEND RANKS [MPIEXEC]
# BACKEND host or cuda; RANKS 1, or N > 1 (then under MPIEXEC -n N).
# Prints one line per row and a count; exits 1 on a mismatch, 77 (skipped)
# for cuda where this machine has no CUDA device or the build no backend.
set -uo pipefail

if [[ $# -lt 3 ]]; then
  echo "usage: $0 PROGRAM BACKEND RANKS [MPIEXEC]" >&2
  exit 2
fi
program=$1 backend=$2 ranks=$3 mpiexec=${4:-}
case "$backend:$ranks" in
  host:1) column=6 ;;
  cuda:1) column=8 ;;
  host:*) column=7 ;;
  cuda:*) column=9 ;;
esac
if [[ ! "$ranks" =~ ^[1-9][0-9]*$ ]] || [[ "$backend" != host && "$backend" != cuda ]]; then
  echo "$0: BACKEND must be host or cuda and RANKS a positive integer" >&2
  exit 2
fi
if [[ $ranks -gt 1 && -z "$mpiexec" ]]; then
  echo "$0: RANKS $ranks needs MPIEXEC" >&2
  exit 2
fi

if [[ $backend == cuda ]]; then
  probe=$("$program" --backend cuda --refinements 0 --degree 1 2>&1 >/dev/null)
  if [[ "$probe" == *"needs a CUDA device"* || "$probe" == *"has no CUDA backend"* ]]; then
    echo "skipped: the cuda column needs a CUDA device: ${probe#cellwise-poisson: }"
    exit 77
  fi
fi

table=$("$program" --capabilities) || { echo "$0: $program --capabilities failed" >&2; exit 1; }
# the reasons by letter: "- (a) text"
declare -A reason
while IFS= read -r line; do
  if [[ "$line" =~ ^-\ \(([a-z])\)\ (.*)$ ]]; then
    reason[${BASH_REMATCH[1]}]=${BASH_REMATCH[2]}
  fi
done <<< "$table"

launcher=()
if [[ $ranks -gt 1 ]]; then
  launcher=(env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
            "$mpiexec" -n "$ranks" --oversubscribe)
fi

passed=0 failed=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT
while IFS='|' read -r _ problem geometry mesh precision smoother c6 c7 c8 c9 _; do
  problem=${problem// /} geometry=${geometry// /} mesh=${mesh// /}
  precision=${precision// /} smoother=${smoother// /}
  [[ "$problem" == poisson || "$problem" == biharmonic ]] || continue
  cells=("$c6" "$c7" "$c8" "$c9")
  expected=$(echo "${cells[$((column - 6))]}" | sed 's/^ *//; s/ *$//')
  arguments=(--problem "$problem" --precision "$precision" --smoother "$smoother" --backend "$backend"
             --tolerance 1e-6 --max-iterations 200 --threads 1)
  if [[ $problem == poisson ]]; then
    # on ranks two refinements: p4est's partition keeps families of sibling
    # cells whole, and one refinement of one cell leaves a rank without any
    arguments+=(--geometry "$geometry" --degree 2 --refinements $((ranks > 1 ? 2 : 1)))
  else
    arguments+=(--refinements 2)
  fi
  # damped Jacobi on the Kershaw box's stretched cells: the default damping
  # 0.7 times λ_max(D⁻¹A) ≈ 3 exceeds 2 from L = 2 on, which the smoother
  # refuses, naming the damping to use (doc/capabilities.md)
  [[ $geometry == kershaw && $smoother == jacobi ]] && arguments+=(--jacobi-omega 0.4)
  [[ $mesh == local ]] && arguments+=(--adaptive-steps 1)
  [[ $smoother == patch ]] && arguments+=(--solver stationary)
  # (stdin from /dev/null: mpiexec would read the rest of the table)
  "${launcher[@]}" "$program" "${arguments[@]}" > "$log" 2>&1 < /dev/null
  status=$?
  name="$problem $geometry $mesh $precision $smoother on $backend, $ranks rank(s)"
  verdict=""
  if [[ "$expected" == yes ]]; then
    [[ $status -eq 0 ]] || verdict="the table says yes, the run exited $status: $(grep 'cellwise-poisson: ' "$log" | tail -n 1)"
  elif [[ "$expected" =~ ^no\ \(([a-z])\)$ ]]; then
    why=${reason[${BASH_REMATCH[1]}]}
    if [[ $status -ne 2 ]]; then
      verdict="the table says no, the run exited $status"
    elif ! grep -qF -- "$why" "$log"; then
      verdict="refused, but not with the table's reason '$why': $(grep 'cellwise-poisson: ' "$log" | tail -n 1)"
    fi
  else
    verdict="cannot read the table's cell '$expected'"
  fi
  if [[ -z "$verdict" ]]; then
    passed=$((passed + 1))
    echo "ok      $name: $expected"
  else
    failed=$((failed + 1))
    echo "MISMATCH $name: $verdict"
    sed 's/^/    /' "$log" | tail -n 5
  fi
done <<< "$table"
echo "capability sweep ($backend, $ranks rank(s)): $passed rows agree with the table, $failed disagree"
[[ $failed -eq 0 && $passed -gt 0 ]]
