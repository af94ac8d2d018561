#!/usr/bin/env bash
# Prints one line per device function of the CUDA backend: a digest of its PTX
# and its name, sorted, so that two trees can be compared after a refactor
# that must not change the kernels (moves, splits, host-side changes):
#
#   bash scripts/ptx-signatures.sh > after.txt
#   bash scripts/ptx-signatures.sh /path/to/older/checkout > before.txt
#   diff before.txt after.txt     # empty: the same PTX, function by function
#
# Every source/*/*.cu of the tree (default: this checkout) is compiled to PTX
# for compute_90 with the library's flags. Normalised before hashing, since
# they change with file names and function order and not with the code: the
# anonymous-namespace tag that nvcc derives from the file name, the
# per-file function numbers in block labels and local depots, comments and
# debug lines.
#   CELLWISE_PTX_ARCH   virtual architecture (default: compute_90)
#   CELLWISE_JOBS       parallel nvcc processes (default: nproc)
set -euo pipefail

root="$(cd "${1:-$(dirname "${BASH_SOURCE[0]}")/..}" && pwd)"
nvcc="${CUDACXX:-/usr/local/cuda/bin/nvcc}"
arch="${CELLWISE_PTX_ARCH:-compute_90}"
jobs="${CELLWISE_JOBS:-$(nproc 2> /dev/null || echo 2)}"
command -v "$nvcc" > /dev/null 2>&1 || { echo "ptx-signatures: no nvcc at $nvcc (set CUDACXX)" >&2; exit 1; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

mapfile -t sources < <(cd "$root" && ls source/*/*.cu)
[[ ${#sources[@]} -gt 0 ]] || { echo "ptx-signatures: no source/*/*.cu under $root" >&2; exit 1; }

export nvcc arch root work
printf '%s\n' "${sources[@]}" | xargs -P "$jobs" -I{} bash -c '
  out="$work/$(echo {} | tr / _).ptx"
  "$nvcc" -std=c++17 -O3 -DNDEBUG -DCELLWISE_WITH_CUDA --expt-relaxed-constexpr -arch="$arch" \
          -I"$root/include" -x cu -ptx "$root/{}" -o "$out" ||
    { echo "ptx-signatures: nvcc failed on {}" >&2; exit 255; }'

# Normalise, then cut into functions (.entry / .func up to the closing brace
# in column 0) and hash each.
for ptx in "$work"/*.ptx; do
  # The anonymous namespace is one length-prefixed token, <n>_GLOBAL__N_...,
  # whose n characters name the file: cut exactly those.
  perl -pe 's#//.*$##; s/(\d+)(_GLOBAL__N_\w*)/"ANON" . substr($2, $1)/ge;
            s/\$L__BB\d+_/\$L__BB_/g; s/__local_depot\d+/__local_depot/g' "$ptx" |
    grep -Ev '^[[:space:]]*(\.(file|loc)[[:space:]].*)?$'
done | awk -v work="$work" '
  /^(\.visible |\.weak |\.extern )?(\.entry|\.func)/ {
    name = $0; sub(/\(\.param[^)]*\)[ \t]*/, "", name); sub(/\(.*/, "", name); sub(/.*[ \t]/, "", name); body = ""; header = 1; infn = 1
  }
  infn { body = body $0 "\n" }
  infn && header && /;[ \t]*$/ { infn = 0 }            # a prototype: no body
  infn && /^\{/ { header = 0 }
  infn && !header && /^\}/ {
    ++n; printf "%s", body > (work "/fn." n); close(work "/fn." n)
    print name > (work "/names." n); close(work "/names." n); infn = 0
  }
'
for names in "$work"/names.*; do
  k="${names##*.}"
  printf '%s %s\n' "$(sha256sum < "$work/fn.$k" | cut -c1-16)" "$(cat "$names")"
done | sort -k2 -k1
