#!/usr/bin/env bash
# Installs roofprof's build and test dependencies from Debian packages.
# Idempotent: only missing packages are installed. Uses sudo when not root.
# Usage: scripts/install-deps.sh [--build]
#   --build  only what building and running roofprof needs (make demo, make install); without
#            it, the test suite's too (make test): GoogleTest, OpenBLAS, FFTW, Open MPI, Python
#            with numpy and SciPy, gfortran, zsh, clang, Chromium and its driver.
set -euo pipefail

BUILD_PACKAGES=(
  build-essential cmake g++ pkg-config
  libelf-dev libdw-dev libunwind-dev libcapstone-dev
  libfmt-dev libpfm4-dev libcli11-dev nlohmann-json3-dev
)
TEST_PACKAGES=(
  libgtest-dev libgmock-dev
  valgrind        # the system's (3.19 on Debian 12); the engine roofprof builds against is below
  libopenblas-dev libfftw3-dev
  openmpi-bin libopenmpi-dev
  python3 python3-numpy python3-scipy gfortran
  zsh             # tests/install: the zsh completion
  clang           # libFuzzer for tests/fuzz (the main build uses g++)
  chromium chromium-driver
)
case "${1:-}" in
  --build) PACKAGES=("${BUILD_PACKAGES[@]}") ;;
  "") PACKAGES=("${BUILD_PACKAGES[@]}" "${TEST_PACKAGES[@]}") ;;
  *) echo "scripts/install-deps.sh: unknown option '$1': use --build (roofprof alone) or nothing (with the tests')" >&2
     exit 2 ;;
esac

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

SUDO=""
if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1; then SUDO="sudo"; fi
can_install() { [ "$(id -u)" -eq 0 ] || [ -n "$SUDO" ]; }
if [ ${#missing[@]} -gt 0 ] && ! can_install; then
  echo "roofprof: missing packages (${missing[*]}) and not root; install them or run as root" >&2
  exit 2
fi

# The emulation engine (docs/emulation.md): Valgrind 3.24 or newer. Where the system's is older (Debian
# 12 has 3.19), Debian 13's valgrind package is fetched with apt from the mirror this machine
# already uses and unpacked into a private prefix (never over the system's packages); the
# build finds it there (cmake/valgrind.cmake). Its launcher needs glibc 2.34, which Debian 12 has.
# It uses apt with private lists and cache and no lock, so it runs while the packages install.
VALGRIND_ROOT=${ROOFPROF_VALGRIND_ROOT:-/opt/roofprof/valgrind}
VALGRIND_MIN=3.24
version_ok() { [ "$(printf '%s\n%s\n' "$VALGRIND_MIN" "$1" | sort -V | head -1)" = "$VALGRIND_MIN" ]; }
valgrind_needed() {
  local system_vg private_vg
  system_vg=$(valgrind --version 2>/dev/null | sed 's/^valgrind-//' || true)
  private_vg=$(VALGRIND_LIB="$VALGRIND_ROOT/usr/libexec/valgrind" "$VALGRIND_ROOT/usr/bin/valgrind.bin" --version 2>/dev/null | sed 's/^valgrind-//' || true)
  if { [ -n "$system_vg" ] && version_ok "$system_vg"; } || { [ -n "$private_vg" ] && version_ok "$private_vg"; }; then
    return 1
  fi
  if ! can_install; then
    echo "roofprof: valgrind ${system_vg:-none} is older than $VALGRIND_MIN and installing needs root: the build uses it" >&2
    return 1
  fi
}
fetch_valgrind() {
  local work mirror
  echo "roofprof: fetching valgrind >= $VALGRIND_MIN (Debian 13) into $VALGRIND_ROOT" >&2
  work=$(mktemp -d)
  mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/sources"
  # The mirror of the machine's own Debian sources, suite trixie.
  mirror=$(grep -hoE '^(URIs:[[:space:]]*|deb[[:space:]]+)[^[:space:]]+/debian/?([[:space:]]|$)' \
             /etc/apt/sources.list.d/*.sources /etc/apt/sources.list 2>/dev/null | awk '{print $NF}' | head -1 || true)
  mirror=${mirror:-http://deb.debian.org/debian}
  cat > "$work/sources/trixie.sources" <<SRC
Types: deb
URIs: $mirror
Suites: trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
  local apt_private=(-o Dir::Etc::SourceList=/dev/null -o "Dir::Etc::SourceParts=$work/sources"
                     -o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache" -o Debug::NoLocking=1
                     -o APT::Sandbox::User=root)
  apt-get "${apt_private[@]}" update -qq >/dev/null
  (cd "$work" && apt-get "${apt_private[@]}" download valgrind >/dev/null)
  $SUDO rm -rf "$VALGRIND_ROOT.new"
  $SUDO mkdir -p "$VALGRIND_ROOT.new"
  $SUDO dpkg-deb -x "$work"/valgrind_*.deb "$VALGRIND_ROOT.new"
  $SUDO rm -rf "$VALGRIND_ROOT"
  $SUDO mv "$VALGRIND_ROOT.new" "$VALGRIND_ROOT"
  rm -rf "$work"
  VALGRIND_LIB="$VALGRIND_ROOT/usr/libexec/valgrind" "$VALGRIND_ROOT/usr/bin/valgrind.bin" --version >&2
}

engine=""
if valgrind_needed; then
  fetch_valgrind &
  engine=$!
fi

if [ ${#missing[@]} -gt 0 ]; then
  echo "roofprof: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq >/dev/null
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
if [ -n "$engine" ] && ! wait "$engine"; then
  echo "roofprof: fetching the valgrind engine failed (above); run scripts/install-deps.sh again" >&2
  exit 1
fi
