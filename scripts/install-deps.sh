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
  zsh             # tests/install: the zsh completion
  clang           # libFuzzer for tests/fuzz (the main build uses g++)
  chromium chromium-driver
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

SUDO=""
if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1; then SUDO="sudo"; fi
can_install() { [ "$(id -u)" -eq 0 ] || [ -n "$SUDO" ]; }

if [ ${#missing[@]} -gt 0 ]; then
  if ! can_install; then
    echo "roofprof: missing packages (${missing[*]}) and not root; install them or run as root" >&2
    exit 2
  fi
  echo "roofprof: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq >/dev/null
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The emulation engine (issue 16): Valgrind 3.24 or newer. Where the system's is older (Debian
# 12 has 3.19), Debian 13's valgrind package is fetched with apt from the mirror this machine
# already uses and unpacked into a private prefix (never over the system's packages); the
# build finds it there (cmake/valgrind.cmake). Its launcher needs glibc 2.34, which Debian 12 has.
VALGRIND_ROOT=${ROOFPROF_VALGRIND_ROOT:-/opt/roofprof/valgrind}
VALGRIND_MIN=3.24
version_ok() { [ "$(printf '%s\n%s\n' "$VALGRIND_MIN" "$1" | sort -V | head -1)" = "$VALGRIND_MIN" ]; }
system_vg=$(valgrind --version 2>/dev/null | sed 's/^valgrind-//')
private_vg=$(VALGRIND_LIB="$VALGRIND_ROOT/usr/libexec/valgrind" "$VALGRIND_ROOT/usr/bin/valgrind.bin" --version 2>/dev/null | sed 's/^valgrind-//' || true)
if { [ -n "$system_vg" ] && version_ok "$system_vg"; } || { [ -n "$private_vg" ] && version_ok "$private_vg"; }; then
  exit 0
fi
if ! can_install; then
  echo "roofprof: valgrind ${system_vg:-none} is older than $VALGRIND_MIN and installing needs root: the build uses it" >&2
  exit 0
fi
echo "roofprof: fetching valgrind >= $VALGRIND_MIN (Debian 13) into $VALGRIND_ROOT" >&2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
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
apt_private=(-o Dir::Etc::SourceList=/dev/null -o "Dir::Etc::SourceParts=$work/sources"
             -o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache" -o Debug::NoLocking=1
             -o APT::Sandbox::User=root)
apt-get "${apt_private[@]}" update -qq >/dev/null
(cd "$work" && apt-get "${apt_private[@]}" download valgrind >/dev/null)
$SUDO rm -rf "$VALGRIND_ROOT.new"
$SUDO mkdir -p "$VALGRIND_ROOT.new"
$SUDO dpkg-deb -x "$work"/valgrind_*.deb "$VALGRIND_ROOT.new"
$SUDO rm -rf "$VALGRIND_ROOT"
$SUDO mv "$VALGRIND_ROOT.new" "$VALGRIND_ROOT"
VALGRIND_LIB="$VALGRIND_ROOT/usr/libexec/valgrind" "$VALGRIND_ROOT/usr/bin/valgrind.bin" --version >&2
