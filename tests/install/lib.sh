# Helpers of the install tests (sourced). BUILD: the build tree; PROGRAM: the demo example.
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
scratch() { # a directory every user can read, removed at exit
  SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/roofprof-install-test.XXXXXX")
  chmod 755 "$SCRATCH"
  trap 'rm -rf "$SCRATCH"' EXIT
}
# Runs "$@" with the build tree's companions and the private Valgrind engine hidden (an empty
# tmpfs over each, in a private mount namespace), so that only what the install carries is
# found; plainly where that is not possible (not root, no unshare).
hidden_build() {
  local hide=("$BUILD/lib/roofprof")
  [ -d /opt/roofprof/valgrind ] && hide+=(/opt/roofprof/valgrind)
  if [ "$(id -u)" -eq 0 ] && unshare -m true 2>/dev/null; then
    local mounts=""
    for d in "${hide[@]}"; do mounts+="mount -t tmpfs none '$d' && "; done
    unshare -m sh -c "$mounts"'exec "$@"' sh "$@"
  else
    echo "note: build tree not hidden (needs root and unshare)" >&2
    "$@"
  fi
}
# The command as user nobody (where the test runs as root and setpriv exists).
nobody_prefix() {
  if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
    echo setpriv --reuid=nobody --regid=nogroup --clear-groups
  fi
}
