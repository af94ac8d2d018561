#!/usr/bin/env bash
# Installs the Debian 12 packages that cellwise needs to build, test and run its
# examples. Idempotent: when every package is already installed it returns at
# once without touching apt. Set CELLWISE_SKIP_APT=1 to skip it altogether
# (e.g. on a machine where the dependencies come from elsewhere).
set -euo pipefail

PACKAGES=(
  build-essential g++ cmake make git ca-certificates pkg-config
  googletest libgtest-dev
  libdeal.ii-dev libdeal.ii-doc
  numdiff
  openmpi-bin libopenmpi-dev
  # scripts/bundle-runtime.sh: run paths of the bundled programs and
  # libraries (patchelf), compression of the parts (zstd)
  patchelf zstd
)

log() { echo "[install-dependencies] $*"; }

if [[ "${CELLWISE_SKIP_APT:-0}" == "1" ]]; then
  log "CELLWISE_SKIP_APT=1: not installing packages"
  exit 0
fi

if ! command -v dpkg-query > /dev/null 2>&1 || ! command -v apt-get > /dev/null 2>&1; then
  log "error: this script needs a Debian-based system (dpkg-query and apt-get);" >&2
  log "install the equivalent of: ${PACKAGES[*]}" >&2
  log "or set CELLWISE_SKIP_APT=1 when they are present" >&2
  exit 1
fi

missing=()
for pkg in "${PACKAGES[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2> /dev/null || true)
  if [[ "$status" != "installed" ]]; then
    missing+=("$pkg")
  fi
done

if [[ ${#missing[@]} -eq 0 ]]; then
  log "all required packages are installed"
  exit 0
fi

if [[ $(id -u) -eq 0 ]]; then
  SUDO=()
elif command -v sudo > /dev/null 2>&1; then
  SUDO=(sudo)
else
  log "error: missing packages (${missing[*]}) and not root, and sudo is not available" >&2
  exit 1
fi

log "missing packages: ${missing[*]}"
log "running apt-get update"
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update
log "installing: ${PACKAGES[*]}"
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive \
  apt-get install -y --no-install-recommends "${PACKAGES[@]}"
log "done"
