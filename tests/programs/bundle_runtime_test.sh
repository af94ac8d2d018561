#!/usr/bin/env bash
# ctest bundle_runtime: scripts/bundle-runtime.sh and unbundle-runtime.sh
# (doc/gpu-node.md) on a deal.II program of this build.
#   bundle_runtime_test.sh ROOT PROGRAM WORKDIR [DEALII_TEST_PROGRAM]
# Bundles PROGRAM (step-37-cellwise) in parts of 16 MiB at zstd's level 1
# (several parts, fast), unpacks them into WORKDIR/tree and runs the program
# from there through bin/run with LD_LIBRARY_PATH holding the bundle's lib/
# alone and nothing else of this environment, checking its exit status and
# its solve line; then without bin/run (the run paths) where patchelf set
# them. Then the refusals, each with exit status 1 and its reason: a damaged
# part, a missing part (nothing unpacked), zstd missing where the parts are
# zstd, a program that is not there, a library that ldd cannot find.
# With DEALII_TEST_PROGRAM (dealii_dof_handler_lifetime of tests/dealii),
# that program and numdiff are bundled too and
# scripts/run-bundled-dealii-tests.sh runs it from the unpacked tree: PASS
# against its stored output, FAIL (exit status 1) against a changed copy.
# WORKDIR is removed when everything passed (the tree is ~0.5 GB).
set -euo pipefail

root=$1 program=$2 work=$3 test_program=${4:-}
bundle=("$root/scripts/bundle-runtime.sh")
unbundle=("$root/scripts/unbundle-runtime.sh")
name=$(basename "$program")
step() { echo "[bundle_runtime] $(date -u +%H:%M:%S) $*"; }
fail() {
  echo "[bundle_runtime] FAIL: $*" >&2
  exit 1
}
# runs "$@", which must exit with status 1 and say $expect on stderr
expect_refusal() {
  local expect=$1 status=0
  shift
  "$@" > "$work/refusal.out" 2> "$work/refusal.err" || status=$?
  [[ $status -eq 1 ]] || fail "$* exited with $status, not 1: $(cat "$work/refusal.err")"
  grep -q -- "$expect" "$work/refusal.err" || fail "$* did not say '$expect': $(cat "$work/refusal.err")"
  step "refused as expected: $(head -n 1 "$work/refusal.err")"
}

rm -rf "$work"
mkdir -p "$work"

step "bundle $name in parts of 16M"
bash "${bundle[@]}" --part-size 16M --level 1 "$program" "$work/parts"
parts=("$work/parts/$name".tar.zst.part-*)
[[ ${#parts[@]} -ge 2 ]] || fail "expected several parts, got ${#parts[@]}"
for part in "${parts[@]}"; do
  [[ $(stat -c %s "$part") -le $((16 * 1024 * 1024)) ]] || fail "$part is larger than --part-size"
done
grep -q "^program: $name " "$work/parts/MANIFEST" || fail "MANIFEST does not list $name"
grep -q '^library: libdeal\.ii\.so' "$work/parts/MANIFEST" || fail "MANIFEST does not list libdeal.ii"
grep -q '^provided-by-node: libc\.so\.6 glibc' "$work/parts/MANIFEST" || fail "MANIFEST does not leave libc to the node"

step "unbundle into $work/tree"
bash "${unbundle[@]}" "$work/parts" "$work/tree"
[[ -x "$work/tree/bin/run" && -x "$work/tree/bin/$name" ]] || fail "bin/run or bin/$name missing in the tree"

# Only the bundle's lib/ on the loader path and a bare environment: deal.II,
# p4est and Trilinos come from the tree (ldd says so), the node's share
# (libc, Open MPI, CUDA) from this machine's system folders.
# (a sanitizer build's options and suppressions stay: they are not the loader's)
keep=(PATH=/usr/bin:/bin HOME="$work" OMP_NUM_THREADS=1)
for variable in ASAN_OPTIONS LSAN_OPTIONS UBSAN_OPTIONS TSAN_OPTIONS; do
  [[ -z "${!variable:-}" ]] || keep+=("$variable=${!variable}")
done
bare=(env -i "${keep[@]}" LD_LIBRARY_PATH="$work/tree/lib")
deal=$("${bare[@]}" ldd "$work/tree/bin/$name" | sed -n 's/^[[:space:]]*libdeal\.ii[^ ]* => \([^ ]*\) .*/\1/p')
[[ "$(readlink -f "$deal")" == "$(readlink -f "$work/tree/lib")/"* ]] || fail "libdeal.ii loads from '$deal', not from the tree"

step "run bin/run $name --cycles 1 with LD_LIBRARY_PATH=$work/tree/lib only"
status=0
(cd "$work" && "${bare[@]}" "$work/tree/bin/run" "$name" --cycles 1) > "$work/run.out" 2>&1 || status=$?
[[ $status -eq 0 ]] || fail "bin/run $name exited with $status: $(tail -n 20 "$work/run.out")"
grep -q 'Time solve (6 iterations)' "$work/run.out" || fail "no 'Time solve (6 iterations)' line: $(cat "$work/run.out")"
step "ran: $(grep 'Time solve' "$work/run.out")"

if grep -q '^run-paths: set' "$work/tree/MANIFEST"; then
  step "run bin/$name directly, without LD_LIBRARY_PATH (its run path)"
  status=0
  (cd "$work" && env -i "${keep[@]}" "$work/tree/bin/$name" --cycles 1) \
    > "$work/direct.out" 2>&1 || status=$?
  [[ $status -eq 0 ]] || fail "bin/$name exited with $status: $(tail -n 20 "$work/direct.out")"
  grep -q 'Time solve (6 iterations)' "$work/direct.out" || fail "no solve line: $(cat "$work/direct.out")"
fi

# the damaged and the missing part in folders of links to the good parts,
# so that the parts themselves stay as they are
mkdir -p "$work/damaged" "$work/incomplete"
ln -s "$work/parts"/* "$work/damaged/"
ln -s "$work/parts"/* "$work/incomplete/"
last=$(basename "${parts[-1]}")
rm "$work/damaged/$last"
cp "$work/parts/$last" "$work/damaged/$last"
printf 'XXXX' | dd of="$work/damaged/$last" bs=1 seek=100 conv=notrunc status=none
cmp -s "$work/damaged/$last" "$work/parts/$last" && printf 'YYYY' | dd of="$work/damaged/$last" bs=1 seek=100 conv=notrunc status=none
expect_refusal "$last: checksum mismatch" bash "${unbundle[@]}" "$work/damaged" "$work/tree-damaged"
[[ ! -e "$work/tree-damaged" ]] || fail "a damaged bundle was unpacked"
rm "$work/incomplete/$name.tar.zst.part-001"
expect_refusal "$name.tar.zst.part-001 is missing" bash "${unbundle[@]}" "$work/incomplete" "$work/tree-incomplete"
[[ ! -e "$work/tree-incomplete" ]] || fail "an incomplete bundle was unpacked"

# zstd missing: a PATH of this machine's tools less zstd
mkdir -p "$work/no-zstd"
ln -s /usr/bin/* "$work/no-zstd/" 2> /dev/null || true
ln -s /bin/* "$work/no-zstd/" 2> /dev/null || true
rm -f "$work/no-zstd/zstd"
# the bundle's own zstd where the node has none, and a refusal without it
step "unbundle where zstd is not installed: the bundle's zstd/"
env PATH="$work/no-zstd" "$BASH" "${unbundle[@]}" "$work/parts" "$work/tree-no-zstd" ||
  fail "unbundle with the bundle's zstd/ and no zstd on PATH failed"
[[ -x "$work/tree-no-zstd/bin/run" ]] || fail "unbundle with the bundle's zstd/ unpacked no bin/run"
rm -rf "$work/parts/zstd"
expect_refusal "zstd is not installed here" env PATH="$work/no-zstd" "$BASH" "${unbundle[@]}" "$work/parts" "$work/tree-no-zstd-2"

expect_refusal "no program $work/no-such-program" bash "${bundle[@]}" "$work/no-such-program" "$work/parts-none"
if command -v patchelf > /dev/null 2>&1; then
  cp "$(type -P true)" "$work/needy"
  patchelf --add-needed libcellwise-no-such-library.so.1 "$work/needy"
  expect_refusal "needs libcellwise-no-such-library.so.1, which ldd cannot find" \
    bash "${bundle[@]}" "$work/needy" "$work/parts-needy"
fi

if [[ -n $test_program ]]; then
  test_name=$(basename "$test_program")
  test_name=${test_name#dealii_}
  step "bundle $(basename "$test_program") and numdiff; run-bundled-dealii-tests.sh on it"
  bash "${bundle[@]}" --level 1 "$test_program" "$(type -P numdiff)" "$work/test-parts" > /dev/null
  bash "${unbundle[@]}" "$work/test-parts" "$work/test-tree" > /dev/null
  runner=("$root/scripts/run-bundled-dealii-tests.sh")
  bash "${runner[@]}" --work "$work/dealii-tests" "$work/test-tree" "$test_name" > "$work/runner.out" 2>&1 ||
    fail "run-bundled-dealii-tests.sh failed: $(cat "$work/runner.out")"
  grep -q "^PASS $test_name " "$work/runner.out" && grep -q "1 of 1 passed" "$work/runner.out" ||
    fail "run-bundled-dealii-tests.sh did not pass $test_name: $(cat "$work/runner.out")"
  step "$(tail -n 1 "$work/runner.out")"
  # the runner beside a tests/dealii whose stored output differs: FAIL
  mkdir -p "$work/changed/scripts" "$work/changed/tests/dealii"
  cp "${runner[0]}" "$work/changed/scripts/"
  cp "$root/tests/dealii/$test_name.cc" "$work/changed/tests/dealii/"
  sed '1s/.*/a line the program does not write/' "$root/tests/dealii/$test_name.output" > "$work/changed/tests/dealii/$test_name.output"
  status=0
  bash "$work/changed/scripts/run-bundled-dealii-tests.sh" --work "$work/dealii-tests-changed" "$work/test-tree" > "$work/runner-changed.out" 2>&1 || status=$?
  [[ $status -eq 1 ]] && grep -q "^FAIL $test_name: output differs" "$work/runner-changed.out" ||
    fail "a changed stored output was not a FAIL with status 1 (status $status): $(cat "$work/runner-changed.out")"
  step "refused as expected: $(grep '^FAIL' "$work/runner-changed.out")"
fi

rm -rf "$work"
step "passed"
