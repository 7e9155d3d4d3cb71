#!/usr/bin/env bash
# Installs roofprof's build and test dependencies from Debian packages.
# Idempotent: only missing packages are installed. Uses sudo when not root.
set -euo pipefail

PACKAGES=(
  build-essential cmake g++ pkg-config
  libelf-dev libdw-dev libunwind-dev libcapstone-dev
  libfmt-dev libpfm4-dev libcli11-dev nlohmann-json3-dev
  libgtest-dev libgmock-dev
  valgrind
  libopenblas-dev libfftw3-dev
  openmpi-bin libopenmpi-dev
  python3 python3-numpy python3-scipy gfortran
  clang           # libFuzzer for tests/fuzz (the main build uses g++)
  chromium chromium-driver
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    echo "roofprof: missing packages (${missing[*]}) and not root; install them or run as root" >&2
    exit 2
  fi
fi

echo "roofprof: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >/dev/null
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
