#!/usr/bin/env bash
# Unpacks a bundle of scripts/bundle-runtime.sh on the GPU node
# (doc/gpu-node.md), and checks that its programs find every library there:
#   bash unbundle-runtime.sh [--no-check] [--force] BUNDLEDIR TARGETDIR
#   bash unbundle-runtime.sh --check TARGETDIR
# BUNDLEDIR holds the parts, SHA256SUMS and MANIFEST as the bundle script
# wrote them (carried over in as many calls as the parts need). Every part's
# checksum is checked before anything is unpacked; the parts are then joined,
# decompressed and unpacked into TARGETDIR (absent or empty; --force unpacks
# over what is there). Then, and with --check alone, `ldd` runs on every
# program of TARGETDIR/bin with only TARGETDIR/lib on LD_LIBRARY_PATH: a
# library that is neither in the bundle nor on this node is named, with what
# to do, and so is one the bundle left to the node that the node does not
# have. Run a program with TARGETDIR/bin/run PROGRAM ARGS...
# This script is self-contained: copy it next to the parts (it needs bash,
# sha256sum, tar, ldd and zstd or gzip, whichever made the parts).
# Exit status: 0 done, 1 an error (one line saying what and what to do; the
# parts are refused as a whole), 2 a usage error, 3 unpacked but libraries
# are missing on this node.
set -euo pipefail

me=unbundle-runtime.sh
stamp() { echo "[unbundle] $(date -u +%H:%M:%S) $*"; }
die() {
  echo "$me: $*" >&2
  exit 1
}
usage() {
  echo "$me: $*" >&2
  echo "usage: $me [--no-check] [--force] BUNDLEDIR TARGETDIR, or $me --check TARGETDIR" >&2
  exit 2
}

check_only=0
check=1
force=0
args=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --check) check_only=1 ;;
    --no-check) check=0 ;;
    --force) force=1 ;;
    -h | --help)
      sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'
      exit 0
      ;;
    --)
      shift
      args+=("$@")
      break
      ;;
    -*) usage "unknown option $1" ;;
    *) args+=("$1") ;;
  esac
  shift
done

# The programs of an unpacked tree under ldd with only its lib/ on the
# loader path (the caller's LD_LIBRARY_PATH and LD_PRELOAD left out): what
# is not found is what this node lacks.
check_tree() {
  local tree=$1 program out line soname where group missing=0 from_node
  local -A node_group=()
  [[ -d "$tree/bin" && -d "$tree/lib" ]] || die "$tree has no bin/ and lib/: give the TARGETDIR a bundle was unpacked into"
  command -v ldd > /dev/null 2>&1 || die "ldd is not installed here (it comes with the C library's tools, package libc-bin): install it to check"
  if [[ -f "$tree/MANIFEST" ]]; then
    while read -r _ soname group; do node_group[$soname]=$group; done < <(grep '^provided-by-node: ' "$tree/MANIFEST" || true)
  fi
  for program in "$tree"/bin/*; do
    [[ "${program##*/}" != run && -f "$program" && -x "$program" ]] || continue
    [[ "$(head -c 4 "$program" | od -An -c | tr -d ' ')" == '177ELF' ]] || continue
    out=$(env -u LD_PRELOAD LD_LIBRARY_PATH="$tree/lib" ldd "$program" 2>&1) || {
      [[ "$out" == *"not a dynamic executable"* ]] && continue
      echo "$me: ldd ${program##*/} failed here: $out" >&2
      missing=$((missing + 1))
      continue
    }
    from_node=()
    while IFS= read -r line; do
      line=${line#"${line%%[![:space:]]*}"}
      if [[ "$line" =~ ^([^[:space:]]+)\ =\>\ not\ found ]]; then
        soname=${BASH_REMATCH[1]}
        missing=$((missing + 1))
        group=${node_group[$soname]:-}
        case "$group" in
          "") echo "$me: ${program##*/} needs $soname, which is neither in the bundle's lib/ nor on this node: install it here, or bundle again on a machine where the program finds it" >&2 ;;
          gcc) echo "$me: ${program##*/} needs $soname (GCC's runtime), left to the node, which lacks it: install libstdc++6 here, or bundle again with --include gcc" >&2 ;;
          cuda) echo "$me: ${program##*/} needs $soname (CUDA), left to the node, which lacks it on the loader path: add the CUDA toolkit's lib folder (e.g. /usr/local/cuda/lib64) to LD_LIBRARY_PATH or ld.so.conf, or bundle again with --include cuda" >&2 ;;
          mpi) echo "$me: ${program##*/} needs $soname (Open MPI), left to the node, which lacks it: install Open MPI 4.1 here (its libmpi.so.40), or add its lib folder to LD_LIBRARY_PATH" >&2 ;;
          *) echo "$me: ${program##*/} needs $soname ($group), left to the node, which lacks it: install it here" >&2 ;;
        esac
      elif [[ "$line" == *"not found"* ]]; then
        # a symbol version: the node's library is older than the one built against
        missing=$((missing + 1))
        echo "$me: ${program##*/}: $line: this node's library is older than the build machine's; install a newer one here, or bundle again with --include gcc (libstdc++) if it is GCC's" >&2
      elif [[ "$line" =~ ^([^[:space:]]+)\ =\>\ ([^[:space:]]+)\ \( ]]; then
        soname=${BASH_REMATCH[1]} where=${BASH_REMATCH[2]}
        if [[ -e "$tree/lib/$soname" && "$(readlink -f "$where")" != "$(readlink -f "$tree/lib/$soname")" ]]; then
          echo "$me: warning: ${program##*/} loads $soname from $where, not from the bundle (a DT_RPATH of the node's libraries?)" >&2
        elif [[ ! -e "$tree/lib/$soname" ]]; then
          from_node+=("$soname")
        fi
      fi
    done <<< "$out"
    stamp "check: ${program##*/}: libraries from the node: ${#from_node[@]} (${from_node[*]:-none}); the rest from the bundle"
  done
  if [[ $missing -gt 0 ]]; then
    [[ -n "${LD_LIBRARY_PATH:-}" ]] && echo "$me: (your LD_LIBRARY_PATH was left out of this check; bin/run keeps it behind the bundle's lib/: what it holds is found at run time)" >&2
    echo "$me: $missing missing on this node (above): the programs will not start until they are there" >&2
    return 3
  fi
  stamp "check: every library found"
}

if [[ $check_only -eq 1 ]]; then
  [[ ${#args[@]} -eq 1 ]] || usage "--check takes one TARGETDIR"
  status=0
  check_tree "${args[0]}" || status=$?
  exit "$status"
fi

[[ ${#args[@]} -eq 2 ]] || usage "give BUNDLEDIR and TARGETDIR"
bundle=${args[0]} target=${args[1]}
[[ -d "$bundle" ]] || die "no bundle folder $bundle: give the folder that holds the parts, SHA256SUMS and MANIFEST"
[[ -f "$bundle/SHA256SUMS" ]] || die "$bundle/SHA256SUMS is missing: copy it from the bundle's OUTDIR with the parts"
[[ -f "$bundle/MANIFEST" ]] || die "$bundle/MANIFEST is missing: copy it from the bundle's OUTDIR with the parts"
command -v sha256sum > /dev/null 2>&1 || die "sha256sum is not installed here (package coreutils): install it"

start=$(date +%s)
# Every listed file present and intact before anything is unpacked; all the
# missing and damaged parts named at once, so that one more call carries them.
declare -A expected=()
problems=0
while read -r hash file; do
  [[ -n "$hash" ]] || continue
  file=${file#\*}
  [[ "$hash" =~ ^[0-9a-f]{64}$ && -n "$file" && "$file" != */* ]] ||
    die "$bundle/SHA256SUMS has a line that is not a checksum of a file of the bundle ('$hash $file'): copy it again"
  expected[$file]=$hash
  if [[ ! -f "$bundle/$file" ]]; then
    echo "$me: $file is missing from $bundle: copy it there from the bundle's OUTDIR" >&2
    problems=$((problems + 1))
    continue
  fi
  actual=$(sha256sum < "$bundle/$file")
  actual=${actual%% *}
  if [[ "$actual" != "$hash" ]]; then
    echo "$me: $file: checksum mismatch (sha256 $actual, SHA256SUMS says $hash): it was damaged or cut short on the way; copy it again from the bundle's OUTDIR" >&2
    problems=$((problems + 1))
  fi
done < "$bundle/SHA256SUMS"
[[ -n "${expected[MANIFEST]:-}" ]] || die "$bundle/SHA256SUMS does not list MANIFEST: it is not a bundle of bundle-runtime.sh, or copy it again"
[[ $problems -eq 0 ]] || die "$problems of the bundle's files missing or damaged (above): nothing was unpacked"

manifest_value() { sed -n "s/^$1: //p" "$bundle/MANIFEST" | head -n 1; }
compression=$(manifest_value compression)
window_log=$(manifest_value window-log)
mapfile -t parts < <(sed -n 's/^part: \([^ ]*\) .*/\1/p' "$bundle/MANIFEST")
[[ ${#parts[@]} -gt 0 ]] || die "$bundle/MANIFEST lists no parts: copy it again from the bundle's OUTDIR"
for part in "${parts[@]}"; do
  [[ -n "${expected[$part]:-}" ]] || die "MANIFEST lists $part, SHA256SUMS does not: copy both again from the bundle's OUTDIR"
done
[[ ${#expected[@]} -eq $((${#parts[@]} + 1)) ]] ||
  die "SHA256SUMS lists $((${#expected[@]} - 1)) parts, MANIFEST ${#parts[@]}: copy both again from the bundle's OUTDIR"
stamp "${#parts[@]} part(s) present, checksums match"

case "$compression" in
  zstd)
    if command -v zstd > /dev/null 2>&1; then
      decompressor=(zstd -q -d -c)
    elif [[ -x "$bundle/zstd/zstd" ]]; then
      # the bundle's own (bundle-runtime.sh puts it in zstd/)
      stamp "zstd is not installed here: unpacking with the bundle's $bundle/zstd/zstd"
      decompressor=(env LD_LIBRARY_PATH="$bundle/zstd" "$bundle/zstd/zstd" -q -d -c)
    else
      die "the parts are zstd-compressed and zstd is not installed here: install it (apt-get install zstd), copy the bundle's zstd/ folder along, or bundle again with --compression gzip"
    fi
    # a window above 2^27 is refused unless asked for
    [[ "${window_log:-0}" =~ ^[0-9]+$ && $window_log -gt 27 ]] && decompressor+=(--long="$window_log")
    ;;
  gzip)
    command -v gzip > /dev/null 2>&1 || die "the parts are gzip-compressed and gzip is not installed here: install it (apt-get install gzip)"
    decompressor=(gzip -d -c)
    ;;
  *) die "$bundle/MANIFEST names the compression '$compression', which this script does not know: unpack with the unbundle-runtime.sh of the same cellwise as bundle-runtime.sh" ;;
esac

if [[ -e "$target" ]]; then
  [[ -d "$target" ]] || die "$target exists and is not a directory: name another TARGETDIR"
  [[ $force -eq 1 || -z "$(ls -A "$target")" ]] ||
    die "$target is not empty: remove it, name another TARGETDIR, or give --force to unpack over it"
fi
mkdir -p "$target"
target=$(cd "$target" && pwd)

# joined as a stream: the node needs room for the tree, not for another copy
stamp "unpacking into $target"
(cd "$bundle" && cat -- "${parts[@]}") | "${decompressor[@]}" | tar -x --no-same-owner -f - -C "$target" ||
  die "unpacking into $target failed (above): check the free space there, then run again with --force"
[[ -x "$target/bin/run" ]] || die "$target/bin/run is missing after unpacking: the parts are not those of one bundle; copy the bundle again"
stamp "unpacked in $(($(date +%s) - start)) s: $(sed -n 's/^size: //p' "$target/MANIFEST" 2> /dev/null)"

if [[ $check -eq 1 ]]; then
  status=0
  check_tree "$target" || status=$?
  [[ $status -eq 0 ]] || exit "$status"
fi
stamp "run a program with $target/bin/run PROGRAM ARGS... (programs: $(sed -n 's/^program: \([^ ]*\).*/\1/p' "$target/MANIFEST" | tr '\n' ' '))"
