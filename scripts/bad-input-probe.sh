#!/usr/bin/env bash
# Probes cellwise-poisson with bad input: runs a list of adversarial command
# lines, problem files, per-rank MPI options and memory limits against the
# built program and classifies each outcome:
#   clear error   exit 1 or 2 in time, stderr starting with "cellwise-poisson:"
#                 and free of stack traces, "terminate called", "Signal",
#                 "Aborted" and sanitizer text (under MPI: every rank's stderr
#                 lines so);
#   unclear error any other refusal in time (another exit status, or a
#                 message that is not the program's one line);
#   crash         killed by a signal (exit >= 128), or "terminate called",
#                 "Segmentation", "*** Process received signal", "MPI_ERR",
#                 sanitizer reports in the output;
#   hang          not finished within the timeout (30 s, MPI 60 s;
#                 timeout --kill-after=5);
#   accepted      exit 0: "accepted (check the answer)" for input that is bad
#                 on purpose, "accepted (correct)" or "accepted (WRONG
#                 answer)" for input that must be solved, whose answer line is
#                 checked.
#   bad-input-probe.sh PROGRAM [MPIEXEC]
# Prints "category | input | first line of stderr" per input and a summary;
# exits 0 if nothing crashed or hung, else 1. Needs python3 for the problem
# file group (and a problem file written by the tests, see below); the MPI
# group runs when MPIEXEC is given and the program runs on 2 ranks.
# PROBE_TIMEOUT and PROBE_MPI_TIMEOUT override the timeouts (seconds).
set -uo pipefail

if [[ $# -lt 1 || $# -gt 2 ]]; then
  echo "usage: $0 PROGRAM [MPIEXEC]" >&2
  exit 2
fi
if [[ ! -x "$1" || -d "$1" ]]; then
  echo "$0: $1 is not an executable program (build it first)" >&2
  exit 2
fi
program=$(realpath "$1")
mpiexec=${2:-}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
timeout_s=${PROBE_TIMEOUT:-30}
mpi_timeout_s=${PROBE_MPI_TIMEOUT:-60}
ranks=2

work=$(mktemp -d "${TMPDIR:-/tmp}/bad-input-probe.XXXXXX")
# every process a probe starts carries this in its environment, so that the
# leftovers of a hang (MPI ranks whose mpiexec was killed) are found by id
marker="bad-input-probe-$$-$RANDOM"
kill_leftovers() {
  local environ pid
  for environ in /proc/[0-9]*/environ; do
    pid=${environ#/proc/}
    pid=${pid%/environ}
    [[ $pid == "$$" ]] && continue
    [[ -r $environ ]] || continue
    if { tr '\0' '\n' < "$environ"; } 2> /dev/null | grep -qx "CELLWISE_BAD_INPUT_PROBE=$marker"; then
      kill -KILL "$pid" 2>/dev/null
    fi
  done
}
cleanup() {
  kill_leftovers
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---------------------------------------------------------------- running ---

count_inputs=0 count_clear=0 count_unclear=0 count_crash=0 count_hang=0 count_accepted=0 count_correct=0
findings=()     # the lines of every crash, hang and accepted input (but correct controls)
ulimit_v=""     # set around a probe: its address-space limit (KiB)
mpi_job=0       # set around a probe: the command is an MPI job of $ranks ranks

crash_pattern='terminate called|Segmentation|\*\*\* Process received signal|MPI_ERR|exited on signal|ERROR: (Address|Leak|Thread|Memory)Sanitizer|UndefinedBehaviorSanitizer|runtime error: '
unclean_pattern='terminate called|Signal|Aborted|stack trace|Stack trace|[Bb]acktrace|Sanitizer|runtime error: |^ *#[0-9]+ +0x|\[ *[0-9]+\] /'

# The answer checks of inputs that must be solved: exit 0 and a correct line.
# Each prints the line it judged (or nothing) and returns 0 if correct.
answer_line() { # the last result row: the summary's or the problem file's
  grep -aE '^ *[0-9]+ +[0-9]+ +[0-9]' "$work/out" | tail -n 1
}
answer_summary() { # every row of the summary: η_n/η_0 < 1e-6, the L2 error finite
  local line
  line=$(awk '/^Summary/ {s = 1; next} s && /^ *[0-9]+ / {print}' "$work/out" | tail -n 1)
  echo "$line"
  awk '/^Summary/ {s = 1; next}
       s && /^ *[0-9]+ / {n++; if (!($6 + 0 < 1e-6) || $8 ~ /nan|inf/) bad = 1}
       END {exit !(n > 0 && !bad)}' "$work/out"
}
answer_problem_file() { # the difference to the stored solution below 1e-6
  local line
  line=$(awk '/max diff\./ {getline; print; exit}' "$work/out")
  echo "$line"
  [[ -n $line ]] && awk '{exit !($7 + 0 < 1e-6 && $7 !~ /nan|inf/)}' <<< "$line"
}

# probe EXPECTATION LABEL COMMAND...
# EXPECTATION: bad (bad on purpose), bad~REGEX (bad, and its refusal must
# match REGEX to count as clear), ok=CHECK (must solve; CHECK an answer_*
# function). LABEL "" shows the command's arguments.
probe() {
  local expect=$1 label=$2
  shift 2
  [[ -z $label ]] && label="${*:2}"
  local limit=$timeout_s
  [[ $mpi_job == 1 ]] && limit=$mpi_timeout_s
  rm -rf "$work/ranks"
  local start status elapsed_ms
  start=$(date +%s%N)
  # (the braces' 2> /dev/null: bash's own "Segmentation fault" line about
  # the subshell)
  {
    (
      if [[ -n $ulimit_v ]]; then ulimit -v "$ulimit_v" || exit 125; fi
      exec env CELLWISE_BAD_INPUT_PROBE="$marker" timeout --kill-after=5 "$limit" "$@"
    ) > "$work/out" 2> "$work/err" < /dev/null
  } 2> /dev/null
  status=$?
  elapsed_ms=$((($(date +%s%N) - start) / 1000000))

  # under MPI each rank's stdout and stderr are files of its own
  # (--output-filename); the job's merged output stays in out and err
  local rank_files=() r
  if [[ $mpi_job == 1 ]]; then
    rank_files=("$work"/ranks/*/rank.*/std*)
    [[ -e ${rank_files[0]} ]] || rank_files=()
  fi
  rank_file() { # rank_file R stdout|stderr: its path, or /dev/null
    local file
    for file in "$work"/ranks/*/rank."$1"/"$2"; do
      [[ -f $file ]] && { echo "$file"; return; }
    done
    echo /dev/null
  }
  local first="" category note=""
  if [[ $mpi_job == 1 ]]; then
    first=$(grep -a -m1 -v '^[[:space:]]*$' "$(rank_file 0 stderr)")
    cp "$work/out" "$work/out.job"
    cp "$(rank_file 0 stdout)" "$work/out"
  fi
  [[ -z $first ]] && first=$(grep -a -m1 -v '^[[:space:]]*$' "$work/err")

  if (( (status == 124 || status == 137) && elapsed_ms >= limit * 1000 )); then
    category="hang"
    first="(no exit within ${limit} s) ${first}"
    kill_leftovers
  elif (( status >= 128 )) || grep -aqE "$crash_pattern" "$work/out" "$work/err" "${rank_files[@]}"; then
    category="crash"
    local where
    where=$(grep -a -m1 -hE "$crash_pattern" "$work/err" "$work/out" "${rank_files[@]}" | head -n 1)
    [[ -n $where && $where != "$first" ]] && first="$first ... $where"
    # where it crashed: the first frame of a signal handler's backtrace
    local frame
    frame=$(grep -a -m1 -hE '\[ *1\] ' "$work/err" "${rank_files[@]}" | head -n 1)
    [[ -n $frame ]] && first="$first ... $frame"
    first="(exit $status) $first"
  elif (( status == 0 )); then
    if [[ $expect == ok=* ]]; then
      local line
      if line=$(${expect#ok=}); then
        category="accepted (correct)"
      else
        category="accepted (WRONG answer)"
      fi
      first="answer: ${line:-(no answer line)}"
    else
      category="accepted (check the answer)"
      [[ -z $first ]] && first="(stderr empty) answer: $(answer_line)"
    fi
  else
    category="clear error"
    if [[ $mpi_job == 1 ]]; then
      local stderr_file
      for ((r = 0; r < ranks; ++r)); do
        stderr_file=$(rank_file "$r" stderr)
        if ! grep -aq . "$stderr_file"; then
          category="unclear error"
          note="$note(rank $r wrote no stderr) "
        elif grep -a -v '^[[:space:]]*$' "$stderr_file" | grep -aqv '^cellwise-poisson:'; then
          category="unclear error"
          note="$note(rank $r wrote a line that is not the program's) "
        fi
        grep -aqE "$unclean_pattern" "$stderr_file" && category="unclear error"
      done
      # the ranks' lines must not be interleaved on the job's stderr
      grep -aqE '.cellwise-poisson:' "$work/err" && note="${note}[the ranks' lines interleaved on the job's stderr] "
    else
      (( status == 1 || status == 2 )) || { category="unclear error"; note="(exit $status) "; }
      [[ $first == cellwise-poisson:* ]] || category="unclear error"
    fi
    grep -aqE "$unclean_pattern" "$work/err" && category="unclear error"
    if [[ $category == "clear error" && $expect == bad~* ]] && ! grep -aqE -- "${expect#bad~}" "$work/err"; then
      category="unclear error"
      note="$note(not a refusal matching '${expect#bad~}') "
    fi
    first="$note$first"
  fi
  [[ -z $first ]] && first="(stderr empty, exit $status)"

  count_inputs=$((count_inputs + 1))
  case $category in
    "clear error") count_clear=$((count_clear + 1)) ;;
    "unclear error") count_unclear=$((count_unclear + 1)) ;;
    crash) count_crash=$((count_crash + 1)) ;;
    hang) count_hang=$((count_hang + 1)) ;;
    accepted*) count_accepted=$((count_accepted + 1)) ;;
  esac
  [[ $category == "accepted (correct)" ]] && count_correct=$((count_correct + 1))
  local row
  row="$category | $label | ${first:0:300}"
  echo "$row"
  [[ $category == crash || $category == hang || ($category == accepted* && $category != "accepted (correct)") ]] &&
    findings+=("$row")
  return 0
}

p=$program
section() { echo; echo "== $*"; }

# -------------------------------------------------------------- 1 options ---
section "1. options"
small=(--refinements 1 --degree 2 --threads 1)
probe bad "" "$p" --frobnicate 1
probe bad "" "$p" stray-argument
probe bad "" "$p" --degree
probe bad "" "$p" --refinements 1 --tolerance
probe bad "" "$p" --degree 0
probe bad "" "$p" --degree 9
probe bad "" "$p" --degree -1
probe bad "" "$p" --degree 1e9
probe bad "" "$p" --degree ""
probe bad "" "$p" --degree 2x
probe bad "" "$p" --degree 99999999999999999999
probe bad "--degree <5000 nines>" "$p" --degree "$(printf '9%.0s' {1..5000})"
probe bad "" "$p" --refinements -1
probe bad "" "$p" --refinements 99
probe bad "" "$p" --refinements 2-1
probe bad "" "$p" --refinements 1-2-3
probe bad "" "$p" --refinements 1-
probe bad "" "$p" --refinements ""
probe bad "" "$p" --refinements 12 --threads 1
probe bad "" "$p" --tolerance 0
probe bad "" "$p" --tolerance -1
probe bad "" "$p" --tolerance nan
probe bad "" "$p" --tolerance inf
probe bad "" "$p" --tolerance 1e-400
probe bad "" "$p" --tolerance 1
probe bad "" "$p" "${small[@]}" --tolerance 1e-300 --max-iterations 3
probe bad "" "$p" --max-iterations 0
probe bad "" "$p" --max-iterations -5
probe bad "" "$p" --max-iterations 4294967297
probe bad "" "$p" --iterations 0
probe bad "" "$p" --refinements 1 --degree 1 --threads 1 --iterations 100000
probe bad "" "$p" --solves 0
probe bad "" "$p" --box 1,2
probe bad "" "$p" --box a,b,c,d,e,f
probe bad "" "$p" --box 0,0,0,0,1,1
probe bad "" "$p" --box 1,0,0,0,1,1
probe bad "" "$p" --box 0,0,0,1e-300,1,1
probe bad "" "$p" --box -1e308,0,0,1e308,1,1
probe bad "" "$p" --box nan,0,0,1,1,1
probe bad "" "$p" --box 0,0,0,inf,1,1
probe bad "" "$p" --box 0,0,0,1,1,1,1
probe bad "" "$p" --box ,,,,,
probe ok=answer_summary "" "$p" "${small[@]}" --box 0,0,0,1e-40,1,1
probe ok=answer_summary "" "$p" "${small[@]}" --box -1e40,0,0,0,1,1
probe ok=answer_summary "" "$p" "${small[@]}" --solution polynomial --box 0,0,0,1e15,1,1
probe bad "" "$p" --subdivisions 0,1,1
probe bad "" "$p" --subdivisions 1,1
probe bad "" "$p" --subdivisions -1,1,1
probe bad "" "$p" --subdivisions 1025,1,1
probe bad~memory "" "$p" --subdivisions 1024,1024,1024 --refinements 0 --threads 1
probe bad "" "$p" --smoother foo
probe bad "" "$p" --solver foo
probe bad "" "$p" --precision double
probe bad "" "$p" --backend foo
probe bad "" "$p" --geometry foo
probe bad "" "$p" --marker foo
probe bad "" "$p" --solution foo
probe bad "" "$p" --coarse foo
probe bad "" "$p" --cycle foo
probe bad "" "$p" --rebalance sometimes
probe bad "" "$p" --stop-on foo
probe bad "" "$p" --problem foo
probe bad "--smoother <0xff byte>" "$p" --smoother $'\xff'
probe bad "" "$p" --threads 0
probe bad "" "$p" --jacobi-omega 2 --smoother jacobi
probe bad "" "$p" --jacobi-omega 0.5
probe bad "" "$p" --kershaw-epsilon 0 --geometry kershaw
probe bad "" "$p" --kershaw-epsilon 0.5
probe bad "" "$p" --stop-on extrapolated --solver cg
probe bad "" "$p" --stop-on extrapolated
probe bad "" "$p" --marker ball
probe bad "" "$p" --adaptive-steps 2 --geometry kershaw --refinements 1
probe bad "" "$p" --adaptive-steps 2 --geometry ball --refinements 1
probe bad "" "$p" --adaptive-steps 1 --precision mixed --refinements 1
probe bad "" "$p" --geometry lshape --solution polynomial
probe bad "" "$p" --geometry ball --solution sine
probe bad "" "$p" --geometry lshape --box 0,0,0,1,1,1
probe bad "" "$p" --solver cg --cycle forward --smoother patch
probe bad "" "$p" --problem biharmonic --degree 2
probe bad "" "$p" --problem biharmonic --solution sine
probe bad "" "$p" --backend cuda --refinements 1
probe bad "" "$p" --problem-file ""
probe ok=answer_summary "" "$p" --refinements 1 --degree 2 --threads 64

# -------------------------------------------------------- 2 problem files ---
section "2. problem files (--problem-file F)"
# a valid file: the deal.II test tests/dealii/problem_file writes them under
# the build tree; without one (no deal.II, not built) the group is skipped
build_dir=$(dirname "$(dirname "$(dirname "$program")")")
valid=""
for candidate in "$build_dir"/tests/dealii/problem_file/step37_q2.cwp "$root"/build/tests/dealii/problem_file/step37_q2.cwp; do
  [[ -f $candidate ]] && { valid=$candidate; break; }
done
files_dir=$(dirname "${valid:-/nonexistent/x}")
if [[ -z $valid ]] || ! command -v python3 > /dev/null; then
  echo "skipped: no problem file (run the deal.II test tests/dealii/problem_file to write build/tests/dealii/problem_file/*.cwp) or no python3"
else
  # cwp.py empty-mesh IN OUT: IN's header, one level of no cells, empty
  # vectors, the right checksum.
  # cwp.py IN OUT [--keep-checksum] ACTION LOCATION VALUE ...: a copy of IN
  # with the edits, its last 8 bytes rewritten as the FNV-1a 64 of the bytes
  # before them (unless --keep-checksum). ACTION: set, add, scale (f64),
  # xor (integers). LOCATION: @OFFSET:TYPE, or by the format of
  # include/cellwise/storage/problem_file.h: header.FIELD, dirichlet.I,
  # description.I, levelL.n_cells, levelL.n_owned, levelL.cellC.FIELD (lowerD,
  # sizeD, coordinateD, parent, slot, childS, neighborF, flags),
  # levelL.mapping_degree, levelL.node.C.I.D, levelL.skeleton_count,
  # levelL.skeleton.K.FIELD, rhs.I, rhs.n_cells, rhs.degree, solution.I,
  # coefficient_count, coefficient.I. cwp.py check IN: is the checksum right.
  cat > "$work/cwp.py" << 'PYTHON'
import struct, sys

FNV_OFFSET, FNV_PRIME, MASK = 14695981039346656037, 1099511628211, (1 << 64) - 1
CELL_BYTES = 6 * 8 + 3 * 4 + 4 + 1 + 8 * 4 + 6 * 4 + 1
SIZES = {"u8": 1, "u32": 4, "i32": 4, "f64": 8}
CODES = {"u8": "<B", "u32": "<I", "i32": "<i", "f64": "<d"}


def fnv1a(data):
    h = FNV_OFFSET
    for b in data:
        h = ((h ^ b) * FNV_PRIME) & MASK
    return h


def u32(d, o):
    return struct.unpack_from("<I", d, o)[0]


def layout(d):
    n_ids, n_text = u32(d, 37), u32(d, 41)
    lay = {"n_ids": n_ids, "levels": []}
    o = 45 + 4 * n_ids + n_text
    version = u32(d, 8)
    for _ in range(u32(d, 20)):
        n = u32(d, o)
        lv = {"at": o, "n": n, "cells": o + 8}
        o += 8 + n * CELL_BYTES
        if version >= 3:
            k = u32(d, o)
            lv["mapping"], lv["k"] = o, k
            o += 4 + (n * (k + 1) ** 3 * 24 if k > 0 else 0)
            lv["skeleton"] = o
            o += 4 + u32(d, o) * 11
        lay["levels"].append(lv)
    for name in ("rhs", "solution"):
        cells, p = u32(d, o), u32(d, o + 4)
        lay[name] = o
        o += 8 + cells * (p + 1) ** 3 * 8
    lay["coefficient"] = o
    return lay


HEADER = {"version": (8, "u32"), "header_bytes": (12, "u32"), "degree": (16, "u32"), "n_levels": (20, "u32"),
          "subdivision0": (24, "u32"), "subdivision1": (28, "u32"), "subdivision2": (32, "u32"),
          "locally_refined": (36, "u8"), "n_dirichlet_ids": (37, "u32"), "description_length": (41, "u32")}
CELL = {"lower": (0, 8, "f64"), "size": (24, 8, "f64"), "coordinate": (48, 4, "i32"), "parent": (60, 0, "i32"),
        "slot": (64, 0, "u8"), "child": (65, 4, "i32"), "neighbor": (97, 4, "i32"), "flags": (121, 0, "u8")}
SKELETON = {"cell": (0, "u32"), "face": (4, "u8"), "neighbor": (5, "i32"), "neighbor_face": (9, "u8"),
            "orientation": (10, "u8")}


def resolve(d, loc):
    if loc.startswith("@"):
        offset, kind = loc[1:].split(":")
        return int(offset, 0), kind
    parts = loc.split(".")
    if parts[0] == "header":
        return HEADER[parts[1]]
    if parts[0] == "dirichlet":
        return 45 + 4 * int(parts[1]), "u32"
    if parts[0] == "description":
        return 45 + 4 * u32(d, 37) + int(parts[1]), "u8"
    lay = layout(d)
    if parts[0].startswith("level"):
        lv = lay["levels"][int(parts[0][5:])]
        what = parts[1]
        if what == "n_cells":
            return lv["at"], "u32"
        if what == "n_owned":
            return lv["at"] + 4, "u32"
        if what.startswith("cell"):
            base = lv["cells"] + CELL_BYTES * int(what[4:])
            field = parts[2].rstrip("0123456789")
            index = int(parts[2][len(field):] or 0)
            start, stride, kind = CELL[field]
            return base + start + stride * index, kind
        if what == "mapping_degree":
            return lv["mapping"], "u32"
        if what == "node":
            c, i, dim = int(parts[2]), int(parts[3]), int(parts[4])
            return lv["mapping"] + 4 + ((c * (lv["k"] + 1) ** 3 + i) * 3 + dim) * 8, "f64"
        if what == "skeleton_count":
            return lv["skeleton"], "u32"
        if what == "skeleton":
            start, kind = SKELETON[parts[3]]
            return lv["skeleton"] + 4 + 11 * int(parts[2]) + start, kind
    if parts[0] in ("rhs", "solution"):
        if parts[1] == "n_cells":
            return lay[parts[0]], "u32"
        if parts[1] == "degree":
            return lay[parts[0]] + 4, "u32"
        return lay[parts[0]] + 8 + 8 * int(parts[1]), "f64"
    if parts[0] == "coefficient_count":
        return lay["coefficient"], "u32"
    if parts[0] == "coefficient":
        return lay["coefficient"] + 4 + 8 * int(parts[1]), "f64"
    raise SystemExit("cwp.py: unknown location " + loc)


def main(argv):
    if argv[0] == "check":
        d = open(argv[1], "rb").read()
        ok = len(d) >= 8 and struct.unpack("<Q", d[-8:])[0] == fnv1a(d[:-8])
        print("checksum ok" if ok else "checksum wrong")
        return 0 if ok else 1
    if argv[0] == "empty-mesh":
        # IN's header with one level of no cells, empty vectors of IN's
        # degree, no coefficient, the right checksum: consistent, but empty
        d = open(argv[1], "rb").read()
        n_ids, n_text = u32(d, 37), u32(d, 41)
        head = bytearray(d[:45 + 4 * n_ids + n_text])
        struct.pack_into("<I", head, 20, 1)
        degree = u32(d, 16)
        body = struct.pack("<IIII", 0, 0, 0, 0) + struct.pack("<II", 0, degree) * 2 + struct.pack("<I", 0)
        out = bytes(head) + body
        open(argv[2], "wb").write(out + struct.pack("<Q", fnv1a(out)))
        return 0
    source, target, edits = argv[0], argv[1], argv[2:]
    keep = bool(edits) and edits[0] == "--keep-checksum"
    if keep:
        edits = edits[1:]
    d = bytearray(open(source, "rb").read())
    for action, loc, value in zip(edits[0::3], edits[1::3], edits[2::3]):
        offset, kind = resolve(d, loc)
        code = CODES[kind]
        old = struct.unpack_from(code, d, offset)[0]
        if kind == "f64":
            v = float(value)
            new = {"set": v, "add": old + v, "scale": old * v}[action]
        else:
            v = int(value, 0)
            new = {"set": v, "add": old + v, "xor": old ^ v}[action]
        struct.pack_into(code, d, offset, new)
        print(f"{loc} at byte {offset}: {old} -> {new}", file=sys.stderr)
    if not keep:
        struct.pack_into("<Q", d, len(d) - 8, fnv1a(bytes(d[:-8])))
    open(target, "wb").write(d)
    return 0


sys.exit(main(sys.argv[1:]))
PYTHON
  cwp() { python3 "$work/cwp.py" "$@" 2>> "$work/cwp.log"; }
  f=$work/files
  mkdir -p "$f"
  ok_file=(--threads 2 --problem-file)
  if ! cwp check "$valid" > /dev/null; then
    echo "note: $valid has a wrong checksum by this script's FNV-1a; the corruptions below may be misjudged"
  fi

  # controls: the valid files solve
  probe ok=answer_problem_file "valid file $(basename "$valid")" "$p" "${ok_file[@]}" "$valid"
  ln -s "$valid" "$f/link.cwp"
  probe ok=answer_problem_file "symbolic link to the valid file" "$p" "${ok_file[@]}" "$f/link.cwp"
  # not files
  probe bad "missing file" "$p" --problem-file "$f/does-not-exist.cwp"
  probe bad "a directory (/tmp)" "$p" --problem-file /tmp
  mkfifo "$f/fifo.cwp"
  probe bad "a FIFO" "$p" --problem-file "$f/fifo.cwp"
  probe bad "/dev/null" "$p" --problem-file /dev/null
  probe bad "/dev/zero" "$p" --problem-file /dev/zero
  ln -s "$f/loop.cwp" "$f/loop.cwp"
  probe bad "a symbolic link loop" "$p" --problem-file "$f/loop.cwp"
  probe bad "a 5000-character path" "$p" --problem-file "$f/$(printf 'x%.0s' {1..5000})"
  probe bad "--problem-file with --degree 2" "$p" --problem-file "$valid" --degree 2
  probe bad "--problem-file with --backend cuda" "$p" --problem-file "$valid" --backend cuda
  # not problem files
  : > "$f/empty.cwp"
  probe bad "empty file" "$p" --problem-file "$f/empty.cwp"
  head -c 100000 /dev/urandom > "$f/random.cwp"
  probe bad "100 kB of random bytes" "$p" --problem-file "$f/random.cwp"
  { printf 'CWPROBLM'; head -c 100000 /dev/urandom; } > "$f/magic-random.cwp"
  probe bad "the magic, then random bytes" "$p" --problem-file "$f/magic-random.cwp"
  head -c $(($(stat -c %s "$valid") / 2)) "$valid" > "$f/truncated.cwp"
  probe bad "valid file truncated to half" "$p" --problem-file "$f/truncated.cwp"
  head -c 30 "$valid" > "$f/truncated-header.cwp"
  probe bad "valid file truncated in the header" "$p" --problem-file "$f/truncated-header.cwp"
  { cat "$valid"; printf 'x'; } > "$f/trailing.cwp"
  probe bad "valid file with a trailing byte" "$p" --problem-file "$f/trailing.cwp"
  cwp "$valid" "$f/flip.cwp" --keep-checksum xor "@$(($(stat -c %s "$valid") - 1000)):u8" 1
  probe bad "valid file, one byte of the solution flipped (checksum kept)" "$p" --problem-file "$f/flip.cwp"
  cwp "$valid" "$f/flip-description.cwp" --keep-checksum xor description.3 1
  probe bad "valid file, one byte of the description flipped (checksum kept)" "$p" --problem-file "$f/flip-description.cwp"

  # structurally corrupt files with the checksum recomputed
  corrupt() { # corrupt BASE-FILE LABEL EDITS...
    local base=$1 label=$2
    shift 2
    local name
    name=$f/corrupt-$((++corrupt_count)).cwp
    if cwp "$base" "$name" "$@"; then
      probe bad "$label (checksum recomputed)" "$p" --threads 2 --problem-file "$name"
    else
      echo "skipped | $label | cwp.py could not edit $(basename "$base")"
    fi
    rm -f "$name"
  }
  corrupt_count=0
  corrupt "$valid" "header: version 4" set header.version 4
  corrupt "$valid" "header: version 2 on a version-3 file" set header.version 2
  corrupt "$valid" "header: header bytes 30" set header.header_bytes 30
  corrupt "$valid" "header: degree 0" set header.degree 0
  corrupt "$valid" "header: degree 9" set header.degree 9
  corrupt "$valid" "header: degree 3 (vectors of degree 2)" set header.degree 3
  corrupt "$valid" "header: 0 levels" set header.n_levels 0
  corrupt "$valid" "header: 23 levels" set header.n_levels 23
  corrupt "$valid" "header: 3 levels of 4" set header.n_levels 3
  corrupt "$valid" "header: 0 coarse subdivisions along x" set header.subdivision0 0
  corrupt "$valid" "header: 2 coarse subdivisions along x" set header.subdivision0 2
  corrupt "$valid" "header: 2^31 coarse subdivisions along z" set header.subdivision2 0x80000000
  corrupt "$valid" "header: locally refined 2" set header.locally_refined 2
  corrupt "$valid" "header: locally refined 1 on a uniform file" set header.locally_refined 1
  corrupt "$valid" "header: 0xFFFFFFFF Dirichlet ids" set header.n_dirichlet_ids 0xFFFFFFFF
  corrupt "$valid" "Dirichlet id 0 changed to 7 (no Dirichlet face left)" set dirichlet.0 7
  corrupt "$valid" "header: description length 0xFFFFFFFF" set header.description_length 0xFFFFFFFF
  corrupt "$valid" "header: description length one short" add header.description_length -1
  corrupt "$valid" "description with a newline" set description.3 10
  corrupt "$valid" "description with a 0xFF byte (not UTF-8)" set description.3 0xFF
  corrupt "$valid" "level 2: a cell size changed (cell 5, x, 1%)" scale level2.cell5.size0 1.01
  corrupt "$valid" "level 3: a cell size negative" scale level3.cell9.size1 -1
  corrupt "$valid" "level 0: the cell size 0" set level0.cell0.size0 0 set level0.cell0.size1 0 set level0.cell0.size2 0
  corrupt "$valid" "level 3: a lower corner moved by 1e-3" add level3.cell7.lower1 1e-3
  corrupt "$valid" "level 3: a lower corner NaN" set level3.cell7.lower0 nan
  corrupt "$valid" "level 0: the cell size inf" set level0.cell0.size0 inf
  corrupt "$valid" "level 2: a neighbour index changed (cell 1 face 1: 8 -> 9)" set level2.cell1.neighbor1 9
  corrupt "$valid" "level 3: a neighbour index out of range" set level3.cell0.neighbor1 100000
  corrupt "$valid" "level 3: a neighbour index -2^31" set level3.cell0.neighbor1 -2147483648
  corrupt "$valid" "level 3: a neighbour is the cell itself" set level3.cell0.neighbor1 0
  corrupt "$valid" "level 0: a refinement edge on the coarse level" set level0.cell0.neighbor0 -1
  corrupt "$valid" "level 0: boundary id 0 -> 1 (one face)" set level0.cell0.neighbor0 -3
  corrupt "$valid" "level 2: boundary id 0 -> 1 on one level" set level2.cell0.neighbor0 -3
  corrupt "$valid" "level 3: boundary id 0 -> 1 on the finest level" set level3.cell0.neighbor0 -3
  corrupt "$valid" "level 3: boundary id huge" set level3.cell0.neighbor0 -2000000000
  corrupt "$valid" "level 1: parent out of range" set level1.cell3.parent 5
  corrupt "$valid" "level 1: parent -1 (no parent)" set level1.cell3.parent -1
  corrupt "$valid" "level 3: child slot 9" set level3.cell2.slot 9
  corrupt "$valid" "level 3: two cells swap their child slots" set level3.cell0.slot 1 set level3.cell1.slot 0
  corrupt "$valid" "level 2: a child index out of range" set level2.cell0.child0 600
  corrupt "$valid" "level 2: a child listed twice" set level2.cell0.child1 0
  corrupt "$valid" "level 3: coordinate 2^31-1" set level3.cell0.coordinate0 2147483647
  corrupt "$valid" "level 3: coordinate -1" set level3.cell0.coordinate0 -1
  corrupt "$valid" "level 3: flags 0xFF" set level3.cell4.flags 0xFF
  corrupt "$valid" "level 3: flags 0 (neither active nor refined)" set level3.cell4.flags 0
  corrupt "$valid" "level 1: 7 of 8 cells owned" set level1.n_owned 7
  corrupt "$valid" "level 1: 9 cells" set level1.n_cells 9
  corrupt "$valid" "level 2: 2^31-1 cells" set level2.n_cells 0x7FFFFFFF
  corrupt "$valid" "level 1: mapping degree 9" set level1.mapping_degree 9
  corrupt "$valid" "level 3: 0xFFFFFFFF skeleton faces" set level3.skeleton_count 0xFFFFFFFF
  corrupt "$valid" "right-hand side: 511 cells" set rhs.n_cells 511
  corrupt "$valid" "right-hand side: degree 3" set rhs.degree 3
  corrupt "$valid" "right-hand side: a value NaN" set rhs.100 nan
  corrupt "$valid" "right-hand side: a value 1e308" set rhs.100 1e308
  corrupt "$valid" "right-hand side: a value 1e-310 (subnormal)" set rhs.100 1e-310
  corrupt "$valid" "reference solution: a value inf" set solution.200 inf
  corrupt "$valid" "coefficient count 1 (of 512 cells)" set coefficient_count 1
  cwp empty-mesh "$valid" "$f/empty-mesh.cwp" &&
    probe bad "one level of 0 cells, empty vectors (checksum right)" "$p" --problem-file "$f/empty-mesh.cwp"
  with_coefficient=$files_dir/step37_coefficient_q2.cwp
  if [[ -f $with_coefficient ]]; then
    probe ok=answer_problem_file "valid file $(basename "$with_coefficient")" "$p" "${ok_file[@]}" "$with_coefficient"
    corrupt "$with_coefficient" "coefficient: a value -1" set coefficient.10 -1
    corrupt "$with_coefficient" "coefficient: a value 0" set coefficient.10 0
    corrupt "$with_coefficient" "coefficient: a value NaN" set coefficient.10 nan
    corrupt "$with_coefficient" "coefficient: a value 1e300" set coefficient.10 1e300
    corrupt "$with_coefficient" "coefficient: a value 1e-300" set coefficient.10 1e-300
  fi
  ball=$files_dir/ball_q2.cwp
  if [[ -f $ball ]]; then
    probe ok=answer_problem_file "valid file $(basename "$ball")" "$p" "${ok_file[@]}" "$ball"
    # the centre node (13 of 27) is inside the cell: a legitimate curved cell
    cwp "$ball" "$f/ball-centre.cwp" add level1.node.3.13.0 1e-3 &&
      probe ok=answer_problem_file "ball: a cell's centre mapping node moved by 1e-3 (checksum recomputed)" "$p" "${ok_file[@]}" "$f/ball-centre.cwp"
    corrupt "$ball" "ball: a corner mapping node moved by 1e-3" add level1.node.3.0.0 1e-3
    corrupt "$ball" "ball: a face-centre mapping node moved by 1e-3" add level2.node.5.4.2 1e-3
    corrupt "$ball" "ball: a mapping node NaN" set level2.node.3.13.0 nan
    corrupt "$ball" "ball: mapping degree 1 of 2" set level0.mapping_degree 1
    corrupt "$ball" "ball: a skeleton face orientation 7" set level0.skeleton.0.orientation 7
    corrupt "$ball" "ball: a skeleton face orientation changed" xor level1.skeleton.0.orientation 1
    corrupt "$ball" "ball: a skeleton face neighbour changed" set level0.skeleton.0.neighbor 6
    corrupt "$ball" "ball: a skeleton face count one short" add level0.skeleton_count -1
  fi
  adaptive=$files_dir/adaptive_q2.cwp
  if [[ -f $adaptive ]]; then
    probe ok=answer_problem_file "valid file $(basename "$adaptive")" "$p" "${ok_file[@]}" "$adaptive"
    corrupt "$adaptive" "adaptive: locally refined 0" set header.locally_refined 0
    corrupt "$adaptive" "adaptive: a refined cell flagged active" set level2.cell0.flags 1
  fi

  # huge counts in a sparse file of 4300 MB (beyond 2^32 bytes, so that the
  # counts fit into the bytes left and only the reader's own bounds refuse)
  huge=$f/sparse-huge.cwp
  cwp "$valid" "$huge" set header.description_length 0xFFFFFFF0 && truncate -s 4300M "$huge" &&
    probe bad "sparse 4300 MB file: description length 0xFFFFFFF0" "$p" --problem-file "$huge"
  rm -f "$huge"
  cwp "$valid" "$huge" set header.description_length 0x100000 && truncate -s 4300M "$huge" &&
    probe bad "sparse 4300 MB file: description length 1 MiB (the bound)" "$p" --problem-file "$huge"
  rm -f "$huge"
  cwp "$valid" "$huge" set level0.n_cells 20000000 && truncate -s 4300M "$huge" &&
    ulimit_v=2000000 probe "bad~do not fit into the memory" "sparse 4300 MB file: level 0 of 2e7 cells, ulimit -v 2000000" "$p" --problem-file "$huge"
  rm -f "$huge"
  cwp "$valid" "$huge" set level3.skeleton_count 3072 && truncate -s 4300M "$huge" &&
    probe bad "sparse 4300 MB file: level 3 of 3072 zero skeleton faces" "$p" --problem-file "$huge"
  rm -f "$huge"
fi

# -------------------------------------------------------------------- 3 MPI ---
section "3. MPI: ranks with different options ($ranks ranks)"
launcher=()
if [[ -z $mpiexec ]]; then
  echo "skipped: no MPIEXEC given"
else
  launcher=(env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
            "$mpiexec" -n "$ranks" --oversubscribe --output-filename "$work/ranks")
  check=$(env CELLWISE_BAD_INPUT_PROBE="$marker" timeout --kill-after=5 "$mpi_timeout_s" "${launcher[@]}" "$program" \
            --refinements 1 --degree 1 --threads 1 < /dev/null 2>&1)
  if [[ $check != *"distributed over $ranks MPI ranks"* ]]; then
    echo "skipped: the program does not run distributed on $ranks ranks under $mpiexec (built without MPI?): $(head -n 1 <<< "$check")"
  else
    wrapper=$root/tests/programs/per_rank_arguments.sh
    base="--refinements 2 --degree 2 --threads 1"
    mpi_job=1
    per_rank() { # per_rank EXPECT "ARGS OF RANK 0" "ARGS OF THE OTHERS"
      probe "$1" "rank 0: $2 | rank 1: $3" "${launcher[@]}" sh "$wrapper" "$program" "$2" "$3"
    }
    per_rank ok=answer_summary "$base" "$base"
    per_rank bad "$base" "$base --tolerance 1e-6"
    per_rank bad "$base" "$base --box 0,0,0,2,1,1"
    per_rank bad "$base" "$base --smoother jacobi"
    per_rank bad "$base" "--refinements 2 --degree 3 --threads 1"
    per_rank bad "$base" "--refinements 3 --degree 2 --threads 1"
    per_rank bad "$base" "$base --solution polynomial"
    per_rank bad "$base" "$base --precision mixed"
    per_rank bad "$base" "$base --solver stationary"
    per_rank bad "$base" "$base --max-iterations 3"
    per_rank bad "$base" "--refinements 2 --degree 2 --threads 2"
    per_rank bad "$base" "$base --frobnicate 1"
    per_rank bad "$base" "$base --degree 0"
    per_rank bad "$base" "--help"
    per_rank bad "$base" "--capabilities"
    per_rank bad "$base --degree 0" "$base --degree 0"
    per_rank bad "--refinements 12 --threads 1" "--refinements 12 --threads 1"
    if [[ -n $valid ]]; then
      per_rank bad "--threads 1 --problem-file $valid" "--threads 1 --problem-file $valid"
    fi
    mpi_job=0
  fi
fi

# ----------------------------------------------------------------- 4 limits ---
section "4. limits (ulimit -v in a subshell)"
ulimit_v=2000000 probe bad~memory "ulimit -v 2000000: --refinements 7 --backend host" "$p" --refinements 7 --backend host --threads 1
ulimit_v=2000000 probe bad~memory "ulimit -v 2000000: --refinements 6 --degree 8" "$p" --refinements 6 --degree 8 --threads 1
ulimit_v=500000 probe bad~memory "ulimit -v 500000: --refinements 5 --threads 2" "$p" --refinements 5 --threads 2
ulimit_v=150000 probe ok=answer_summary "ulimit -v 150000: --refinements 1" "$p" --refinements 1 --threads 1
# (not ulimit -v 50000: there Open MPI's own daemon, which MPI_Init starts,
# segfaults before the program runs; nothing of cellwise is reached)

# ---------------------------------------------------------------- summary ---
echo
echo "bad-input probe of $program"
printf '%-16s %5s\n' inputs "$count_inputs" "clear errors" "$count_clear" "unclear errors" "$count_unclear" \
  crashes "$count_crash" hangs "$count_hang" accepted "$count_accepted"
echo "  (of the accepted, $count_correct are inputs that must be solved and were, correctly)"
if [[ ${#findings[@]} -gt 0 ]]; then
  echo
  echo "crashes, hangs and accepted inputs (but the correct ones):"
  printf '  %s\n' "${findings[@]}"
fi
[[ $count_crash -eq 0 && $count_hang -eq 0 ]]
