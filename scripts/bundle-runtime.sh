#!/usr/bin/env bash
# Packs programs built here (Debian 12, with deal.II) together with the shared
# libraries they load into a relocatable bundle, for a GPU node that has no
# deal.II, p4est or Trilinos (doc/gpu-node.md):
#   bash scripts/bundle-runtime.sh [options] PROGRAM... OUTDIR
# OUTDIR (absent or empty) receives NAME.tar.zst.part-000, -001, ... of at
# most --part-size bytes each, SHA256SUMS and MANIFEST. Carry them to the
# node, there `bash unbundle-runtime.sh OUTDIR TARGETDIR` checks, joins and
# unpacks them, and `TARGETDIR/bin/run PROGRAM ARGS...` runs a program.
# The unpacked tree: bin/ (the programs and the launcher bin/run), lib/ (the
# libraries, under the names the loader looks for), MANIFEST.
#
# The libraries are ldd's closure of each program less what the node provides
# (listed in MANIFEST as provided-by-node), by group:
#   glibc   libc, libm, libpthread, libdl, librt, libresolv, ld-linux, ...:
#           never bundled (libc must match the node's loader; the node's glibc
#           is newer than Debian 12's, which is what a program needs)
#   driver  libcuda, libnvidia-*: never bundled (they match the node's kernel
#           module)
#   gcc     libstdc++, libgcc_s (the node's g++ 13 runtime is newer)
#   cuda    the CUDA toolkit's libraries: libcudart, libcublas*, libcusparse,
#           libcufft, libcurand, libcusolver*, libnvrtc*, libnvJitLink, ...
#           (the node has CUDA 13.0)
#   mpi     all of Open MPI's libraries: libmpi, libmpi_cxx, libmpi_mpifh,
#           libmpi_usempi*, libopen-rte, libopen-pal, liboshmem: they must
#           match the node's mpirun, so they come from one installation (the
#           node's Open MPI 4.1 keeps the sonames and ABI of Debian's 4.1)
# and what only these libraries need (libhwloc, libevent, PMIx, ... of Open
# MPI): the node's copies of them go with the node's libraries.
#
# Options:
#   --part-size SIZE   largest part: bytes, or with K/M/G (powers of 1024, also
#                      KiB/MiB/GiB) or KB/MB/GB (powers of 1000); default 48M:
#                      a call to the GPU machine takes 64 MiB in all, the
#                      repository's working tree (~8 MiB) included
#   --compression C    zstd or gzip (default: zstd where installed, else gzip)
#   --level N          compression level (default: 3 for zstd, 1 for gzip)
#   --long N           zstd's long-distance window of 2^N bytes (default 27,
#                      which any zstd unpacks without options; 0 turns it off)
#   --name NAME        name of the parts (default: the first program's name)
#   --include GROUP    bundle a group the node would provide: gcc, cuda or mpi
#                      (repeat it, or GROUP,GROUP)
#   --include-system   bundle gcc, cuda and mpi (glibc and driver never)
#   --no-run-paths     leave the run paths alone (bin/run still works)
# Needs ldd, readelf (binutils), tar, split, sha256sum and zstd or gzip;
# patchelf sets the run paths ($ORIGIN/../lib in programs, $ORIGIN in
# libraries, so a program also runs without bin/run) where it is installed
# (scripts/install-dependencies.sh installs it).
# Exit status: 0 done, 1 an error (one line saying what and what to do),
# 2 a usage error.
set -euo pipefail

me=bundle-runtime.sh
stamp() { echo "[bundle] $(date -u +%H:%M:%S) $*"; }
die() {
  echo "$me: $*" >&2
  exit 1
}
usage() {
  echo "$me: $*" >&2
  echo "usage: $me [--part-size SIZE] [--compression zstd|gzip] [--level N] [--long N] [--name NAME]" \
    "[--include gcc|cuda|mpi] [--include-system] [--no-run-paths] PROGRAM... OUTDIR" >&2
  exit 2
}

part_size_arg=48M
compression=""
level=""
long=27
name=""
run_paths=1
declare -A included=()
args=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --part-size | --compression | --level | --long | --name | --include)
      [[ $# -ge 2 ]] || usage "$1 needs a value"
      case "$1" in
        --part-size) part_size_arg=$2 ;;
        --compression) compression=$2 ;;
        --level) level=$2 ;;
        --long) long=$2 ;;
        --name) name=$2 ;;
        --include)
          IFS=, read -r -a groups <<< "$2"
          for g in "${groups[@]}"; do
            case "$g" in
              gcc | cuda | mpi) included[$g]=1 ;;
              glibc | driver) usage "--include $g: the $g group is never bundled (it must match the node's loader or kernel)" ;;
              *) usage "--include $g: the groups are gcc, cuda and mpi" ;;
            esac
          done
          ;;
      esac
      shift 2
      ;;
    --include-system)
      included=([gcc]=1 [cuda]=1 [mpi]=1)
      shift
      ;;
    --no-run-paths)
      run_paths=0
      shift
      ;;
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
    *)
      args+=("$1")
      shift
      ;;
  esac
done
[[ ${#args[@]} -ge 2 ]] || usage "give at least one PROGRAM and the OUTDIR"
outdir=${args[-1]}
programs=("${args[@]:0:${#args[@]}-1}")

# --part-size in bytes, checked before the copying and packing (split would
# refuse "60m" only then) and written so into the MANIFEST
if [[ "$part_size_arg" =~ ^([0-9]{1,12})([KMG]?)(i?B)?$ ]]; then
  part_size=$((10#${BASH_REMATCH[1]}))
  unit=${BASH_REMATCH[2]} suffix=${BASH_REMATCH[3]}
  base=1024
  [[ "$suffix" == B ]] && base=1000
  [[ -n "$suffix" && -z "$unit" ]] && usage "--part-size $part_size_arg: write e.g. 48M, 48MiB, 50MB or 50331648"
  case "$unit" in
    K) part_size=$((part_size * base)) ;;
    M) part_size=$((part_size * base * base)) ;;
    G) part_size=$((part_size * base * base * base)) ;;
  esac
else
  usage "--part-size $part_size_arg: write e.g. 48M, 48MiB, 50MB or 50331648"
fi
[[ $part_size -ge 1024 ]] || usage "--part-size $part_size_arg: the parts must hold at least 1K"

if [[ -z "$compression" ]]; then
  if command -v zstd > /dev/null 2>&1; then
    compression=zstd
  else
    compression=gzip
    stamp "zstd is not installed here: compressing with gzip (apt-get install zstd for smaller, faster parts)"
  fi
fi
case "$compression" in
  zstd)
    command -v zstd > /dev/null 2>&1 || die "--compression zstd: zstd is not installed here: apt-get install zstd, or use --compression gzip"
    level=${level:-3}
    [[ "$level" =~ ^-?[0-9]+$ && $level -ge -7 && $level -le 22 ]] || usage "--level $level: zstd's levels are -7..22"
    [[ "$long" =~ ^[0-9]+$ && ($long -eq 0 || ($long -ge 10 && $long -le 31)) ]] || usage "--long $long: 0 (off) or 10..31"
    extension=tar.zst
    ;;
  gzip)
    level=${level:-1}
    [[ "$level" =~ ^[1-9]$ ]] || usage "--level $level: gzip's levels are 1..9"
    extension=tar.gz
    ;;
  *) usage "--compression $compression: zstd or gzip" ;;
esac

for tool in ldd readelf tar split sha256sum; do
  command -v "$tool" > /dev/null 2>&1 || die "$tool is not installed here: install it (readelf: apt-get install binutils) and run again"
done
have_patchelf=0
if [[ $run_paths -eq 1 ]]; then
  if command -v patchelf > /dev/null 2>&1; then
    have_patchelf=1
  else
    stamp "patchelf is not installed: run paths are left alone, run the programs through bin/run (apt-get install patchelf, or scripts/install-dependencies.sh)"
  fi
fi

# the programs: present, ELF files, one name each
declare -A program_path=()
program_names=()
for p in "${programs[@]}"; do
  [[ -e "$p" ]] || die "no program $p: build it first (e.g. cmake --build build --target $(basename "$p")) or correct the path"
  [[ -f "$p" && -x "$p" ]] || die "$p is not an executable file: give the program's path"
  [[ "$(head -c 4 "$p" | od -An -c | tr -d ' ')" == '177ELF' ]] || die "$p is not an ELF program (a script?): give the compiled program"
  n=$(basename "$p")
  [[ "$n" != run ]] || die "$p: a program named run would hide the launcher bin/run: rename it"
  [[ -z "${program_path[$n]:-}" ]] || die "two programs named $n (${program_path[$n]} and $p): bundle them separately"
  program_path[$n]=$(readlink -f "$p")
  program_names+=("$n")
done
name=${name:-${program_names[0]}}
[[ "$name" =~ ^[A-Za-z0-9._+-]+$ ]] || usage "--name $name: letters, digits and ._+- only"

if [[ -e "$outdir" ]]; then
  [[ -d "$outdir" ]] || die "$outdir exists and is not a directory: name another OUTDIR"
  [[ -z "$(ls -A "$outdir")" ]] || die "$outdir is not empty: remove it or name another OUTDIR (parts of an earlier bundle must not mix with these)"
fi
mkdir -p "$outdir"
outdir=$(cd "$outdir" && pwd)

# which group the node provides a library in (empty: bundled)
group_of() {
  case "$1" in
    ld-linux*.so* | ld64.so* | linux-vdso.so* | linux-gate.so* | libc.so.* | libm.so.* | libmvec.so.* | \
      libpthread.so.* | libdl.so.* | librt.so.* | libresolv.so.* | libutil.so.* | libanl.so.* | libnsl.so.* | \
      libBrokenLocale.so.* | libthread_db.so.* | libc_malloc_debug.so.*) echo glibc ;;
    libcuda.so* | libnvidia-*.so* | libnvcuvid.so*) echo driver ;;
    libstdc++.so* | libgcc_s.so*) echo gcc ;;
    libcudart.so* | libcublas.so* | libcublasLt.so* | libcusparse.so* | libcusolver*.so* | libcufft*.so* | \
      libcurand.so* | libnvrtc*.so* | libnvJitLink.so* | libnvToolsExt.so* | libcupti.so* | libnpp*.so* | \
      libnvjpeg.so* | libcudadevrt.so*) echo cuda ;;
    libmpi.so* | libmpi_*.so* | libopen-rte.so* | libopen-pal.so* | liboshmem.so* | libompitrace.so* | \
      libmca_common_*.so*) echo mpi ;;
    *) echo "" ;;
  esac
}

start=$(date +%s)
stamp "bundling ${program_names[*]} into $outdir"

# ldd's closure of every program: soname -> the file the loader takes. The
# union over the programs, which must agree (one lib/ serves them all).
declare -A path_of=() seen_from=()
for n in "${program_names[@]}"; do
  p=${program_path[$n]}
  if ! out=$(ldd "$p" 2>&1); then
    [[ "$out" == *"not a dynamic executable"* ]] && continue # static: nothing to add
    die "ldd $p failed: $out"
  fi
  while IFS= read -r line; do
    line=${line#"${line%%[![:space:]]*}"}
    if [[ "$line" =~ ^([^[:space:]]+)\ =\>\ not\ found ]]; then
      die "$n needs ${BASH_REMATCH[1]}, which ldd cannot find here (\"not found\"): install it or add its folder to LD_LIBRARY_PATH, and bundle again"
    elif [[ "$line" == *"not found"* ]]; then
      die "$n: ldd says: $line: fix this machine's libraries (the program does not run here either) and bundle again"
    elif [[ "$line" =~ ^([^[:space:]]+)\ =\>\ ([^[:space:]]+)\ \( ]]; then
      soname=${BASH_REMATCH[1]} file=${BASH_REMATCH[2]}
      file=$(readlink -f "$file")
      if [[ -n "${path_of[$soname]:-}" && "${path_of[$soname]}" != "$file" ]]; then
        die "$n loads $soname from $file, ${seen_from[$soname]} from ${path_of[$soname]}: bundle them separately"
      fi
      path_of[$soname]=$file
      seen_from[$soname]=$n
    fi
  done <<< "$out"
done

needed_of() { readelf -d "$1" 2> /dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p'; }

# Walk DT_NEEDED from the programs, stopping at what the node provides: a
# library of ldd's closure that the walk does not reach is needed only by
# libraries of the node, and the node's own copy goes with those.
declare -A bundled=() node_group=()
queue=()
for n in "${program_names[@]}"; do queue+=("${program_path[$n]}"); done
while [[ ${#queue[@]} -gt 0 ]]; do
  object=${queue[0]}
  queue=("${queue[@]:1}")
  while IFS= read -r soname; do
    [[ -n "$soname" ]] || continue
    soname=${soname##*/}
    [[ -z "${bundled[$soname]:-}" && -z "${node_group[$soname]:-}" ]] || continue
    group=$(group_of "$soname")
    if [[ "$group" == glibc || "$group" == driver || (-n "$group" && -z "${included[$group]:-}") ]]; then
      node_group[$soname]=$group
      continue
    fi
    [[ -n "${path_of[$soname]:-}" ]] || die "$object needs $soname, which ldd did not list: check that ldd $object finds it"
    bundled[$soname]=${path_of[$soname]}
    queue+=("${path_of[$soname]}")
  done < <(needed_of "$object")
done
for soname in "${!path_of[@]}"; do
  if [[ -z "${bundled[$soname]:-}" && -z "${node_group[$soname]:-}" ]]; then
    node_group[$soname]="$(group_of "$soname")"
    [[ -n "${node_group[$soname]}" ]] || node_group[$soname]="via-node-libraries"
  fi
done

# the tree, staged inside OUTDIR (same file system as the parts; /tmp may be
# a small tmpfs) and removed however the script ends
stage="$outdir/.stage"
archive="$name.$extension"
# OUTDIR was empty: on a failure (or an interrupt) it is left so again, and
# a second try needs no clean-up
cleanup() {
  local status=$?
  rm -rf "$stage"
  if [[ $status -ne 0 ]]; then
    rm -f "$outdir/$archive".part-* "$outdir/MANIFEST" "$outdir/SHA256SUMS"
  fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
mkdir -p "$stage/bin" "$stage/lib"
total=0
for n in "${program_names[@]}"; do
  cp -L "${program_path[$n]}" "$stage/bin/$n"
  chmod 755 "$stage/bin/$n"
  total=$((total + $(stat -c %s "$stage/bin/$n")))
done
mapfile -t libraries < <(printf '%s\n' "${!bundled[@]}" | LC_ALL=C sort)
for soname in "${libraries[@]}"; do
  cp -L "${bundled[$soname]}" "$stage/lib/$soname"
  chmod 644 "$stage/lib/$soname"
  total=$((total + $(stat -c %s "$stage/lib/$soname")))
done
stamp "${#program_names[@]} program(s), ${#libraries[@]} libraries, $((total / 1000000)) MB; left to the node: ${#node_group[@]} libraries (MANIFEST: provided-by-node)"

if [[ $have_patchelf -eq 1 ]]; then
  # replaces the build's run paths (build folders, /usr/local/cuda/lib, ...):
  # on the node only the bundle's lib/ and the node's own paths count
  for n in "${program_names[@]}"; do
    [[ -n "$(needed_of "$stage/bin/$n")" ]] || continue
    # shellcheck disable=SC2016 # $ORIGIN is the loader's, not the shell's
    patchelf --set-rpath '$ORIGIN/../lib' "$stage/bin/$n" ||
      die "patchelf --set-rpath failed on $n: bundle with --no-run-paths and run it through bin/run"
  done
  for soname in "${libraries[@]}"; do
    # shellcheck disable=SC2016
    patchelf --set-rpath '$ORIGIN' "$stage/lib/$soname" ||
      die "patchelf --set-rpath failed on $soname: bundle with --no-run-paths and run the programs through bin/run"
  done
  run_path_note="set (\$ORIGIN/../lib in programs, \$ORIGIN in libraries)"
  stamp "run paths set"
elif [[ $run_paths -eq 0 ]]; then
  run_path_note="left alone (--no-run-paths): run the programs through bin/run"
else
  run_path_note="left alone (no patchelf): run the programs through bin/run"
fi

# The launcher: the bundle's lib/ first on the loader path, so that a library
# without a run path (or with the build machine's) still loads from the
# bundle; the caller's LD_LIBRARY_PATH stays behind it (the node's CUDA, say).
cat > "$stage/bin/run" << 'EOF'
#!/bin/sh
# bin/run PROGRAM [ARGS...]: runs bin/PROGRAM of this bundle (made by
# cellwise's scripts/bundle-runtime.sh) with the bundle's lib/ first on the
# loader path. Under MPI: mpirun -n N BUNDLE/bin/run PROGRAM ARGS...
here=$(dirname "$(readlink -f "$0")")
if [ $# -eq 0 ] || [ "$1" = -h ] || [ "$1" = --help ]; then
  echo "usage: $0 PROGRAM [ARGS...]; the programs of this bundle:" $(ls "$here" | grep -vx run) >&2
  exit 2
fi
program=$1
shift
case "$program" in
  */* | run | "") echo "$0: give a program's name, one of:" $(ls "$here" | grep -vx run) >&2; exit 2 ;;
esac
if [ ! -x "$here/$program" ]; then
  echo "$0: no program $program in this bundle; it has:" $(ls "$here" | grep -vx run) >&2
  exit 2
fi
LD_LIBRARY_PATH="$here/../lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export LD_LIBRARY_PATH
exec "$here/$program" "$@"
EOF
chmod 755 "$stage/bin/run"

# the manifest: one "key: value" a line, read by unbundle-runtime.sh
{
  echo "# cellwise runtime bundle, made by scripts/bundle-runtime.sh; unpack with"
  echo "# scripts/unbundle-runtime.sh BUNDLEDIR TARGETDIR, run with TARGETDIR/bin/run PROGRAM ARGS..."
  echo "format: 1"
  echo "made: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(sed -n 's/^PRETTY_NAME="\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' /etc/os-release 2> /dev/null || true)"
  echo "run-paths: $run_path_note"
  echo "size: $total bytes unpacked, ${#program_names[@]} program(s) and ${#libraries[@]} libraries"
  for n in "${program_names[@]}"; do echo "program: $n $(stat -c %s "$stage/bin/$n")"; done
  for soname in "${libraries[@]}"; do echo "library: $soname $(stat -c %s "$stage/lib/$soname") ${bundled[$soname]}"; done
  while IFS= read -r soname; do
    echo "provided-by-node: $soname ${node_group[$soname]}"
  done < <(printf '%s\n' "${!node_group[@]}" | LC_ALL=C sort)
} > "$stage/MANIFEST"

if [[ $compression == zstd ]]; then
  # negative levels are zstd's --fast ones; above 19 needs --ultra
  if [[ $level -lt 0 ]]; then
    compressor=(zstd -q -T0 --fast="${level#-}")
  elif [[ $level -gt 19 ]]; then
    compressor=(zstd -q -T0 --ultra -"$level")
  else
    compressor=(zstd -q -T0 -"$level")
  fi
  [[ $long -gt 0 ]] && compressor+=(--long="$long")
else
  compressor=(gzip -n -"$level")
fi
stamp "packing: tar | ${compressor[*]} | split -b $part_size"
# owner root and sorted names: the same programs give the same archive; -a 3
# allows 1000 parts
tar -C "$stage" --owner=0 --group=0 --numeric-owner --sort=name -cf - MANIFEST bin lib |
  "${compressor[@]}" |
  split -b "$part_size" -d -a 3 - "$outdir/$archive.part-" ||
  die "packing failed (see above): check the free space in $outdir (more than 1000 parts? choose a larger --part-size)"
# the bundle's MANIFEST: the tree's, then how it was packed (the parts in
# the order they join), read by unbundle-runtime.sh
cp "$stage/MANIFEST" "$outdir/MANIFEST"
rm -rf "$stage"
parts=()
for part in "$outdir/$archive".part-*; do parts+=("${part##*/}"); done
compressed=0
for part in "${parts[@]}"; do compressed=$((compressed + $(stat -c %s "$outdir/$part"))); done
{
  echo "archive: $archive $compressed bytes in ${#parts[@]} parts of at most $part_size bytes"
  echo "compression: $compression"
  echo "level: $level"
  echo "window-log: $([[ $compression == zstd ]] && echo "$long" || echo 0)"
  for part in "${parts[@]}"; do echo "part: $part $(stat -c %s "$outdir/$part")"; done
} >> "$outdir/MANIFEST"
(cd "$outdir" && sha256sum "${parts[@]}" MANIFEST > SHA256SUMS)
if [[ $compression == zstd ]]; then
  # A GPU node may have libzstd but not the zstd command (Ubuntu 24.04's
  # CUDA images: measured 2026-12-07). The decompressor goes along in
  # zstd/, with the libraries it loads besides glibc; unbundle-runtime.sh
  # takes it where the node has no zstd of its own.
  mkdir -p "$outdir/zstd"
  cp "$(command -v zstd)" "$outdir/zstd/zstd"
  while IFS= read -r lib; do
    cp -L "$lib" "$outdir/zstd/"
  done < <(ldd "$(command -v zstd)" | awk '$2 == "=>" && $3 ~ /^\// {print $3}' | grep -Ev '/(libc|libm|libpthread|libdl|librt|ld-linux[^/]*)\.so')
fi

elapsed=$(($(date +%s) - start))
stamp "done in ${elapsed} s: ${#libraries[@]} libraries, $((total / 1000000)) MB unpacked, $((compressed / 1000000)) MB" \
  "as $compression -$level in ${#parts[@]} part(s) of at most $part_size bytes, in $outdir"
stamp "on the node: bash unbundle-runtime.sh $outdir TARGETDIR, then TARGETDIR/bin/run ${program_names[0]} ARGS..."
